"""The known history of the back-office pages (tests/review/history.py), for verify_books."""

from tests.review.history import awaiting, history  # noqa: F401  (fixtures)

"""The known history of tests/review/history.py, for the rows' tests (tests/audit/test_row_verify.py)."""

from tests.review.history import awaiting, history  # noqa: F401  (fixtures)

"""Fixtures for accounting's exports: the known history the review tests use (tests/review/history.py)."""

from tests.review.history import awaiting, history  # noqa: F401  (fixtures)

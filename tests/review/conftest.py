"""Fixtures for the pit boss's pages: the known history (tests/review/history.py)."""

from tests.review.history import awaiting, boss_croupier, history  # noqa: F401  (fixtures)

"""Accounting's reports: the streamed exports of a period (docs/review.md). Separate from review/
because its users differ and it will hold its own report runs (models, tasks, storage)."""

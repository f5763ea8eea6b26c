"""Accounting's reports: report runs written in the background, kept and downloaded (docs/reports.md).
Separate from review/ because its users differ and it holds its own models, tasks and storage."""

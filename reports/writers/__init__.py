"""Writers: a format-neutral report (reports/model.py) laid out in one file format.

Each ``write(report, out, progress) -> rows`` writes to a binary file and returns the data rows
written (headers and totals excluded), calling ``progress(rows, None)`` every few hundred rows.
CSV, XLSX and JSON Lines stream (constant memory); the PDF caps its data rows (writers/pdf.py).
"""

from __future__ import annotations

from collections.abc import Callable

#: progress(rows_done, rows_expected or None)
Progress = Callable[[int, int | None], None]

#: rows between two progress calls (and two writes of the CSV's buffer)
CHUNK_ROWS = 500

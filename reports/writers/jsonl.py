"""JSON Lines: one JSON object a line (UTF-8, ``\\n``), then the trailer objects if there are any
(the audit chains' signed heads: ``{"anchor": {...}}``, one per chain). Streams: a record is
written as it comes."""

from __future__ import annotations

from typing import BinaryIO

import orjson

from reports.builders import in_english
from reports.model import RecordReport
from reports.writers import CHUNK_ROWS, Progress


@in_english  # a builder's lines are read here, as the file is written
def write(report: RecordReport, out: BinaryIO, progress: Progress) -> int:
    option = orjson.OPT_SORT_KEYS if report.sort_keys else 0
    buffer: list[bytes] = []
    written = 0
    for record in report.records:
        buffer.append(orjson.dumps(record, option=option) + b"\n")
        written += 1
        if len(buffer) >= CHUNK_ROWS:
            out.write(b"".join(buffer))
            buffer.clear()
            progress(written, None)
    for trailer in report.trailers:
        buffer.append(orjson.dumps(trailer, option=orjson.OPT_SORT_KEYS) + b"\n")
    out.write(b"".join(buffer))
    progress(written, None)
    return written

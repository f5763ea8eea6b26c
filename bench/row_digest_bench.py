"""Benchmark: a bound row's digest and prints (audit.rows; a plain script: it prints numbers).

    .venv/bin/python bench/row_digest_bench.py [N]        # N rows a table, default 20,000

Every write binds its rows to its audit event by their digest and per-column prints, and
``verify_audit`` recomputes them over whole tables, so their CPU a row counts on every step, every
imported coup and every verification. Figure: ``RowReader.state`` (the row's JSON object in one
orjson call, each column's print kept by its value). Baseline, same process, same rows, same clock
(``time.process_time``): the reference functions ``row_digest`` then ``column_prints``, which
encode every column twice and hash every print; the two give the same bytes
(tests/audit/test_rows.py). Rows of the bound tables written most: a coup, its steps, its bets and
its cards, with typical values (an instant, a JSON payload, short strings, integers), each row
with an id and instants of its own as a real table's (their prints are new every row, the other
columns' recur). No database is read: the models only give the columns.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")

import django  # noqa: E402

django.setup()

from audit.rows import RowReader, column_prints, row_columns, row_digest  # noqa: E402
from bench.baseline import BenchRun  # noqa: E402
from tables.models import Bet, Coup, CoupStep, ShoeCard  # noqa: E402


def typical_row(model: Any) -> list[Any]:
    at = dt.datetime(2026, 12, 5, 21, 30, 15, 123456, tzinfo=dt.UTC)
    values: list[Any] = []
    for field in row_columns(model):
        kind = field.get_internal_type()
        if "DateTime" in kind:
            values.append(at)
        elif "JSON" in kind:
            values.append({"card": "2H", "seat": 3})
        elif "Boolean" in kind:
            values.append(False)
        elif "Char" in kind or "Text" in kind:
            values.append("card_to_player")
        else:
            values.append(4_212)
    return values


def distinct_rows(reader: RowReader, typical: list[Any], rows: int) -> list[list[Any]]:
    """``rows`` copies of ``typical``, each with its own id and instants (a microsecond apart)."""
    instants = [at for at, value in enumerate(typical) if isinstance(value, dt.datetime)]
    table = []
    for n in range(rows):
        values = list(typical)
        values[reader.pk_at] = n + 1
        for at in instants:
            values[at] = typical[at] + dt.timedelta(microseconds=n)
        table.append(values)
    return table


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    with BenchRun("row_digest_bench") as run:
        for model in (Coup, CoupStep, Bet, ShoeCard):
            reader = RowReader(model, "default")
            table = distinct_rows(reader, typical_row(model), rows)
            started = time.process_time()
            for values in table:
                row_digest(reader.table, reader.columns, values)
                column_prints(reader.columns, values)
            reference = (time.process_time() - started) / rows * 1e6
            started = time.process_time()
            for values in table:
                reader.state(values)
            figure = (time.process_time() - started) / rows * 1e6
            print(f"  {reader.table:<18} {figure:6.1f} µs a row, reference {reference:6.1f} µs")
            run.add(
                f"row_state_{model._meta.model_name}",
                figure=figure,
                baseline=reference,
                unit="µs CPU",
                baseline_label="row_digest + column_prints on the same row, same process",
            )


if __name__ == "__main__":
    main()

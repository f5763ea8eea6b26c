"""Running a report through ``reports.kinds.report_write`` in a test, and reading it back."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

from reports.kinds import ReportRequest, ReportResult, report_write
from tables.models import BankTurn, Coup, Seat, Shoe, Table
from tests.factories import (
    BankTaxFactory,
    BankTurnFactory,
    BetFactory,
    CoupFactory,
    CoupStepFactory,
    SeatFactory,
    ShoeFactory,
    TableSessionFactory,
)


def run(kind: str, fmt: str, start: dt.date, end: dt.date, **ids: Any) -> tuple[bytes, ReportResult]:
    out = io.BytesIO()
    calls: list[tuple[int, int | None]] = []
    result = report_write(
        request=ReportRequest(kind=kind, fmt=fmt, start=start, end=end, **ids),
        out=out,
        progress=lambda done, expected: calls.append((done, expected)),
    )
    assert calls and calls[-1] == (result.rows, None)
    return out.getvalue(), result


def csv_parts(body: bytes) -> tuple[dict[str, str], list[list[str]]]:
    """(the header block as a dict, the table: headings then lines) of a CSV report."""
    rows = list(csv.reader(io.StringIO(body.decode("utf-8"))))
    blank = rows.index([])
    header = {r[0]: r[1] for r in rows[:blank] if r[0] != "note"}
    return header, rows[blank + 1 :]


_FLOORS: dict[int, tuple[Shoe, BankTurn, list[Seat]]] = {}


def floor_of(table: Table) -> tuple[Shoe, BankTurn, list[Seat]]:
    """One session, shoe, banker and three punters per table (the constraints allow one open each)."""
    if table.pk not in _FLOORS:
        session = TableSessionFactory(table=table, opened_at=dt.datetime(2025, 1, 1, tzinfo=dt.UTC))
        shoe = ShoeFactory(session=session, shuffled_at=session.opened_at)
        turn = BankTurnFactory(session=session, seat__number=1)
        seats = [SeatFactory(session=session, number=n) for n in (2, 3, 4)]
        _FLOORS[table.pk] = (shoe, turn, seats)
    return _FLOORS[table.pk]


def settled_coup(table: Table, at: dt.datetime, *, bets: tuple[int, ...], outcome: str, levy: int) -> Coup:
    """A coup settled at ``at`` (rows only): its bets, its reveal's outcome and its levy."""
    shoe, turn, seats = floor_of(table)
    coup = CoupFactory(
        shoe=shoe, bank_turn=turn, created_at=at - dt.timedelta(minutes=1), state="settled", settled_at=at
    )
    for amount, seat in zip(bets, seats, strict=False):
        BetFactory(coup=coup, seat=seat, amount=amount)
    BetFactory(coup=coup, seat=seats[-1], amount=999, withdrawn=True)  # a withdrawn bet covers nothing
    CoupStepFactory(coup=coup, kind="reveal", payload={"verdict": {"outcome": outcome}}, created_at=at)
    if levy:
        BankTaxFactory(coup=coup, basis=sum(bets), amount=levy)
    return coup


def floors_forget() -> None:
    _FLOORS.clear()

"""Hourly fees: the pure calculation (ledger/fees.py). Their billing: tests/tables/money/test_fees.py."""

from __future__ import annotations

import datetime as dt

import pytest

from ledger import fees as f

UTC = dt.UTC


def at(hh: int, mm: int = 0) -> dt.datetime:
    return dt.datetime(2025, 1, 10, hh, mm, tzinfo=UTC)


# ------------------------------------------------------------------------------- pure calculation


def test_spans_subtract_and_union() -> None:
    spans = [f.Span(at(20), at(21)), f.Span(at(20, 30), at(21, 30))]
    assert f.spans_union(spans) == [f.Span(at(20), at(21, 30))]
    assert f.spans_subtract(spans, [f.Span(at(20, 10), at(20, 20))]) == [
        f.Span(at(20), at(20, 10)),
        f.Span(at(20, 20), at(21, 30)),
    ]
    assert f.spans_micros([f.Span(at(20), at(20, 1))]) == 60_000_000


def test_started_hour_bills_any_started_portion_and_pro_rata_rounds_down_to_the_chip() -> None:
    started = f.FeeTerms(amount=100, billing=f.STARTED_HOUR)
    pro_rata = f.FeeTerms(amount=100, billing=f.PRO_RATA, chip_unit=5)
    one_second = 1_000_000
    assert (started.fee_for(0), started.fee_for(one_second), started.fee_for(f.HOUR_MICROS)) == (0, 100, 100)
    # 59 minutes: 98.33 -> 95 (down to the 5-chip unit); 1 second: 0.03 -> 0
    assert pro_rata.fee_for(59 * 60 * one_second) == 95
    assert pro_rata.fee_for(one_second) == 0
    assert pro_rata.fee_for(f.HOUR_MICROS) == 100


def test_allocate_sums_exactly_by_largest_remainder() -> None:
    assert f.allocate(90, [("a", 50), ("b", 15)]) == {"a": 69, "b": 21}
    assert f.allocate(90, [("a", 30), ("b", 20), ("c", 5)]) == {"a": 49, "b": 33, "c": 8}
    assert f.allocate(10, [("a", 1), ("b", 1), ("c", 1)]) == {"a": 4, "b": 3, "c": 3}  # tie: earlier
    assert f.allocate(100, [("a", 1), ("b", 2)], unit=25) == {"a": 25, "b": 75}
    assert f.allocate(5, []) == {}


def _seats() -> list[f.SeatTime]:
    return [
        f.SeatTime("A", at(20, 10), at(22, 40)),
        f.SeatTime("B", at(20, 45), at(21, 30)),
        f.SeatTime("B", at(22, 5), at(22, 40)),
        f.SeatTime("C", at(21, 55), at(22, 0)),
    ]


PAUSES = [(at(21, 20), at(21, 50))]


@pytest.mark.parametrize(
    ("hour", "seated_minutes", "table_minutes"),
    [
        (20, {"A": 50, "B": 15, "C": 0}, 50),
        (21, {"A": 30, "B": 20, "C": 5}, 30),
        (22, {"A": 40, "B": 35, "C": 0}, 40),
    ],
)
def test_seated_time_excludes_pauses_and_absences(hour, seated_minutes, table_minutes) -> None:
    fees = f.hour_fees(
        terms=f.FeeTerms(amount=60),
        hour_start=at(hour),
        session_opened=at(20, 10),
        session_closed=at(22, 40),
        seats=_seats(),
        pauses=PAUSES,
    )
    assert {p: us // 60_000_000 for p, us in fees.seated_micros.items()} == seated_minutes
    assert fees.table_micros // 60_000_000 == table_minutes


def test_an_open_pause_and_an_open_seat_run_to_the_end_of_the_hour() -> None:
    fees = f.hour_fees(
        terms=f.FeeTerms(amount=60, billing=f.PRO_RATA),
        hour_start=at(20),
        session_opened=at(19),
        session_closed=None,
        seats=[f.SeatTime("A", at(19))],
        pauses=[(at(20, 45), None)],
    )
    assert fees.charges == {"A": 45}

"""Hourly fees for one session and one clock hour: pure functions, no database (docs/ledger.md).

Time is measured in whole microseconds (the resolution of the database's timestamps), so the
arithmetic is exact integers throughout: a pro-rata fee is ``fee * seconds / 3600`` rounded DOWN
to the casino's chip unit, with no float anywhere.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

HOUR = dt.timedelta(hours=1)
HOUR_MICROS = 3_600_000_000
_MICRO = dt.timedelta(microseconds=1)

PER_PLAYER_HOUR = "per_player_hour"
PER_TABLE_HOUR = "per_table_hour"
STARTED_HOUR = "started_hour"
PRO_RATA = "pro_rata"

#: whatever names a player here (the floor passes player ids): the fees are the same for any key
P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open interval of time [start, end)."""

    start: dt.datetime
    end: dt.datetime

    @property
    def micros(self) -> int:
        return max(0, (self.end - self.start) // _MICRO)


def spans_union(spans: Iterable[Span]) -> list[Span]:
    """Sorted, non-overlapping, non-empty spans covering exactly the same time."""
    merged: list[Span] = []
    for span in sorted((s for s in spans if s.end > s.start), key=lambda s: s.start):
        if merged and span.start <= merged[-1].end:
            if span.end > merged[-1].end:
                merged[-1] = Span(merged[-1].start, span.end)
        else:
            merged.append(span)
    return merged


def spans_clip(spans: Iterable[Span], lo: dt.datetime, hi: dt.datetime) -> list[Span]:
    return spans_union(Span(max(s.start, lo), min(s.end, hi)) for s in spans)


def spans_subtract(spans: Iterable[Span], holes: Iterable[Span]) -> list[Span]:
    """``spans`` minus every instant covered by ``holes``."""
    result = spans_union(spans)
    for hole in spans_union(holes):
        cut: list[Span] = []
        for span in result:
            if hole.end <= span.start or hole.start >= span.end:
                cut.append(span)
                continue
            if span.start < hole.start:
                cut.append(Span(span.start, hole.start))
            if hole.end < span.end:
                cut.append(Span(hole.end, span.end))
        result = cut
    return result


def spans_micros(spans: Iterable[Span]) -> int:
    return sum(s.micros for s in spans_union(spans))


@dataclass(frozen=True, slots=True)
class FeeTerms:
    amount: int  # chips per hour (per player or per table)
    basis: str = PER_PLAYER_HOUR
    billing: str = STARTED_HOUR
    chip_unit: int = 1

    def __post_init__(self) -> None:
        if self.amount < 0 or self.chip_unit < 1:
            raise ValueError("the fee is not negative and the chip unit is positive")
        if self.basis not in (PER_PLAYER_HOUR, PER_TABLE_HOUR):
            raise ValueError(f"unknown fee basis {self.basis!r}")
        if self.billing not in (STARTED_HOUR, PRO_RATA):
            raise ValueError(f"unknown fee billing {self.billing!r}")

    def fee_for(self, micros: int) -> int:
        """The fee for ``micros`` billable microseconds within one hour."""
        if micros <= 0:
            return 0
        if self.billing == STARTED_HOUR:
            return self.amount  # any started portion of the hour pays the whole hour
        unit = self.chip_unit
        return self.amount * min(micros, HOUR_MICROS) // (HOUR_MICROS * unit) * unit


@dataclass(frozen=True, slots=True)
class SeatTime(Generic[P]):
    """One seat row: a player sitting from ``joined_at`` until ``left_at`` (None: still seated)."""

    player: P
    joined_at: dt.datetime
    left_at: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class HourFees(Generic[P]):
    hour_start: dt.datetime
    table_micros: int  # the session open and not paused, within the hour
    seated_micros: dict[P, int]  # each player seated and not paused, within the hour
    charges: dict[P, int]  # what each player is charged (zero charges left out)
    table_fee: int = 0  # per table-hour: the fee for the hour, before allocation
    unallocated: int = 0  # per table-hour: a fee for an hour nobody sat in (nobody to charge)
    order: tuple[P, ...] = field(default_factory=tuple)  # players by first seating

    @property
    def total(self) -> int:
        return sum(self.charges.values())


def allocate(total: int, weights: Sequence[tuple[P, int]], *, unit: int = 1) -> dict[P, int]:
    """Split ``total`` chips in proportion to ``weights`` (largest remainder), in ``unit`` steps
    when ``total`` is a multiple of it. The shares sum to ``total`` exactly; ties for a leftover
    step go to the earlier in ``weights`` order."""
    weights = [(k, w) for k, w in weights if w > 0]
    if total <= 0 or not weights:
        return {}
    step = unit if total % unit == 0 else 1
    steps = total // step
    whole = sum(w for _, w in weights)
    shares = {k: steps * w // whole for k, w in weights}
    leftover = steps - sum(shares.values())
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(steps * weights[i][1] % whole), i))
    for i in by_remainder[:leftover]:
        shares[weights[i][0]] += 1
    return {k: s * step for k, s in shares.items() if s}


def hour_fees(
    *,
    terms: FeeTerms,
    hour_start: dt.datetime,
    session_opened: dt.datetime,
    session_closed: dt.datetime | None,
    seats: Sequence[SeatTime[P]],
    pauses: Sequence[Span | tuple[dt.datetime, dt.datetime | None]],
) -> HourFees[P]:
    """The fees for the clock hour [hour_start, hour_start + 1 h) of one session.

    Paused time is never billed. Per player-hour, each player pays for his own seated-and-not-paused
    time; per table-hour, the session's open-and-not-paused time is billed once and shared among
    the players who sat during the hour in proportion to their seated-and-not-paused time.
    """
    hour_end = hour_start + HOUR
    lo = max(hour_start, session_opened)
    hi = min(hour_end, session_closed) if session_closed is not None else hour_end
    holes = [p if isinstance(p, Span) else Span(p[0], p[1] if p[1] is not None else hour_end) for p in pauses]
    open_spans = spans_subtract(spans_clip([Span(lo, hi)], lo, hi), holes) if hi > lo else []
    table_micros = spans_micros(open_spans)

    by_player: dict[P, list[Span]] = {}
    first_seen: dict[P, dt.datetime] = {}
    for seat in seats:
        left = seat.left_at if seat.left_at is not None else hour_end
        by_player.setdefault(seat.player, []).append(Span(seat.joined_at, left))
        first_seen[seat.player] = min(first_seen.get(seat.player, seat.joined_at), seat.joined_at)
    order = tuple(sorted(by_player, key=lambda p: (first_seen[p], str(p))))
    seated = {
        p: spans_micros(spans_subtract(spans_clip(by_player[p], lo, hi), holes)) if hi > lo else 0
        for p in order
    }

    if terms.basis == PER_PLAYER_HOUR:
        charges = {p: terms.fee_for(us) for p, us in seated.items()}
        return HourFees(
            hour_start=hour_start,
            table_micros=table_micros,
            seated_micros=seated,
            charges={p: c for p, c in charges.items() if c},
            order=order,
        )
    table_fee = terms.fee_for(table_micros)
    charges = allocate(table_fee, [(p, seated[p]) for p in order], unit=terms.chip_unit)
    return HourFees(
        hour_start=hour_start,
        table_micros=table_micros,
        seated_micros=seated,
        charges=charges,
        table_fee=table_fee,
        unallocated=table_fee - sum(charges.values()),
        order=order,
    )

"""The cash-transaction log (compliance, docs/compliance.md): every cash transaction at the cage
above the casino's log threshold, in the order it was logged, with the period's totals per
direction (cash in and cash out are never netted).

- ``amount``: chips; ``value``: what they are worth at the casino's chip value, in its currency.
- The gaming day is the one the cage counted the transaction in.
- A player's open report (``cash-reports``) carries his day's total in a direction, every move of
  the day counted: it equals the sum of his lines of that day and direction here when each of his
  moves was above the log threshold (a smaller one counts there, and is not logged here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from django.db.models import QuerySet

from compliance.models import CashLogEntry, Direction
from compliance.selectors import cash_log_between, policy_for
from reports.builders import Scope, in_english, timed_report
from reports.columns import DIRECTION, GAMING_DAY, PLAYER, PLAYER_ID, TABLE, TRANSACTION_ID, VALUE
from reports.model import Column, ColumnType, Line, LineKind, Report, as_local

COLUMNS = (
    GAMING_DAY,
    Column("logged_at", "Logged", ColumnType.DATETIME, 1.5),
    PLAYER_ID,
    PLAYER,
    DIRECTION,
    Column("amount", "Chips", ColumnType.INT, 0.9),
    VALUE,
    Column("cashier", "Cashier", ColumnType.TEXT, 1.0),
    TABLE.at_width(1.0),
    TRANSACTION_ID,
)

DIRECTION_LABELS = {Direction.IN: "cash in", Direction.OUT: "cash out"}


def money(cents: int, currency: str) -> str:
    """``3001.00 EUR``: a value in hundredths, written with its currency."""
    return f"{cents // 100}.{cents % 100:02d} {currency}"


def policy_facts(scope: Scope) -> list[tuple[str, str]]:
    """The casino's policy as the file's header says it (what the thresholds were when written)."""
    assert scope.casino is not None  # per-casino kinds
    policy = policy_for(scope.casino)

    def threshold(value: int | None) -> str:
        return "none" if value is None else f"{value} {policy.currency}"

    return [
        ("Policy", policy.get_preset_display()),
        ("Log above", threshold(policy.log_threshold)),
        ("Report above (a day's total)", threshold(policy.report_threshold)),
        ("Identification at or above", threshold(policy.identification_threshold)),
        ("One chip", money(policy.chip_value_cents, policy.currency)),
    ]


def policy_report(
    scope: Scope,
    *,
    title: str,
    columns: tuple[Column, ...],
    rows: Callable[..., QuerySet[Any]],
    lines: Callable[[Scope, Iterator[Any], str], Iterator[Line]],
    note: str,
) -> Report:
    """A compliance report of one casino: its policy in the header (``policy_facts``), and the
    ``lines`` of the ``rows`` its selector finds for the period, in the casino's currency."""
    assert scope.casino is not None
    found = rows(casinos=frozenset({scope.casino.pk}), start=scope.start, end=scope.end)
    return timed_report(
        scope,
        title=title,
        facts=policy_facts(scope),
        columns=columns,
        lines=lines(scope, found.iterator(), policy_for(scope.casino).currency),
        notes=[note],
    )


NOTE = "Cash in and cash out are never netted: each direction has its own total."


@in_english
def cash_log_report(scope: Scope) -> Report:
    return policy_report(
        scope, title="Cash-transaction log", columns=COLUMNS, rows=cash_log_between, lines=_lines, note=NOTE
    )


def _lines(scope: Scope, entries: Iterator[CashLogEntry], currency: str) -> Iterator[Line]:
    totals = {Direction.IN: [0, 0], Direction.OUT: [0, 0]}  # chips, value in hundredths
    for e in entries:
        totals[Direction(e.direction)][0] += e.amount
        totals[Direction(e.direction)][1] += e.value_cents
        yield Line(
            (e.gaming_day, as_local(e.logged_at, scope.tz), e.player_id, e.player.display_name,
             DIRECTION_LABELS[Direction(e.direction)], e.amount, money(e.value_cents, currency),
             e.cashier.get_username() if e.cashier is not None else "system",
             e.table.name if e.table is not None else "", e.transaction_id)
        )  # fmt: skip
    for direction, (amount, cents) in totals.items():
        yield Line(
            ("period", None, None, "all players", DIRECTION_LABELS[direction], amount, money(cents, currency),
             None, None, None),
            LineKind.TOTAL,
        )  # fmt: skip

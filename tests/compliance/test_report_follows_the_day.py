"""A report to file carries the player's day's total in its direction (docs/compliance.md, "The
report follows the day"): an open report is brought up to the day's total by every move after it
opened (audited, bound), a filed one is frozen and the day's cash after it opens a supplementary
report; the log, the report, the ledger's totals and the cash-reports export agree."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.models import AuditEvent
from audit.row_verify import rows_verify
from audit.selectors import audit_chains_verify
from compliance import selectors, services
from compliance.models import CashLogEntry, CashReport
from compliance.services import IdentificationRequired
from tests.compliance.test_services import PASSPORT, buy, cash  # the cage's moves, as those tests make them
from tests.reports.helpers import csv_parts, run

from .conftest import new_player, won

pytestmark = pytest.mark.django_db

def logged(player, direction: str) -> int:
    """The player's log entries of one direction, summed (every gaming day: the tests play one)."""
    entries = CashLogEntry.objects.filter(player=player, direction=direction)
    return sum(entries.values_list("amount", flat=True))


def audited_rows_ok() -> bool:
    return all(r.ok for r in audit_chains_verify()) and rows_verify().differences == []


# ------------------------------------------------------------------------------------ the report
def test_the_open_report_follows_the_day_s_total_move_after_move(cashier, casino, dupont) -> None:
    """The reported case: 5,000 bought, then 17 buy-ins of 3,001, identified when asked: the
    report opened at 11,002 ends at 56,017, the log's sum, after each move."""
    buy(cashier, casino, dupont, 5_000)  # logged: above 3,000
    assert (CashLogEntry.objects.count(), CashReport.objects.count()) == (1, 0)
    buy(cashier, casino, dupont, 3_001)  # 8,001: under the report threshold
    assert CashReport.objects.count() == 0
    with pytest.raises(IdentificationRequired):
        buy(cashier, casino, dupont, 3_001)  # 11,002 needs him identified
    totals = []
    for n in range(16):
        buy(cashier, casino, dupont, 3_001, PASSPORT if n == 0 else None)
        report = CashReport.objects.get()  # still one
        day = report.gaming_day
        assert report.total == logged(dupont, "in") == selectors.day_totals(
            casino=casino, player=dupont, day=day
        ).cash_in
        assert report.total_value_cents == report.total * 100
        totals.append(report.total)
    assert totals == [8_001 + 3_001 * n for n in range(1, 17)]
    assert totals[0] == 11_002 and totals[-1] == 56_017
    report = CashReport.objects.get()
    assert (report.status, report.total, report.total_value_cents) == ("open", 56_017, 5_601_700)
    opened = AuditEvent.objects.get(action="compliance.cash_report.open")
    assert opened.after is not None and opened.after["total"] == 11_002 and "supplements" not in opened.after
    updates = AuditEvent.objects.filter(action="compliance.cash_report.update").order_by("pk")
    assert [(e.before, e.after["total"]) for e in updates if e.after is not None] == [
        ({"total": t - 3_001, "total_value_cents": (t - 3_001) * 100}, t) for t in totals[1:]
    ]
    assert {e.object_id for e in updates} == {str(report.pk)} and {e.actor for e in updates} == {cashier}
    assert report.transaction_id == opened.after["transaction"]  # the posting that opened it
    assert audited_rows_ok()  # every update bound to its event, as loaded and as changed
    # the export says the same
    body, _ = run("cash-reports", "csv", day, day, casino_id=casino.pk)
    _header, table = csv_parts(body)
    assert [(line[3], line[4], line[5], line[6], line[8]) for line in table[1:] if line[0] == "data"] == [
        ("M. Dupont", "cash in", "56017", "56017.00 EUR", "open")
    ]
    body, _ = run("cash-log", "csv", day, day, casino_id=casino.pk)
    _header, table = csv_parts(body)
    assert ["total", "period", "", "", "all players", "cash in", "56017", "56017.00 EUR", "", "", ""] in table


def test_a_move_under_the_log_threshold_still_counts_in_the_report(cashier, casino, dupont) -> None:
    """The report is the day's total (the ledger's), every move counted; the log lists the large ones."""
    buy(cashier, casino, dupont, 10_001, PASSPORT)
    buy(cashier, casino, dupont, 2_500)  # not logged
    report = CashReport.objects.get()
    assert (report.total, logged(dupont, "in")) == (12_501, 10_001)
    assert report.total == selectors.day_totals(casino=casino, player=dupont, day=report.gaming_day).cash_in


def test_cash_out_follows_too_and_the_directions_stay_apart(cashier, casino, dupont) -> None:
    won(casino, dupont, 100_000)
    cash(cashier, casino, dupont, 6_000)
    cash(cashier, casino, dupont, 6_000, PASSPORT)
    buy(cashier, casino, dupont, 4_000)
    cash(cashier, casino, dupont, 3_500)
    assert list(CashReport.objects.values_list("direction", "total", "status")) == [("out", 15_500, "open")]
    buy(cashier, casino, dupont, 7_000)  # in: 11,000
    assert sorted(CashReport.objects.values_list("direction", "total")) == [("in", 11_000), ("out", 15_500)]


# ------------------------------------------------------------------------------- after filing
def test_cash_after_the_report_is_filed_opens_a_supplementary_report(
    cashier, compliance_officer, casino, dupont
) -> None:
    buy(cashier, casino, dupont, 10_500, PASSPORT)
    first = CashReport.objects.get()
    services.cash_report_file(actor=compliance_officer, report=first)
    buy(cashier, casino, dupont, 3_001)  # the day: 13,501
    first.refresh_from_db()
    assert (first.status, first.total) == ("filed", 10_500)  # frozen as filed
    second = CashReport.objects.get(status="open")
    assert (second.gaming_day, second.direction, second.total, second.total_value_cents) == (
        first.gaming_day, "in", 13_501, 1_350_100,
    )  # fmt: skip
    opened = AuditEvent.objects.filter(action="compliance.cash_report.open").latest("pk")
    assert opened.object_id == str(second.pk)
    assert opened.after is not None
    assert (opened.after["supplements"], opened.after["total"]) == (first.pk, 13_501)
    # the supplementary report follows the day in its turn
    buy(cashier, casino, dupont, 500)
    second.refresh_from_db()
    assert second.total == 14_001 and CashReport.objects.count() == 2
    # filed too, and again: a third
    services.cash_report_file(actor=compliance_officer, report=second)
    buy(cashier, casino, dupont, 3_001)
    assert list(CashReport.objects.order_by("pk").values_list("total", "status")) == [
        (10_500, "filed"), (14_001, "filed"), (17_002, "open"),
    ]  # fmt: skip
    third = CashReport.objects.latest("pk")
    assert AuditEvent.objects.get(action="compliance.cash_report.open", object_id=str(third.pk)).after == {
        "player": dupont.pk, "direction": "in", "total": 17_002, "gaming_day": third.gaming_day.isoformat(),
        "transaction": third.transaction_id, "supplements": second.pk,
    }  # fmt: skip
    assert audited_rows_ok()
    day = first.gaming_day
    body, _ = run("cash-reports", "csv", day, day, casino_id=casino.pk)
    _header, table = csv_parts(body)
    assert [(line[5], line[8]) for line in table[1:] if line[0] == "data"] == [
        ("10500", "filed"), ("14001", "filed"), ("17002", "open"),
    ]  # fmt: skip


def test_the_database_keeps_one_open_report_a_day_and_direction(cashier, casino, dupont) -> None:
    receipt = buy(cashier, casino, dupont, 10_001, PASSPORT)
    report = CashReport.objects.get()
    other = buy(cashier, casino, dupont, 1).transaction
    with pytest.raises(IntegrityError), transaction.atomic():
        CashReport.objects.create(
            casino=casino, player=dupont, gaming_day=report.gaming_day, direction="in", total=1,
            total_value_cents=100, transaction=other,
        )  # fmt: skip
    assert report.transaction_id == receipt.transaction.pk


def test_a_filed_report_is_frozen_in_the_database(cashier, compliance_officer, casino, dupont) -> None:
    buy(cashier, casino, dupont, 10_001, PASSPORT)
    report = services.cash_report_file(actor=compliance_officer, report=CashReport.objects.get())
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        CashReport.objects.filter(pk=report.pk).update(total=99_999)
    report.refresh_from_db()
    assert report.total == 10_001


# ------------------------------------------------------------------------------------ property
MOVE = st.tuples(st.sampled_from(["in", "out"]), st.integers(1, 14_000))


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(moves=st.lists(st.tuples(st.integers(0, 1), MOVE), min_size=1, max_size=12), filings=st.data())
def test_after_any_moves_the_open_reports_carry_the_day_s_totals(
    cashier, compliance_officer, casino, moves, filings
) -> None:
    """Random buy-ins and cash-outs of two players (each identified at his first move), some
    reports filed along the way: per player and direction, a report exactly when the day's total
    is above the threshold, the latest carrying the day's total (the open one, or the one filed
    since the last move), which is the log's sum when every move of it was logged; the others
    filed; the totals never go down."""
    players = [new_player(casino=casino, display_name=f"P{n}") for n in range(2)]
    for player in players:
        won(casino, player, 500_000)  # chips to cash out, none of them cash in
    every_logged = {(p.pk, d): True for p in players for d in ("in", "out")}
    for who, (direction, amount) in moves:
        player = players[who]
        move = buy if direction == "in" else cash
        move(cashier, casino, player, amount, PASSPORT)
        every_logged[(player.pk, direction)] &= amount > 3_000
        if filings.draw(st.booleans(), label="file the open reports"):
            for report in CashReport.objects.filter(player=player, status="open"):
                services.cash_report_file(actor=compliance_officer, report=report)
    day = selectors.gaming_day_of(casino, timezone.now())
    for player in players:
        for direction in ("in", "out"):
            total = selectors.day_totals(casino=casino, player=player, day=day).of(direction)
            reports = list(CashReport.objects.filter(player=player, direction=direction).order_by("pk"))
            assert bool(reports) == (total > 10_000)
            if not reports:
                continue
            # the latest report carries the day's total, filed or not; the earlier ones are filed
            assert reports[-1].total == total and reports[-1].total_value_cents == total * 100
            assert all(r.status == "filed" for r in reports[:-1])
            assert [r.total for r in reports] == sorted(r.total for r in reports)
            assert {r.gaming_day for r in reports} == {day}
            if reports[-1].status == "open" and every_logged[(player.pk, direction)]:
                assert reports[-1].total == logged(player, direction)

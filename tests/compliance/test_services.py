"""Cash-transaction compliance at the cage: the log, the reports, identification before a move
that needs it (refused without, accepted with), both directions never netted, the gaming day's
edge, the masked document and its audited reads, and filing a report."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.models import AuditEvent
from audit.selectors import audit_chains_verify
from cage import services as cage
from compliance import selectors, services
from compliance.models import CashLogEntry, CashPolicy, CashReport, PlayerIdentification, mask
from compliance.services import DocumentIn, IdentificationRequired, ReportAlreadyFiled
from ledger.models import Transaction

from .conftest import everything, key, won

pytestmark = pytest.mark.django_db

PASSPORT = DocumentIn("passport", "12AB34567")


def buy(cashier, casino, player, amount, document=None):
    return cage.cage_buy_in(
        actor=cashier, casino=casino, player=player, amount=amount, key=key(), document=document
    )


def cash(cashier, casino, player, amount, document=None):
    return cage.cage_cash_out(
        actor=cashier, casino=casino, player=player, amount=amount, key=key(), document=document
    )


MOVES = {"in": buy, "out": cash}


def ready(casino, player, direction: str) -> None:
    """Chips enough to cash out, none of them cash in today."""
    if direction == "out":
        won(casino, player, 50_000)


# ------------------------------------------------------------------------------------------- the log
@pytest.mark.parametrize("direction", ["in", "out"])
def test_a_move_above_three_thousand_is_logged_one_chip_below_and_at_are_not(
    cashier, casino, dupont, direction
) -> None:
    ready(casino, dupont, direction)
    move = MOVES[direction]
    move(cashier, casino, dupont, 2_999)
    move(cashier, casino, dupont, 3_000)
    assert CashLogEntry.objects.count() == 0
    receipt = move(cashier, casino, dupont, 3_001)
    entry = CashLogEntry.objects.get()
    assert (entry.player, entry.direction, entry.amount, entry.value_cents, entry.cashier, entry.table) == (
        dupont,
        direction,
        3_001,
        300_100,
        cashier,
        None,
    )
    assert entry.transaction_id == receipt.transaction.pk
    assert entry.gaming_day == selectors.gaming_day_of(casino, entry.logged_at)
    event = AuditEvent.objects.get(action="compliance.cash_log.record")
    assert (event.actor, event.object_id) == (cashier, str(entry.pk))
    assert event.after is not None and event.after["amount"] == 3_001
    assert CashReport.objects.count() == 0  # the day: 2,999 + 3,000 + 3,001, under the report threshold
    assert selectors.day_totals(casino=casino, player=dupont, day=entry.gaming_day).of(direction) == 9_000
    assert all(report.ok for report in audit_chains_verify())


# --------------------------------------------------------------------------------------- the report
@pytest.mark.parametrize("direction", ["in", "out"])
def test_the_day_reaching_ten_thousand_needs_nothing_one_chip_above_needs_identification(
    cashier, casino, dupont, direction
) -> None:
    ready(casino, dupont, direction)
    move = MOVES[direction]
    move(cashier, casino, dupont, 6_000)
    move(cashier, casino, dupont, 3_999)  # 9,999: one chip below
    move(cashier, casino, dupont, 1)  # 10,000: at the threshold, not above it
    assert (CashReport.objects.count(), PlayerIdentification.objects.count()) == (0, 0)
    before = everything()
    with pytest.raises(IdentificationRequired) as refused:
        move(cashier, casino, dupont, 1)  # 10,001: above
    what = "buy-in" if direction == "in" else "cash-out"
    assert refused.value.message == (
        f"M. Dupont must be identified before this {what} of 1 chips (today's {what}s would reach "
        "10001 chips): give the identity document's type and number."
    )
    assert refused.value.code == "identification_required"
    assert everything() == before  # no posting, no entry, no log, no report, no event
    receipt = move(cashier, casino, dupont, 1, PASSPORT)
    report = CashReport.objects.get()
    assert (report.player, report.direction, report.total, report.total_value_cents, report.status) == (
        dupont,
        direction,
        10_001,
        1_000_100,
        CashReport.Status.OPEN,
    )
    assert report.transaction_id == receipt.transaction.pk
    identification = PlayerIdentification.objects.get()
    assert (identification.player, identification.document_type, identification.masked) == (
        dupont,
        "passport",
        "****4567",
    )
    assert identification.recorded_by == cashier
    recorded = AuditEvent.objects.get(action="compliance.identification.record")
    assert recorded.after == {"player": dupont.pk, "document_type": "passport", "number": "****4567"}
    assert AuditEvent.objects.filter(action="compliance.cash_report.open", actor=cashier).count() == 1
    # identified once: the next move above the threshold goes through, the day's report stays one
    move(cashier, casino, dupont, 5_000)
    assert (CashReport.objects.count(), PlayerIdentification.objects.count()) == (1, 1)
    assert all(r.ok for r in audit_chains_verify())


def test_cash_in_and_cash_out_are_not_netted(cashier, casino, dupont) -> None:
    dupont_id = DocumentIn("national_id", "FR-998877")
    buy(cashier, casino, dupont, 9_000)
    cash(cashier, casino, dupont, 9_000)  # his chips back: in 9,000, out 9,000, net nothing
    before = everything()
    with pytest.raises(IdentificationRequired):
        buy(cashier, casino, dupont, 1_001)  # cash in 10,001 today, whatever came out
    assert everything() == before
    buy(cashier, casino, dupont, 1_001, dupont_id)
    assert list(CashReport.objects.values_list("direction", "total")) == [("in", 10_001)]


def test_the_day_totals_start_again_at_the_gaming_day_s_cut_off(cashier, casino, dupont) -> None:
    first = buy(cashier, casino, dupont, 10_000)  # at the threshold
    posted = Transaction.objects.get(pk=first.transaction.pk).posted_at.astimezone(dt.UTC)
    # the cut-off a minute after that posting: the next move still belongs to its gaming day
    casino.time_zone, casino.gaming_day_cutoff = "UTC", (posted + dt.timedelta(minutes=1)).time()
    casino.save(update_fields=["time_zone", "gaming_day_cutoff"])
    before = everything()
    with pytest.raises(IdentificationRequired):
        buy(cashier, casino, dupont, 1)
    assert everything() == before
    # the cut-off moved to just after that posting, and passed: the next move opens a new day
    # (both clocks, the application's and the database's, are past it)
    casino.gaming_day_cutoff = (posted + dt.timedelta(milliseconds=200)).time()
    casino.save(update_fields=["gaming_day_cutoff"])
    time.sleep(max(0.0, (posted + dt.timedelta(milliseconds=300) - timezone.now()).total_seconds()))
    receipt = buy(cashier, casino, dupont, 1)
    assert receipt.balance == 10_001 and CashReport.objects.count() == 0
    second = Transaction.objects.get(pk=receipt.transaction.pk).posted_at
    next_day = selectors.gaming_day_of(casino, posted) + dt.timedelta(days=1)
    assert selectors.gaming_day_of(casino, second) == next_day


def test_a_move_is_counted_on_the_day_the_ledger_dates_it(cashier, casino, dupont, monkeypatch) -> None:
    """The check ran on the application's clock, the ledger dates the posting by the database's:
    where the two name different gaming days (the check just before the cut-off, the INSERT just
    after, or clocks that disagree), the move's duties are decided again for the ledger's day."""
    buy(cashier, casino, dupont, 10_000)  # today, at the threshold
    today = selectors.gaming_day_of(casino, timezone.now())
    # the application's clock a day ahead: its check sees an empty day, the ledger does not
    monkeypatch.setattr(services, "now", lambda: timezone.now() + dt.timedelta(days=1))
    before = everything()
    with pytest.raises(IdentificationRequired) as refused:
        buy(cashier, casino, dupont, 1)
    assert refused.value.message == (
        "M. Dupont must be identified before this buy-in of 1 chips (today's buy-ins would reach "
        "10001 chips): give the identity document's type and number."
    )
    assert everything() == before  # the posting rolled back with the refusal
    receipt = buy(cashier, casino, dupont, 1, PASSPORT)
    report = CashReport.objects.get()
    assert (report.gaming_day, report.total, report.transaction_id) == (today, 10_001, receipt.transaction.pk)
    assert selectors.day_totals(casino=casino, player=dupont, day=today).cash_in == 10_001
    assert all(r.ok for r in audit_chains_verify())


def test_the_eu_practice_identifies_before_two_thousand_or_more(cashier, casino, dupont) -> None:
    CashPolicy.objects.create(
        casino=casino,
        preset="eu_amld",
        log_threshold=None,
        report_threshold=None,
        identification_threshold=2_000,
    )
    buy(cashier, casino, dupont, 1_999)
    before = everything()
    with pytest.raises(IdentificationRequired):
        buy(cashier, casino, dupont, 2_000)
    assert everything() == before
    receipt = buy(cashier, casino, dupont, 2_000, PASSPORT)
    assert receipt.balance == 3_999
    assert (CashLogEntry.objects.count(), CashReport.objects.count()) == (0, 0)  # no log, no report there
    cash(cashier, casino, dupont, 2_001)  # identified: out too


def test_a_custom_policy_counts_chips_at_their_value(cashier, casino, dupont) -> None:
    CashPolicy.objects.create(
        casino=casino,
        preset="custom",
        log_threshold=3_000,
        report_threshold=None,
        chip_value_cents=500,
        currency="EUR",
    )
    buy(cashier, casino, dupont, 600)  # 3,000.00: at the log threshold
    assert CashLogEntry.objects.count() == 0
    buy(cashier, casino, dupont, 601)
    assert list(CashLogEntry.objects.values_list("amount", "value_cents")) == [(601, 300_500)]


def test_a_preset_keeps_its_own_thresholds_in_the_database(casino) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        CashPolicy.objects.create(casino=casino, preset="us_title31", report_threshold=5_000)
    with pytest.raises(IntegrityError), transaction.atomic():
        CashPolicy.objects.create(casino=casino, preset="custom", chip_value_cents=0)
    assert CashPolicy.objects.count() == 0


def test_a_replayed_key_writes_no_second_log_entry(cashier, casino, dupont) -> None:
    once = key()
    cage.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=5_000, key=once)
    again = cage.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=5_000, key=once)
    assert again.replayed and CashLogEntry.objects.count() == 1


def test_a_half_typed_document_is_refused() -> None:
    assert services.document_parse("", "") is None
    assert services.document_parse("passport", " 12AB34567 ") == PASSPORT
    with pytest.raises(ValidationError):
        services.document_parse("passport", "")
    with pytest.raises(ValidationError):
        services.document_parse("library_card", "123")
    with pytest.raises(ValidationError):
        services.document_parse("passport", "x" * 41)


# ------------------------------------------------------------------------------- privacy and rights
def test_a_document_number_is_shown_masked() -> None:
    assert (mask("12AB34567"), mask("98765"), mask("1234"), mask("")) == (
        "****4567",
        "****8765",
        "****",
        "****",
    )


def test_the_cage_and_compliance_read_an_identification_and_each_read_is_audited(
    cashier, compliance_officer, pit_boss, accountant, casino, dupont
) -> None:
    buy(cashier, casino, dupont, 100, PASSPORT)
    found = services.identification_read(actor=cashier, player=dupont)
    assert found is not None and found.document_number == "12AB34567"
    assert services.identification_read(actor=compliance_officer, player=dupont) == found
    reads = AuditEvent.objects.filter(action="compliance.identification.read").order_by("pk")
    assert [(e.actor, e.after) for e in reads] == [
        (cashier, {"player": dupont.pk, "found": True}),
        (compliance_officer, {"player": dupont.pk, "found": True}),
    ]
    before = everything()
    for who in (pit_boss, accountant):
        with pytest.raises(PermissionDenied):
            services.identification_read(actor=who, player=dupont)
    assert everything() == before


def test_compliance_marks_a_report_filed_once_and_nobody_else_may(
    cashier, compliance_officer, pit_boss, casino, dupont
) -> None:
    buy(cashier, casino, dupont, 10_001, PASSPORT)
    report = CashReport.objects.get()
    for who in (cashier, pit_boss):
        with pytest.raises(PermissionDenied):
            services.cash_report_file(actor=who, report=report)
    report.refresh_from_db()
    assert (report.status, report.filed_by, report.filed_at) == ("open", None, None)
    filed = services.cash_report_file(actor=compliance_officer, report=report)
    report.refresh_from_db()
    assert (report.status, report.filed_by, report.filed_at) == ("filed", compliance_officer, filed.filed_at)
    event = AuditEvent.objects.get(action="compliance.cash_report.file")
    assert (event.actor, event.before, event.object_id) == (
        compliance_officer,
        {"status": "open"},
        str(report.pk),
    )
    with pytest.raises(ReportAlreadyFiled):
        services.cash_report_file(actor=compliance_officer, report=report)
    assert AuditEvent.objects.filter(action="compliance.cash_report.file").count() == 1
    assert all(r.ok for r in audit_chains_verify())

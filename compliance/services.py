"""Writes of compliance, each audited in the caller's transaction (docs/compliance.md).

The cage asks twice around each posting, under the player's account lock (so two cashiers serving
the same player are counted one after the other):

- ``cash_move_check`` before it: the day's total in the move's direction, what the move obliges
  (log, report, identification) and, when the player must be identified, whether he is (on file,
  or a document given with the request); refused with ``IdentificationRequired`` otherwise, and
  nothing has been written;
- ``cash_move_record`` after it: the document given (recorded once per player), the log entry,
  and, while the day's total is above the report threshold, the report that carries it: opened
  when the total crossed the threshold, brought up to the day's total by every move after, and
  opened anew (supplementary) by a move after the day's report was filed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.timezone import now
from django.utils.translation import gettext_noop

from audit.rows import rows_loaded
from audit.services import audit_record
from compliance import selectors
from compliance.models import CashLogEntry, CashReport, Direction, DocumentType, PlayerIdentification
from compliance.permissions import check_can_read_identification, check_is_compliance
from compliance.rules import Duties, move_duties
from core.errors import Conflict, DomainError
from core.sentence import said
from ledger.models import Transaction
from tables.models import Casino, Player, Table

DOCUMENT_NUMBER_MAX = 40


class IdentificationRequired(DomainError):
    """The move needs the player identified and he is not: nothing was written."""

    code = "identification_required"


class ReportAlreadyFiled(Conflict):
    code = "report_already_filed"


@dataclass(frozen=True, slots=True)
class DocumentIn:
    """An identity document as typed at the cage."""

    document_type: str
    document_number: str


def document_parse(document_type: Any, document_number: Any) -> DocumentIn | None:
    """The document given with a request (None: none given). A half-filled or malformed one is
    refused (ValidationError), never stored."""
    kind = (document_type or "").strip() if isinstance(document_type, str) else document_type
    number = (document_number or "").strip() if isinstance(document_number, str) else document_number
    if not kind and not number:
        return None
    # English refusals (the API's words), said in its language by the screen that shows them
    # (tables.wording.say; docs/i18n.md)
    if kind not in DocumentType.values:
        raise ValidationError({"document_type": gettext_noop("Choose the type of the identity document.")})
    if (
        not isinstance(number, str)
        or not number
        or len(number) > DOCUMENT_NUMBER_MAX
        or not number.isprintable()
    ):
        raise ValidationError(
            {
                "document_number": said(
                    "Type the document's number (at most {most} characters).", most=DOCUMENT_NUMBER_MAX
                )
            }
        )
    return DocumentIn(kind, number)


@dataclass(frozen=True, slots=True)
class CashMovePlan:
    """What a cage move of ``amount`` chips obliges, decided before it is posted."""

    casino: Casino
    player: Player
    direction: str
    amount: int
    day: dt.date
    day_total_before: int
    duties: Duties
    identified: bool  # an identification is on file
    document: DocumentIn | None  # to record with the move (none on file yet)


def cash_move_check(
    *, casino: Casino, player: Player, direction: str, amount: int, document: DocumentIn | None = None
) -> CashMovePlan:
    """The duties of a move and whether it may go ahead; writes nothing. Raises
    ``IdentificationRequired`` when the player must be identified and is not, nor is a document given."""
    day = selectors.gaming_day_of(casino, now())
    before = selectors.day_totals(casino=casino, player=player, day=day).of(direction)
    return _move_plan(
        casino=casino, player=player, direction=direction, amount=amount, document=document,
        day=day, before=before,
    )  # fmt: skip


def _move_plan(
    *,
    casino: Casino,
    player: Player,
    direction: str,
    amount: int,
    document: DocumentIn | None,
    day: dt.date,
    before: int,
) -> CashMovePlan:
    """What a move of ``amount`` obliges on gaming day ``day``, where the player's total in its
    direction stood at ``before``; ``IdentificationRequired`` when he must be identified and is not."""
    policy = selectors.policy_for(casino)
    duties = move_duties(thresholds=selectors.thresholds_of(policy), day_total_before=before, amount=amount)
    identified = selectors.identification_of(player) is not None
    if duties.identification and not identified and document is None:
        pattern = (
            gettext_noop(
                "{player} must be identified before this buy-in of {amount} chips (today's buy-ins "
                "would reach {total} chips): give the identity document's type and number."
            )
            if direction == Direction.IN
            else gettext_noop(
                "{player} must be identified before this cash-out of {amount} chips (today's "
                "cash-outs would reach {total} chips): give the identity document's type and number."
            )
        )
        raise IdentificationRequired(
            said(pattern, player=str(player), amount=amount, total=duties.day_total_after)
        )
    return CashMovePlan(
        casino, player, direction, amount, day, before, duties, identified, None if identified else document
    )


def _identification_write(*, actor: Any, player: Player, document: DocumentIn) -> PlayerIdentification:
    identification = PlayerIdentification.objects.create(
        player=player, document_type=document.document_type, document_number=document.document_number,
        recorded_by=actor if getattr(actor, "is_authenticated", False) else None,
    )  # fmt: skip
    audit_record(
        actor=actor,
        action="compliance.identification.record",
        target=identification,
        casino=player.casino_id,
        # the trail keeps the masked number only: it is kept for ever, the document is personal data
        after={"player": player.pk, "document_type": document.document_type, "number": identification.masked},
        rows=[identification],
    )
    return identification


@transaction.atomic
def cash_move_record(
    *, actor: Any, plan: CashMovePlan, txn: Transaction, table: Table | None = None
) -> tuple[CashLogEntry | None, CashReport | None]:
    """After the posting ``txn`` of the move ``plan`` decided: the document given, the log entry
    and the report it obliges, each audited.

    The ledger dates the posting by the database's clock (``posted_at``), and the day's totals are
    the ledger's: when that clock put the posting on another gaming day than the check's (the
    check ran just before the cut-off, the INSERT just after, or the two clocks disagree), the
    move's duties are decided again for the posting's day, so the log, the report and the totals
    the next move reads all name the same day. A move that day's duties refuse (identification)
    raises, and the caller's transaction writes nothing."""
    posted_at = txn.posted_at
    if isinstance(posted_at, dt.datetime):  # (a backend that cannot return it leaves the default)
        day = selectors.gaming_day_of(plan.casino, posted_at)
        if day != plan.day:
            # the day's totals include this posting already: "before" is without it
            totals = selectors.day_totals(casino=plan.casino, player=plan.player, day=day)
            plan = _move_plan(
                casino=plan.casino, player=plan.player, direction=plan.direction, amount=plan.amount,
                document=plan.document, day=day, before=totals.of(plan.direction) - plan.amount,
            )  # fmt: skip
    cashier = actor if getattr(actor, "is_authenticated", False) else None
    if plan.document is not None:
        _identification_write(actor=actor, player=plan.player, document=plan.document)
    entry = report = None
    if plan.duties.log:
        entry = CashLogEntry.objects.create(
            casino=plan.casino, player=plan.player, direction=plan.direction, amount=plan.amount,
            value_cents=plan.duties.value_cents, gaming_day=plan.day, cashier=cashier, table=table,
            transaction=txn,
        )  # fmt: skip
        _move_audit(actor=actor, action="compliance.cash_log.record", row=entry, plan=plan, txn=txn,
                    chips=("amount", plan.amount))  # fmt: skip
    if plan.duties.report:
        report = _report_follow(actor=actor, plan=plan, txn=txn)
    return entry, report


def _report_follow(*, actor: Any, plan: CashMovePlan, txn: Transaction) -> CashReport:
    """The report of the move's player, gaming day and direction carries the day's total after it
    (docs/compliance.md, "The report follows the day"): the open one is brought up to it (locked,
    audited ``compliance.cash_report.update`` with the total before and after, bound as loaded and
    as changed); none open, one is opened with it: the day's first, or a supplementary one when the
    day's reports are all filed (a filed report is frozen: cash after it is reported anew, its
    event naming the last one filed)."""
    total, value = plan.duties.day_total_after, plan.duties.day_total_value_cents
    day_reports = CashReport.objects.filter(player=plan.player, gaming_day=plan.day, direction=plan.direction)
    # (a report being filed meanwhile is locked: this waits for it, and then finds it filed)
    report = day_reports.select_for_update().filter(status=CashReport.Status.OPEN).first()
    if report is None:
        filed = day_reports.filter(status=CashReport.Status.FILED).order_by("-pk")
        supplements = filed.values_list("pk", flat=True).first()
        report = CashReport.objects.create(
            casino=plan.casino, player=plan.player, gaming_day=plan.day, direction=plan.direction,
            total=total, total_value_cents=value, transaction=txn,
        )  # fmt: skip
        _move_audit(actor=actor, action="compliance.cash_report.open", row=report, plan=plan, txn=txn,
                    chips=("total", total),
                    extra={} if supplements is None else {"supplements": supplements})  # fmt: skip
        return report
    rows_loaded(report)
    before = {"total": report.total, "total_value_cents": report.total_value_cents}
    report.total, report.total_value_cents = total, value
    report.save(update_fields=["total", "total_value_cents"])
    _move_audit(actor=actor, action="compliance.cash_report.update", row=report, plan=plan, txn=txn,
                chips=("total", total), extra={"total_value_cents": value}, before=before)  # fmt: skip
    return report


def _move_audit(
    *,
    actor: Any,
    action: str,
    row: CashLogEntry | CashReport,
    plan: CashMovePlan,
    txn: Transaction,
    chips: tuple[str, int],
    extra: dict[str, Any] | None = None,
    before: dict[str, Any] | None = None,
) -> None:
    """The audit event of a row a cash move wrote (its log entry or its report): the player, the
    direction, the chips (``chips``: the row's name for them and their number), the gaming day and
    the posting (and ``extra``; ``before``: what a report's update changed), bound to the row."""
    name, amount = chips
    audit_record(
        actor=actor,
        action=action,
        target=row,
        casino=plan.casino.pk,
        before=before,
        after={
            "player": plan.player.pk,
            "direction": plan.direction,
            name: amount,
            "gaming_day": plan.day,
            "transaction": txn.pk,
            **(extra or {}),
        },
        rows=[row],
    )


@transaction.atomic
def cash_report_file(*, actor: Any, report: CashReport) -> CashReport:
    """Compliance filed the report with the regulator: who and when, audited. Filed once."""
    check_is_compliance(actor, report.casino_id)
    locked = CashReport.objects.select_for_update().get(pk=report.pk)
    rows_loaded(locked)
    if locked.status == CashReport.Status.FILED:
        raise ReportAlreadyFiled(
            said(
                "Already filed by {who} at {at}.",
                who=str(locked.filed_by),
                at=f"{locked.filed_at:%Y-%m-%d %H:%M}",
            )
        )
    locked.status, locked.filed_at, locked.filed_by = CashReport.Status.FILED, now(), actor
    locked.save(update_fields=["status", "filed_at", "filed_by"])
    audit_record(
        actor=actor,
        action="compliance.cash_report.file",
        target=locked,
        casino=locked.casino_id,
        before={"status": CashReport.Status.OPEN},
        after={"status": CashReport.Status.FILED, "filed_at": locked.filed_at},
        rows=[locked],
    )
    return locked


@transaction.atomic
def identification_read(*, actor: Any, player: Player) -> PlayerIdentification | None:
    """The player's identification in full, for the cage or compliance: the read is audited (who
    read whose document), so a look at personal data always leaves a trace."""
    check_can_read_identification(actor, player.casino_id)
    identification = selectors.identification_of(player)
    audit_record(
        actor=actor,
        action="compliance.identification.read",
        target=identification if identification is not None else player,
        casino=player.casino_id,
        after={"player": player.pk, "found": identification is not None},
    )
    return identification

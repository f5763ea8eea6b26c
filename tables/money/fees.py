"""The game side of hourly fees and card money: which session-hours are due and who is billed for
them (the pure arithmetic, what an hour costs and how a table-hour is shared, is ledger/fees.py's),
the fee postings, the FeeHour markers, and club card money charged once per seated player.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from audit.services import audit_record
from core.sentence import said
from core.services.outbox import outbox_enqueue
from ledger import fees as feecalc
from ledger.fees import HOUR
from ledger.models import Account, Entry, Transaction
from ledger.selectors import clock_hour_floor
from ledger.services import (
    InsufficientChips,
    Posting,
    account_debit_check,
    account_spec,
    accounts_by_pk,
    accounts_lock,
    posting_find,
    postings_write,
)
from tables.models import (
    Casino,
    FeeHour,
    FeePosting,
    Player,
    RuleProfile,
    Seat,
    SessionPause,
    Table,
    TableSession,
)

#: the task that bills one session-hour (tables.tasks), named: the outbox sends it by its name
BILL_HOURLY_FEES_TASK = "ledger.bill_hourly_fees"

logger = logging.getLogger(__name__)

Kind = Account.Kind
TKind = Transaction.Kind


def session_fee_hours(*, session: TableSession, now: dt.datetime) -> list[dt.datetime]:
    """The clock hours of a session that are over (or that the closed session no longer reaches)
    and so may be billed, in order (UTC)."""
    end = session.closed_at if session.closed_at is not None else now
    finished = session.closed_at is not None and session.closed_at <= now
    hours = []
    hour = clock_hour_floor(session.opened_at)
    while hour < end:
        if hour + HOUR <= now or finished:
            hours.append(hour)
        hour += HOUR  # UTC arithmetic: a DST change never skips or repeats an hour
    return hours


def hourly_fee_hours_due(*, now: dt.datetime | None = None) -> list[tuple[int, dt.datetime]]:
    """(session id, hour start) of every finished hour of every session of an hourly-fee table
    (its own levy mode, else its casino's) that is not yet marked billed."""
    now = now or timezone.now()
    sessions = (
        TableSession.objects.filter(
            Table.levy_mode_is(Casino.LevyMode.HOURLY_FEE, "table__"), opened_at__lt=now
        )
        .annotate(last_billed=Max("fee_hours__hour_start"))
        .filter(
            Q(closed_at__isnull=True) | Q(last_billed__isnull=True) | Q(closed_at__gt=F("last_billed") + HOUR)
        )
        .order_by("id")
    )
    due: list[tuple[int, dt.datetime]] = []
    for session in sessions:
        billed = set(FeeHour.objects.filter(session=session).values_list("hour_start", flat=True))
        due.extend((session.pk, h) for h in session_fee_hours(session=session, now=now) if h not in billed)
    return due


@dataclass
class HourlyFeeBill:
    session_id: int
    hour_start: dt.datetime
    charges: dict[int, int]  # player id -> chips charged
    transactions: list[Transaction] = field(default_factory=list)
    failures: dict[int, str] = field(default_factory=dict)  # player id -> why not charged
    already_billed: bool = False
    unallocated: int = 0

    @property
    def total(self) -> int:
        return sum(self.charges.values())


class _FeePosting(NamedTuple):
    """One posting of an hour's fees: the chips it charges (player id -> chips), its key, its memo."""

    charges: Mapping[int, int]
    key: str
    memo: str


def _fee_key(session: TableSession, who: str, hour_start: dt.datetime) -> str:
    return f"hourly_fee:session:{session.pk}:{who}:{hour_start.astimezone(dt.UTC):%Y-%m-%dT%H:%M:%SZ}"


def _hour_fees(session: TableSession, hour_start: dt.datetime) -> feecalc.HourFees[int]:
    casino = session.table.casino
    hour_end = hour_start + feecalc.HOUR
    seats = Seat.objects.filter(session=session, joined_at__lt=hour_end).filter(
        Q(left_at__isnull=True) | Q(left_at__gt=hour_start)
    )
    pauses = SessionPause.objects.filter(session=session, started_at__lt=hour_end).filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=hour_start)
    )
    return feecalc.hour_fees(
        terms=feecalc.FeeTerms(
            amount=casino.hourly_fee_amount,
            basis=casino.hourly_fee_basis,
            billing=casino.hourly_fee_billing,
            chip_unit=casino.chip_unit,
        ),
        hour_start=hour_start,
        session_opened=session.opened_at,
        session_closed=session.closed_at,
        seats=[feecalc.SeatTime(s.player_id, s.joined_at, s.left_at) for s in seats],
        pauses=[(p.started_at, p.ended_at) for p in pauses],
    )


@transaction.atomic
def hourly_fees_bill(
    *, session: TableSession, hour_start: dt.datetime, actor: Any = None, now: dt.datetime | None = None
) -> HourlyFeeBill:
    """Bill one finished clock hour of a session of an hourly-fee table (the fee's amount, basis
    and billing are its casino's).

    Per player-hour: one transaction per player (player → fee account), key
    ``hourly_fee:session:S:player:P:HOUR``. Per table-hour: one transaction for the table
    (key ``…:table:HOUR``), the fee shared among the players seated during the hour in proportion to
    their seated, unpaused time (docs/ledger.md). Where the table's rules let players borrow, a fee
    a player cannot pay is his marker; where they do not, he is left unbilled and reported in
    ``failures``; the hour is then not marked billed, so the next run retries him and, the other
    postings being idempotent, charges nobody twice.
    """
    # the session's row lock serialises two billings of its hours (the FeeHour check below)
    session = (
        TableSession.objects.select_for_update(of=("self",))
        .select_related("table__casino")
        .get(pk=session.pk)
    )
    casino = session.table.casino
    now = now or timezone.now()
    if session.table.effective_levy_mode != Casino.LevyMode.HOURLY_FEE:
        raise ValidationError(said("{table} does not charge hourly fees.", table=session.table.name))
    if timezone.is_naive(hour_start) or clock_hour_floor(hour_start) != hour_start:
        raise ValidationError(said("{hour} is not the start of a clock hour.", hour=str(hour_start)))
    hour_start = hour_start.astimezone(dt.UTC)
    if hour_start not in session_fee_hours(session=session, now=now):
        raise ValidationError(said("This hour is not over yet, or the session was not open in it."))
    fees = _hour_fees(session, hour_start)
    bill = HourlyFeeBill(
        session_id=session.pk, hour_start=hour_start, charges={}, unallocated=fees.unallocated
    )
    if FeeHour.objects.filter(session=session, hour_start=hour_start).exists():
        bill.already_billed = True
        keys = [_fee_key(session, "table", hour_start)] + [
            _fee_key(session, f"player:{pid}", hour_start) for pid in fees.charges
        ]
        bill.transactions = list(Transaction.objects.filter(idempotency_key__in=keys).order_by("id"))
        for player_id, amount in Entry.objects.filter(
            transaction__in=bill.transactions, account__kind=Kind.PLAYER
        ).values_list("account__player_id", "amount"):
            bill.charges[player_id] = bill.charges.get(player_id, 0) - amount
        return bill
    hour_label = f"{timezone.localtime(hour_start):%Y-%m-%d %H:%M}"
    players = {p.pk: p for p in Player.objects.filter(pk__in=list(fees.charges))}
    # the table's rules (a fee belongs to no coup): where they let players borrow, a fee a player
    # cannot pay is his marker
    borrowing = RuleProfile.objects.get(pk=session.table.profile_id).borrowing_allowed
    # one posting per player, or the table-hour's, shared
    postings: list[_FeePosting]
    if casino.hourly_fee_basis == Casino.FeeBasis.PER_PLAYER_HOUR:
        postings = [
            _FeePosting(
                {player_id: amount},
                _fee_key(session, f"player:{player_id}", hour_start),
                f"hourly fee {hour_label}, {session.table.name}: {players[player_id]}",
            )
            for player_id, amount in fees.charges.items()
        ]
    else:
        memo = f"table-hour fee {hour_label}, {session.table.name}: {fees.table_fee} shared"
        postings = (
            [_FeePosting(fees.charges, _fee_key(session, "table", hour_start), memo)] if fees.charges else []
        )
    for fee in postings:
        # each in its own savepoint: a refusal (chips the player has not got) is the bill's failure
        # for those it charges, and leaves the other postings standing
        try:
            with transaction.atomic():
                txn = _fee_post(
                    casino=casino,
                    session=session,
                    hour_start=hour_start,
                    charges=fee.charges,
                    players=players,
                    key=fee.key,
                    memo=fee.memo,
                    actor=actor,
                    borrowing=borrowing,
                )
        except InsufficientChips as refusal:
            bill.failures.update(dict.fromkeys(fee.charges, refusal.messages[0]))
            continue
        bill.charges.update(fee.charges)
        bill.transactions.append(txn)
    if bill.failures:
        logger.error(
            "hourly fees of session %s at %s not fully billed: %s", session.pk, hour_label, bill.failures
        )
        return bill
    marker = FeeHour.objects.create(session=session, hour_start=hour_start, billed_at=now, total=bill.total)
    audit_record(
        actor=actor,
        action="ledger.feehour.billed",
        target=marker,
        after={
            "session": session.pk,
            "hour_start": hour_start,
            "charges": {str(k): v for k, v in sorted(bill.charges.items())},
            "table_fee": fees.table_fee,
            "unallocated": fees.unallocated,
        },
        rows=[marker],
    )
    return bill


def _fee_post(
    *,
    casino: Casino,
    session: TableSession,
    hour_start: dt.datetime,
    charges: Mapping[int, int],
    players: Mapping[int, Player],
    key: str,
    memo: str,
    actor: Any,
    borrowing: bool,
) -> Transaction:
    if (txn := posting_find(key, casino=casino, kind=TKind.HOURLY_FEE)) is not None:
        return txn
    specs = [account_spec(Kind.FEE), *(account_spec(Kind.PLAYER, players[pid]) for pid in charges)]
    accounts = accounts_lock(casino=casino, specs=specs, actor=actor, players=players)
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=TKind.HOURLY_FEE)) is not None:
        return txn
    entries = {accounts[account_spec(Kind.FEE)].pk: sum(charges.values())}
    for pid, amount in charges.items():
        wallet = accounts[account_spec(Kind.PLAYER, players[pid])]
        account_debit_check(
            wallet,
            amount,
            allow_overdraft=borrowing,
            refusal=f"{players[pid]} has only {wallet.balance} chips; an hourly fee of {amount} is refused.",
        )
        entries[wallet.pk] = -amount
    posting = Posting(TKind.HOURLY_FEE, key, entries, memo)
    overdraft = [pk for pk in entries if pk != accounts[account_spec(Kind.FEE)].pk] if borrowing else []
    txn = postings_write(
        casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts), overdraft=overdraft
    )[0]
    # the session and hour the reports read, in the posting's own database transaction
    FeePosting.objects.create(
        transaction=txn, session=session, kind=FeePosting.Kind.HOURLY_FEE, hour_start=hour_start
    )
    return txn


def hourly_fees_enqueue_due(*, session: TableSession) -> None:
    """Ask the worker to bill the finished hours of ``session`` once this transaction commits
    (for a service closing a session: its last, partial hour is billable at once), through the
    outbox: one message per session-hour, ever (key), so a broker outage delays the billing and
    loses nothing; the task is idempotent besides (the ``FeeHour`` marker)."""
    hours = session_fee_hours(session=session, now=timezone.now())
    billed = set(
        FeeHour.objects.filter(session=session, hour_start__in=hours).values_list("hour_start", flat=True)
    )
    for hour in hours:
        if hour not in billed:
            outbox_enqueue(
                task=BILL_HOURLY_FEES_TASK,
                args=[session.pk, hour.isoformat()],
                key=f"ledger.bill_hourly_fees:session:{session.pk}:hour:{hour.isoformat()}",
            )


@transaction.atomic
def card_money_charge(*, session: TableSession, player: Player, actor: Any) -> Transaction | None:
    """Club card money: the casino's ``card_money_amount``, once per seated player per session
    (key ``card_money:session:S:player:P``). None when the amount is zero."""
    session = TableSession.objects.select_related("table__casino", "table__profile").get(pk=session.pk)
    casino = session.table.casino
    if session.table.profile.levy_mode != "card_money":
        raise ValidationError(said("{table} does not charge card money.", table=session.table.name))
    if not Seat.objects.filter(session=session, player=player).exists():
        raise ValidationError(said("{player} has not sat at this session.", player=str(player)))
    amount = casino.card_money_amount
    if amount == 0:
        return None
    key = f"card_money:session:{session.pk}:player:{player.pk}"
    if (txn := posting_find(key, casino=casino, kind=TKind.CARD_MONEY)) is not None:
        return txn
    specs = [account_spec(Kind.CARD_MONEY), account_spec(Kind.PLAYER, player)]
    accounts = accounts_lock(casino=casino, specs=specs, actor=actor, players={player.pk: player})
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=TKind.CARD_MONEY)) is not None:
        return txn
    house, wallet = (accounts[s] for s in specs)
    borrowing = session.table.profile.borrowing_allowed  # the table's rules: no coup names them here
    account_debit_check(
        wallet,
        amount,
        allow_overdraft=borrowing,
        refusal=f"{player} has only {wallet.balance} chips; card money of {amount} is refused.",
    )
    posting = Posting(
        TKind.CARD_MONEY,
        key,
        {wallet.pk: -amount, house.pk: amount},
        f"card money {session.table.name}: {player}",
    )
    txn = postings_write(
        casino=casino,
        actor=actor,
        postings=[posting],
        accounts=accounts_by_pk(accounts),
        overdraft=[wallet.pk] if borrowing else [],
    )[0]
    FeePosting.objects.create(transaction=txn, session=session, kind=FeePosting.Kind.CARD_MONEY)
    return txn

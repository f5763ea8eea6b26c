"""Importing a recorded history of coups (JSON Lines coup records, docs/coup-record.md) into a
table, through the same services a croupier's tablet uses: every step checked by the engine,
flagged coups restored where the record says which cards came next, settlements posted to the
ledger, everything audited.

A history is imported a chunk of records at a time (``coups_import``), one transaction a chunk
with the table locked once, through the batched writer of ``import_batch`` (the same engine calls,
postings and audit events as the services, written in bulk); a record that batch cannot play goes
through the services themselves (``coup_import``). Either way a record that cannot be imported
leaves nothing behind, and the rest of the chunk goes on.

Each record is imported once a table, by its ``id`` (``ImportedRecord``): a record whose id the
table has already imported is skipped, so importing the same file again imports nothing twice.

What a record does not say, the importer decides and documents:
- players are identified by their name in the record, kept as the membership number
  ``IMP-<name>``; ``seat-N`` sits at seat N, other names at the first free seat;
- the banker is not named: a player of membership number ``IMP:banker`` (outside the punters'
  ``IMP-<name>``, so that a punter named ``banker`` is a player of his own; histories imported
  before kept ``IMP-banker``, now that punter) sits at the highest free seat and is handed
  each coup's bank directly (``bank_assign_imported``);
- the shoe is not known: the importer uses imported 8-deck shoes (no burn cards, no reshuffle
  check) and starts a new one when the next record would show a card a ninth time;
- chips: ``buy_in`` chips from the cage for each player the first time he appears (0 = none).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import DatabaseError, transaction
from django.utils import timezone

from chemin_de_fer.engine.coup import CoupRecord, Restored, Verdict
from chemin_de_fer.engine.interchange import seats_refusal
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.machine import IllegalStep, Move, record_steps
from chemin_de_fer.engine.profiles import BUILTIN, Profile
from chemin_de_fer.engine.punters import key_seat_number, seat_key
from chemin_de_fer.engine.settlement import LevyTerms
from core.records import MAX_RECORD_CHIPS
from core.types import Staff
from ledger import services as ledger
from ledger.models import Account
from ledger.selectors import account_balance
from tables.engine_bridge import rules_snapshot
from tables.models import (
    BankTurn,
    Coup,
    ImportedRecord,
    Player,
    RuleProfile,
    Seat,
    Shoe,
    ShoeCard,
    Spectator,
    Table,
    TableSession,
)
from tables.services.banks import bank_assign_imported
from tables.services.corrections import correction_submit
from tables.services.coups import Caller, CoupConflict, StepRequest, coup_start, coup_step_record
from tables.services.floor import seat_leave, seat_take, spectator_join, table_session_open
from tables.services.import_batch import (
    _NEXT_SHOE,
    BANKER_NAME,
    BANKER_NUMBER,
    IMPORT_DECKS,
    NeedsServices,
    _Batch,
)
from tables.services.setup import player_create
from tables.services.shoes import shoe_close, shoe_start

#: records a transaction (import_coups): big enough to spread the fixed costs (the locks, the reads
#: of the table's state, one COPY a model), small enough that a chunk's rows sit in memory and that
#: its table stays locked for a couple of seconds at most (its audit events, some 8,000, are
#: appended at COMMIT, under the chain's lock, with one COPY)
CHUNK_RECORDS = 500
#: the largest bank, bet, house limit or chip unit a record may name: far above any table's, far
#: below what the ledger's 64-bit balances can add up. The record reader refuses a larger one first
#: (``core.records.MAX_RECORD_CHIPS``, with the sentence ``validate_coups`` gives the same line):
#: the check in :func:`record_import_id` stays as a guard for a record built otherwise
MAX_CHIPS = MAX_RECORD_CHIPS

#: what refuses one record (its line is reported, the rest goes on)
REFUSALS = (ValidationError, IllegalStep, CoupConflict, PermissionDenied)


@dataclass(frozen=True)
class ImportedCoup:
    coup: Coup
    verdict: Verdict  # the engine's verdict on the record, exactly as validate_coups gives it
    restored: bool  # a correction was submitted (it awaits a pit boss's approval)


@dataclass(frozen=True)
class LineOutcome:
    """What became of one record of a chunk: imported, skipped (its id was imported before) or
    refused (``error``, a sentence)."""

    imported: ImportedCoup | None = None
    skipped: bool = False
    error: str = ""


def record_import_id(record: CoupRecord) -> str:
    """The id a record is imported under (``ImportedRecord.record_id``), or ValueError saying why the
    record cannot be imported: no id, an id that is not a string or a whole number, a string the
    database cannot store (NUL) anywhere in the record, an amount beyond ``MAX_CHIPS`` (defensive:
    ``record_from_dict`` refuses such a line first, as ``validate_coups`` does). A whole
    number id and its decimal string are the same id."""
    rid = record.id
    if rid is None:
        raise ValueError("no id: a record is imported once a table by its id, so it needs one")
    if type(rid) is int:
        rid = str(rid)
    if type(rid) is not str:
        raise ValueError(f"the id must be a string or a whole number, not {_json_kind(rid)}")
    if not rid or len(rid) > ImportedRecord.ID_MAX_LENGTH:
        raise ValueError(f"the id must be 1 to {ImportedRecord.ID_MAX_LENGTH} characters long")
    texts = [("id", rid), ("profile", record.profile), ("active punter", record.active_punter or "")]
    texts += [("punter name", bet.punter) for bet in record.bets]
    for what, text in texts:
        if "\x00" in text:
            raise ValueError(f"the {what} {text!r} contains a NUL character")
    amounts = [("bank", record.bank), ("house limit", record.house_limit), ("chip unit", record.chip_unit)]
    amounts += [("bet", bet.amount) for bet in record.bets]
    for what, amount in amounts:
        if amount is not None and amount > MAX_CHIPS:
            raise ValueError(f"the {what} of {amount} chips is more than {MAX_CHIPS:,} (the import's limit)")
    return rid


def _json_kind(value: object) -> str:
    names = {list: "a list", dict: "an object", float: "a number with a fraction", bool: "true or false"}
    return names.get(type(value), type(value).__name__)


def refusal_message(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(exc.messages)
    if isinstance(exc, DatabaseError):
        first = str(exc).strip().splitlines()
        return f"the database refused this record: {first[0] if first else type(exc).__name__}"
    return str(exc)


def coups_import(
    *,
    actor: Staff,
    table: Table,
    records: Sequence[tuple[int, CoupRecord, str]],
    buy_in: int = 0,
) -> dict[int, LineOutcome]:
    """Import a chunk of ``(line number, record, record id)`` in one transaction, the table locked
    once: each record imported, skipped (its id already imported at this table, or earlier in the
    chunk) or refused (nothing of it written). Returns each line's outcome.

    The records go through the batched writer (``import_batch``, on PostgreSQL and SQLite alike);
    should writing its rows fail all the same (a bug, or a constraint it did not foresee), the chunk
    is rolled back and imported again record by record through the services, which then say which
    record it was."""
    try:
        return _chunk_import(actor=actor, table=table, records=records, buy_in=buy_in, batched=True)
    except DatabaseError:
        pass
    return _chunk_import(actor=actor, table=table, records=records, buy_in=buy_in, batched=False)


@transaction.atomic
def _chunk_import(
    *,
    actor: Staff,
    table: Table,
    records: Sequence[tuple[int, CoupRecord, str]],
    buy_in: int,
    batched: bool,
) -> dict[int, LineOutcome]:
    Table.objects.select_for_update().get(pk=table.pk)  # first, as every writer at a table
    done = set(
        ImportedRecord.objects.filter(table=table, record_id__in=[rid for _, _, rid in records]).values_list(
            "record_id", flat=True
        )
    )
    todo = any(rid not in done for _, _, rid in records)
    batch = _Batch(actor=actor, table=table, buy_in=buy_in) if batched and todo else None
    outcomes: dict[int, LineOutcome] = {}
    for number, record, rid in records:
        if rid in done:
            outcomes[number] = LineOutcome(skipped=True)
            continue
        try:
            outcomes[number] = LineOutcome(
                imported=_record_import(
                    actor=actor, table=table, record=record, rid=rid, buy_in=buy_in, batch=batch
                )
            )
        except REFUSALS as exc:
            outcomes[number] = LineOutcome(error=refusal_message(exc))
            continue
        done.add(rid)
    if batch is not None:
        batch.write()
    return outcomes


def _record_import(
    *, actor: Staff, table: Table, record: CoupRecord, rid: str, buy_in: int, batch: _Batch | None
) -> ImportedCoup:
    """One record: in the batch when it can play it, newcomers (a player to create, buy in, seat
    or stand) seated by the batch too; when only people are missing and the batch cannot seat
    them as the services would, the services seat them and the batch plays the record; else
    through the services (after the batch has written what it holds, and read again afterwards)."""
    if batch is None:
        return _services_import(actor=actor, table=table, record=record, buy_in=buy_in, rid=rid)
    profile = batch.profile(record.profile)
    verdict = record_verdict(record, profile)
    if batch.floor_fits(record):
        played = _batch_play(batch, record=record, rid=rid, verdict=verdict, profile=profile)
        if played is not None:
            return played
        if not batch.fits(record):
            return _newcomers_import(
                actor=actor,
                table=table,
                record=record,
                rid=rid,
                buy_in=buy_in,
                batch=batch,
                verdict=verdict,
                profile=profile,
            )
    batch.write()
    try:
        return _services_import(actor=actor, table=table, record=record, buy_in=buy_in, rid=rid)
    finally:
        batch.reload()


def _batch_play(
    batch: _Batch, *, record: CoupRecord, rid: str, verdict: Verdict, profile: Profile
) -> ImportedCoup | None:
    """The record played by the batch; None when it turns out to need the services (nothing of it
    kept: ``_Batch.mark``/``rewind``)."""
    mark = batch.mark()
    try:
        coup, restored = batch.coup_import(record=record, record_id=rid, verdict=verdict, profile=profile)
    except NeedsServices:
        batch.rewind(mark)
        return None
    except BaseException:
        batch.rewind(mark)
        raise
    return ImportedCoup(coup=coup, verdict=verdict, restored=restored)


def _newcomers_import(
    *,
    actor: Staff,
    table: Table,
    record: CoupRecord,
    rid: str,
    buy_in: int,
    batch: _Batch,
    verdict: Verdict,
    profile: Profile,
) -> ImportedCoup:
    """A record that names players not at the table yet: the services create, buy in and seat them
    (``_Importer``, as ``coup_import`` does first), the batch reads the table again and plays the
    record; where it still cannot, the rest of the record goes through the services. One savepoint
    holds it all, so a refused record leaves no one seated, as through the services."""
    batch.write()
    played: ImportedCoup | None = None
    try:
        with transaction.atomic():
            importer = _Importer(actor=actor, table=table, session=batch.open_session, buy_in=buy_in)
            seats = importer.seat_punters(record)
            importer.seat_banker(avoid=set(seats.values()))
            batch.reload()
            if batch.fits(record):
                played = _batch_play(batch, record=record, rid=rid, verdict=verdict, profile=profile)
            if played is not None:
                return played
            batch.write()
            return coup_import(actor=actor, table=table, record=record, buy_in=buy_in, record_id=rid)
    except DatabaseError as exc:  # a value the checks above let through and the database refused
        raise ValidationError(refusal_message(exc)) from None
    finally:
        # unless the batch played the record, the services wrote, or the savepoint rolled back what
        # the batch read inside it: the table is read again
        if played is None:
            batch.reload()


def _services_import(
    *, actor: Staff, table: Table, record: CoupRecord, buy_in: int, rid: str
) -> ImportedCoup:
    try:
        with transaction.atomic():  # a savepoint: a refused record leaves nothing behind
            return coup_import(actor=actor, table=table, record=record, buy_in=buy_in, record_id=rid)
    except DatabaseError as exc:  # a value the checks above let through and the database refused
        raise ValidationError(refusal_message(exc)) from None


def record_profile(slug: str) -> Profile:
    """A record's profile: a casino's own (derived) profile by slug, else a built-in one."""
    row = RuleProfile.objects.filter(slug=slug).first()
    if row is not None:
        return row.as_engine()
    if slug in BUILTIN:
        return BUILTIN[slug]
    raise ValidationError(f"unknown profile {slug!r}")


def record_verdict(record: CoupRecord, profile: Profile) -> Verdict:
    """The verdict ``validate_coups`` gives ``record`` under ``profile``; ValidationError (with
    ``validate_coups``'s sentence) for a record it refuses under that profile (more seated punters
    than the profile seats: ``interchange.seats_refusal``). Called before anything is written."""
    unseated = seats_refusal(record, profile)
    if unseated is not None:
        raise ValidationError(unseated)
    rules = Rules.for_profile(profile)
    return judge_coup(record, rules, levy=rules.levy_at(record.chip_unit))


@transaction.atomic
def coup_import(
    *, actor: Staff, table: Table, record: CoupRecord, buy_in: int = 0, record_id: str = ""
) -> ImportedCoup:
    """One record through the tablet's services, one step at a time (the reference the batched
    writer follows, and what it hands the records it cannot play). ``record_id``: remember it
    (``ImportedRecord``), so that the table never imports it again."""
    # the table's row first, as every writer at a table takes it: the import's player creations
    # and buy-ins take the audit chain's lock, which must come after it (no deadlock with a tablet)
    Table.objects.select_for_update().get(pk=table.pk)
    profile = record_profile(record.profile)
    verdict = record_verdict(record, profile)
    session = TableSession.objects.filter(table=table, closed_at__isnull=True).first()
    if session is None:
        session = table_session_open(actor=actor, table=table)
    importer = _Importer(actor=actor, table=table, session=session, buy_in=buy_in)
    seats = importer.seat_punters(record)
    banker_seat = importer.seat_banker(avoid=set(seats.values()))
    importer.shoe_for(record)
    # the history does not say how the bank went round: the banker keeps it only where the
    # record's bank could be his continuation (not below his minimum nor below what the bank holds)
    turn = BankTurn.objects.filter(session=session, ended_at__isnull=True).first()
    holding = account_balance(casino=table.casino, kind=Account.Kind.BANK, table=table)
    if (
        turn is None
        or turn.seat_id != banker_seat.pk
        or turn.required_minimum > record.bank
        or holding > record.bank
    ):
        bank_assign_imported(actor=actor, session=session, seat=banker_seat, minimum=profile.min_bank)
    rules = rules_snapshot(
        profile=profile,
        levy=LevyTerms.for_profile(profile, chip_unit=record.chip_unit),
        house_limit=record.house_limit,
    )
    coup = coup_start(
        actor=actor,
        session=session,
        amount=record.bank,
        rules=rules,
        first_coup_of_bank=record.first_coup_of_bank,
        history=True,
    ).coup
    for step in record_steps(record, banker=seat_key(banker_seat.number))[1:]:
        coup = coup_step_record(
            actor=actor,
            coup=coup,
            request=importer.request(step, seats),
            expected_step=coup.step_count,
            confirm=True,
        ).coup
    restored = False
    coup.refresh_from_db()
    if coup.state == Coup.State.AWAITING_CORRECTION and isinstance(verdict.restored, Restored):
        correction_submit(actor=actor, coup=coup, cards=list(verdict.restored.extra_cards))
        restored = True
        coup.refresh_from_db()
    if record_id:
        ImportedRecord.objects.create(coup=coup, table=table, record_id=record_id, imported_at=timezone.now())
    return ImportedCoup(coup=coup, verdict=verdict, restored=restored)


@dataclass
class _Importer:
    actor: Staff
    table: Table
    session: TableSession
    buy_in: int

    def player(self, name: str, *, number: str = "") -> Player:
        """The imported player a record names ``name`` (membership number ``IMP-<name>``), or the
        importer's banker (``number``: BANKER_NUMBER); created, and bought in, when new."""
        number = number or f"IMP-{name}"[:40]
        player = Player.objects.filter(casino=self.table.casino, membership_number=number).first()
        if player is None:
            player = player_create(
                actor=self.actor, casino=self.table.casino, display_name=name[:80], membership_number=number
            )
            if self.buy_in:
                ledger.cage_buy_in(
                    casino=self.table.casino,
                    player=player,
                    amount=self.buy_in,
                    actor=self.actor,
                    key=f"import:buy-in:{player.pk}",
                )
        return player

    def _occupied(self) -> dict[int, Seat]:
        return {
            s.number: s
            for s in Seat.objects.filter(session=self.session, left_at__isnull=True).select_related("player")
        }

    def seat_punters(self, record: CoupRecord) -> dict[str, Any]:
        """Seat (or stand) every punter of the record; returns punter name → Seat or Spectator."""
        where: dict[str, Any] = {}
        for bet in record.bets:
            if bet.punter in where:
                continue
            player = self.player(bet.punter)
            if bet.spectator:
                where[bet.punter] = self._stand(player)
            else:
                where[bet.punter] = self._sit(player, bet.punter)
        return where

    def _stand(self, player: Player) -> Spectator:
        present = Spectator.objects.filter(session=self.session, player=player, left_at__isnull=True).first()
        return present or spectator_join(actor=self.actor, session=self.session, player=player, imported=True)

    def _sit(self, player: Player, name: str) -> Seat:
        occupied = self._occupied()
        current = next((s for s in occupied.values() if s.player_id == player.pk), None)
        if current is not None:
            return current
        wanted = None
        number = key_seat_number(name)
        if number is not None and 1 <= number <= self.table.seat_count:
            wanted = number
            holder = occupied.get(wanted)
            if holder is not None:
                if holder.player.membership_number != BANKER_NUMBER:
                    raise ValidationError(f"seat {wanted} is taken by {holder.player} at this table")
                seat_leave(actor=self.actor, seat=holder)  # the imported banker moves over
                occupied.pop(wanted)
        if wanted is None:
            free = [n for n in range(1, self.table.seat_count + 1) if n not in occupied]
            if not free:
                raise ValidationError("no free seat for the record's punters")
            wanted = free[0]
        return seat_take(actor=self.actor, session=self.session, player=player, number=wanted, imported=True)

    def seat_banker(self, *, avoid: set[Any]) -> Seat:
        banker = self.player(BANKER_NAME, number=BANKER_NUMBER)
        occupied = self._occupied()
        current = next((s for s in occupied.values() if s.player_id == banker.pk), None)
        if current is not None and current not in avoid:
            return current
        free = [n for n in range(self.table.seat_count, 0, -1) if n not in occupied]
        if not free:
            raise ValidationError("no free seat for the banker")
        return seat_take(actor=self.actor, session=self.session, player=banker, number=free[0], imported=True)

    def shoe_for(self, record: CoupRecord) -> Shoe:
        """The open imported shoe, or a new one when this record would overdraw a card."""
        shoe = Shoe.objects.filter(table=self.table, state=Shoe.State.OPEN).first()
        needed = Counter(record.player.cards + record.banker.cards + record.shoe_next)
        if shoe is not None:
            seen = Counter(
                ShoeCard.objects.filter(shoe=shoe, card__in=list(needed)).values_list("card", flat=True)
            )
            if shoe.imported and all(seen[c] + n <= shoe.decks for c, n in needed.items()):
                return shoe
            shoe_close(actor=self.actor, shoe=shoe, reason=_NEXT_SHOE)
        return shoe_start(actor=self.actor, session=self.session, decks=IMPORT_DECKS, imported=True)

    def request(self, step: Any, seats: dict[str, Any]) -> StepRequest:
        kind = step.kind
        if kind is Move.BET:
            return StepRequest(kind=kind, amount=step.amount, **_where(seats[step.punter]))
        if kind is Move.BANCO:
            return StepRequest(
                kind=kind,
                callers=tuple(Caller(suivi=c.suivi, **_where(seats[c.punter])) for c in step.callers),
            )
        if kind in (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER):
            return StepRequest(kind=kind, card=step.card)
        return StepRequest(kind=kind)


class _Place(TypedDict, total=False):
    """Where a punter is, as StepRequest and Caller take it: a seat number or a spectator id."""

    seat: int
    spectator: int


def _where(place: Seat | Spectator) -> _Place:
    return {"seat": place.number} if isinstance(place, Seat) else {"spectator": place.pk}

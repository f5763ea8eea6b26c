"""Importing a recorded history of coups (JSON Lines coup records, docs/coup-record.md) into a
table, through the same services a croupier's tablet uses: every step checked by the engine,
flagged coups restored where the record says which cards came next, settlements posted to the
ledger, everything audited.

One record is one transaction: a record that cannot be imported leaves nothing behind.

What a record does not say, the importer decides and documents:
- players are identified by their name in the record, kept as the membership number
  ``IMP-<name>``; ``seat-N`` sits at seat N, other names at the first free seat;
- the banker is not named: an ``IMP-banker`` player sits at the highest free seat and is handed
  each coup's bank directly (``bank_assign_imported``);
- the shoe is not known: the importer uses imported 8-deck shoes (no burn cards, no reshuffle
  check) and starts a new one when the next record would show a card a ninth time;
- chips: ``buy_in`` chips from the cage for each player the first time he appears (0 = none).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction

from ledger import services as ledger
from ledger.models import Account
from ledger.selectors import account_balance
from tables.engine_bridge import rules_snapshot
from tables.models import (
    BankTurn,
    Coup,
    Player,
    RuleProfile,
    Seat,
    Shoe,
    ShoeCard,
    Spectator,
    Table,
    TableSession,
)
from tables.rules.coup import CoupRecord, Restored, Verdict
from tables.rules.judge import Rules, judge_coup
from tables.rules.machine import Move, record_steps
from tables.rules.profiles import BUILTIN, Profile
from tables.rules.punters import key_seat_number, seat_key
from tables.rules.settlement import LevyTerms
from tables.services.banks import bank_assign_imported
from tables.services.corrections import correction_submit
from tables.services.coups import Caller, StepRequest, coup_start, coup_step_record
from tables.services.floor import seat_leave, seat_take, spectator_join, table_session_open
from tables.services.setup import player_create
from tables.services.shoes import shoe_close, shoe_start

IMPORT_DECKS = 8
BANKER_NAME = "banker"


@dataclass(frozen=True)
class ImportedCoup:
    coup: Coup
    verdict: Verdict  # the engine's verdict on the record, exactly as validate_coups gives it
    restored: bool  # a correction was submitted (it awaits a pit boss's approval)


def record_profile(slug: str) -> Profile:
    """A record's profile: a casino's own (derived) profile by slug, else a built-in one."""
    row = RuleProfile.objects.filter(slug=slug).first()
    if row is not None:
        return row.as_engine()
    if slug in BUILTIN:
        return BUILTIN[slug]
    raise ValidationError(f"unknown profile {slug!r}")


def record_verdict(record: CoupRecord, profile: Profile) -> Verdict:
    rules = Rules.for_profile(profile)
    return judge_coup(record, rules, levy=rules.levy_at(record.chip_unit))


@transaction.atomic
def coup_import(
    *, actor: AbstractBaseUser, table: Table, record: CoupRecord, buy_in: int = 0
) -> ImportedCoup:
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
    return ImportedCoup(coup=coup, verdict=verdict, restored=restored)


@dataclass
class _Importer:
    actor: AbstractBaseUser
    table: Table
    session: TableSession
    buy_in: int

    def player(self, name: str) -> Player:
        number = f"IMP-{name}"[:40]
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
        return present or spectator_join(actor=self.actor, session=self.session, player=player)

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
                if holder.player.membership_number != f"IMP-{BANKER_NAME}":
                    raise ValidationError(f"seat {wanted} is taken by {holder.player} at this table")
                seat_leave(actor=self.actor, seat=holder)  # the imported banker moves over
                occupied.pop(wanted)
        if wanted is None:
            free = [n for n in range(1, self.table.seat_count + 1) if n not in occupied]
            if not free:
                raise ValidationError("no free seat for the record's punters")
            wanted = free[0]
        return seat_take(actor=self.actor, session=self.session, player=player, number=wanted)

    def seat_banker(self, *, avoid: set[Any]) -> Seat:
        banker = self.player(BANKER_NAME)
        occupied = self._occupied()
        current = next((s for s in occupied.values() if s.player_id == banker.pk), None)
        if current is not None and current not in avoid:
            return current
        free = [n for n in range(self.table.seat_count, 0, -1) if n not in occupied]
        if not free:
            raise ValidationError("no free seat for the banker")
        return seat_take(actor=self.actor, session=self.session, player=banker, number=free[0])

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
            shoe_close(actor=self.actor, shoe=shoe, reason="imported history: next shoe")
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


def _where(place: Seat | Spectator) -> dict[str, int]:
    return {"seat": place.number} if isinstance(place, Seat) else {"spectator": place.pk}

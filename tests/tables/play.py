"""Drive a table through the real services, as a croupier would: shared by service, API and
screen tests so they all exercise the same paths."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Model
from django.utils import timezone

from audit.models import AuditEvent
from chemin_de_fer.engine.machine import Move
from core.cards import ALL_CARDS
from core.models import IdempotencyRecord
from ledger import services as ledger
from ledger.models import Transaction
from tables import services
from tables.models import (
    BankTurn,
    Bet,
    Coup,
    CoupStep,
    Player,
    Seat,
    Shoe,
    ShoeCard,
    Spectator,
    Table,
    TableSession,
)
from tables.services import Caller, StepRequest
from tests.factories import PlayerFactory

K = Move


@dataclass
class Floor:
    croupier: Any
    table: Table
    session: TableSession
    seats: dict[int, Seat]
    shoe: Shoe
    spectators: list[Spectator] = field(default_factory=list)

    @property
    def players(self) -> dict[int, Player]:
        return {n: s.player for n, s in self.seats.items()}


def open_floor(
    croupier: Any,
    table: Table,
    *,
    seats: Iterable[int] = (1, 2, 3, 4),
    spectators: int = 0,
    chips: int = 1000,
    decks: int | None = None,
    burnt: tuple[str, ...] | None = None,
    banker_seat: int | None = 1,
    stop_card_position: int | None = None,
) -> Floor:
    """Open a session, seat players (each bought in for ``chips``), start a shoe and give the bank
    to ``banker_seat`` by lot."""
    session = services.table_session_open(actor=croupier, table=table)
    seated: dict[int, Seat] = {}
    standing: list[Spectator] = []
    for n in seats:
        player = PlayerFactory(casino=table.casino, display_name=f"Player {n}")
        if chips:
            ledger.cage_buy_in(
                casino=table.casino, player=player, amount=chips, actor=croupier, key=f"buyin:{player.pk}"
            )
        seated[n] = services.seat_take(actor=croupier, session=session, player=player, number=n)
    for _ in range(spectators):
        player = PlayerFactory(casino=table.casino)
        if chips:
            ledger.cage_buy_in(
                casino=table.casino, player=player, amount=chips, actor=croupier, key=f"buyin:{player.pk}"
            )
        standing.append(services.spectator_join(actor=croupier, session=session, player=player))
    profile = table.profile
    if decks is None:
        decks = len(seated) if profile.decks_per_seated_player else profile.decks_allowed[0]
    if burnt is None:
        burnt = ("2C", "3C", "4C")[: profile.burn_cards_min]
    shoe = services.shoe_start(
        actor=croupier,
        session=session,
        decks=decks,
        burnt_cards=burnt,
        stop_card_position=stop_card_position,
    )
    floor = Floor(
        croupier=croupier, table=table, session=session, seats=seated, shoe=shoe, spectators=standing
    )
    if banker_seat is not None:
        services.bank_first_assign(actor=croupier, session=session, seat=floor.seats[banker_seat])
    return floor


def shoe_dealt_down_to(floor: Floor, *, left: int, keep: Iterable[str] = ()) -> None:
    """Take cards out of the floor's shoe, as earlier coups would have, until ``left`` remain; the
    cards ``keep`` (the coming coup's) stay in it. Recorded as burnt rows, which need no coup: a
    test about the end of a shoe needs the count, not three hundred coups."""
    shoe = floor.shoe
    seen = Counter(ShoeCard.objects.filter(shoe=shoe).values_list("card", flat=True))
    seen.update(keep)
    dealt = sum(seen.values()) - len(list(keep))
    wanted = shoe.size - left - dealt
    out: list[str] = []
    for code in ALL_CARDS:
        spare = shoe.decks - seen[code]
        out += [code] * max(spare, 0)
    assert len(out) >= wanted >= 0, "the shoe cannot be dealt down that far"
    now = timezone.now()
    ShoeCard.objects.bulk_create(
        ShoeCard(shoe=shoe, position=dealt + i + 1, card=code, role=ShoeCard.Role.BURN, seen_at=now)
        for i, code in enumerate(out[:wanted])
    )


def seat_number(seat: Seat | None) -> int | None:
    """A bank turn's seat (or rotation anchor) number; None when the house banks from no seat."""
    return seat.number if seat is not None else None


def bank_turn(floor: Floor) -> BankTurn | None:
    return BankTurn.objects.filter(session=floor.session, ended_at__isnull=True).first()


def held_bank_turn(floor: Floor) -> BankTurn:
    """The bank turn under way: somebody must hold the bank."""
    turn = bank_turn(floor)
    assert turn is not None, "nobody holds the bank"
    return turn


def step(
    floor: Floor, coup: Coup, kind: Move, *, confirm: bool = False, **fields: Any
) -> services.StepResult:
    coup.refresh_from_db()
    return services.coup_step_record(
        actor=floor.croupier,
        coup=coup,
        request=StepRequest(kind=kind, **fields),
        expected_step=coup.step_count,
        confirm=confirm,
    )


def play(
    floor: Floor,
    *,
    bank: int,
    bets: Iterable[tuple[int, int]] = (),
    banco: Iterable[Caller] = (),
    cards: tuple[str, str, str, str],
    player: str,
    player_card: str | None = None,
    banker: str | None = None,
    banker_card: str | None = None,
    confirm: bool = False,
) -> Coup:
    """One whole coup: ``bets`` as (seat, amount); ``player``/``banker`` the decisions as step kinds'
    suffixes (``natural``, ``draw``, ``stand``); cards P1 B1 P2 B2, then third cards."""
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=bank).coup
    for seat, amount in bets:
        step(floor, coup, K.BET, seat=seat, amount=amount)
    callers = tuple(banco)
    if callers:
        step(floor, coup, K.BANCO, callers=callers)
    step(floor, coup, K.BETS_CLOSED)
    p1, b1, p2, b2 = cards
    for kind, card in (
        (K.CARD_TO_PLAYER, p1),
        (K.CARD_TO_BANKER, b1),
        (K.CARD_TO_PLAYER, p2),
        (K.CARD_TO_BANKER, b2),
    ):
        step(floor, coup, kind, card=card)
    step(floor, coup, Move(f"player_{player}"), confirm=confirm)
    if player_card is not None:
        step(floor, coup, K.CARD_TO_PLAYER, card=player_card, confirm=confirm)
    if banker is not None:
        step(floor, coup, Move(f"banker_{banker}"), confirm=confirm)
    if banker_card is not None:
        step(floor, coup, K.CARD_TO_BANKER, card=banker_card, confirm=confirm)
    step(floor, coup, K.REVEAL)
    coup.refresh_from_db()
    return coup


#: every table a refused request must leave alone, from the coup's own rows to the audit trail
GUARDED_MODELS: tuple[type[Model], ...] = (
    CoupStep, Coup, Bet, ShoeCard, Shoe, BankTurn, Seat, Spectator, Player,
    AuditEvent, IdempotencyRecord, Transaction,
)  # fmt: skip


def row_counts() -> dict[str, int]:
    """How many rows each guarded table holds: compare before and after a refusal."""
    return {model.__name__: model._default_manager.count() for model in GUARDED_MODELS}


def coup_with_bets(floor: Floor, *bets: tuple[int, int], bank: int = 400) -> Coup:
    """A coup started with ``bank`` and the ``bets`` (seat, amount) recorded: open, no card yet."""
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=bank).coup
    for seat, amount in bets:
        step(floor, coup, Move.BET, seat=seat, amount=amount)
    coup.refresh_from_db()
    return coup


def void_limit_set(table: Table, chips: int | None) -> None:
    """The chips at stake above which a void at ``table``'s casino waits for a second pit boss."""
    table.casino.void_second_approval_above = chips
    table.casino.save(update_fields=["void_second_approval_above"])

"""Reads for tables, staff and assignments. No writes here."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.utils import timezone

from tables.engine_bridge import (
    bet_player,
    bet_punter_key,
    cards_parse,
    coup_bets,
    coup_levy,
    coup_replay,
    coup_restore,
)
from tables.models import (
    UNFINISHED_COUP_STATES,
    BankOffer,
    BankShare,
    BankTurn,
    Coup,
    CoupStep,
    CroupierAssignment,
    RuleProfile,
    Seat,
    ShoeCard,
    Table,
    TableSession,
)
from tables.permissions import reads_everything
from tables.roles import ROLE_LABELS, Role
from tables.rules.advice import Advice, advise_banker, advise_player
from tables.rules.cards import remaining_by_points
from tables.rules.coup import NeedsCards, Restored
from tables.rules.machine import CoupProgress, NextStep, next_steps, requirement
from tables.rules.order import betting_order, rotation_order
from tables.rules.profiles import Side
from tables.rules.punters import seat_key
from tables.rules.tableau import Requirement


def user_roles(*, user: AbstractBaseUser | AnonymousUser) -> list[str]:
    """The user's role names (groups that are roles), in a stable order."""
    if not user.is_authenticated:
        return []
    names = set(user.groups.values_list("name", flat=True))
    return [role.value for role in Role if role.value in names]


def assignments_current(
    *, user: AbstractBaseUser, at: dt.datetime | None = None
) -> QuerySet[CroupierAssignment]:
    """The user's assignments whose shift covers ``at`` (default: now)."""
    at = at or timezone.now()
    return (
        CroupierAssignment.objects.filter(user=user, shift_start__lte=at, shift_end__gt=at)
        .select_related("table", "table__casino")
        .order_by("shift_start")
    )


def table_open_session(*, table: Table) -> TableSession | None:
    return TableSession.objects.filter(table=table, closed_at__isnull=True).first()


def builtin_profiles() -> QuerySet[RuleProfile]:
    return RuleProfile.objects.filter(casino__isnull=True).order_by("slug")


@dataclass(frozen=True, slots=True)
class StaffProfile:
    username: str
    full_name: str
    roles: list[str]
    role_labels: list[str]
    is_superuser: bool
    current_assignments: list[CroupierAssignment] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "username": self.username,
            "full_name": self.full_name,
            "roles": self.roles,
            "is_superuser": self.is_superuser,
            "current_assignments": [
                {
                    "table_id": a.table_id,
                    "table": str(a.table),
                    "shift_start": a.shift_start,
                    "shift_end": a.shift_end,
                }
                for a in self.current_assignments
            ],
        }


def staff_profile(*, user: AbstractBaseUser) -> StaffProfile:
    """Who the logged-in user is, for the home page and /api/v1/me/."""
    roles = user_roles(user=user)
    return StaffProfile(
        username=user.get_username(),
        full_name=user.get_full_name() if hasattr(user, "get_full_name") else "",
        roles=roles,
        role_labels=[ROLE_LABELS[r] for r in roles],
        is_superuser=bool(getattr(user, "is_superuser", False)),
        current_assignments=list(assignments_current(user=user)),
    )


# ------------------------------------------------------------------------------------- the bank
@dataclass(frozen=True)
class BankRotation:
    """Where the bank goes while nobody holds it: offered in turn to ``candidates`` (``offer_to``
    first), each of whom must put up at least ``required_minimum``."""

    previous: BankTurn | None
    how: str  # BankTurn.Start: acceptance (first banker), rotation (after a loss), passed
    required_minimum: int
    order: list[Seat]  # every seated player in rotation order, the previous banker left out
    candidates: list[Seat]  # those who have not refused yet
    offer_to: Seat | None


def bank_open_turn(*, session: TableSession) -> BankTurn | None:
    return (
        BankTurn.objects.filter(session=session, ended_at__isnull=True)
        .select_related("player", "seat")
        .first()
    )


def bank_rotation(*, session: TableSession) -> BankRotation | None:
    """None while a banker holds the bank; otherwise who is offered it next."""
    if BankTurn.objects.filter(session=session, ended_at__isnull=True).exists():
        return None
    profile = session.table.profile
    previous = (
        BankTurn.objects.filter(session=session)
        .select_related("seat", "rotation_from")
        .order_by("-started_at", "-pk")
        .first()
    )
    if previous is None:
        how, minimum, anchor = BankTurn.Start.ACCEPTANCE, profile.min_bank, 0
    elif previous.end_reason == BankTurn.End.PASSED:
        how, minimum, anchor = BankTurn.Start.PASSED, previous.required_minimum, previous.rotation_from.number
    else:
        how, minimum, anchor = BankTurn.Start.ROTATION, profile.min_bank, previous.rotation_from.number
    seats = Seat.objects.filter(session=session, left_at__isnull=True).select_related("player")
    # seat numbers are unique among the seated (a constraint): number -> seat is one to one
    by_number = {s.number: s for s in seats if previous is None or s.player_id != previous.player_id}
    order = [
        by_number[n]
        for n in rotation_order(
            by_number,
            anchor=anchor,
            seat_count=session.table.seat_count,
            passes_to=Side(profile.bank_passes_to),
        )
    ]
    refused = set(
        BankOffer.objects.filter(session=session, after_turn=previous, accepted=False).values_list(
            "seat_id", flat=True
        )
    )
    candidates = [s for s in order if s.pk not in refused]
    return BankRotation(
        previous=previous,
        how=how,
        required_minimum=minimum,
        order=order,
        candidates=candidates,
        offer_to=candidates[0] if candidates else None,
    )


# ---------------------------------------------------------------------------------------- coups
@dataclass(frozen=True)
class CoupView:
    """Everything a screen or an API client needs to know about a coup right now."""

    coup: Coup
    state: CoupProgress
    steps: list[CoupStep]
    next_steps: tuple[NextStep, ...]
    requirement: tuple[str, Requirement] | None
    advice: Advice | None
    verdict: dict[str, Any] | None  # as recorded at the reveal
    restoration: Restored | NeedsCards | None  # while the coup awaits its correction
    correction: CoupStep | None  # the latest correction submitted


def coup_view(*, coup: Coup) -> CoupView:
    coup = Coup.objects.select_related(
        "shoe", "shoe__table", "shoe__table__profile", "shoe__table__casino", "bank_turn", "bank_turn__seat"
    ).get(pk=coup.pk)
    steps = list(coup.steps.select_related("actor").order_by("index"))
    state = coup_replay(coup, steps)
    reveal = next((s for s in steps if s.kind == CoupStep.Kind.REVEAL), None)
    corrections = [s for s in steps if s.kind == CoupStep.Kind.CORRECTION]
    restoration = coup_restore(coup, state, ()) if coup.state == Coup.State.AWAITING_CORRECTION else None
    return CoupView(
        coup=coup,
        state=state,
        steps=steps,
        next_steps=next_steps(state) if coup.state == Coup.State.OPEN else (),
        requirement=requirement(state) if coup.state == Coup.State.OPEN else None,
        advice=coup_advice(coup=coup, state=state) if coup.state == Coup.State.OPEN else None,
        verdict=reveal.payload.get("verdict") if reveal else None,
        restoration=restoration,
        correction=corrections[-1] if corrections else None,
    )


def coup_advice(*, coup: Coup, state: CoupProgress) -> Advice | None:
    """The engine's advice at an option point, computed from the chooser's information only: the
    cards he cannot see are the rest of the shoe plus the opponent's face-down cards."""
    need = requirement(state)
    if need is None or need[1] is not Requirement.OPTION:
        return None
    side = need[0]
    seen = list(ShoeCard.objects.filter(shoe=coup.shoe).values_list("card", flat=True))
    hidden = state.banker_cards[:2] if side == "player" else state.player_cards[:2]
    for card in hidden:  # the opponent's face-down cards are unknown to the chooser
        seen.remove(card)
    unseen = remaining_by_points(seen, coup.shoe.decks)
    tableau = state.rules.tableau
    if side == "player":
        return advise_player(
            tableau,
            state.player_cards[:2],
            single_punter=len({b.punter for b in state.bets}) == 1,
            unseen=unseen,
            banco=state.banco,
        )
    levy = coup_levy(coup)  # the terms the coup was started under
    exempt = coup.first_coup_of_bank and levy.first_coup_exempt
    return advise_banker(
        tableau,
        state.banker_cards[:2],
        state.player_cards[2] if len(state.player_cards) == 3 else None,
        unseen=unseen,
        levy_bp=0 if exempt else levy.rate_bp,
        banco=state.banco,
    )


def correction_preview(*, coup: Coup, cards: list[str] | tuple[str, ...] = ()) -> Restored | NeedsCards:
    """What the engine restores with these cards as the next from the shoe (for the screen)."""
    steps = list(coup.steps.order_by("index"))
    state = coup_replay(coup, steps)
    return coup_restore(coup, state, tuple(cards_parse(list(cards))))


def corrections_pending(*, casino_id: int | None = None) -> QuerySet[Coup]:
    """Coups whose restored settlement waits for a pit boss, oldest first."""
    qs = Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL).select_related(
        "shoe", "shoe__table", "banker"
    )
    if casino_id is not None:
        qs = qs.filter(shoe__table__casino_id=casino_id)
    return qs.order_by("created_at")


# ------------------------------------------------------------------ the croupier's table screen
# Appended for the croupier screens (tables/views/): reads only, grouped so a view makes one call.
from tables.models import Player, SessionPause, Shoe, ShoeAlarm, Spectator  # noqa: E402


@dataclass(frozen=True)
class CoupResult:
    """A finished coup as the table screen shows it: as revealed, or as restored while the
    correction waits for (or got) a pit boss's approval."""

    coup: Coup
    outcome: str  # "player" | "banker" | "tie"
    player_cards: list[str]
    banker_cards: list[str]
    player_total: int
    banker_total: int
    covered: int
    uncovered: int
    tax: int
    banker_net: int
    punters: list[tuple[str, str, int]]  # (engine key, display name, gain or loss)
    next_bank_min: int | None
    restored: bool  # the figures are the restored game's
    void_cards: list[str]


@dataclass(frozen=True)
class TableFloor:
    """Everything the croupier's table screen shows, read in one go."""

    table: Table
    session: TableSession | None
    pause: SessionPause | None
    seats: list[Seat]
    spectators: list[Spectator]
    shoe: Shoe | None  # the open shoe
    last_shoe: Shoe | None  # the session's latest shoe, open or closed
    alarms: list[ShoeAlarm]
    bank: BankTurn | None
    rotation: BankRotation | None
    coup: Coup | None  # being played, or flagged and waiting to be restored
    last_result: CoupResult | None  # the session's latest finished coup
    awaiting_approval: list[Coup]
    shoe_coups: list[Coup]  # the latest shoe's coups, newest first
    players_available: list[Player]
    cards_dealt: int = 0  # cards out of the open shoe, burnt ones included
    bank_shares: list[BankShare] = field(default_factory=list)  # club: spectators' parts of the bank
    bank_is_new: bool = False  # the bank has not been played yet (spectators may put up part of it)


def table_floor(*, table: Table) -> TableFloor:
    session = table_open_session(table=table)
    if session is None:
        return TableFloor(table, None, None, [], [], None, None, [], None, None, None, None, [], [], [])
    seats = list(
        Seat.objects.filter(session=session, left_at__isnull=True).select_related("player").order_by("number")
    )
    spectators = list(
        Spectator.objects.filter(session=session, left_at__isnull=True)
        .select_related("player")
        .order_by("joined_at", "pk")
    )
    shoes = Shoe.objects.filter(session=session).order_by("-number")
    last_shoe = shoes.first()
    shoe = last_shoe if last_shoe is not None and last_shoe.state == Shoe.State.OPEN else None
    coups = Coup.objects.filter(shoe__session=session).select_related("shoe", "banker")
    coup = coups.filter(state__in=UNFINISHED_COUP_STATES).order_by("-pk").first()
    finished = (
        coups.filter(state__in=[Coup.State.SETTLED, Coup.State.AWAITING_APPROVAL]).order_by("-pk").first()
    )
    busy = {s.player_id for s in seats} | {s.player_id for s in spectators}
    turn = bank_open_turn(session=session)
    return TableFloor(
        table=table,
        session=session,
        pause=SessionPause.objects.filter(session=session, ended_at__isnull=True).first(),
        seats=seats,
        spectators=spectators,
        shoe=shoe,
        last_shoe=last_shoe,
        alarms=list(ShoeAlarm.objects.filter(shoe__session=session).select_related("shoe", "coup")),
        bank=turn,
        rotation=bank_rotation(session=session),
        coup=coup,
        last_result=coup_result(coup=finished) if finished is not None else None,
        awaiting_approval=list(coups.filter(state=Coup.State.AWAITING_APPROVAL).order_by("pk")),
        shoe_coups=list(coups.filter(shoe=last_shoe).order_by("-number")) if last_shoe else [],
        players_available=[
            p
            for p in Player.objects.filter(casino_id=table.casino_id).order_by("display_name")
            if p.pk not in busy
        ],
        cards_dealt=ShoeCard.objects.filter(shoe=shoe).count() if shoe is not None else 0,
        bank_shares=list(
            BankShare.objects.filter(turn=turn, withdrawn__isnull=True).select_related("spectator__player")
        )
        if turn is not None
        else [],
        bank_is_new=turn is not None and not Coup.objects.filter(bank_turn=turn).exists(),
    )


def coup_punter_names(*, coup: Coup) -> dict[str, str]:
    """The engine's punter keys of a coup (``seat-4``, ``spectator-17``) to display names, from
    its bets and its banker's seat."""
    names: dict[str, str] = {}
    if coup.bank_turn_id is not None:
        turn = BankTurn.objects.select_related("seat", "player").get(pk=coup.bank_turn_id)
        names[seat_key(turn.seat.number)] = turn.player.display_name
    for bet in coup_bets(coup):
        names[bet_punter_key(bet)] = bet_player(bet).display_name
    return names


def coup_result(*, coup: Coup) -> CoupResult | None:
    """A revealed coup's figures: the restored ones once a correction was submitted."""
    steps = list(coup.steps.order_by("index"))
    reveal = next((s for s in steps if s.kind == CoupStep.Kind.REVEAL), None)
    if reveal is None:
        return None
    verdict = reveal.payload["verdict"]
    correction = next((s for s in reversed(steps) if s.kind == CoupStep.Kind.CORRECTION), None)
    state = coup_replay(coup, steps)
    player_cards, banker_cards = list(state.player_cards), list(state.banker_cards)
    player_total, banker_total = verdict["player_total"], verdict["banker_total"]
    outcome, settlement, void = verdict["outcome"], verdict["settlement"] or {}, []
    if correction is not None and coup.state != Coup.State.AWAITING_CORRECTION:
        restored = correction.payload["restored"]
        settlement = correction.payload["settlement"]
        player_cards, banker_cards = restored["player_cards"], restored["banker_cards"]
        player_total, banker_total = restored["player_total"], restored["banker_total"]
        outcome, void = restored["outcome"], restored["void_cards"]
    names = coup_punter_names(coup=coup)
    return CoupResult(
        coup=coup,
        outcome=outcome,
        player_cards=player_cards,
        banker_cards=banker_cards,
        player_total=player_total,
        banker_total=banker_total,
        covered=settlement.get("covered", 0),
        uncovered=settlement.get("uncovered", 0),
        tax=settlement.get("tax", 0),
        banker_net=settlement.get("banker_net", 0),
        punters=[(key, names.get(key, key), gain) for key, gain in settlement.get("punters", {}).items()],
        next_bank_min=settlement.get("next_bank_min"),
        restored=correction is not None and coup.state != Coup.State.AWAITING_CORRECTION,
        void_cards=void,
    )


def coup_betting_order(*, coup: Coup, seats: list[Seat]) -> list[Seat]:
    """The seats that may bet on ``coup`` (everybody but the banker), in betting order."""
    table = coup.shoe.table
    by_number = {s.number: s for s in seats}  # the seated: numbers are unique (a constraint)
    order = betting_order(
        by_number,
        banker_seat=coup.bank_turn.seat.number,
        seat_count=table.seat_count,
        betting_from=Side(table.profile.betting_from),
    )
    return [by_number[n] for n in order]


def croupier_tables(*, user: AbstractBaseUser) -> list[Table]:
    """The tables the user is assigned to for the current shift (a croupier's "my table")."""
    seen: dict[int, Table] = {}
    for assignment in assignments_current(user=user):
        seen.setdefault(assignment.table_id, assignment.table)
    return list(seen.values())


def tables_overview() -> QuerySet[Table]:
    """Every table, open ones first, for the staff who read everything."""
    return Table.objects.select_related("casino", "profile").order_by("state", "casino__name", "name")


def tables_readable(*, user: AbstractBaseUser) -> QuerySet[Table]:
    """Pit bosses and accountants read every table; a croupier the tables of his current shifts."""
    tables = Table.objects.select_related("casino", "profile").order_by("casino__name", "name", "pk")
    if reads_everything(user):
        return tables
    if "croupier" not in user_roles(user=user):
        return tables.none()
    return tables.filter(pk__in=assignments_current(user=user).values("table_id"))

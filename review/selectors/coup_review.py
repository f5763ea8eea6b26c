"""Reads for a coup's review page (docs/review.md): the coup as recorded, step by step, beside the
rules engine's restoration of it, and both settlements. No writes here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chemin_de_fer.engine.coup import Action, NeedsCards, Restored, Settlement
from chemin_de_fer.engine.judge import coup_settlement
from chemin_de_fer.engine.machine import CoupProgress
from chemin_de_fer.engine.punters import HOUSE_KEY, PunterKind, parse_punter_key, seat_key, spectator_key
from core.sentence import said
from review.selectors.queue import review_refusal
from tables.engine_bridge import (
    bet_player,
    bet_punter_key,
    coup_bets,
    coup_levy,
    coup_record,
    coup_replay_trusted,
    coup_restore,
    coup_verdict,
)
from tables.models import VOIDABLE_COUP_STATES, Coup, CoupStep, Seat, Spectator
from tables.permissions import REVIEW_KINDS
from tables.wording import step_detail, violation_items


@dataclass(frozen=True)
class StepLine:
    step: CoupStep
    label: str
    detail: str
    violations: list[tuple[str, str]]
    superseded_by: int | None = None  # a typo: the index of the step that amended it (struck through)


@dataclass(frozen=True)
class Hands:
    """Two hands, their totals and the outcome (the coup as played, or as restored)."""

    player_cards: tuple[str, ...]
    banker_cards: tuple[str, ...]
    player_total: int
    banker_total: int
    outcome: str
    player_action: str
    banker_action: str
    void_cards: tuple[str, ...] = ()
    extra_cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class SettlementLine:
    who: str
    amount: int


@dataclass(frozen=True)
class SettlementView:
    covered: int
    uncovered: int
    tax: int
    banker_net: int
    punters: list[SettlementLine]
    next_bank_min: int | None


@dataclass(frozen=True)
class CoupReview:
    coup: Coup
    steps: list[StepLine]
    violations: list[tuple[str, str]]
    played: Hands | None
    restored: Hands | None
    needs_cards: int | None  # the restoration needs this many more cards (no correction yet)
    settlement_played: SettlementView | None
    settlement_restored: SettlementView | None
    correction: CoupStep | None  # the latest correction submitted
    decision: CoupStep | None  # its approval or rejection, if any
    refusal: str  # why the viewer may not approve/reject ("" when he may)

    @property
    def awaiting_approval(self) -> bool:
        return self.coup.state == Coup.State.AWAITING_APPROVAL

    @property
    def voidable(self) -> bool:
        """Not over yet: a pit boss may void it (tables.services.coup_void)."""
        return self.coup.state in VOIDABLE_COUP_STATES


def _keys_in(payload: Any) -> set[str]:
    """Every punter key a step names (a bet's punter, each banco caller, its winner, ...)."""
    if isinstance(payload, str):
        try:
            parse_punter_key(payload)
        except ValueError:
            return set()
        return {payload}
    if isinstance(payload, dict):
        return {k for v in payload.values() for k in _keys_in(v)}
    if isinstance(payload, list):
        return {k for v in payload for k in _keys_in(v)}
    return set()


def _unbet_names(coup: Coup, keys: set[str]) -> dict[str, str]:
    """Those of ``keys`` with no bet in the coup (a banco caller who lost the call to another):
    each seat by its number and the player who held it when the coup began, each spectator."""
    parsed = [parse_punter_key(k) for k in keys]
    numbers = [n for kind, n in parsed if kind is PunterKind.SEAT]
    spectators = [n for kind, n in parsed if kind is PunterKind.SPECTATOR]
    session_id = coup.shoe.session_id
    held: dict[int, Seat] = {}
    # the seat's holder when the coup began: the last to sit down in it before (seats change hands)
    seats = Seat.objects.filter(session_id=session_id, number__in=numbers).select_related("player")
    for seat in seats.order_by("joined_at", "pk"):
        if seat.number not in held or seat.joined_at <= coup.created_at:
            held[seat.number] = seat
    names: dict[str, str] = {
        seat_key(n): said("seat {number} · {name}", number=n, name=seat.player.display_name)
        for n, seat in held.items()
    }
    standing = Spectator.objects.filter(pk__in=spectators, session_id=session_id).select_related("player")
    for spectator in standing:
        names[spectator_key(spectator.pk)] = said("spectator · {name}", name=spectator.player.display_name)
    return names


def _names(coup: Coup, rows: list[CoupStep] | None = None) -> dict[str, str]:
    """Engine punter keys (``seat-4``, ``spectator-17``) to ``seat 4 · Name`` for the screen (a
    sentence its template says in the page's language: ``|say``): every punter the coup's steps
    name, with a bet or not (a losing banco caller has none)."""
    names: dict[str, str] = {}
    for bet in coup_bets(coup):
        name = bet_player(bet).display_name
        if bet.seat is not None:
            names[bet_punter_key(bet)] = said("seat {number} · {name}", number=bet.seat.number, name=name)
        else:
            names[bet_punter_key(bet)] = said("spectator · {name}", name=name)
    if coup.bank_turn_id is not None:
        seat = coup.bank_turn.seat
        banker = coup.banker.display_name
        if seat is None:  # the house banks
            names[HOUSE_KEY] = said("{name} (banker)", name=banker)
        else:
            names[seat_key(seat.number)] = said(
                "seat {number} · {name} (banker)", number=seat.number, name=banker
            )
    unnamed = {k for r in rows or () for k in _keys_in(r.payload)} - set(names)
    if unnamed:
        names |= _unbet_names(coup, unnamed)
    return names


def _hands_played(coup: Coup, state: CoupProgress) -> Hands:
    verdict = coup_verdict(coup, state)  # its totals and outcome are the coup as played
    return Hands(
        player_cards=state.player_cards,
        banker_cards=state.banker_cards,
        player_total=verdict.player_total,
        banker_total=verdict.banker_total,
        outcome=verdict.outcome.value,
        player_action=(state.player_action or Action.NONE).value,
        banker_action=(state.banker_action or Action.NONE).value,
    )


def _hands_restored(restored: Restored) -> Hands:
    return Hands(
        player_cards=restored.player_cards,
        banker_cards=restored.banker_cards,
        player_total=restored.player_total,
        banker_total=restored.banker_total,
        outcome=restored.outcome.value,
        player_action=restored.player_action.value,
        banker_action=restored.banker_action.value,
        void_cards=restored.void_cards,
        extra_cards=restored.extra_cards,
    )


def _settlement_view(s: Settlement, names: dict[str, str]) -> SettlementView:
    return SettlementView(
        covered=s.covered,
        uncovered=s.uncovered,
        tax=s.tax,
        banker_net=s.banker_net,
        punters=[SettlementLine(names.get(k, k), v) for k, v in s.punters.items()],
        next_bank_min=s.next_bank_min,
    )


def settlement_as_played(coup: Coup, state: CoupProgress) -> Settlement | None:
    """What the table would have paid had the coup stood as played: the engine's settlement of
    the outcome as played (the verdict's own settlement is the restored one)."""
    if state.bank is None or state.covered > state.bank:
        return None
    record = coup_record(coup, state)
    outcome = coup_verdict(coup, state).outcome
    return coup_settlement(
        record, state.rules, outcome=outcome, player_action=record.player.action, levy=coup_levy(coup)
    )


def coup_review(*, coup: Coup, user: Any) -> CoupReview:
    """A coup as recorded, step by step, beside the engine's restoration of it."""
    coup = Coup.objects.select_related(
        "shoe", "shoe__table", "shoe__table__casino", "banker", "bank_turn", "bank_turn__seat"
    ).get(pk=coup.pk)
    rows = list(coup.steps.select_related("actor").order_by("index"))
    names = _names(coup, rows)
    amended_at = {r.supersedes_id: r.index for r in rows if r.supersedes_id is not None}
    steps = [
        StepLine(
            step=r,
            label=r.get_kind_display(),
            detail=step_detail(r.kind, r.payload, names),
            violations=violation_items(r.violations),
            superseded_by=amended_at.get(r.pk),
        )
        for r in rows
    ]
    state, replayable = coup_replay_trusted(coup, rows)
    corrections = [r for r in rows if r.kind == CoupStep.Kind.CORRECTION]
    correction = corrections[-1] if corrections else None
    decision = next(
        (
            r
            for r in rows
            if correction is not None
            and r.corrects_id == correction.pk
            and r.kind in (CoupStep.Kind.CORRECTION_APPROVED, CoupStep.Kind.CORRECTION_REJECTED)
        ),
        None,
    )
    revealed = replayable and any(r.kind == CoupStep.Kind.REVEAL for r in rows)
    played = _hands_played(coup, state) if revealed else None
    restored_hands: Hands | None = None
    needs_cards: int | None = None
    settlement_played = settlement_restored = None
    if revealed:
        sp = settlement_as_played(coup, state)
        settlement_played = _settlement_view(sp, names) if sp is not None else None
        if coup.flagged:
            # the cards of the correction under review (or approved); none after a rejection
            cards: tuple[str, ...] = ()
            if correction is not None and (
                decision is None or decision.kind == CoupStep.Kind.CORRECTION_APPROVED
            ):
                cards = tuple(correction.payload.get("cards", []))
            restored = coup_restore(coup, state, cards)
            if isinstance(restored, NeedsCards):
                needs_cards = restored.needs_cards
            else:
                restored_hands = _hands_restored(restored)
                sr = coup_verdict(coup, state, shoe_next=cards).settlement
                settlement_restored = _settlement_view(sr, names) if sr is not None else None
    refusal = ""
    if coup.state == Coup.State.AWAITING_APPROVAL and correction is not None:
        recorded = any(s.actor_id == user.pk and s.kind not in REVIEW_KINDS for s in rows)
        refusal = review_refusal(user=user, submitted_by_id=correction.actor_id, recorded=recorded)
    return CoupReview(
        coup=coup,
        steps=steps,
        # the coup's violations as it stands: not those of a typo an amendment superseded
        violations=violation_items([code for r in rows if r.pk not in amended_at for code in r.violations]),
        played=played,
        restored=restored_hands,
        needs_cards=needs_cards,
        settlement_played=settlement_played,
        settlement_restored=settlement_restored,
        correction=correction,
        decision=decision,
        refusal=refusal,
    )

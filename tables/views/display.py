"""Presentation for the croupier's screens: how cards, steps, violations and advice read on a
tablet. Wording and layout only; every fact shown comes from the selectors and the engine."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from tables.models import Seat, Spectator
from tables.rules.advice import Advice
from tables.rules.cards import RANKS, SUITS, hand_total
from tables.rules.coup import Code, Violation
from tables.rules.machine import CoupProgress, Move, NextStep
from tables.rules.punters import seat_key, spectator_key
from tables.rules.tableau import Requirement
from tables.selectors import CoupView

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_LABELS = {"T": "10"}


@dataclass(frozen=True)
class CardFace:
    code: str
    rank: str
    suit: str
    red: bool
    new: bool = False  # a card the restored game takes from the shoe

    @property
    def label(self) -> str:
        return f"{self.rank}{self.suit}"


def card_face(code: str) -> CardFace:
    rank, suit = code[:-1], code[-1]
    return CardFace(code=code, rank=RANK_LABELS.get(rank, rank), suit=SUIT_SYMBOLS[suit], red=suit in "HD")


def card_faces(codes: list[str] | tuple[str, ...], *, new_from: int | None = None) -> list[CardFace]:
    """``new_from``: the position from which the cards came from the shoe during a restoration."""
    faces = [card_face(c) for c in codes]
    if new_from is not None:
        faces = [replace(f, new=i >= new_from) for i, f in enumerate(faces)]
    return faces


#: the card picker: 13 ranks then 4 suits
PICKER_RANKS = [(r, RANK_LABELS.get(r, r)) for r in RANKS]
PICKER_SUITS = [(s, SUIT_SYMBOLS[s], SUIT_NAMES[s], s in "HD") for s in SUITS]

BUTTON_LABELS = {
    Move.BETS_CLOSED: "No more bets",
    Move.PLAYER_NATURAL: "Player shows his natural",
    Move.PLAYER_DRAW: "Player draws",
    Move.PLAYER_STAND: "Player stands",
    Move.BANKER_NATURAL: "Banker shows his natural",
    Move.BANKER_DRAW: "Banker draws",
    Move.BANKER_STAND: "Banker stands",
    Move.REVEAL: "Show both hands",
    Move.CARD_TO_PLAYER: "Card to the player",
    Move.CARD_TO_BANKER: "Card to the banker",
}
ACCESS_KEYS = {
    Move.PLAYER_DRAW: "d",
    Move.BANKER_DRAW: "d",
    Move.PLAYER_STAND: "s",
    Move.BANKER_STAND: "s",
    Move.PLAYER_NATURAL: "n",
    Move.BANKER_NATURAL: "n",
    Move.REVEAL: "r",
    Move.BETS_CLOSED: "c",
}
DECISION_KINDS = (
    Move.PLAYER_NATURAL,
    Move.PLAYER_DRAW,
    Move.PLAYER_STAND,
    Move.BANKER_NATURAL,
    Move.BANKER_DRAW,
    Move.BANKER_STAND,
    Move.REVEAL,
)
CLOSE = Move.BETS_CLOSED
CARD_KINDS = (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER)
OUTCOME_LABELS = {"player": "Player wins", "banker": "Banker wins", "tie": "Stand-off"}
PHASE_LABELS = {
    "declaring": "Bank to declare",
    "betting": "Bets",
    "dealing": "Dealing",
    "player_to_act": "Player to act",
    "playing": "Play",
    "done": "Hands shown",
}


def _against(state: CoupProgress) -> str:
    if len(state.player_cards) == 3:
        third = card_face(state.player_cards[2])
        return f"against the player's third card {third.label}"
    return "when the player stood"


def violation_text(violation: Violation, state: CoupProgress) -> str:
    """The violation a step would carry, in the croupier's words."""
    code = violation.code
    p2 = state.player_two if len(state.player_cards) >= 2 else None
    b2 = state.banker_two if len(state.banker_cards) >= 2 else None
    if code is Code.PLAYER_SHOULD_DRAW:
        return f"The player must draw on {p2}: the tableau does not let him stand."
    if code is Code.PLAYER_SHOULD_STAND:
        return f"The player must stand on {p2}: the tableau does not let him draw."
    if code is Code.BANKER_SHOULD_DRAW:
        return f"The banker must draw on {b2} {_against(state)}: the tableau does not let him stand."
    if code is Code.BANKER_SHOULD_STAND:
        return f"The banker must stand on {b2} {_against(state)}: the tableau does not let him draw."
    if code is Code.NATURAL_NOT_SHOWN:
        total = p2 if violation.side == "player" else b2
        return f"The {violation.side} holds a natural {total}: he must show it, not draw or stand."
    if code is Code.CARD_AFTER_NATURAL:
        return "A natural decides this coup: no third card may be dealt."
    if code is Code.BETS_EXCEED_BANK:
        return "The bets exceed the bank."
    if code is Code.WRONG_ACTIVE_PUNTER:
        return "The wrong punter played the hand."
    return violation.detail or str(code)


CODE_TEXT = {
    Code.PLAYER_SHOULD_DRAW: "player should have drawn",
    Code.PLAYER_SHOULD_STAND: "player should have stood",
    Code.BANKER_SHOULD_DRAW: "banker should have drawn",
    Code.BANKER_SHOULD_STAND: "banker should have stood",
    Code.NATURAL_NOT_SHOWN: "natural not shown",
    Code.CARD_AFTER_NATURAL: "card dealt after a natural",
    Code.BETS_EXCEED_BANK: "bets exceed the bank",
    Code.WRONG_ACTIVE_PUNTER: "wrong active punter",
}


def code_text(code: str) -> str:
    try:
        return CODE_TEXT[Code(code)]
    except ValueError:
        return code


def requirement_text(need: tuple[str, Requirement] | None, state: CoupProgress) -> str:
    """What the tableau requires of whoever acts now."""
    if need is None:
        return ""
    side, req = need
    total = state.player_two if side == "player" else state.banker_two
    who = f"The {side} ({total}"
    who += f", {_against(state)})" if side == "banker" else ")"
    if req is Requirement.DRAW:
        return f"{who} must draw."
    if req is Requirement.STAND:
        return f"{who} must stand."
    return f"{who} is free to draw or stand."


@dataclass(frozen=True)
class AdviceView:
    chooser: str
    choice: str
    ev_draw: str
    ev_stand: str
    basis: str
    assumption: str


def _percent(value: Any) -> str:
    return f"{float(value) * 100:+.2f} %"


def advice_view(advice: Advice | None) -> AdviceView | None:
    if advice is None:
        return None
    return AdviceView(
        chooser=advice.chooser,
        choice=advice.choice.value,
        ev_draw=_percent(advice.ev_draw),
        ev_stand=_percent(advice.ev_stand),
        basis="this shoe's remaining cards" if advice.basis == "shoe" else "an infinite deck",
        assumption=advice.assumption,
    )


@dataclass(frozen=True)
class StepButton:
    kind: str
    label: str
    violation: str  # plain words, "" when the step follows the rules
    accesskey: str
    primary: bool
    advised: bool = False  # the engine's advice at an option point


@dataclass(frozen=True)
class Bettor:
    """One line of the betting list: a seat (in betting order) or a spectator."""

    key: str  # the engine's punter key
    label: str  # "Seat 4" or "Standing"
    name: str
    seat: int | None
    spectator: int | None
    staked: int
    withdrawn: bool

    @property
    def bet_where(self) -> str:
        return f"bet:{self.key}"

    @property
    def banco_where(self) -> str:
        return f"banco:{self.key}"


@dataclass
class CoupScreen:
    """The coup panel: the coup, its hands and only the steps that may be recorded now."""

    view: CoupView
    phase: str
    phase_label: str
    bank: int
    covered: int
    uncovered: int
    banco: bool
    player_cards: list[CardFace]
    banker_cards: list[CardFace]
    player_total: int | None
    banker_total: int | None
    requirement: str
    advice: AdviceView | None
    betting: bool  # bets and banco may be taken
    can_close: StepButton | None
    card_steps: list[StepButton]
    decisions: list[StepButton]
    bettors: list[Bettor]
    spectators_bet: bool
    banco_suivi: bool
    min_bet: int
    focus: str = ""  # the control Enter should work: a step kind, or "bet" for the first bettor
    history: list[dict[str, Any]] = field(default_factory=list)


def _button(step: NextStep, state: CoupProgress, primary: bool, advice: Advice | None = None) -> StepButton:
    return StepButton(
        kind=step.kind.value,
        label=BUTTON_LABELS.get(step.kind, step.kind.value),
        violation=violation_text(step.violation, state) if step.violation else "",
        accesskey=ACCESS_KEYS.get(step.kind, ""),
        primary=primary,
        advised=advice is not None and step.kind.value == f"{advice.chooser}_{advice.choice.value}",
    )


def coup_screen(
    view: CoupView, *, seats: list[Seat], spectators: list[Spectator], names: dict[str, str]
) -> CoupScreen:
    """``seats`` in betting order (the banker left out); ``names`` the punters' display names."""
    state = view.state
    profile = state.rules.profile
    kinds = {s.kind for s in view.next_steps}
    # the one clean decision gets the focus (Enter records it); at a free choice none does
    clean = [s.kind for s in view.next_steps if s.violation is None and s.kind in DECISION_KINDS]
    only_clean = clean[0] if len(clean) == 1 else None
    staked: dict[str, int] = {}
    for bet in state.bets:
        staked[bet.punter] = staked.get(bet.punter, 0) + bet.amount
    bettors = [
        Bettor(
            key=seat_key(s.number),
            label=f"Seat {s.number}",
            name=s.player.display_name,
            seat=s.number,
            spectator=None,
            staked=staked.get(seat_key(s.number), 0),
            withdrawn=False,
        )
        for s in seats
    ]
    if profile.spectators_bet:
        bettors += [
            Bettor(
                key=spectator_key(s.pk),
                label="Standing",
                name=s.player.display_name,
                seat=None,
                spectator=s.pk,
                staked=staked.get(spectator_key(s.pk), 0),
                withdrawn=False,
            )
            for s in spectators
        ]
    history = [
        {
            "index": step.index,
            "label": step.get_kind_display(),
            "detail": _step_detail(step.kind, step.payload, names),
            "violations": [code_text(c) for c in step.violations],
            "actor": step.actor.get_username(),
        }
        for step in view.steps
    ]
    clean_cards = [s.kind.value for s in view.next_steps if s.kind in CARD_KINDS and s.violation is None]
    if clean_cards:
        focus = clean_cards[0]
    elif only_clean is not None:
        focus = only_clean.value
    elif Move.BET in kinds:
        focus = "bet"
    else:
        focus = CLOSE.value if CLOSE in kinds else ""
    return CoupScreen(
        view=view,
        focus=focus,
        phase=state.phase.value,
        phase_label=PHASE_LABELS.get(state.phase.value, state.phase.value),
        bank=state.bank or 0,
        covered=state.covered,
        uncovered=state.uncovered,
        banco=state.banco,
        player_cards=card_faces(state.player_cards),
        banker_cards=card_faces(state.banker_cards),
        player_total=hand_total(state.player_cards) if len(state.player_cards) >= 2 else None,
        banker_total=hand_total(state.banker_cards) if len(state.banker_cards) >= 2 else None,
        requirement=requirement_text(view.requirement, state),
        advice=advice_view(view.advice),
        betting=Move.BET in kinds or Move.BANCO in kinds,
        can_close=next(
            (_button(s, state, Move.BET not in kinds) for s in view.next_steps if s.kind is CLOSE),
            None,
        ),
        card_steps=[_button(s, state, True) for s in view.next_steps if s.kind in CARD_KINDS],
        decisions=[
            _button(s, state, s.kind == only_clean, view.advice)
            for s in view.next_steps
            if s.kind in DECISION_KINDS
        ],
        bettors=bettors,
        spectators_bet=profile.spectators_bet,
        banco_suivi=profile.banco_suivi,
        min_bet=profile.min_bet,
        history=history,
    )


def _step_detail(kind: str, payload: dict[str, Any], names: dict[str, str]) -> str:
    if kind == "bank_declared":
        return f"{payload.get('amount')} (at least {payload.get('minimum')})"
    if kind == "bet":
        who = names.get(payload.get("punter", ""), payload.get("punter", ""))
        return f"{who}: {payload.get('amount')}"
    if kind == "banco":
        return f"{names.get(payload.get('winner', ''), payload.get('winner', ''))} calls banco"
    if kind in ("card_to_player", "card_to_banker"):
        return card_face(payload["card"]).label
    if kind == "reveal":
        verdict = payload.get("verdict", {})
        outcome = OUTCOME_LABELS.get(verdict.get("outcome"), "")
        return f"{outcome}, {verdict.get('player_total')} to {verdict.get('banker_total')}"
    if kind == "correction":
        restored = payload.get("restored", {})
        extra = ", ".join(card_face(c).label for c in payload.get("cards", []))
        outcome = OUTCOME_LABELS.get(restored.get("outcome"), "")
        return f"restored: {outcome}" + (f" (from the shoe: {extra})" if extra else "")
    if kind == "correction_rejected":
        return payload.get("reason", "")
    return ""

"""Presentation for the croupier's screens: how cards, steps and advice are laid out on a tablet.
Layout only: the sentences come from tables.wording, every fact from the selectors and the engine.
Here is the screen's edge: wording's English is translated into the user's language with gettext
(docs/i18n.md); the services, the API and the audit trail keep it English."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext

from chemin_de_fer.engine.advice import Advice
from chemin_de_fer.engine.machine import CoupProgress, Move, NextStep
from chemin_de_fer.engine.punters import seat_key, spectator_key
from core.cards import RANKS, SUITS, hand_total
from core.numbers import percent
from tables.engine_bridge import game_kind, game_payload, superseded_ids
from tables.models import AMENDABLE_KINDS, Seat, Spectator
from tables.selectors import CoupView
from tables.wording import (
    BUTTON_LABELS,
    PHASE_LABELS,
    RANK_LABELS,
    STEP_LABELS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card_label,
    requirement_text,
    say,
    step_detail,
    violation_items,
    violation_text,
)


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


@dataclass(frozen=True)
class AdviceView:
    chooser: str
    choice: str
    ev_draw: str
    ev_stand: str
    basis: str
    assumption: str


def _percent(value: Any) -> str:
    """An expectation per chip staked, signed, in the page's language (``-19,97 %`` in French)."""
    return percent(value, 2, signed=True)


def advice_view(advice: Advice | None) -> AdviceView | None:
    if advice is None:
        return None
    return AdviceView(
        chooser=gettext(advice.chooser),
        choice=gettext(advice.choice.value),
        ev_draw=_percent(advice.ev_draw),
        ev_stand=_percent(advice.ev_stand),
        basis=(
            gettext("this shoe's remaining cards") if advice.basis == "shoe" else gettext("an infinite deck")
        ),
        assumption=gettext(advice.assumption),  # wording.ADVICE_ASSUMPTION marks it
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
    spectator_consent: bool  # a spectator's bet needs the banker's consent (the club)
    banco_suivi: bool
    min_bet: int
    focus: str = ""  # the control Enter should work: a step kind, or "bet" for the first bettor
    history: list[dict[str, Any]] = field(default_factory=list)
    next_labels: list[str] = field(default_factory=list)  # what may be recorded now, for a reader


def _button(step: NextStep, state: CoupProgress, primary: bool, advice: Advice | None = None) -> StepButton:
    return StepButton(
        kind=step.kind.value,
        label=gettext(BUTTON_LABELS.get(step.kind, step.kind.value)),
        violation=violation_text(step.violation, state, gettext) if step.violation else "",
        accesskey=ACCESS_KEYS.get(step.kind, ""),
        primary=primary,
        advised=advice is not None and step.kind.value == f"{advice.chooser}_{advice.choice.value}",
    )


def _history(view: CoupView, names: dict[str, str], bettors: list[Bettor]) -> list[dict[str, Any]]:
    """The steps recorded, each with what the screen needs to show it and, while the coup is
    played, to amend it: a bet or a card standing in the game (a superseded one is struck
    through, its amendment amended instead)."""
    superseded = superseded_ids(view.steps)
    replaced_by = {s.supersedes_id: s.index for s in view.steps if s.supersedes_id is not None}
    open_coup = view.coup.state == view.coup.State.OPEN
    lines = []
    for step in view.steps:
        kind = game_kind(step)
        fields = game_payload(step)
        lines.append(
            {
                "index": step.index,
                "label": gettext(step.get_kind_display()),
                "detail": say(step_detail(step.kind, step.payload, names), gettext),
                "violations": [gettext(text) for _, text in violation_items(step.violations)],
                "actor": step.actor.get_username(),
                "superseded": step.pk in superseded,
                "superseded_by": replaced_by.get(step.pk),
                "amend": (
                    ("bet" if kind == Move.BET else "card")
                    if open_coup and kind in AMENDABLE_KINDS and step.pk not in superseded
                    else ""
                ),
                "amount": fields.get("amount"),
                "punter": fields.get("punter", ""),
                "card": fields.get("card", ""),
                "card_label": card_label(fields["card"]) if fields.get("card") else "",
                "where": f"amend:{step.index}",
                "bettors": bettors,
            }
        )
    return lines


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
            label=gettext("Seat {number}").format(number=s.number),
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
                label=gettext("Standing"),
                name=s.player.display_name,
                seat=None,
                spectator=s.pk,
                staked=staked.get(spectator_key(s.pk), 0),
                withdrawn=False,
            )
            for s in spectators
        ]
    history = _history(view, names, bettors)
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
        phase_label=gettext(PHASE_LABELS.get(state.phase.value, state.phase.value)),
        bank=state.bank or 0,
        covered=state.covered,
        uncovered=state.uncovered,
        banco=state.banco,
        player_cards=card_faces(state.player_cards),
        banker_cards=card_faces(state.banker_cards),
        player_total=hand_total(state.player_cards) if len(state.player_cards) >= 2 else None,
        banker_total=hand_total(state.banker_cards) if len(state.banker_cards) >= 2 else None,
        requirement=requirement_text(view.requirement, state, gettext),
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
        spectator_consent=profile.spectator_needs_consent,
        banco_suivi=profile.banco_suivi,
        min_bet=profile.min_bet,
        history=history,
        next_labels=[gettext(STEP_LABELS.get(s.kind, s.kind.value)) for s in view.next_steps],
    )

"""Hypothesis strategies: whole coups played through the state machine from a real shoe, with
random (right or wrong) decisions at every point."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from tables.rules.cards import ALL_CARDS
from tables.rules.coup import CoupRecord
from tables.rules.judge import Rules
from tables.rules.machine import CoupProgress, Move, Step, apply, new_coup, next_steps, to_record
from tables.rules.profiles import BUILTIN
from tables.rules.settlement import BancoCaller

RULES = {slug: Rules.for_profile(p) for slug, p in BUILTIN.items()}
CARD_STEPS = {Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER}


@dataclass(frozen=True)
class PlayedCoup:
    rules: Rules
    decks: int
    state: CoupProgress
    record: CoupRecord
    cards: tuple[str, ...]  # every card taken from the shoe sample, in order


@st.composite
def played_coups(draw: st.DrawFn, slugs: tuple[str, ...] = tuple(BUILTIN)) -> PlayedCoup:
    slug = draw(st.sampled_from(slugs))
    rules = RULES[slug]
    profile = rules.profile
    decks = draw(st.sampled_from((1, 2, 6, 8)))
    rnd = draw(st.randoms(use_true_random=False))
    shoe = rnd.sample(list(ALL_CARDS) * decks, 12)
    bank = draw(st.integers(min_value=profile.min_bank, max_value=500))
    state = apply(new_coup(rules), Step(Move.BANK_DECLARED, amount=bank, punter="banker"))
    n_punters = draw(st.integers(min_value=1, max_value=4))
    if draw(st.booleans()) and n_punters == 1:
        state = apply(state, Step(Move.BANCO, callers=(BancoCaller("seat-1"),)))
    else:
        for i in range(n_punters):
            if state.uncovered <= 0:
                break
            spectator = profile.spectators_bet and draw(st.booleans())
            amount = draw(st.integers(min_value=1, max_value=state.uncovered))
            if amount < profile.min_bet:
                continue
            name = f"spectator-{i}" if spectator else f"seat-{draw(st.integers(1, 3))}"
            state = apply(state, Step(Move.BET, punter=name, amount=amount, spectator=spectator, order=i))
    if not state.bets:
        state = apply(state, Step(Move.BET, punter="seat-1", amount=state.uncovered, order=0))
    state = apply(state, Step(Move.BETS_CLOSED))
    used = 0
    while True:
        options = next_steps(state)
        if not options:
            break
        choice = draw(st.sampled_from(options))
        if choice.kind in CARD_STEPS:
            state = apply(state, Step(choice.kind, card=shoe[used]))
            used += 1
        else:
            state = apply(state, Step(choice.kind))
    record = to_record(state, coup_id="h", shoe_next=tuple(shoe[used:]))
    return PlayedCoup(rules=rules, decks=decks, state=state, record=record, cards=tuple(shoe))

"""Hypothesis strategies: whole coups played through the state machine from a real shoe, with
random (right or wrong) decisions at every point — at a live table, or (``history=True``) as a
recorded history that may also hold what a live table refuses: a bank under the profile's
minimum or above the house limit, a spectator's bet or banco the profile forbids, a spectator's
bet before a seated punter's, a banco suivi the profile lacks, bets beyond the bank; and small
shoes (unseen cards by rank) for the odds' and the advice's comparisons with a naive enumeration."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from chemin_de_fer.engine.coup import CoupRecord
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import CoupProgress, Move, Step, apply, new_coup, next_steps, to_record
from chemin_de_fer.engine.order import SPECTATOR_TURN
from chemin_de_fer.engine.procedure import spectator_may_bet
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.settlement import BancoCaller
from core.cards import ALL_CARDS

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
def played_coups(
    draw: st.DrawFn, slugs: tuple[str, ...] = tuple(BUILTIN), *, history: bool = False
) -> PlayedCoup:
    slug = draw(st.sampled_from(slugs))
    rules = RULES[slug]
    profile = rules.profile
    decks = draw(st.sampled_from((1, 2, 6, 8)))
    rnd = draw(st.randoms(use_true_random=False))
    shoe = rnd.sample(list(ALL_CARDS) * decks, 12)
    if history:  # small banks often, so that the home profile's minimum of 2 is broken
        bank = draw(st.integers(min_value=1, max_value=3) | st.integers(min_value=1, max_value=500))
    else:
        bank = draw(st.integers(min_value=profile.min_bank, max_value=500))
    # a history may name a house limit, and a bank above it; a live table's limit is the casino's
    house_limit = draw(st.none() | st.integers(min_value=1, max_value=500)) if history else None
    start = new_coup(rules, historical=history, house_limit=house_limit)
    state = apply(start, Step(Move.BANK_DECLARED, amount=bank, punter="banker"))
    n_punters = draw(st.integers(min_value=1, max_value=4))
    if draw(st.integers(min_value=0, max_value=3)) == 0:  # a banco: the caller covers the bank alone
        spectator = (history or spectator_may_bet(profile, banco=True)) and draw(st.booleans())
        suivi = (history or profile.banco_suivi) and draw(st.booleans())
        name = "spectator-1" if spectator else "seat-1"
        caller = BancoCaller(name, spectator=spectator, suivi=suivi)
        state = apply(state, Step(Move.BANCO, callers=(caller,)))
    else:
        for i in range(n_punters):
            if state.uncovered <= 0 and not history:
                break
            spectator = (history or spectator_may_bet(profile, banco=False)) and draw(st.booleans())
            # a history may hold bets beyond the bank: up to the whole bank each
            amount = draw(st.integers(min_value=1, max_value=state.bank if history else state.uncovered))
            if amount < profile.min_bet:
                continue
            name = f"spectator-{i}" if spectator else f"seat-{draw(st.integers(1, 3))}"
            # a history's bets come in its record's order; a live table's services put spectators
            # after every seat (SPECTATOR_TURN), whenever the croupier enters their bets
            order = SPECTATOR_TURN if spectator and not history else i
            state = apply(state, Step(Move.BET, punter=name, amount=amount, spectator=spectator, order=order))
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


def _counts_into(counts: list[int], low: int, high: int, most: int) -> tuple[int, ...]:
    """``counts`` brought to a total between ``low`` and ``high`` cards, one card at a time round
    the ranks (each rank 0 to ``most``): a shoe already in range is kept as drawn, so every such
    shoe can come out, and none is thrown away (filtering four draws in five made Hypothesis's
    health check give up now and then)."""
    at = 0
    while sum(counts) > high:
        counts[at % 10] -= counts[at % 10] > 0
        at += 1
    while sum(counts) < low:
        counts[at % 10] += counts[at % 10] < most
        at += 1
    return tuple(counts)


def unseen_counts(low: int, high: int, *, most: int) -> st.SearchStrategy[tuple[int, ...]]:
    """Unseen cards by rank (ten ranks, 0 to ``most`` of each), between ``low`` and ``high`` in all."""
    if not 0 <= low <= high <= 10 * most:
        raise ValueError(f"no shoe of ten ranks of at most {most} cards holds {low} to {high}")
    ranks = st.lists(st.integers(0, most), min_size=10, max_size=10)
    return ranks.map(lambda counts: _counts_into(counts, low, high, most))

"""Properties over random shoes and random (right or wrong) decisions."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.coup import NON_GAME_CODES, Code, Restored
from chemin_de_fer.engine.judge import judge_coup, restore_coup, restored_record
from chemin_de_fer.engine.machine import IllegalStep, Move, new_coup, record_steps, replay, to_record
from core.cards import ALL_CARDS, shoe_alarms

from .strategies import PlayedCoup, played_coups

EXAMPLES = settings(max_examples=400, deadline=None)


@EXAMPLES
@given(played_coups())
def test_machine_and_judge_find_the_same_violations(coup: PlayedCoup) -> None:
    verdict = judge_coup(coup.record, coup.rules)
    machine = Counter((v.code, v.side) for _, v in coup.state.violations)
    judged = Counter((v.code, v.side) for v in verdict.violations if v.code not in NON_GAME_CODES)
    assert machine == judged


@EXAMPLES
@given(played_coups())
def test_settlement_sums_to_zero(coup: PlayedCoup) -> None:
    s = judge_coup(coup.record, coup.rules).settlement
    assert s is not None  # the machine never lets bets exceed the bank
    assert s.banker_net + sum(s.punters.values()) + s.tax == 0
    assert s.covered + s.uncovered == coup.record.bank
    assert s.tax >= 0


@EXAMPLES
@given(played_coups())
def test_a_restored_coup_has_no_violations_and_restoring_twice_changes_nothing(coup: PlayedCoup) -> None:
    verdict = judge_coup(coup.record, coup.rules)
    if verdict.restored is None:
        assert verdict.violations == ()
        return
    restored = verdict.restored
    if not isinstance(restored, Restored):
        assert restored.needs_cards >= 1
        return
    fixed = restored_record(coup.record, restored)
    again = judge_coup(fixed, coup.rules)
    assert again.violations == () and again.restored is None
    assert again.outcome is restored.outcome
    twice = restore_coup(fixed, coup.rules)
    assert isinstance(twice, Restored)
    assert (twice.player_cards, twice.banker_cards, twice.outcome, twice.void_cards) == (
        restored.player_cards,
        restored.banker_cards,
        restored.outcome,
        (),
    )


@EXAMPLES
@given(played_coups())
def test_restoring_moves_cards_never_invents_them(coup: PlayedCoup) -> None:
    verdict = judge_coup(coup.record, coup.rules)
    rec = coup.record
    available = Counter(rec.player.cards + rec.banker.cards + rec.shoe_next)
    if isinstance(verdict.restored, Restored):
        r = verdict.restored
        used = Counter(r.player_cards + r.banker_cards + r.void_cards)
        assert not used - available  # every card placed came from the table or the shoe
        dealt = Counter(rec.player.cards + rec.banker.cards)
        assert not dealt - used  # and every card dealt is somewhere: in a hand or void
    assert shoe_alarms(coup.cards, coup.decks) == []


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=8), st.lists(st.sampled_from(ALL_CARDS), max_size=40))
def test_shoe_alarm_exactly_when_a_card_is_seen_too_often(decks: int, cards: list[str]) -> None:
    counts = Counter(cards)
    alarms = shoe_alarms(cards, decks)
    assert [a.card for a in alarms] == [c for c in ALL_CARDS if counts[c] > decks]
    assert all(a.seen == counts[a.card] and a.held == decks for a in alarms)


@EXAMPLES
@given(played_coups())
def test_a_record_replays_step_by_step_into_the_same_record(coup: PlayedCoup) -> None:
    """What an import does: record → steps → historical replay → the same record and verdict."""
    rec = coup.record
    state = replay(new_coup(coup.rules, house_limit=rec.house_limit, historical=True), record_steps(rec))
    again = to_record(state, coup_id=rec.id, shoe_next=rec.shoe_next)
    assert again == rec
    assert judge_coup(again, coup.rules) == judge_coup(rec, coup.rules)


# ------------------------------------------------------------------ offline parity (issue 9 §4)
#: what a live table's machine refuses while the bank is declared and the bets are made, and the
#: judge flags in a record (COUP_RECORD.md, Verdict: the procedural codes); SPECTATOR_BEFORE_SEATED
#: is the services' refusal (they know who sits where: tests/tables/test_offline_parity.py)
REFUSED_LIVE = frozenset(
    {
        Code.BANK_BELOW_MINIMUM,
        Code.BANK_ABOVE_LIMIT,
        Code.SPECTATOR_BET_NOT_ALLOWED,
        Code.SUIVI_NOT_ALLOWED,
        Code.BETS_EXCEED_BANK,
    }
)
BETTING_MOVES = (Move.BANK_DECLARED, Move.BET, Move.BANCO, Move.BETS_CLOSED)


@EXAMPLES
@given(played_coups(history=True))
def test_a_recorded_history_is_flagged_by_the_machine_exactly_as_the_judge_flags_it(coup: PlayedCoup) -> None:
    """RULES.md §2, §3.1 and §10; COUP_RECORD.md: a history holding a bank under the profile's
    minimum, a spectator's forbidden bet or banco, or bets beyond the bank is recorded step by
    step with the same violations, procedural codes included, as the offline judge finds."""
    verdict = judge_coup(coup.record, coup.rules)
    machine = Counter((v.code, v.side) for _, v in coup.state.violations)
    judged = Counter((v.code, v.side) for v in verdict.violations)
    assert machine == judged
    procedural = [v for v in verdict.violations if v.code in NON_GAME_CODES]
    if len(procedural) == len(verdict.violations):
        assert verdict.restored is None  # procedural codes alone restore nothing


@EXAMPLES
@given(played_coups(history=True))
def test_a_live_table_refuses_exactly_the_bank_and_bets_the_judge_flags(coup: PlayedCoup) -> None:
    """RULES.md §2, §3.1, §10: the live machine refuses the record's bank or bets exactly when
    the offline judge flags BANK_BELOW_MINIMUM, BANK_ABOVE_LIMIT, SPECTATOR_BET_NOT_ALLOWED,
    SUIVI_NOT_ALLOWED or BETS_EXCEED_BANK (under the record's house limit)."""
    verdict = judge_coup(coup.record, coup.rules)
    flagged = {v.code for v in verdict.violations} & REFUSED_LIVE
    betting = [s for s in record_steps(coup.record) if s.kind in BETTING_MOVES]
    live = new_coup(coup.rules, house_limit=coup.record.house_limit)
    if flagged:
        with pytest.raises(IllegalStep):
            replay(live, betting)
    else:
        assert replay(live, betting).violations == ()


@EXAMPLES
@given(played_coups(history=True))
def test_a_flagged_history_replays_step_by_step_into_the_same_record(coup: PlayedCoup) -> None:
    """What an import does with a history a live table would have refused (COUP_RECORD.md): the
    same record and verdict back, ``banco_suivi`` included."""
    rec = coup.record
    state = replay(new_coup(coup.rules, house_limit=rec.house_limit, historical=True), record_steps(rec))
    again = to_record(state, coup_id=rec.id, shoe_next=rec.shoe_next)
    assert again == rec
    assert judge_coup(again, coup.rules) == judge_coup(rec, coup.rules)

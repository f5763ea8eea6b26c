"""The live coup state machine: legal next steps, requirements, violations, illegal steps."""

from __future__ import annotations

import pytest

from chemin_de_fer.engine.coup import Code, Outcome, Restored
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.machine import (
    IllegalStep,
    Move,
    Phase,
    Step,
    apply,
    new_coup,
    next_steps,
    replay,
    requirement,
    to_record,
)
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.settlement import BancoCaller
from chemin_de_fer.engine.tableau import Requirement

K = Move
CASINO = Rules.for_profile(BUILTIN["casino"])
HOME = Rules.for_profile(BUILTIN["home"])


def kinds(state) -> list[str]:
    return [s.kind.value for s in next_steps(state)]


def betting(rules=CASINO, bank=100, bets=(("seat-1", 60), ("seat-2", 40))):
    steps = [Step(K.BANK_DECLARED, amount=bank, punter="seat-5")]
    steps += [Step(K.BET, punter=p, amount=a, order=i) for i, (p, a) in enumerate(bets)]
    return replay(new_coup(rules), steps)


def dealt(cards, **kw):
    state = replay(betting(**kw), [Step(K.BETS_CLOSED)])
    p1, b1, p2, b2 = cards
    return replay(
        state,
        [
            Step(K.CARD_TO_PLAYER, card=p1),
            Step(K.CARD_TO_BANKER, card=b1),
            Step(K.CARD_TO_PLAYER, card=p2),
            Step(K.CARD_TO_BANKER, card=b2),
        ],
    )


def test_a_clean_coup_step_by_step() -> None:
    s = new_coup(CASINO)
    assert (s.phase, kinds(s)) == (Phase.DECLARING, ["bank_declared"])
    s = apply(s, Step(K.BANK_DECLARED, amount=100, punter="seat-5"))
    assert (s.phase, kinds(s)) == (Phase.BETTING, ["bet", "banco"])
    s = apply(s, Step(K.BET, punter="seat-1", amount=60))
    assert (s.uncovered, kinds(s)) == (40, ["bet", "banco", "bets_closed"])
    s = apply(s, Step(K.BET, punter="seat-2", amount=40, order=1))
    assert kinds(s) == ["bets_closed"]  # covered: only "no more bets"
    s = apply(s, Step(K.BETS_CLOSED))
    assert (s.phase, kinds(s)) == (Phase.DEALING, ["card_to_player"])
    s = replay(s, [Step(K.CARD_TO_PLAYER, card="2H"), Step(K.CARD_TO_BANKER, card="AS")])
    assert kinds(s) == ["card_to_player"]
    s = replay(s, [Step(K.CARD_TO_PLAYER, card="3C"), Step(K.CARD_TO_BANKER, card="2D")])
    assert s.phase is Phase.PLAYER_TO_ACT
    assert requirement(s) == ("player", Requirement.OPTION)  # 5: the player's option
    assert [(n.kind.value, n.violation) for n in next_steps(s)] == [
        ("player_draw", None),
        ("player_stand", None),
    ]
    s = apply(s, Step(K.PLAYER_DRAW))
    assert kinds(s) == ["card_to_player"]
    s = apply(s, Step(K.CARD_TO_PLAYER, card="9H"))
    assert requirement(s) == ("banker", Requirement.OPTION)  # 3 against a 9
    s = replay(s, [Step(K.BANKER_DRAW), Step(K.CARD_TO_BANKER, card="5S")])
    assert kinds(s) == ["reveal"]
    s = apply(s, Step(K.REVEAL))
    assert s.phase is Phase.DONE and s.violations == () and s.steps == 13
    v = judge_coup(to_record(s), CASINO)
    assert (v.player_total, v.banker_total, v.outcome, v.violations) == (4, 8, Outcome.BANKER, ())


def test_banker_stands_when_he_must_draw_is_recorded_with_its_violation() -> None:
    s = dealt(("TH", "3S", "2C", "2H"))
    s = replay(s, [Step(K.PLAYER_DRAW), Step(K.CARD_TO_PLAYER, card="6D")])
    assert requirement(s) == ("banker", Requirement.DRAW)
    options = {n.kind: n.violation for n in next_steps(s)}
    assert options[K.BANKER_DRAW] is None
    stand = options[K.BANKER_STAND]
    assert stand is not None and stand.code is Code.BANKER_SHOULD_DRAW
    s = replay(s, [Step(K.BANKER_STAND), Step(K.REVEAL)])
    assert [(n, v.code.value) for n, v in s.violations] == [(11, "BANKER_SHOULD_DRAW")]
    v = judge_coup(to_record(s, shoe_next=("4C",)), CASINO)
    assert [x.code for x in v.violations] == [Code.BANKER_SHOULD_DRAW]
    assert isinstance(v.restored, Restored) and v.restored.outcome is Outcome.BANKER


def test_player_natural_ends_the_coup() -> None:
    s = dealt(("8H", "3S", "KC", "2H"))
    assert requirement(s) is None
    assert [(n.kind.value, n.violation and n.violation.code.value) for n in next_steps(s)] == [
        ("player_natural", None),
        ("player_draw", "NATURAL_NOT_SHOWN"),
        ("player_stand", "NATURAL_NOT_SHOWN"),
    ]
    s = apply(s, Step(K.PLAYER_NATURAL))
    assert kinds(s) == ["reveal"]
    s = apply(s, Step(K.REVEAL))
    rec = to_record(s)
    assert (rec.player.action.value, rec.banker.action.value) == ("natural", "none")


def test_banker_natural_after_the_player_asked_for_a_card() -> None:
    s = dealt(("5D", "9H", "KC", "QS"))
    s = apply(s, Step(K.PLAYER_DRAW))
    # the banker looks before the player's card: he shows his natural, or (wrongly) deals on
    assert kinds(s) == ["banker_natural", "card_to_player"]
    assert {n.kind: n.violation.code for n in next_steps(s) if n.violation} == {
        K.CARD_TO_PLAYER: Code.CARD_AFTER_NATURAL,
    }
    unshown = apply(s, Step(K.CARD_TO_PLAYER, card="3S"))
    assert {n.kind: n.violation.code for n in next_steps(unshown) if n.violation} == {
        K.BANKER_DRAW: Code.NATURAL_NOT_SHOWN,
        K.BANKER_STAND: Code.NATURAL_NOT_SHOWN,
    }
    shown = apply(s, Step(K.BANKER_NATURAL))
    assert kinds(shown) == ["reveal", "card_to_player"]
    wrong = replay(shown, [Step(K.CARD_TO_PLAYER, card="3S"), Step(K.REVEAL)])
    assert [v.code for _, v in wrong.violations] == [Code.CARD_AFTER_NATURAL]


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([Step(K.BET, punter="a", amount=5)], "bet is not possible now"),
        ([Step(K.BANK_DECLARED, amount=0, punter="b")], "positive whole number"),
        ([Step(K.BANK_DECLARED, amount=100)], "name the banker"),
        (
            [Step(K.BANK_DECLARED, amount=100, punter="b"), Step(K.BET, punter="a", amount=101)],
            "only 100 of the bank is left",
        ),
        (
            [Step(K.BANK_DECLARED, amount=100, punter="b"), Step(K.BET, punter="b", amount=10)],
            "cannot bet against their own bank",
        ),
        ([Step(K.BANK_DECLARED, amount=100, punter="b"), Step(K.BETS_CLOSED)], "bets_closed is not possible"),
        (
            [
                Step(K.BANK_DECLARED, amount=100, punter="b"),
                Step(K.BET, punter="a", amount=10),
                Step(K.BETS_CLOSED),
                Step(K.CARD_TO_BANKER, card="AS"),
            ],
            "card_to_banker is not possible now",
        ),
        (
            [
                Step(K.BANK_DECLARED, amount=100, punter="b"),
                Step(K.BET, punter="a", amount=10),
                Step(K.BETS_CLOSED),
                Step(K.CARD_TO_PLAYER, card="1X"),
            ],
            "bad card '1X'",
        ),
    ],
)
def test_illegal_steps_are_refused(steps, message) -> None:
    state = new_coup(CASINO)
    with pytest.raises(IllegalStep, match=message):
        replay(state, steps)


def test_minimum_bank_and_house_limit() -> None:
    s = new_coup(CASINO, minimum_bank=390, house_limit=500)
    with pytest.raises(IllegalStep, match="at least 390"):
        apply(s, Step(K.BANK_DECLARED, amount=389, punter="b"))
    with pytest.raises(IllegalStep, match="house limit of 500"):
        apply(s, Step(K.BANK_DECLARED, amount=501, punter="b"))
    assert apply(s, Step(K.BANK_DECLARED, amount=390, punter="b")).bank == 390
    assert new_coup(HOME).minimum_bank == 2  # the home series' minimum bank


def test_spectators_and_banco_suivi_follow_the_profile() -> None:
    classic = Rules.for_profile(BUILTIN["classic"])
    s = apply(new_coup(classic), Step(K.BANK_DECLARED, amount=50, punter="b"))
    with pytest.raises(IllegalStep, match="spectators may not bet"):
        apply(s, Step(K.BET, punter="x", amount=5, spectator=True))
    with pytest.raises(IllegalStep, match="no banco suivi"):
        apply(s, Step(K.BANCO, callers=(BancoCaller("a", suivi=True),)))
    club = Rules.for_profile(BUILTIN["club"])
    s = apply(new_coup(club), Step(K.BANK_DECLARED, amount=50, punter="b"))
    assert apply(s, Step(K.BET, punter="x", amount=5, spectator=True)).covered == 5
    with pytest.raises(IllegalStep, match="spectator may not call banco"):
        apply(s, Step(K.BANCO, callers=(BancoCaller("x", spectator=True),)))


def test_banco_withdraws_the_other_bets_and_priority_decides() -> None:
    s = betting(bets=(("seat-1", 30),))
    s = apply(
        s,
        Step(
            K.BANCO,
            callers=(BancoCaller("spec", spectator=True, order=0), BancoCaller("seat-3", order=2)),
        ),
    )
    assert [(b.punter, b.amount) for b in s.bets] == [("seat-3", 100)]
    assert s.banco and kinds(s) == ["bets_closed"]


def test_home_single_punter_has_options_on_one_to_seven() -> None:
    s = dealt(("AC", "7D", "2C", "KH"), rules=HOME, bank=10, bets=(("seat-6", 10),))
    assert requirement(s) == ("player", Requirement.OPTION)
    several = dealt(("AC", "7D", "2C", "KH"), rules=HOME, bank=10, bets=(("seat-6", 6), ("seat-8", 4)))
    assert requirement(several) == ("player", Requirement.DRAW)


def test_to_record_needs_a_finished_coup() -> None:
    with pytest.raises(IllegalStep, match="not finished"):
        to_record(betting())


def test_every_example_record_replays_as_history() -> None:
    """The interchange examples (malformed one aside) replay step by step into themselves, the
    bets beyond the bank flagged rather than refused."""
    import json
    from pathlib import Path

    from chemin_de_fer.engine.interchange import record_from_dict
    from chemin_de_fer.engine.machine import record_steps

    data = Path(__file__).resolve().parents[2] / "data" / "coups.jsonl"
    replayed = 0
    for line in data.read_text().splitlines():
        raw = json.loads(line)
        if raw["id"] == "bad-card":
            continue
        rec = record_from_dict(raw, known_profiles=BUILTIN)
        rules = Rules.for_profile(BUILTIN[rec.profile])
        state = replay(new_coup(rules, house_limit=rec.house_limit, historical=True), record_steps(rec))
        assert to_record(state, coup_id=rec.id, shoe_next=rec.shoe_next) == rec
        replayed += 1
        if rec.id == "bets-exceed-bank":
            assert [(v.code.value, v.detail) for _, v in state.violations] == [
                ("BETS_EXCEED_BANK", "120 > 100")
            ]
    assert replayed == 13


def test_live_tables_refuse_what_history_only_records() -> None:
    s = apply(new_coup(CASINO), Step(K.BANK_DECLARED, amount=100, punter="b"))
    s = apply(s, Step(K.BET, punter="a", amount=80))
    with pytest.raises(IllegalStep, match="only 20 of the bank"):
        apply(s, Step(K.BET, punter="c", amount=40))
    live = dealt(("5D", "9H", "KC", "QS"))
    assert "banker_natural" not in kinds(live)  # live: the player speaks first

"""The offline judge and the historical machine (what an import replays) agree on every record a
natural decided, and the reader refuses what both must refuse, in the documented order and
quoting the line as written (docs/coup-record.md, Malformed lines)."""

from __future__ import annotations

import io
import itertools
import json
from collections import Counter
from typing import Any

import pytest

from chemin_de_fer.engine.coup import Action, Code
from chemin_de_fer.engine.interchange import record_from_dict, seats_refusal
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.machine import (
    IllegalStep,
    Move,
    Step,
    apply,
    new_coup,
    record_steps,
    replay,
    to_record,
)
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.validator import validate_lines
from core.records import RecordError

CASINO = Rules.for_profile(BUILTIN["casino"])
ACTIONS = ("natural", "draw", "stand", "none")
HANDS = {
    "pnat": ((["4H", "4C"], "7C"), (["AS", "2D"], "6S")),
    "bnat": ((["2H", "3C"], "7C"), (["4S", "5D"], "6S")),
    "both": ((["4H", "4C"], "7C"), (["4S", "5D"], "6S")),
}
SHAPES: list[dict[str, Any]] = [
    {
        "id": f"{name}-{pa}{'3' if p3 else ''}-{ba}{'3' if b3 else ''}",
        "profile": "casino",
        "bank": 100,
        "bets": [{"punter": "seat-1", "amount": 100}],
        "player": {"cards": HANDS[name][0][0] + ([HANDS[name][0][1]] if p3 else []), "action": pa},
        "banker": {"cards": HANDS[name][1][0] + ([HANDS[name][1][1]] if b3 else []), "action": ba},
        "shoe_next": ["9C", "9D"],
    }
    for name in HANDS
    for pa, p3, ba, b3 in itertools.product(ACTIONS, (False, True), ACTIONS, (False, True))
]


def verdict_of(line: object) -> dict[str, Any]:
    out = io.BytesIO()
    raw = line if isinstance(line, bytes) else json.dumps(line).encode()
    validate_lines([raw], out)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("raw", SHAPES, ids=[r["id"] for r in SHAPES])
def test_the_historical_machine_flags_every_natural_shape_as_the_judge_does(raw) -> None:
    try:
        rec = record_from_dict(raw, known_profiles=BUILTIN)
    except RecordError:
        return  # malformed: the reader refuses it for the import and the judge alike
    verdict = judge_coup(rec, CASINO)
    state = replay(new_coup(CASINO, historical=True), record_steps(rec))
    assert Counter((v.code, v.side) for _, v in state.violations) == Counter(
        (v.code, v.side) for v in verdict.violations
    )
    # what the import's coup says of itself (its record, judged at the reveal) is the same verdict
    assert judge_coup(to_record(state, coup_id=rec.id, shoe_next=rec.shoe_next), CASINO) == verdict


def test_sixty_five_of_the_natural_shapes_are_well_formed() -> None:
    readable = 0
    for raw in SHAPES:
        try:
            record_from_dict(raw, known_profiles=BUILTIN)
        except RecordError:
            continue
        readable += 1
    assert (len(SHAPES), readable) == (192, 65)


def codes(raw_id: str) -> list[tuple[str, str]]:
    (raw,) = [r for r in SHAPES if r["id"] == raw_id]
    return [(v["code"], v["side"]) for v in verdict_of(raw)["violations"]]


def test_a_natural_recorded_as_none_was_not_shown() -> None:
    """A live table waits for the player's word on his natural, and for the banker's on his own
    when the player had none: a record whose natural says ``none`` there is NATURAL_NOT_SHOWN."""
    assert codes("pnat-none-none") == [("NATURAL_NOT_SHOWN", "player")]
    assert codes("bnat-stand-none") == [("NATURAL_NOT_SHOWN", "banker")]
    assert codes("bnat-none-none") == [("NATURAL_NOT_SHOWN", "banker")]
    # the banker's natural is shown at the reveal when the player's decided the coup
    assert codes("both-natural-none") == []
    assert codes("both-none-none") == [("NATURAL_NOT_SHOWN", "player")]
    # a player silent before the banker's natural never got to decide: fine
    assert codes("bnat-none-natural") == []


def test_after_a_natural_only_the_natural_rules_are_judged() -> None:
    """docs/rules.md, Decisions: a banker without a natural who stood, or announced a draw that got
    no card, after the player showed his natural broke none of them (his third card would)."""
    assert codes("pnat-natural-stand") == []
    assert codes("pnat-natural-draw") == []
    assert codes("pnat-natural-draw3") == [("CARD_AFTER_NATURAL", "banker")]


def test_a_live_table_still_refuses_what_only_a_history_records() -> None:
    (raw,) = [r for r in SHAPES if r["id"] == "pnat-natural-stand"]
    state = new_coup(CASINO)
    for step in record_steps(record_from_dict(raw, known_profiles=BUILTIN))[:7]:  # bank, bet, close, deal
        state = apply(state, step)
    assert state.phase.value == "player_to_act"
    with pytest.raises(IllegalStep, match="reveal is not possible now"):
        apply(state, Step(Move.REVEAL))
    shown = apply(state, Step(Move.PLAYER_NATURAL))
    with pytest.raises(IllegalStep, match="banker_stand is not possible now"):
        apply(shown, Step(Move.BANKER_STAND))
    done = apply(shown, Step(Move.REVEAL))
    assert (done.player_action, done.banker_action) == (Action.NATURAL, Action.NONE)


def test_one_step_can_carry_both_unshown_naturals() -> None:
    (raw,) = [r for r in SHAPES if r["id"] == "both-none-stand"]
    rec = record_from_dict(raw, known_profiles=BUILTIN)
    state = replay(new_coup(CASINO, historical=True), record_steps(rec))
    stand = [(n, v.code, v.side) for n, v in state.violations]
    # step 8, the first after the deal: the banker stood with the player silent
    assert stand == [(8, Code.NATURAL_NOT_SHOWN, "player"), (8, Code.NATURAL_NOT_SHOWN, "banker")]


# ---------------------------------------------------------------------- the reader
BASE: dict[str, Any] = {
    "id": "x",
    "profile": "casino",
    "bank": 100,
    "bets": [{"punter": "seat-1", "amount": 60}, {"punter": "seat-2", "amount": 40}],
    "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
    "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
}


def error(**changes: Any) -> str:
    verdict = verdict_of({**BASE, **changes})
    return verdict["error"]


def test_the_first_problem_reported_is_the_first_the_list_names() -> None:
    """docs/coup-record.md: "the first problem on a line is the one reported, in the order of this
    list" — across both hands and every bet, not one side or bet at a time."""
    # the banker's four cards come before the player's unknown action
    four = {"cards": ["AS", "2D", "5S", "6S"], "action": "draw"}
    assert (
        error(player={"cards": ["2H", "3C"], "action": "hit"}, banker=four)
        == "banker hand must have 2 or 3 cards, not 4"
    )
    # the banker's unknown card before the player's third card without a draw
    unknown = {"cards": ["AS", "2X"], "action": "stand"}
    assert error(player={"cards": ["2H", "3C", "4C"], "action": "stand"}, banker=unknown) == "bad card '2X'"
    # the banker's third card without a draw before the player's natural on 5
    undrawn = {"cards": ["AS", "2D", "5S"], "action": "stand"}
    assert (
        error(player={"cards": ["2H", "3C"], "action": "natural"}, banker=undrawn)
        == "banker has a third card but did not draw"
    )
    # a bet's amount before another bet's missing punter
    assert (
        error(bets=[{"amount": 5}, {"punter": "b", "amount": "5"}])
        == 'bet 2: amount must be a positive integer, not "5"'
    )


def test_values_are_quoted_as_the_line_wrote_them() -> None:
    assert error(house_limit=True) == "house_limit must be a positive integer, not true"
    assert error(chip_unit="5") == 'chip_unit must be a positive integer, not "5"'
    assert error(bank=None) == "bank must be a positive integer, not null"
    assert error(shoe_next=[None]) == "bad card null in shoe_next"
    assert error(player={"cards": ["2H", "3C"], "action": None}) == "player: unknown action null"
    assert error(profile=None) == "no profile: give one in the record or with --profile"
    assert verdict_of({**BASE, "game": None})["error"].startswith("unknown game null; known: chemin-de-fer")
    with pytest.raises(RecordError) as refused:
        record_from_dict({**BASE, "game": None}, known_profiles=BUILTIN)
    assert refused.value.message == "not a chemin de fer record: game null"


@pytest.mark.parametrize("value", [False, 0, "", {}, "KD", 7])
def test_shoe_next_is_a_list_or_nothing(value: object) -> None:
    assert error(shoe_next=value) == f"shoe_next must be a list of cards, not {json.dumps(value)}"


@pytest.mark.parametrize("value", [None, []])
def test_shoe_next_null_or_empty_is_no_card(value: object) -> None:
    assert record_from_dict({**BASE, "shoe_next": value}, known_profiles=BUILTIN).shoe_next == ()


def test_a_punter_seated_in_one_bet_and_standing_in_another_is_malformed() -> None:
    seated = {"punter": "seat-1", "amount": 60}
    standing = {"punter": "seat-1", "amount": 40, "spectator": True}
    seated_first, standing_first = [seated, standing], [standing, seated]
    sentence = "bet 2: 'seat-1' bets both from a seat and as a spectator; a punter is one or the other"
    assert error(profile="classic", bets=seated_first) == sentence
    assert error(bets=standing_first) == sentence
    # twice from the same place is fine: his stakes are summed
    twice = [{"punter": "seat-1", "amount": 60}, {"punter": "seat-1", "amount": 40}]
    assert verdict_of({**BASE, "bets": twice})["settlement"]["punters"] == {"seat-1": -100}


def test_more_seated_punters_than_the_profile_seats_is_malformed() -> None:
    eleven = [{"punter": f"p{i}", "amount": 1} for i in range(11)]
    assert "error" not in verdict_of({**BASE, "bets": eleven})
    twelve = [{"punter": f"p{i}", "amount": 1} for i in range(12)]
    assert error(bets=twelve) == (
        "12 seated punters and the banker need 13 seats; the casino profile seats at most 12"
    )
    # spectators stand: they need no seat
    crowd = eleven + [{"punter": f"s{i}", "amount": 1, "spectator": True} for i in range(20)]
    assert "error" not in verdict_of({**BASE, "bets": crowd})
    rec = record_from_dict({**BASE, "profile": "classic", "bets": twelve}, known_profiles=BUILTIN)
    assert seats_refusal(rec, BUILTIN["classic"]) is None  # classic seats up to 30


def test_the_club_reimbursement_is_owed_by_the_active_punter_the_rules_name() -> None:
    """RULES.md §2, §6: whatever the record's ``active_punter`` says, the largest seated bettor
    played and answers for the others' stakes (WRONG_ACTIVE_PUNTER is procedural)."""
    club = {
        **BASE,
        "profile": "club",
        "player": {"cards": ["2H", "3C"], "action": "stand"},
        "banker": {"cards": ["AS", "6D"], "action": "stand"},
    }
    for named in ("seat-2", "seat-9"):
        verdict = verdict_of({**club, "active_punter": named})
        assert verdict["settlement"]["punters"] == {"seat-1": -100, "seat-2": 0}
        assert verdict["violations"] == [
            {"code": "WRONG_ACTIVE_PUNTER", "side": "punters", "detail": f"seat-1 plays, not {named}"}
        ]
    assert verdict_of(club)["settlement"]["punters"] == {"seat-1": -100, "seat-2": 0}

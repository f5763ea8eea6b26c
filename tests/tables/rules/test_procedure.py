"""The procedural codes a record can express (COUP_RECORD.md, Verdict): SPECTATOR_BET_NOT_ALLOWED
and BANK_BELOW_MINIMUM — flagged by the offline judge, refused by a live table, flagged (not
refused) when a recorded history is replayed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tables.rules.coup import Action, Code, CoupRecord, Hand, Stake
from tables.rules.judge import Rules, judge_coup
from tables.rules.machine import IllegalStep, Move, Step, apply, new_coup, record_steps, replay
from tables.rules.procedure import spectator_may_bet
from tables.rules.profiles import BUILTIN
from tables.rules.settlement import BancoCaller

RULES = {slug: Rules.for_profile(p) for slug, p in BUILTIN.items()}
SEATED = Stake("seat-2", 30)
STANDING = Stake("spectator-7", 20, spectator=True)


def record(profile: str, bank: int = 100, bets: tuple[Stake, ...] = (SEATED,), **kw) -> CoupRecord:
    """A clean coup: the player stands on 7, the banker on 6; the player wins."""
    return CoupRecord(
        id="r",
        profile=profile,
        bank=bank,
        bets=bets,
        player=Hand(("4C", "3D"), Action.STAND),
        banker=Hand(("KS", "6H"), Action.STAND),
        **kw,
    )


def codes(rec: CoupRecord) -> list[tuple[str, str, str]]:
    return [(v.code.value, v.side, v.detail) for v in judge_coup(rec, RULES[rec.profile]).violations]


# ------------------------------------------------------------------ the judge
@pytest.mark.parametrize(
    ("profile", "banco", "flagged"),
    [
        ("casino", False, False),  # RULES.md §10: casino spectators bet the uncovered part...
        ("casino", True, False),  # ...or banco
        ("classic", False, True),  # classic: spectators do not bet
        ("classic", True, True),
        ("club", False, False),  # club: a spectator adds to the seated punters' bets
        ("club", True, True),  # but never plays the hand: no spectator's banco (RULES.md §2)
        ("home", False, True),  # home: spectators do not bet
        ("home", True, True),
    ],
)
def test_a_spectators_bet_is_flagged_where_the_profile_forbids_it(profile, banco, flagged) -> None:
    """RULES.md §2 and §10 ("spectators bet"); COUP_RECORD.md: SPECTATOR_BET_NOT_ALLOWED, side
    ``punters``, ``detail`` the spectator; the coup is judged and settled as recorded."""
    bets = (replace(STANDING, amount=100),) if banco else (SEATED, STANDING)
    rec = record(profile, bets=bets, banco=banco)
    expected = [("SPECTATOR_BET_NOT_ALLOWED", "punters", "spectator-7")] if flagged else []
    assert codes(rec) == expected
    assert spectator_may_bet(BUILTIN[profile], banco=banco) is not flagged
    verdict = judge_coup(rec, RULES[profile])
    assert verdict.restored is None
    seated_only = judge_coup(
        replace(rec, bets=tuple(replace(b, spectator=False) for b in bets)), RULES[profile]
    )
    assert verdict.settlement == seated_only.settlement  # settled exactly as recorded


def test_several_forbidden_spectators_are_one_violation_naming_the_first() -> None:
    """COUP_RECORD.md: SPECTATOR_BET_NOT_ALLOWED once per coup (RULES.md §10, classic)."""
    bets = (SEATED, STANDING, Stake("spectator-9", 10, spectator=True), STANDING)
    assert codes(record("classic", bets=bets)) == [("SPECTATOR_BET_NOT_ALLOWED", "punters", "spectator-7")]


@pytest.mark.parametrize(
    ("profile", "bank", "flagged"),
    [
        ("home", 1, True),  # RULES.md §10: home series, minimum bank 2
        ("home", 2, False),
        ("casino", 1, False),  # the other profiles' minimum is one chip
        ("classic", 1, False),
        ("club", 1, False),
    ],
)
def test_a_bank_under_the_profiles_minimum_is_flagged(profile, bank, flagged) -> None:
    """RULES.md §3.1 (the bank is at least the profile's minimum) and §10; COUP_RECORD.md:
    BANK_BELOW_MINIMUM, side ``banker``; ``detail`` reads ``bank < minimum``."""
    rec = record(profile, bank=bank, bets=(Stake("seat-2", 1),))
    assert codes(rec) == ([("BANK_BELOW_MINIMUM", "banker", f"{bank} < 2")] if flagged else [])
    verdict = judge_coup(rec, RULES[profile])
    assert verdict.restored is None and verdict.settlement is not None
    assert verdict.settlement.covered == 1


def test_procedural_codes_come_first_and_a_game_violation_is_still_restored() -> None:
    """COUP_RECORD.md: the procedural codes restore nothing, but the coup is still judged and
    restored as recorded (RULES.md §9); reported in the order the table meets them: the bank,
    the bets, then the play of the cards."""
    rec = replace(
        record("home", bank=1, bets=(Stake("seat-2", 1), Stake("spectator-3", 1, spectator=True))),
        player=Hand(("AC", "2D"), Action.STAND),  # several punters: 3 must draw (RULES.md §4)
        shoe_next=("5H",),
    )
    verdict = judge_coup(rec, RULES["home"])
    assert [(v.code.value, v.detail) for v in verdict.violations] == [
        ("BANK_BELOW_MINIMUM", "1 < 2"),
        ("SPECTATOR_BET_NOT_ALLOWED", "spectator-3"),
        ("BETS_EXCEED_BANK", "2 > 1"),
        ("PLAYER_SHOULD_DRAW", ""),
    ]
    assert verdict.restored is not None and verdict.settlement is None  # the bets exceed the bank


def test_a_clean_game_with_only_procedural_codes_is_settled_as_played() -> None:
    """COUP_RECORD.md: ``restored`` stays null when the procedural codes are the only violations."""
    rec = record("home", bank=1, bets=(Stake("spectator-3", 1, spectator=True),))
    verdict = judge_coup(rec, RULES["home"])
    assert {v.code for v in verdict.violations} == {Code.BANK_BELOW_MINIMUM, Code.SPECTATOR_BET_NOT_ALLOWED}
    assert verdict.restored is None
    assert verdict.settlement is not None
    assert (verdict.outcome.value, verdict.settlement.punters) == ("player", {"spectator-3": 1})


# ------------------------------------------------------------------ the machine: live and history
@pytest.mark.parametrize("profile", sorted(BUILTIN))
@pytest.mark.parametrize("banco", [False, True])
def test_a_live_table_refuses_what_a_history_records_flagged(profile, banco) -> None:
    """RULES.md §2/§10: the live machine refuses a forbidden spectator's bet (nothing applied);
    replaying a recorded history flags it with the judge's code instead."""
    rules = RULES[profile]
    declared = Step(Move.BANK_DECLARED, amount=100, punter="seat-1")
    if banco:
        bet = Step(Move.BANCO, callers=(BancoCaller("spectator-7", spectator=True),))
    else:
        bet = Step(Move.BET, punter="spectator-7", amount=20, spectator=True)
    allowed = spectator_may_bet(BUILTIN[profile], banco=banco)
    live = apply(new_coup(rules), declared)
    if allowed:
        assert apply(live, bet).violations == ()
    else:
        message = "spectator may not call banco" if banco else "spectators may not bet"
        with pytest.raises(IllegalStep, match=f"{message} under the {profile} profile"):
            apply(live, bet)
    history = apply(apply(new_coup(rules, historical=True), declared), bet)
    flags = [(n, v.code.value, v.detail) for n, v in history.violations]
    assert flags == ([] if allowed else [(2, "SPECTATOR_BET_NOT_ALLOWED", "spectator-7")])


def test_a_history_flags_a_forbidden_spectator_once() -> None:
    """COUP_RECORD.md: once per coup, on the step that first broke the rule."""
    state = replay(
        new_coup(RULES["classic"], historical=True),
        [
            Step(Move.BANK_DECLARED, amount=100, punter="seat-1"),
            Step(Move.BET, punter="seat-2", amount=10),
            Step(Move.BET, punter="spectator-7", amount=10, spectator=True, order=1),
            Step(Move.BET, punter="spectator-8", amount=10, spectator=True, order=2),
        ],
    )
    assert [(n, v.code.value) for n, v in state.violations] == [(3, "SPECTATOR_BET_NOT_ALLOWED")]


def test_a_bank_under_the_minimum_is_refused_live_and_flagged_in_a_history() -> None:
    """RULES.md §3.1 and §10 (home: minimum bank 2)."""
    rules = RULES["home"]
    low = Step(Move.BANK_DECLARED, amount=1, punter="seat-1")
    with pytest.raises(IllegalStep, match="at least 2"):
        apply(new_coup(rules), low)
    history = apply(new_coup(rules, historical=True), low)
    assert history.bank == 1
    assert [(n, v.code.value, v.side, v.detail) for n, v in history.violations] == [
        (1, "BANK_BELOW_MINIMUM", "banker", "1 < 2")
    ]
    # a history's bank above the profile's minimum but under a continuation is still refused: the
    # record cannot say what the continuation was, so the importer hands the bank over instead
    with pytest.raises(IllegalStep, match="at least 20"):
        apply(
            new_coup(rules, minimum_bank=20, historical=True), Step(Move.BANK_DECLARED, amount=5, punter="b")
        )


def test_a_banco_suivi_is_recorded_step_by_step() -> None:
    """RULES.md §2 (home: a losing banco caller's banco suivi); COUP_RECORD.md: ``banco_suivi``
    carried from the record into the banco step and back."""
    rec = replace(record("home", bank=20, bets=(Stake("seat-3", 20),)), banco=True, banco_suivi=True)
    steps = record_steps(rec)
    banco = next(s for s in steps if s.kind is Move.BANCO)
    assert banco.callers == (BancoCaller("seat-3", suivi=True),)
    state = replay(new_coup(RULES["home"], historical=True), steps)
    assert state.banco_suivi
    with pytest.raises(IllegalStep, match="no banco suivi"):
        replay(new_coup(RULES["casino"], historical=True), record_steps(replace(rec, profile="casino")))


def test_every_parity_example_replays_as_history_with_the_judges_violations() -> None:
    """tests/data/coups_parity.jsonl (malformed line aside): record → steps → historical replay
    gives the record back, ``banco_suivi`` included, flagged as the judge flags it."""
    import json
    from pathlib import Path

    from tables.rules.interchange import record_from_dict
    from tables.rules.machine import to_record

    data = Path(__file__).resolve().parents[2] / "data" / "coups_parity.jsonl"
    replayed = 0
    for line in data.read_text().splitlines():
        raw = json.loads(line)
        if raw["id"] == "suivi-without-banco":
            continue
        rec = record_from_dict(raw, known_profiles=BUILTIN)
        rules = RULES[rec.profile]
        state = replay(new_coup(rules, historical=True), record_steps(rec))
        assert to_record(state, coup_id=rec.id, shoe_next=rec.shoe_next) == rec
        judged = [(v.code, v.side, v.detail) for v in judge_coup(rec, rules).violations]
        assert [(v.code, v.side, v.detail) for _, v in state.violations] == judged
        replayed += 1
    assert replayed == 8

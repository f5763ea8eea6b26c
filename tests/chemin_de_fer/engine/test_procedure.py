"""The procedural codes a record can express (COUP_RECORD.md, Verdict): SPECTATOR_BET_NOT_ALLOWED,
BANK_BELOW_MINIMUM, BANK_ABOVE_LIMIT, SUIVI_NOT_ALLOWED and SPECTATOR_BEFORE_SEATED — flagged by the
offline judge, refused by a live table, flagged (not refused) when a recorded history is replayed;
the coup still judged, settled and restored as recorded."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chemin_de_fer.engine.coup import Action, Code, CoupRecord, Hand, Stake
from chemin_de_fer.engine.interchange import settlement_to_dict
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
from chemin_de_fer.engine.procedure import spectator_may_bet
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.settlement import BancoCaller

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
    assert state.violations == ()
    # COUP_RECORD.md: under a profile without banco suivi a history's suivi is flagged, not refused,
    # and kept, so that the record says it again (SUIVI_NOT_ALLOWED, on the banco step)
    casino = replace(rec, profile="casino")
    state = replay(new_coup(RULES["casino"], historical=True), record_steps(casino))
    assert state.banco_suivi
    assert [(n, v.code.value, v.side, v.detail) for n, v in state.violations] == [
        (2, "SUIVI_NOT_ALLOWED", "punters", "")
    ]
    assert to_record(state, coup_id="r") == casino


def test_every_parity_example_replays_as_history_with_the_judges_violations() -> None:
    """tests/data/coups_parity.jsonl (malformed line aside): record → steps → historical replay
    gives the record back, ``banco_suivi`` included, flagged as the judge flags it."""
    import json
    from pathlib import Path

    from chemin_de_fer.engine.interchange import record_from_dict

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


# ------------------------------------------------------------------ BANK_ABOVE_LIMIT
#: the player stands on 6, the banker stands on 7: a clean coup the banker wins
PLAYER_ON_6, BANKER_ON_7 = Hand(("KS", "6H"), Action.STAND), Hand(("4C", "3D"), Action.STAND)


@pytest.mark.parametrize(
    ("bank", "house_limit", "flagged", "next_bank_min"),
    [
        (500, 500, False, 500),  # exactly at the limit: fine (500 + 100 - 5 = 595, capped)
        (501, 500, True, 500),  # one chip above: flagged, and still capped
        (1000, 500, True, 500),
        (499, 500, False, 500),
        (100, 500, False, 195),  # 100 + 100 - 5, under the cap
        (1000, None, False, 1095),  # a record without a house limit has nothing to exceed
    ],
)
def test_a_bank_above_the_house_limit_is_flagged(bank, house_limit, flagged, next_bank_min) -> None:
    """COUP_RECORD.md: BANK_ABOVE_LIMIT, side ``banker``, ``detail`` empty, when ``bank`` is above
    the record's ``house_limit``; the coup is still settled as recorded (RULES.md §6: 5 % of the
    covered stake, the next bank capped at the limit) and restores nothing."""
    rec = replace(
        record("casino", bank=bank, bets=(Stake("seat-2", 100),), house_limit=house_limit),
        player=PLAYER_ON_6,
        banker=BANKER_ON_7,
    )
    assert codes(rec) == ([("BANK_ABOVE_LIMIT", "banker", "")] if flagged else [])
    verdict = judge_coup(rec, RULES["casino"])
    assert verdict.restored is None
    assert verdict.settlement is not None
    assert settlement_to_dict(verdict.settlement) == {
        "covered": 100,
        "uncovered": bank - 100,
        "tax": 5,
        "banker_net": 95,
        "punters": {"seat-2": -100},
        "next_bank_min": next_bank_min,
    }


@pytest.mark.parametrize("profile", sorted(BUILTIN))
def test_the_house_limit_binds_every_profile(profile) -> None:
    """COUP_RECORD.md: the house limit is the record's, whatever its profile."""
    assert codes(record(profile, bank=101, house_limit=100)) == [("BANK_ABOVE_LIMIT", "banker", "")]
    assert codes(record(profile, bank=100, house_limit=100)) == []


def test_a_live_table_refuses_a_bank_above_the_house_limit_and_a_history_flags_it() -> None:
    """The live machine refuses the bank (nothing applied); a replayed history records it with
    the judge's code on the ``bank_declared`` step."""
    rules = RULES["casino"]
    over = Step(Move.BANK_DECLARED, amount=501, punter="seat-1")
    with pytest.raises(IllegalStep, match=r"^the bank may not exceed the house limit of 500$"):
        apply(new_coup(rules, house_limit=500), over)
    assert apply(new_coup(rules, house_limit=500), replace(over, amount=500)).violations == ()
    history = apply(new_coup(rules, house_limit=500, historical=True), over)
    assert history.bank == 501
    assert [(n, v.code.value, v.side, v.detail) for n, v in history.violations] == [
        (1, "BANK_ABOVE_LIMIT", "banker", "")
    ]


# ------------------------------------------------------------------ SUIVI_NOT_ALLOWED
@pytest.mark.parametrize(
    ("profile", "suivi", "flagged"),
    [
        ("casino", True, True),  # RULES.md §2, §10: only the home profile has a banco suivi
        ("classic", True, True),
        ("club", True, True),
        ("home", True, False),
        ("casino", False, False),
        ("classic", False, False),
        ("club", False, False),
        ("home", False, False),
    ],
)
def test_a_banco_suivi_is_flagged_under_a_profile_without_one(profile, suivi, flagged) -> None:
    """COUP_RECORD.md: SUIVI_NOT_ALLOWED, side ``punters``, ``detail`` empty, for ``"banco_suivi":
    true`` under every profile but home; settled exactly as the same banco without its claim."""
    assert BUILTIN[profile].banco_suivi is (profile == "home")
    rec = replace(record(profile, bank=20, bets=(Stake("seat-3", 20),)), banco=True, banco_suivi=suivi)
    assert codes(rec) == ([("SUIVI_NOT_ALLOWED", "punters", "")] if flagged else [])
    verdict = judge_coup(rec, RULES[profile])
    assert verdict.restored is None
    assert verdict.settlement == judge_coup(replace(rec, banco_suivi=False), RULES[profile]).settlement


@pytest.mark.parametrize("profile", sorted(BUILTIN))
def test_a_live_table_refuses_a_suivi_its_profile_lacks_and_a_history_flags_it(profile) -> None:
    """RULES.md §2: the live machine refuses the claim where the profile has no banco suivi; a
    replayed history keeps the claim (its record says it again) and flags it on the banco step."""
    rules = RULES[profile]
    declared = Step(Move.BANK_DECLARED, amount=20, punter="seat-1")
    banco = Step(Move.BANCO, callers=(BancoCaller("seat-3", suivi=True),))
    history = replay(new_coup(rules, historical=True), [declared, banco])
    flags = [(n, v.code.value, v.side, v.detail) for n, v in history.violations]
    assert history.banco_suivi
    live = apply(new_coup(rules), declared)
    if BUILTIN[profile].banco_suivi:
        assert apply(live, banco).violations == ()
        assert flags == []
    else:
        with pytest.raises(IllegalStep, match=rf"^the {profile} profile has no banco suivi$"):
            apply(live, banco)
        assert flags == [(2, "SUIVI_NOT_ALLOWED", "punters", "")]


# ------------------------------------------------------------------ SPECTATOR_BEFORE_SEATED
S2, S4 = Stake("seat-2", 30), Stake("seat-4", 10)
V7, V8 = Stake("spectator-7", 20, spectator=True), Stake("spectator-8", 5, spectator=True)


@pytest.mark.parametrize(
    ("bets", "flagged"),
    [
        ((S2, V7), False),  # the seated round first, then the spectator: the rule
        ((S2, S4, V7, V8), False),
        ((V7,), False),  # spectators alone: no seated punter comes after them
        ((V7, V8), False),
        ((V7, S2), True),
        ((V7, V8, S2), True),  # once a coup, however many spectators came first…
        ((V7, S2, S4), True),  # …or seated punters after them
        ((S2, V7, S4), True),  # a seated bet after a spectator's, even mid-round
        ((V7, S2, V7), True),  # the same spectator betting twice
    ],
    ids=lambda bets: "-".join(b.punter for b in bets) if isinstance(bets, tuple) else str(bets),
)
def test_a_seated_bet_listed_after_a_spectators_is_flagged_once(bets, flagged) -> None:
    """COUP_RECORD.md: SPECTATOR_BEFORE_SEATED, side ``punters``, once per coup, ``detail`` empty,
    when a seated punter's bet is listed after a spectator's (RULES.md §2: spectators bet only once
    the seated round is over); settled exactly as recorded (the casino lets spectators bet)."""
    rec = record("casino", bets=bets)
    assert codes(rec) == ([("SPECTATOR_BEFORE_SEATED", "punters", "")] if flagged else [])
    verdict = judge_coup(rec, RULES["casino"])
    assert verdict.restored is None
    in_order = replace(rec, bets=tuple(sorted(bets, key=lambda b: b.spectator)))
    assert verdict.settlement == judge_coup(in_order, RULES["casino"]).settlement


def test_a_spectators_banco_breaks_no_order() -> None:
    """A banco is one bet: nobody bets after it (COUP_RECORD.md)."""
    assert codes(replace(record("casino", bets=(replace(V7, amount=100),)), banco=True)) == []


@pytest.mark.parametrize("profile", sorted(BUILTIN))
def test_the_order_is_judged_under_every_profile_beside_who_may_bet(profile) -> None:
    """COUP_RECORD.md: SPECTATOR_BEFORE_SEATED does not depend on the profile; where spectators
    may not bet at all (classic, home) SPECTATOR_BET_NOT_ALLOWED comes too, first."""
    forbidden = (
        []
        if spectator_may_bet(BUILTIN[profile], banco=False)
        else [("SPECTATOR_BET_NOT_ALLOWED", "punters", "spectator-7")]
    )
    assert codes(record(profile, bets=(V7, S2))) == [*forbidden, ("SPECTATOR_BEFORE_SEATED", "punters", "")]


def test_a_history_flags_a_seated_bet_after_a_spectators_the_live_services_refuse_it() -> None:
    """The machine flags the seated bet that came after a spectator's in a replayed history, on its
    step, once; its record keeps the history's order, so the judge flags it too. A live table's
    services refuse the spectator's bet while seated punters are still to bet
    (tests/tables/test_offline_parity.py); its record lists the spectators last, so neither the
    live machine nor the judge of its record has anything to flag."""
    rules = RULES["casino"]
    steps = [
        Step(Move.BANK_DECLARED, amount=100, punter="seat-1"),
        Step(Move.BET, punter="spectator-7", amount=20, spectator=True, order=0),
        Step(Move.BET, punter="seat-2", amount=30, order=1),
        Step(Move.BET, punter="seat-4", amount=10, order=2),
    ]
    history = replay(new_coup(rules, historical=True), steps)
    assert [(n, v.code.value, v.side, v.detail) for n, v in history.violations] == [
        (3, "SPECTATOR_BEFORE_SEATED", "punters", "")
    ]
    assert [b.punter for b in history.bets] == ["spectator-7", "seat-2", "seat-4"]
    # the services give a spectator his place after every seat (SPECTATOR_TURN), whenever he bet
    live = replay(new_coup(rules), [steps[0], replace(steps[1], order=100), *steps[2:]])
    assert live.violations == ()
    closed = [Step(Move.BETS_CLOSED), *(Step(k, card=c) for k, c in zip(DEAL, CARDS, strict=True))]
    closed += [Step(Move.PLAYER_STAND), Step(Move.BANKER_STAND), Step(Move.REVEAL)]
    rec = to_record(replay(history, closed), coup_id="r")
    assert [b.punter for b in rec.bets] == ["spectator-7", "seat-2", "seat-4"]
    assert codes(rec) == [("SPECTATOR_BEFORE_SEATED", "punters", "")]
    live_rec = to_record(replay(live, closed), coup_id="r")
    assert [b.punter for b in live_rec.bets] == ["seat-2", "seat-4", "spectator-7"]
    assert codes(live_rec) == []


#: the clean coup of ``record``, dealt P1 B1 P2 B2
DEAL = (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER, Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER)
CARDS = ("4C", "KS", "3D", "6H")


# ------------------------------------------------------------------ together
def test_the_new_codes_come_in_the_tables_order_and_a_game_violation_is_still_restored() -> None:
    """COUP_RECORD.md: procedural codes restore nothing, the game violation is still restored
    (RULES.md §9); reported in the order the table meets them: the bank, the bets, the cards."""
    rec = replace(
        record("casino", bank=600, bets=(replace(V7, amount=100), replace(S2, amount=200)), house_limit=500),
        player=Hand(("AC", "2D"), Action.STAND),  # 3: the player must draw (RULES.md §4)
        shoe_next=("5H",),
    )
    verdict = judge_coup(rec, RULES["casino"])
    assert [(v.code.value, v.side, v.detail) for v in verdict.violations] == [
        ("BANK_ABOVE_LIMIT", "banker", ""),
        ("SPECTATOR_BEFORE_SEATED", "punters", ""),
        ("PLAYER_SHOULD_DRAW", "player", ""),
    ]
    # restored and settled exactly as the same coup without the procedural faults
    clean = judge_coup(replace(rec, house_limit=None, bets=(rec.bets[1], rec.bets[0])), RULES["casino"])
    assert (verdict.restored, verdict.settlement) == (clean.restored, clean.settlement)
    assert verdict.settlement is not None and verdict.settlement.punters == {
        "spectator-7": 100,
        "seat-2": 200,
    }
    # a club spectator's banco with a suivi claimed: both of the banco's codes, who first
    banco = replace(record("club", bets=(replace(V7, amount=100),)), banco=True, banco_suivi=True)
    assert codes(banco) == [
        ("SPECTATOR_BET_NOT_ALLOWED", "punters", "spectator-7"),
        ("SUIVI_NOT_ALLOWED", "punters", ""),
    ]


def test_every_chemin_de_fer_code_is_listed_in_docs_coup_record() -> None:
    """docs/coup-record.md lists every violation code a chemin de fer verdict can hold (issue 24)."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[3] / "docs" / "coup-record.md").read_text()
    table = docs[docs.index("## Verdict") : docs.index("## Malformed lines")]
    rows = {line.split("|")[1].strip() for line in table.splitlines() if line.strip().startswith("| `")}
    listed = {code.strip(" `") for row in rows for code in row.split("/")}
    assert listed == {code.value for code in Code}

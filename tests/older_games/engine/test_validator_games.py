"""``validate_coups`` judges every game: a record's ``"game"`` picks its judge (older_games/engine/games.py).

Properties: a coup played through each game's live machine gives a record that survives JSON, and
the validator's verdict on that line is exactly the module's own judge's; chemin de fer lines are
judged the same with or without ``"game": "chemin-de-fer"``."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.validator import CHEMIN_DE_FER, validate_lines
from core.records import RecordError
from older_games.engine import landsknecht, macao, old_baccarat
from older_games.engine.games import JUDGES
from tables.games import known_games
from tests.older_games.engine.test_old_baccarat import Played, played

DATA = Path(__file__).resolve().parents[2] / "data"
PROPS = settings(max_examples=150, deadline=None)
#: ids as the validator reads them: orjson parses integers of 64 bits at most (for every game)
IDS = st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)


def validate_one(data: dict) -> dict:
    out = io.BytesIO()
    validate_lines([orjson.dumps(data)], out, others=JUDGES)
    (line,) = out.getvalue().splitlines()
    return json.loads(line)


@PROPS
@given(
    n=st.integers(1, 5),
    unit=st.integers(1, 500),
    record_id=IDS,
    data=st.data(),
)
def test_a_macao_coup_from_the_machine_is_judged_offline_as_the_module_judges_it(
    n: int, unit: int, record_id: int | str, data: st.DataObject
) -> None:
    state = macao.start(macao.DEFAULT, unit=unit, banker="B", punters=[f"P{i}" for i in range(1, n + 1)])
    while state.phase != "done":
        moves = macao.next_moves(state)
        kind = data.draw(st.sampled_from(sorted({m.kind for m in moves})))
        state = macao.apply(state, data.draw(st.sampled_from([m for m in moves if m.kind == kind])))
    record = macao.record_of(state)
    line = json.loads(json.dumps({"id": record_id, **macao.record_to_dict(record)}))
    assert macao.record_from_dict(line) == record
    verdict = validate_one(line)
    assert verdict == json.loads(json.dumps(macao.verdict_to_dict(macao.judge(record), record_id)))
    # the machine's own settlement, and a clean coup: the live table refuses what the judge flags
    results, settlement = macao.outcome_of(state)
    assert verdict["violations"] == []
    assert verdict["settlement"]["net"] == dict(settlement.net)
    assert sum(verdict["settlement"]["net"].values()) == 0
    assert len(verdict["results"]) == len(results) == n


@PROPS
@given(
    punters=st.lists(st.sampled_from(["bob", "cid", "dan"]), unique=True, min_size=1, max_size=3),
    fund=st.sampled_from([0, 15, 500]),
    record_id=IDS,
    data=st.data(),
)
def test_a_landsknecht_coup_from_the_machine_is_judged_offline_as_the_module_judges_it(
    punters: list[str], fund: int, record_id: int | str, data: st.DataObject
) -> None:
    state = landsknecht.start(landsknecht.Table("ann", tuple(punters), fund=fund))
    steps = 0
    while state.phase is not landsknecht.Phase.OVER:
        state = landsknecht.apply(state, data.draw(st.sampled_from(landsknecht.next_moves(state))))
        steps += 1
        assert steps < 400
    record = landsknecht.to_record(state)
    line = json.loads(json.dumps({"id": record_id, **landsknecht.record_to_dict(record)}))
    assert landsknecht.record_from_dict(line) == record
    verdict = validate_one(line)
    expected = landsknecht.verdict_to_dict(landsknecht.judge(record), record_id)
    assert verdict == json.loads(json.dumps(expected))
    assert verdict["violations"] == []
    assert verdict["outcome"] == state.outcome.value
    assert sum(verdict["settlement"]["net"].values()) == 0
    if len(record.cards) >= 2:
        # the same line with one card written as no card is held: no outcome, no settlement
        position = data.draw(st.integers(0, len(record.cards) - 1), label="position")
        cards = [*record.cards]
        written = cards[position]
        if written[0] == "T":
            # a ten written 10 is a ten offline as live (RULES.md §11): the same verdict
            cards[position] = "10" + written[1]
            assert validate_one({**line, "cards": cards}) == verdict
        cards[position] = written + "?"
        held = validate_one({**line, "cards": cards})
        assert (held["outcome"], held["settlement"], held["bank_passes"]) == (None, None, None)
        assert {"code": "bad-card", "detail": f"card {position + 1}: bad card {cards[position]!r}"} in held[
            "violations"
        ]


NOT_CHIPS = "must be a whole number of chips, not "
LANDSKNECHT = {"id": "l", "game": "landsknecht", "banker": "ann", "punters": ["bob"], "fund": 0, "stake": 50,
               "covers": [{"punter": "bob", "amount": 50}], "cards": ["TD", "JS", "QC", "JD"]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "outcome", "codes", "net"),
    [
        ({}, "punters", [], {"ann": -50, "bob": 50}),
        # "1D" for "AD": the jack used to take the banker's place, and the queen the punters'
        ({"cards": ["1D", "JS", "QC", "JD"]}, None, ["bad-card"], None),
        ({"cards": ["TD", "1S", "QC", "JD"]}, None, ["bad-card"], None),
        ({"cards": ["TD", "JS", "1C", "JD"]}, None, ["bad-card"], None),
        # nobody covers: the banker plays the fund, whatever the house says of the uncovered part
        ({"covers": [], "fund": 30}, "punters", [], {"ann": -30, "fund": 30}),
        (
            {"covers": [], "fund": 30, "settings": {"fund_backs_uncovered": False}},
            "punters",
            [],
            {"ann": -30, "fund": 30},
        ),
        # a table without a punter is a bad table, judged and settled as played against the fund
        ({"punters": [], "covers": [], "fund": 100}, "punters", ["bad-table"], {"ann": -50, "fund": 50}),
        # a split without consent: the first punter's cover stands, the fund answers for the rest
        (
            {"punters": ["bob", "cid"], "fund": 100, "covers": [{"punter": "bob", "amount": 30},
                                                                {"punter": "cid", "amount": 20}]},
            "punters",
            ["split-without-consent", "split-without-consent"],
            {"ann": -50, "bob": 30, "fund": 20},
        ),
        (
            {"punters": ["bob", "cid"], "fund": 100, "consent": ["bob", "cid"],
             "covers": [{"punter": "bob", "amount": 30}, {"punter": "cid", "amount": 20}]},
            "punters",
            [],
            {"ann": -50, "bob": 30, "cid": 20},
        ),
    ],
)  # fmt: skip
def test_landsknecht_lines_under_the_rulings(
    change: dict, outcome: str | None, codes: list[str], net: dict[str, int] | None
) -> None:
    verdict = validate_one({**LANDSKNECHT, **change})
    assert verdict["outcome"] == outcome
    assert [v["code"] for v in verdict["violations"]] == codes
    assert (verdict["settlement"] or {}).get("net") == net


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("stake", "50", 'stake must be a whole number of chips, not "50"'),
        ("stake", 50.5, "stake must be a whole number of chips, not 50.5"),
        ("stake", 50.0, "stake must be a whole number of chips, not 50.0"),
        ("stake", True, "stake must be a whole number of chips, not true"),
        ("fund", "0", 'fund must be a whole number of chips, not "0"'),
        ("previous", False, "previous must be a whole number of chips, not false"),
        ("covers", [{"punter": "bob", "amount": "50"}], f"cover 1's amount {NOT_CHIPS}\"50\""),
        ("banker", 1, "banker must be a player's name, not 1"),
        ("punters", "bob", 'punters must be a list of names, not "bob"'),
        ("cards", "TDJSQCJD", 'cards must be a list of card codes, not "TDJSQCJD"'),
        ("consent", {"bob": True}, 'consent must be a list of names, not {"bob": true}'),
        # the house settings a line carries are as strict (a list is no word: no exception text)
        ("settings", {"doublet": ["banker"]}, 'settings: doublet is one of banker, standoff, not ["banker"]'),
        ("settings", {"min_stake": 10.0}, "settings: min_stake is a whole number, not 10.0"),
        ("settings", {"fund_backs_uncovered": 1}, "settings: fund_backs_uncovered is true or false, not 1"),
    ],
)  # fmt: skip
def test_a_landsknecht_line_with_a_value_of_the_wrong_type_is_malformed_and_says_which_field(
    field: str, value: object, message: str
) -> None:
    assert validate_one({**LANDSKNECHT, field: value}) == {"id": "l", "error": message}


def test_the_landsknecht_fund_return_is_a_line_of_its_own() -> None:
    line = {"id": "r", "game": "landsknecht", "kind": "fund-return", "fund": 100, "rule": "proportional",
            "paid": [{"player": "ann", "amount": 20}, {"player": "bob", "amount": 10}],
            "returned": [{"player": "ann", "amount": 67}, {"player": "bob", "amount": 33}]}  # fmt: skip
    assert validate_one(line) == {
        "id": "r",
        "game": "landsknecht",
        "kind": "fund-return",
        "outcome": "returned",
        "violations": [],
        "settlement": {
            "transfers": [
                {"payer": "fund", "payee": "ann", "amount": 67},
                {"payer": "fund", "payee": "bob", "amount": 33},
            ],
            "net": {"fund": -100, "ann": 67, "bob": 33},
        },
    }
    equal = validate_one({**line, "rule": "equal"})
    assert [v["code"] for v in equal["violations"]] == ["fund-return-wrong", "fund-return-wrong"]
    assert equal["settlement"]["net"] == {"fund": -100, "ann": 50, "bob": 50}
    assert validate_one({**line, "fund": 100.0}) == {
        "id": "r",
        "error": "fund must be a whole number of chips, not 100.0",
    }


@PROPS
@given(played=played(), record_id=IDS)
def test_an_old_baccarat_coup_from_the_machine_is_judged_offline_as_the_module_judges_it(
    played: Played, record_id: int | str
) -> None:
    """Judged under the house's defaults, as every other game's line: the played coup's own
    settings may differ, so only its record, not its outcome, is compared with the machine's."""
    record = old_baccarat.to_record(played.state)
    line = json.loads(json.dumps({"id": record_id, **record.as_dict()}))
    assert old_baccarat.OldBaccaratCoup.from_dict(line) == record
    verdict = validate_one(line)
    expected = old_baccarat.verdict_to_dict(old_baccarat.judge(record), record_id)
    assert verdict == json.loads(json.dumps(expected))
    if verdict["settlement"] is not None:
        assert sum(verdict["settlement"]["net"].values()) == 0
        assert verdict["settlement"]["net"].get("pool", 0) == 0


def test_chemin_de_fer_is_judged_the_same_with_or_without_its_game() -> None:
    lines = (DATA / "coups.jsonl").read_bytes().splitlines()
    tagged = []
    for line in lines:
        data = orjson.loads(line)
        tagged.append(orjson.dumps({**data, "game": CHEMIN_DE_FER}) if isinstance(data, dict) else line)
    plain, games = io.BytesIO(), io.BytesIO()
    assert validate_lines(lines, plain, others=JUDGES) == validate_lines(tagged, games, others=JUDGES)
    assert plain.getvalue() == games.getvalue()


def test_the_games_examples_count_flagged_and_malformed_lines() -> None:
    out = io.BytesIO()
    with (DATA / "coups_games.jsonl").open("rb") as lines:
        summary = validate_lines(lines, out, others=JUDGES)
    assert (summary.lines, summary.malformed, summary.flagged) == (17, 7, 3)
    verdicts = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [v.get("game", CHEMIN_DE_FER) if "error" not in v else "error" for v in verdicts] == [
        "chemin-de-fer",
        *["macao"] * 4,
        "error",
        "error",
        *["landsknecht"] * 3,
        *["error"] * 3,
        "old-baccarat",
        "old-baccarat",  # the same coup under the house settings its line carries (ties pooled)
        "error",  # a house setting the game does not know
        "error",
    ]
    assert verdicts[-1] == {
        "error": "unknown game 'chemin de fer'; known: chemin-de-fer, landsknecht, macao, old-baccarat"
    }


def test_a_forced_profile_leaves_the_other_games_alone() -> None:
    from chemin_de_fer.engine.profiles import BUILTIN

    lines = (DATA / "coups_games.jsonl").read_bytes().splitlines()[1:12]
    free, forced = io.BytesIO(), io.BytesIO()
    validate_lines(lines, free, others=JUDGES)
    validate_lines(lines, forced, others=JUDGES, profile=BUILTIN["home"])
    assert free.getvalue() == forced.getvalue()


@pytest.mark.parametrize(
    ("game", "data", "message"),
    [
        ("macao", [], "not a JSON object"),
        ("macao", {"id": 7, "unit": True}, "unit must be a whole number of chips, not true"),
        ("macao", {"unit": "50"}, 'unit must be a whole number of chips, not "50"'),
        ("macao", {"unit": 50.0}, "unit must be a whole number of chips, not 50.0"),
        (
            "macao",
            {"unit": 5, "banker": "B", "turns": [], "punters": "P1"},
            "punters must be a list of strings",
        ),
        ("landsknecht", {"id": "x", "banker": "ann", "punters": ["bob"], "stake": 10.0}, "stake must be"),
        (
            "landsknecht",
            {"banker": "ann", "punters": ["bob"], "stake": 10, "covers": [{"amount": 5}]},
            "cover 1",
        ),
        (
            "landsknecht",
            {"banker": "ann", "punters": ["bob"], "stake": 10, "decision": "keep"},
            "decision must",
        ),
        # old baccarat's strict values (RULES.md §11): nothing coerced, the field named
        (
            "old-baccarat",
            {"id": 3, "game": "old-baccarat", "banker": "bk", "punters": [{"player": "A", "stake": "10"}]},
            'punter 1: stake must be a whole number of chips, not "10"',
        ),
        (
            "old-baccarat",
            {"game": "old-baccarat", "banker": "bk", "punters": [{"player": "A", "stake": True}]},
            "punter 1: stake must be a whole number of chips, not true",
        ),
        (
            "old-baccarat",
            {"id": None, "game": "old-baccarat", "banker": 7, "punters": []},
            "banker must be a player's name (a string), not 7",
        ),
        (
            "old-baccarat",
            {
                "id": "s",
                "game": "old-baccarat",
                "banker": "bk",
                "punters": [],
                "cut_by": None,
                "deal": "ASKD",
            },
            'deal must be a list of card codes (strings), not "ASKD"',
        ),
    ],
)
def test_a_malformed_record_of_another_game_is_a_record_error_with_its_id(
    game: str, data: object, message: str
) -> None:
    with pytest.raises(RecordError, match=re.escape(message)) as raised:
        JUDGES[game].judge_to_dict(data)  # type: ignore[arg-type]
    assert raised.value.has_id == (isinstance(data, dict) and "id" in data)
    if raised.value.has_id:
        assert isinstance(data, dict)
        assert raised.value.record_id == data["id"]


def test_the_registry_names_every_game_once() -> None:
    assert known_games() == ("chemin-de-fer", "landsknecht", "macao", "old-baccarat")
    assert all(j.slug == slug for slug, j in JUDGES.items())


def test_the_chemin_de_fer_reader_names_another_games_record() -> None:
    from chemin_de_fer.engine.interchange import record_from_dict

    with pytest.raises(RecordError, match="not a chemin de fer record: game 'macao'"):
        record_from_dict({"id": 1, "game": "macao", "profile": "casino"}, known_profiles={"casino"})


@pytest.mark.parametrize("stake", ["10", 10.5, 10.0, True, None])
def test_an_old_baccarat_stake_that_is_no_json_integer_is_malformed_never_settled(stake: object) -> None:
    """A line that moved chips before RULES.md §11: ``"10"`` was read as 10, ``10.5`` as 10 and
    ``true`` as 1 chip, and settled."""
    record = {
        "id": "b",
        "game": "old-baccarat",
        "banker": "bk",
        "punters": [{"player": "A", "stake": stake}],
        "cut_by": "A",
        "deal": ["AS", "KD", "5S", "QD"],
        "draws": [{"player": "A", "card": None}, {"player": "bk", "card": None}],
    }
    out = io.BytesIO()
    summary = validate_lines([orjson.dumps(record)], out, others=JUDGES)
    assert (summary.lines, summary.malformed, summary.flagged) == (1, 1, 0)
    verdict = json.loads(out.getvalue())
    assert verdict == {
        "id": "b",
        "error": f"punter 1: stake must be a whole number of chips, not {json.dumps(stake)}",
    }

"""``validate_coups`` judges every game: a record's ``"game"`` picks its judge (tables/rules/games.py).

Properties: a coup played through each game's live machine gives a record that survives JSON, and
the validator's verdict on that line is exactly the module's own judge's; chemin de fer lines are
judged the same with or without ``"game": "chemin-de-fer"``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.rules import landsknecht, macao, old_baccarat
from tables.rules.games import CHEMIN_DE_FER, JUDGES, KNOWN_GAMES, old_baccarat_verdict_to_dict
from tables.rules.interchange import RecordError
from tables.rules.validator import validate_lines
from tests.tables.rules.test_old_baccarat import Played, played

DATA = Path(__file__).resolve().parents[2] / "data"
PROPS = settings(max_examples=150, deadline=None)
#: ids as the validator reads them: orjson parses integers of 64 bits at most (for every game)
IDS = st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)


def validate_one(data: dict) -> dict:
    out = io.BytesIO()
    validate_lines([orjson.dumps(data)], out)
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
    punters=st.lists(st.sampled_from(["bob", "cid", "dan"]), unique=True, max_size=3),
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
    expected = old_baccarat_verdict_to_dict(old_baccarat.judge(record), record_id)
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
    assert validate_lines(lines, plain) == validate_lines(tagged, games)
    assert plain.getvalue() == games.getvalue()


def test_the_games_examples_count_flagged_and_malformed_lines() -> None:
    out = io.BytesIO()
    with (DATA / "coups_games.jsonl").open("rb") as lines:
        summary = validate_lines(lines, out)
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
    from tables.rules.profiles import BUILTIN

    lines = (DATA / "coups_games.jsonl").read_bytes().splitlines()[1:12]
    free, forced = io.BytesIO(), io.BytesIO()
    validate_lines(lines, free)
    validate_lines(lines, forced, profile=BUILTIN["home"])
    assert free.getvalue() == forced.getvalue()


@pytest.mark.parametrize(
    ("game", "data", "message"),
    [
        ("macao", [], "not a JSON object"),
        ("macao", {"id": 7, "unit": True}, "unit must be a whole number of chips, not True"),
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
    ],
)
def test_a_malformed_record_of_another_game_is_a_record_error_with_its_id(
    game: str, data: object, message: str
) -> None:
    with pytest.raises(RecordError, match=message.replace("[", r"\[")) as raised:
        JUDGES[game].judge_to_dict(data)  # type: ignore[arg-type]
    assert raised.value.has_id == (isinstance(data, dict) and "id" in data)
    if raised.value.has_id:
        assert isinstance(data, dict)
        assert raised.value.record_id == data["id"]


def test_the_registry_names_every_game_once() -> None:
    assert KNOWN_GAMES == ("chemin-de-fer", "landsknecht", "macao", "old-baccarat")
    assert all(j.slug == slug for slug, j in JUDGES.items())


def test_the_chemin_de_fer_reader_names_another_games_record() -> None:
    from tables.rules.interchange import record_from_dict

    with pytest.raises(RecordError, match="not a chemin de fer record: game 'macao'"):
        record_from_dict({"id": 1, "game": "macao", "profile": "casino"}, known_profiles={"casino"})

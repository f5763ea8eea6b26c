"""What makes a line malformed, and the sentence the auditor reads for each."""

from __future__ import annotations

import io
import json

import pytest

from chemin_de_fer.engine.validator import validate_lines

BASE = {
    "id": "x",
    "profile": "casino",
    "bank": 100,
    "bets": [{"punter": "seat-1", "amount": 50}],
    "player": {"cards": ["2H", "3C"], "action": "stand"},
    "banker": {"cards": ["7D", "KH"], "action": "stand"},
}


def verdict(obj: object, **kw) -> dict:
    out = io.BytesIO()
    line = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    validate_lines([line], out, **kw)
    return json.loads(out.getvalue())


def with_(**changes) -> dict:
    rec = json.loads(json.dumps(BASE))
    for key, value in changes.items():
        if value is ...:
            rec.pop(key)
        else:
            rec[key] = value
    return rec


MALFORMED = [
    (b"[1, 2]", "not a JSON object"),
    (b'"text"', "not a JSON object"),
    (with_(profile="vegas"), "unknown profile 'vegas'"),
    (with_(profile=...), "no profile: give one in the record or with --profile"),
    (with_(bank=0), "bank must be a positive integer, not 0"),
    (with_(bank=-5), "bank must be a positive integer, not -5"),
    (with_(bank=10.0), "bank must be a positive integer, not 10.0"),
    (with_(bank=True), "bank must be a positive integer, not true"),
    (with_(bank="100"), 'bank must be a positive integer, not "100"'),
    (with_(bets=[]), "bets must be a non-empty list of {punter, amount}"),
    (with_(bets={"punter": "a", "amount": 1}), "bets must be a non-empty list of {punter, amount}"),
    (with_(bets=[{"punter": "seat-1"}]), "bet 1: amount must be a positive integer, not null"),
    (with_(bets=[{"punter": "", "amount": 5}]), "bet 1: punter must be a non-empty string"),
    (with_(bets=[{"punter": "a", "amount": 5}, 7]), "bet 2 is not an object"),
    (
        with_(bets=[{"punter": "a", "amount": 5, "spectator": "yes"}]),
        "bet 1: spectator must be true or false",
    ),
    (with_(banco=True), "banco needs exactly one bet, equal to the bank"),
    (
        with_(banco=True, bets=[{"punter": "a", "amount": 50}, {"punter": "b", "amount": 50}]),
        "banco needs exactly one bet, equal to the bank",
    ),
    # COUP_RECORD.md: banco_suivi is a boolean, and only a banco record may say true
    (with_(banco_suivi=True), "banco_suivi is only for a banco record"),
    (
        with_(banco=True, banco_suivi="yes", bets=[{"punter": "seat-1", "amount": 100}]),
        "banco_suivi must be true or false",
    ),
    (with_(banco_suivi=1), "banco_suivi must be true or false"),
    (with_(banco_suivi=None), "banco_suivi must be true or false"),
    (with_(player=...), "player hand missing"),
    (with_(banker={"cards": ["7D"], "action": "stand"}), "banker hand must have 2 or 3 cards, not 1"),
    (
        with_(banker={"cards": ["7D", "KH", "2C", "3C"], "action": "draw"}),
        "banker hand must have 2 or 3 cards, not 4",
    ),
    (with_(player={"cards": ["2H", "3c"], "action": "stand"}), "bad card '3c'"),
    (with_(player={"cards": ["2H", "10C"], "action": "stand"}), "bad card '10C'"),
    (with_(player={"cards": [["AS"], "3C"], "action": "stand"}), 'bad card ["AS"]'),
    (with_(banker={"cards": ["7D", 7], "action": "stand"}), "bad card 7"),
    (with_(player={"cards": ["2H", "3C"], "action": "hit"}), "player: unknown action 'hit'"),
    # a list or an object is unhashable: it was a TypeError, the verdict's id lost with it
    (with_(player={"cards": ["2H", "3C"], "action": {}}), "player: unknown action {}"),
    (with_(banker={"cards": ["7D", "KH"], "action": ["stand"]}), 'banker: unknown action ["stand"]'),
    (
        with_(player={"cards": ["2H", "3C", "4C"], "action": "stand"}),
        "player has a third card but did not draw",
    ),
    (with_(player={"cards": ["2H", "3C"], "action": "natural"}), "player declared a natural on 5"),
    (with_(player={"cards": ["2H", "3C"], "action": "draw"}), "player drew but has no third card"),
    (
        with_(banker={"cards": ["7D", "KH"], "action": "none"}),
        "banker did not act although neither side has a natural",
    ),
    (with_(shoe_next=["ZZ"]), "bad card 'ZZ' in shoe_next"),
    (with_(house_limit=0), "house_limit must be a positive integer, not 0"),
    (with_(chip_unit=-1), "chip_unit must be a positive integer, not -1"),
    (with_(first_coup_of_bank="no"), "first_coup_of_bank must be true or false"),
]


@pytest.mark.parametrize(("line", "message"), MALFORMED)
def test_malformed_line(line: object, message: str) -> None:
    got = verdict(line)
    expected = {"error": message}
    if isinstance(line, dict) and "id" in line:
        expected = {"id": "x", "error": message}
    assert got == expected


def test_invalid_json_is_malformed_and_the_run_goes_on() -> None:
    out = io.BytesIO()
    summary = validate_lines([b"{not json", json.dumps(BASE).encode(), b"   ", b""], out)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert (summary.lines, summary.malformed) == (2, 1)
    assert lines[0]["error"].startswith("not valid JSON")
    assert lines[1]["id"] == "x" and "error" not in lines[1]


def test_natural_allows_a_requested_card_not_dealt_and_none() -> None:
    """With a natural on the table, 'draw' without a third card and 'none' are legitimate."""
    rec = with_(
        player={"cards": ["2H", "3C"], "action": "draw"},
        banker={"cards": ["9D", "KH"], "action": "natural"},
    )
    got = verdict(rec)
    assert got["outcome"] == "banker" and got["violations"] == []
    rec = with_(
        player={"cards": ["8H", "KC"], "action": "natural"}, banker={"cards": ["2D", "KH"], "action": "none"}
    )
    got = verdict(rec)
    assert (got["outcome"], got["violations"], got["player_total"]) == ("player", [], 8)


def test_profile_override_replaces_the_record_profile() -> None:
    from chemin_de_fer.engine.profiles import HOME

    # a single punter standing on 3: a violation in casino, an option at home
    rec = with_(player={"cards": ["AH", "2C"], "action": "stand"}, shoe_next=["5H"])
    assert [v["code"] for v in verdict(rec)["violations"]] == ["PLAYER_SHOULD_DRAW"]
    assert verdict(rec, profile=HOME)["violations"] == []
    # with an override even an unknown record profile is fine
    assert "error" not in verdict(with_(profile="vegas"), profile=HOME)


def test_unknown_keys_are_ignored_and_the_id_may_be_anything() -> None:
    got = verdict(with_(id=17, table="T3", extra={"a": 1}))
    assert got["id"] == 17 and got["outcome"] == "banker"
    no_id = with_(id=...)
    assert verdict(no_id)["id"] is None


def test_banco_suivi_false_is_the_default_anywhere() -> None:
    """COUP_RECORD.md: ``banco_suivi`` is optional; false (its default) may be spelt out on any
    record, true on a banco record is no violation in itself (RULES.md §2, home: a losing banco
    caller's suivi)."""
    assert "error" not in verdict(with_(banco_suivi=False))
    suivi = with_(profile="home", banco=True, banco_suivi=True, bets=[{"punter": "seat-1", "amount": 100}])
    assert verdict(suivi)["violations"] == []

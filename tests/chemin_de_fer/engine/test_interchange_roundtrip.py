"""The record writer is the reader's inverse: record -> dict -> record and dict -> record -> dict
are identities for valid records, through real JSON text in between."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.coup import CoupRecord
from chemin_de_fer.engine.interchange import record_from_dict, record_to_dict
from chemin_de_fer.engine.profiles import BUILTIN

from .strategies import played_coups

EXAMPLES = settings(max_examples=300, deadline=None)

#: the format's ``id`` is any JSON value
JSON_IDS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def records(draw: st.DrawFn) -> CoupRecord:
    """A played coup's record with every optional part of the format varied."""
    record = draw(played_coups()).record
    return replace(
        record,
        id=draw(JSON_IDS),
        first_coup_of_bank=draw(st.booleans()),
        shoe_next=record.shoe_next[: draw(st.integers(0, len(record.shoe_next)))],
        house_limit=draw(st.none() | st.integers(1, 10_000)),
        chip_unit=draw(st.sampled_from((1, 1, 5, 25))),
        active_punter=draw(st.none() | st.sampled_from([b.punter for b in record.bets])),
    )


def _through_json(data: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(data))


@EXAMPLES
@given(records())
def test_record_to_dict_to_record_is_the_identity(record: CoupRecord) -> None:
    assert record_from_dict(_through_json(record_to_dict(record)), known_profiles=BUILTIN) == record


@EXAMPLES
@given(records(), st.data())
def test_dict_to_record_to_dict_is_the_identity(record: CoupRecord, data: st.DataObject) -> None:
    """A valid record's JSON comes back key for key; one that also spells out an optional key at
    its default value comes back as the format writes it (the key left out). ``house_limit`` and
    ``active_punter`` have no value to spell out: absent is none, and ``null`` is malformed
    (tests/chemin_de_fer/engine/test_interchange_nulls_and_limits.py)."""
    canonical = _through_json(record_to_dict(record))
    assert record_to_dict(record_from_dict(canonical, known_profiles=BUILTIN)) == canonical

    spelt_out = _through_json(canonical)
    defaults = {"chip_unit": 1, "banco_suivi": False}
    for key in data.draw(st.sets(st.sampled_from(sorted(defaults)))):
        spelt_out.setdefault(key, defaults[key])
    for bet in spelt_out["bets"]:
        if data.draw(st.booleans()):
            bet.setdefault("spectator", False)
    assert record_to_dict(record_from_dict(spelt_out, known_profiles=BUILTIN)) == canonical


def test_the_documented_example_is_written_back_as_documented() -> None:
    """docs/coup-record.md's record: a spectator's bet says so, a seated punter's does not, and no
    optional key at its default is written."""
    example = {
        "id": "T3-shoe12-coup41",
        "profile": "casino",
        "bank": 200,
        "bets": [
            {"punter": "seat-4", "amount": 120},
            {"punter": "seat-7", "amount": 50},
            {"punter": "spectator-2", "amount": 30, "spectator": True},
        ],
        "banco": False,
        "first_coup_of_bank": False,
        "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
        "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
        "shoe_next": ["KD", "4C"],
    }
    assert record_to_dict(record_from_dict(example, known_profiles=BUILTIN)) == example


def test_a_banco_suivi_is_written_back_after_the_banco() -> None:
    """COUP_RECORD.md: ``"banco_suivi": true`` on a banco record (home profile) is carried unchanged;
    RULES.md §2 (a losing banco caller's banco suivi)."""
    record = {
        "id": "home-suivi",
        "profile": "home",
        "bank": 20,
        "bets": [{"punter": "seat-3", "amount": 20}],
        "banco": True,
        "banco_suivi": True,
        "first_coup_of_bank": False,
        "player": {"cards": ["9C", "KD"], "action": "natural"},
        "banker": {"cards": ["2S", "3H"], "action": "none"},
        "shoe_next": [],
    }
    written = record_to_dict(record_from_dict(record, known_profiles=BUILTIN))
    assert written == record
    assert list(written)[:6] == ["id", "profile", "bank", "bets", "banco", "banco_suivi"]
    plain = record_from_dict({**record, "banco_suivi": False}, known_profiles=BUILTIN)
    assert "banco_suivi" not in record_to_dict(plain)

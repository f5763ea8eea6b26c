"""core.answers: a stored answer's bytes, its JSON read back exactly."""

from __future__ import annotations

import json
import zlib

import pytest

from core.answers import DICTIONARY_1, FORMAT_1, AnswerFormatUnknown, answer_pack, answer_unpack

BODY = {
    "coup": {
        "id": 7,
        "steps": [{"kind": "bet", "payload": {"punter": "seat-2", "amount": 40}}],
        "verdict": None,
    },
    "player": {"display_name": "Жан Дюпон", "membership_number": "Nº 12"},
    "zeta": [1, -2, 3.5, True, False, None, ""],
    "alpha": {},
}


def test_a_packed_answer_reads_back_as_the_same_json_keys_in_their_order() -> None:
    back = answer_unpack(answer_pack(BODY))
    assert back == BODY
    assert json.dumps(back, ensure_ascii=False) == json.dumps(BODY, ensure_ascii=False)
    assert list(back) == ["coup", "player", "zeta", "alpha"]


def test_the_bytes_are_the_format_then_the_canonical_json_deflated_against_the_dictionary() -> None:
    packed = answer_pack(BODY)
    assert packed[0] == FORMAT_1 == 1
    unpacker = zlib.decompressobj(-15, zdict=DICTIONARY_1)
    text = unpacker.decompress(packed[1:]) + unpacker.flush()
    assert text == json.dumps(BODY, ensure_ascii=False, separators=(",", ":")).encode()


def test_the_same_body_packs_to_the_same_bytes() -> None:
    assert answer_pack(BODY) == answer_pack(json.loads(json.dumps(BODY)))


def test_a_memoryview_from_the_database_reads_too() -> None:
    assert answer_unpack(memoryview(answer_pack([1, 2]))) == [1, 2]


@pytest.mark.parametrize("data", [b"", b"\x00abc", b"\x02" + answer_pack({})[1:]])
def test_bytes_of_an_unknown_format_are_refused(data: bytes) -> None:
    with pytest.raises(AnswerFormatUnknown):
        answer_unpack(data)


def test_bytes_cut_short_are_refused() -> None:
    with pytest.raises(AnswerFormatUnknown):
        answer_unpack(answer_pack(BODY)[:-3])

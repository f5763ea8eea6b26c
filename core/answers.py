"""A stored answer's bytes: the JSON body of a response, packed small enough to keep one a request.

An idempotent request's first answer is kept (core.services.idempotency) so that a retry gets it
back byte for byte. A coup step's answer is the whole coup with all its steps (2-4 KB of JSON)
and a played coup makes a dozen of them, so the body is kept as:

- its **canonical JSON** (``json.dumps`` with no spaces, UTF-8, keys in the order the answer has
  them: unlike a ``jsonb`` column, which re-orders keys, the replay renders the same bytes);
- **deflated** (raw deflate, zlib level 9) against a **preset dictionary**: the words every answer
  repeats (field names, step kinds, ``null``, dates), so that even the first kilobyte compresses.

The first byte names the format, so that a later dictionary can be added beside this one: a
format once written is never changed (records written under it must still read). Pure: no Django.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

#: format 1's preset dictionary: the fields other answers carry (a seat, a shoe, a session), then a
#: played coup's reveal answer as the API renders it (tables/api/outputs.py, neutral actor and
#: dates); deflate looks back into it, the most common words last. Never edit it: a new
#: dictionary is a new format.
DICTIONARY_1 = (
    b'{"detail":"","code":"","errors":[],"player":{"id":1,"display_name":"","membership_number":""},"s'
    b'eat":{"id":1,"number":1,"joined_at":"2026-01-01T00:00:00.000000Z"},"session":{"id":1,"opened_at"'
    b':"2026-01-01T00:00:00.000000Z","opened_by":"","paused":false,"paused_since":null},"spectator":{"'
    b'id":1},"shoe":{"id":1,"number":1,"decks":6,"cards_dealt":0,"cards_left":312,"stop_card_position"'
    b':null,"stop_reached":false,"alarm":false},"bank_turn":{"id":1,"seat":1,"house":false,"started_ho'
    b'w":"","started_at":"2026-01-01T00:00:00.000000Z","required_minimum":0},"advice":{"chooser":"play'
    b'er","choice":"draw","ev_draw":"0.000000","ev_stand":"0.000000","basis":"shoe","assumption":""},"'
    b'requirement":{"side":"player","requirement":"option"},"correction":null,"restoration":null,{"ste'
    b'p":{"index":14,"kind":"reveal","payload":{"verdict":{"id":"T1-shoe1-coup1","player_total":3,"ban'
    b'ker_total":3,"outcome":"tie","violations":[],"settlement":{"covered":300,"uncovered":0,"tax":0,"'
    b'banker_net":0,"punters":{"seat-4":0,"seat-3":0,"seat-2":0},"next_bank_min":300},"restored":null}'
    b'},"violations":[],"corrects":null,"supersedes":null,"superseded_by":null,"actor":"croupier","cre'
    b'ated_at":"2026-01-01T00:00:00.000000Z"},"coup":{"id":1,"table":1,"shoe":1,"shoe_number":1,"numbe'
    b'r":1,"state":"settled","phase":"done","step_count":14,"bank":300,"banker":1,"banker_seat":1,"hou'
    b'se_bank":false,"first_coup_of_bank":true,"flagged":false,"alarm":false,"covered":300,"uncovered"'
    b':0,"banco":false,"bets":[{"punter":"seat-2","amount":100,"spectator":false},{"punter":"seat-3","'
    b'amount":100,"spectator":false},{"punter":"seat-4","amount":100,"spectator":false}],"cards":{"pla'
    b'yer":["AS","2S","JS"],"banker":["3S","TS","QS"]},"actions":{"player":"draw","banker":"draw"},"re'
    b'quirement":null,"next_steps":[],"advice":null,"violations":[],"verdict":{"id":"T1-shoe1-coup1","'
    b'player_total":3,"banker_total":3,"outcome":"tie","violations":[],"settlement":{"covered":300,"un'
    b'covered":0,"tax":0,"banker_net":0,"punters":{"seat-4":0,"seat-3":0,"seat-2":0},"next_bank_min":3'
    b'00},"restored":null},"restoration":null,"correction":null,"steps":[{"index":1,"kind":"bank_decla'
    b'red","payload":{"amount":300,"banker":"seat-1","minimum":1},"violations":[],"corrects":null,"sup'
    b'ersedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.000000Z"'
    b'},{"index":2,"kind":"bet","payload":{"order":11,"amount":100,"punter":"seat-2","spectator":false'
    b'},"violations":[],"corrects":null,"supersedes":null,"superseded_by":null,"actor":"croupier","cre'
    b'ated_at":"2026-01-01T00:00:00.000000Z"},{"index":3,"kind":"bet","payload":{"order":10,"amount":1'
    b'00,"punter":"seat-3","spectator":false},"violations":[],"corrects":null,"supersedes":null,"super'
    b'seded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.000000Z"},{"index":4,"kind":'
    b'"bet","payload":{"order":9,"amount":100,"punter":"seat-4","spectator":false},"violations":[],"co'
    b'rrects":null,"supersedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T'
    b'00:00:00.000000Z"},{"index":5,"kind":"bets_closed","payload":{},"violations":[],"corrects":null,'
    b'"supersedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.0000'
    b'00Z"},{"index":6,"kind":"card_to_player","payload":{"card":"AS"},"violations":[],"corrects":null'
    b',"supersedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.000'
    b'000Z"},{"index":7,"kind":"card_to_banker","payload":{"card":"3S"},"violations":[],"corrects":nul'
    b'l,"supersedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.00'
    b'0000Z"},{"index":8,"kind":"card_to_player","payload":{"card":"2S"},"violations":[],"corrects":nu'
    b'll,"supersedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.0'
    b'00000Z"},{"index":9,"kind":"card_to_banker","payload":{"card":"TS"},"violations":[],"corrects":n'
    b'ull,"supersedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.'
    b'000000Z"},{"index":10,"kind":"player_draw","payload":{},"violations":[],"corrects":null,"superse'
    b'des":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.000000Z"},{"'
    b'index":11,"kind":"card_to_player","payload":{"card":"JS"},"violations":[],"corrects":null,"super'
    b'sedes":null,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.000000Z"},'
    b'{"index":12,"kind":"banker_draw","payload":{},"violations":[],"corrects":null,"supersedes":null,'
    b'"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.000000Z"},{"index":13,'
    b'"kind":"card_to_banker","payload":{"card":"QS"},"violations":[],"corrects":null,"supersedes":nul'
    b'l,"superseded_by":null,"actor":"croupier","created_at":"2026-01-01T00:00:00.000000Z"},{"index":1'
    b'4,"kind":"reveal","payload":{"verdict":{"id":"T1-shoe1-coup1","player_total":3,"banker_total":3,'
    b'"outcome":"tie","violations":[],"settlement":{"covered":300,"uncovered":0,"tax":0,"banker_net":0'
    b',"punters":{"seat-4":0,"seat-3":0,"seat-2":0},"next_bank_min":300},"restored":null}},"violations'
    b'":[],"corrects":null,"supersedes":null,"superseded_by":null,"actor":"croupier","created_at":"202'
    b'6-01-01T00:00:00.000000Z"}],"created_at":"2026-01-01T00:00:00.000000Z","settled_at":"2026-01-01T'
    b'00:00:00.000000Z"}}'
)

FORMAT_1 = 1
_WBITS = -15  # raw deflate: no zlib header and checksum (the format byte names the stream)


class AnswerFormatUnknown(ValueError):
    """Stored bytes whose first byte names no format this code reads."""


def answer_pack(body: Any) -> bytes:
    """``body`` (a JSON value) as stored bytes: the format byte, then its canonical JSON deflated."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, _WBITS, 9, zlib.Z_DEFAULT_STRATEGY, zdict=DICTIONARY_1)
    return bytes([FORMAT_1]) + packer.compress(text) + packer.flush()


def answer_unpack(data: bytes | memoryview) -> Any:
    """The JSON value :func:`answer_pack` stored in ``data``."""
    data = bytes(data)  # a memoryview from PostgreSQL's bytea
    if not data or data[0] != FORMAT_1:
        raise AnswerFormatUnknown(f"stored answer of unknown format {data[:1]!r}")
    unpacker = zlib.decompressobj(_WBITS, zdict=DICTIONARY_1)
    text = unpacker.decompress(data[1:]) + unpacker.flush()
    if not unpacker.eof:
        raise AnswerFormatUnknown("stored answer cut short")
    return json.loads(text)

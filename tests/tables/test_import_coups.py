"""import_coups: a recorded history loaded through the table services."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from audit.models import AuditEvent
from ledger.models import Transaction
from tables.models import Coup, CoupStep, Player
from tables.services.floor import seat_take, table_session_open
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data"


def run(path: Path, table, croupier, *, buy_in: int = 1000) -> tuple[list[dict], str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command(
            "import_coups",
            str(path),
            table=table.pk,
            croupier=croupier.username,
            buy_in=buy_in,
            stdout=out,
            stderr=err,
        )
    except SystemExit as exc:
        assert isinstance(exc.code, int)  # the command exits with sys.exit(1)
        code = exc.code
    return [json.loads(x) for x in out.getvalue().splitlines()], err.getvalue(), code


def test_the_examples_import_with_exactly_their_verdicts(croupier, table) -> None:
    lines, summary, code = run(DATA / "coups.jsonl", table, croupier)
    expected = [json.loads(x) for x in (DATA / "verdicts.jsonl").read_text().splitlines()]
    assert code == 1  # one line rejected
    assert len(lines) == 14
    for got, want in zip(lines, expected, strict=True):
        if "error" in want:
            assert got == {"line": 11, **want}  # the sentence, and the id where the line has one
            continue
        got = dict(got)
        del got["line"], got["coup"], got["state"]
        assert got == want
    states = {line["id"]: line["state"] for line in lines if "state" in line}
    assert states == {
        "home-seed-example": "settled",
        "casino-doc-example": "settled",
        "banker-stood-on-5-vs-6": "awaiting_approval",
        "player-drew-on-7": "awaiting_approval",
        "card-after-banker-natural": "awaiting_approval",
        "club-two-naturals": "settled",
        "home-single-punter-stands-on-3": "settled",
        "home-several-punters-stand-on-3": "awaiting_approval",
        "bets-exceed-bank": "awaiting_correction",
        "restore-needs-a-card": "awaiting_correction",
        # COUP_RECORD.md: what a live table refuses is imported flagged, not refused
        "X-limit": "awaiting_correction",
        "X-suivi": "awaiting_correction",
        "X-spectator-first": "awaiting_correction",
    }
    assert Coup.objects.filter(shoe__table=table).count() == 13
    assert "13 coups imported (9 flagged, 4 restored awaiting approval, 5 awaiting correction)" in summary
    assert "1 lines rejected" in summary


def test_a_line_that_fails_midway_leaves_nothing_behind(croupier, table, tmp_path) -> None:
    good = {
        "id": "ok",
        "profile": "casino",
        "bank": 100,
        "bets": [{"punter": "seat-2", "amount": 100}],
        "player": {"cards": ["2H", "3C", "KD"], "action": "draw"},
        "banker": {"cards": ["7S", "KH"], "action": "stand"},
    }
    # valid as a record, but this table cannot play it: a newcomer is created, bought in and
    # seated, then seat 3 turns out to be taken by a player of the house
    impossible = {
        "id": "impossible",
        "profile": "casino",
        "bank": 100,
        "bets": [{"punter": "newcomer", "amount": 50}, {"punter": "seat-3", "amount": 50}],
        "player": {"cards": ["8H", "KC"], "action": "natural"},
        "banker": {"cards": ["2S", "3H"], "action": "none"},
    }
    session = table_session_open(actor=croupier, table=table)
    house = PlayerFactory(casino=table.casino)
    seat_take(actor=croupier, session=session, player=house, number=3)
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(impossible) + "\n")
    lines, _summary, code = run(path, table, croupier)
    assert code == 1
    assert lines[0]["state"] == "settled" and lines[0]["line"] == 1
    assert lines[1] == {"line": 2, "id": "impossible", "error": f"seat 3 is taken by {house} at this table"}
    assert not Player.objects.filter(membership_number="IMP-newcomer").exists()
    coup = Coup.objects.get()
    assert coup.steps.count() == 11
    # nothing of line 2: no coup, no step, no ledger transaction, no audit event mentions it
    steps, events, txns = CoupStep.objects.count(), AuditEvent.objects.count(), Transaction.objects.count()
    # the same file again: line 1 was imported (skipped by its id), line 2 is refused again
    lines, summary, code = run(tmp_path / "h.jsonl", table, croupier)
    assert code == 1
    assert lines[0] == {"line": 1, "id": "ok", "skipped": "already imported"}
    assert lines[1]["line"] == 2 and "error" in lines[1]
    assert "skipped 1 already imported; 1 lines rejected" in summary
    assert Coup.objects.count() == 1
    assert CoupStep.objects.count() == steps
    assert Transaction.objects.count() == txns and AuditEvent.objects.count() == events


def test_a_coup_whose_bets_exceeded_the_bank_is_voided_by_a_pit_boss(
    croupier, pit_boss, table, tmp_path
) -> None:
    from django.core.exceptions import PermissionDenied, ValidationError

    from tables import services

    line = (DATA / "coups.jsonl").read_text().splitlines()[8]  # bets-exceed-bank
    path = tmp_path / "one.jsonl"
    path.write_text(line + "\n")
    lines, _summary, _code = run(path, table, croupier)
    coup = Coup.objects.get(pk=lines[0]["coup"])
    assert coup.state == "awaiting_correction"
    with pytest.raises(ValidationError, match="bets exceeded the bank"):
        services.correction_submit(actor=croupier, coup=coup, cards=[])
    with pytest.raises(PermissionDenied):
        services.coup_void(actor=croupier, coup=coup, reason="bets beyond the bank")
    with pytest.raises(ValidationError, match="Say why"):
        services.coup_void(actor=pit_boss, coup=coup, reason=" ")
    result = services.coup_void(actor=pit_boss, coup=coup, reason="bets beyond the bank")
    assert isinstance(result, services.StepResult)  # no void limit at this casino: voided at once
    coup.refresh_from_db()
    assert (coup.state, result.step.kind, result.step.payload) == (
        "void",
        "coup_voided",
        {"reason": "bets beyond the bank", "was": "awaiting_correction"},
    )


# --------------------------------------------------------------------------- once, and never a crash
GOOD = {
    "profile": "casino",
    "bank": 100,
    "bets": [{"punter": "seat-2", "amount": 100}],
    "player": {"cards": ["2H", "3C", "KD"], "action": "draw"},
    "banker": {"cards": ["7S", "KH"], "action": "stand"},
}


def good(record_id: object) -> bytes:
    return json.dumps({**GOOD, "id": record_id}).encode()


def written() -> tuple[int, ...]:
    from tables.models import Bet, ImportedRecord, Player, ShoeCard

    models = (Coup, CoupStep, Bet, ShoeCard, Player, ImportedRecord, Transaction, AuditEvent)
    return tuple(m.objects.count() for m in models)


def test_importing_the_same_file_again_imports_nothing_twice(croupier, table, tmp_path) -> None:
    path = tmp_path / "h.jsonl"
    # "7" and 7 are the same id; the second "a" in the file is skipped too
    path.write_bytes(b"\n".join([good("a"), good(7), good("a"), good("7"), good("b")]) + b"\n")
    lines, summary, code = run(path, table, croupier)
    assert code == 0
    assert [line.get("state", line.get("skipped")) for line in lines] == [
        "settled",
        "settled",
        "already imported",
        "already imported",
        "settled",
    ]
    assert "3 coups imported" in summary and "skipped 2 already imported; 0 lines rejected" in summary
    before = written()
    lines, summary, code = run(path, table, croupier)
    assert code == 0
    assert all(line["skipped"] == "already imported" for line in lines)
    assert [line["id"] for line in lines] == ["a", "7", "a", "7", "b"]
    assert "0 coups imported" in summary and "skipped 5 already imported" in summary
    assert written() == before


def test_another_table_imports_the_same_ids(croupier, table, club_table, tmp_path) -> None:
    from tables.models import ImportedRecord

    path = tmp_path / "h.jsonl"
    path.write_bytes(good("a") + b"\n")
    assert run(path, table, croupier)[2] == 0
    lines, _summary, code = run(path, club_table, croupier)
    assert code == 0 and lines[0]["state"] == "settled"
    assert ImportedRecord.objects.filter(record_id="a").count() == 2


DEEP = b'{"id": ' + b"[" * 1000 + b"]" * 1000 + b", " + json.dumps(GOOD).encode()[1:]
MALFORMED = [
    # the reader's limit (core.records.MAX_RECORD_CHIPS), as validate_coups says it
    (
        json.dumps({**GOOD, "id": "big-bank", "bank": 2**63}).encode(),
        f"bank must be a positive integer of at most 1,000,000,000,000 chips, not {2**63}",
    ),
    (
        json.dumps(
            {**GOOD, "id": "big-bet", "bank": 10**12, "bets": [{"punter": "seat-2", "amount": 2**62}]}
        ).encode(),
        f"bet 1: amount must be a positive integer of at most 1,000,000,000,000 chips, not {2**62}",
    ),
    (json.dumps({**GOOD, "id": "nul-name", "bets": [{"punter": "a\x00b", "amount": 100}]}).encode(), "NUL"),
    (json.dumps({**GOOD, "id": "nul\x00id"}).encode(), "NUL"),
    (json.dumps({**GOOD, "id": "nul-profile", "profile": "casino\x00"}).encode(), "NUL"),
    (DEEP, "the id must be a string or a whole number, not a list"),
    (b'{"id": ' + b"[" * 2000 + b"]" * 2000 + b"}", "not JSON"),
    (
        json.dumps({**GOOD, "id": "huge"}).encode().replace(b'"bank": 100', b'"bank": ' + b"9" * 400),
        "not JSON",
    ),
    (
        json.dumps({**GOOD, "id": "huge-int"}).encode().replace(b'"bank": 100', b'"bank": ' + b"9" * 25),
        "bank must be a positive integer of at most 1,000,000,000,000 chips, not " + "9" * 25,
    ),
    (json.dumps({**GOOD, "id": "bad-utf8"}).encode().replace(b"seat-2", b"seat-\xff\xfe"), "not JSON"),
    (json.dumps(GOOD).encode(), "no id"),
    (json.dumps({**GOOD, "id": 1.5}).encode(), "not a number with a fraction"),
    (json.dumps({**GOOD, "id": "x" * 201}).encode(), "1 to 200 characters"),
    (b"[1, 2]", ""),
    (b"\x00\x01\x02", "not JSON"),
    # an action that is a list or an object stopped the whole import half-way (a TypeError)
    (
        json.dumps(
            {**GOOD, "id": "dict-action", "player": {"cards": ["2H", "3C", "9H"], "action": {}}}
        ).encode(),
        "player: unknown action {}",
    ),
    (
        json.dumps({**GOOD, "id": "list-action", "banker": {"cards": ["7S", "KH"], "action": []}}).encode(),
        "banker: unknown action []",
    ),
]


def test_no_line_crashes_the_run(croupier, table, tmp_path) -> None:
    """Each malformed line is refused with its number and a reason, nothing of it is written, and
    the lines after it are imported."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"\n".join([good("first"), *(line for line, _ in MALFORMED), good("last")]) + b"\n")
    lines, summary, code = run(path, table, croupier)
    assert code == 1
    assert [line["line"] for line in lines] == list(range(1, len(MALFORMED) + 3))
    assert lines[0]["state"] == lines[-1]["state"] == "settled"
    for line, (_text, reason) in zip(lines[1:-1], MALFORMED, strict=True):
        # the id where the line could be read with one a report can echo (a string, a whole number)
        assert set(line) - {"id"} == {"line", "error"} and reason in line["error"], line
        assert len(line["error"]) < 300, line
    assert "2 coups imported" in summary and f"{len(MALFORMED)} lines rejected" in summary
    from tables.models import ImportedRecord, Player

    assert sorted(ImportedRecord.objects.values_list("record_id", flat=True)) == ["first", "last"]
    assert sorted(Player.objects.values_list("display_name", flat=True)) == ["banker", "seat-2"]


def test_a_malformed_line_alone_writes_nothing(croupier, table, tmp_path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"\n".join(line for line, _ in MALFORMED) + b"\n")
    before = written()
    lines, _summary, code = run(path, table, croupier)
    assert code == 1 and all("error" in line for line in lines)
    assert written() == before


def test_a_reports_closing_anchor_lines_are_no_coups(croupier, table, tmp_path) -> None:
    """A coup records report (a run's file) ends with the audit chains' signed heads: imported as
    it is, they are skipped like blank lines, neither coups nor rejected lines; a line that only
    looks like one (another key beside "anchor") is still rejected."""
    anchor = b'{"anchor":{"hash":"ab","key_id":"k","scope":"global","seq":3,"sig":"cd"}}'
    path = tmp_path / "report.jsonl"
    path.write_bytes(b"\n".join([good("a"), good("b"), anchor, anchor]) + b"\n")
    lines, summary, code = run(path, table, croupier)
    assert code == 0
    assert [(line["line"], line["state"]) for line in lines] == [(1, "settled"), (2, "settled")]
    assert "2 coups imported" in summary and "0 lines rejected" in summary
    path.write_bytes(b'{"anchor":{"seq":3},"id":"x"}\n')
    lines, summary, code = run(path, table, croupier)
    assert code == 1 and "1 lines rejected" in summary and list(lines[0]) == ["line", "id", "error"]


def test_another_games_coups_in_a_report_are_left_out(croupier, table, tmp_path) -> None:
    """A coup records report lists the older games' coups too (docs/coup-record.md): imported into
    a chemin de fer table they are left out, each said so, and the import succeeds; a line naming
    no known game is still rejected."""
    macao = (
        b'{"id":"T9-macao-coup1","game":"macao","unit":10,"banker":"player-1","punters":["player-2"],'
        b'"deal":["9H","5D"],"turns":[[],[]]}'
    )
    path = tmp_path / "report.jsonl"
    path.write_bytes(b"\n".join([good("a"), macao, good("b")]) + b"\n")
    before = Coup.objects.count()
    lines, summary, code = run(path, table, croupier)
    assert code == 0
    assert lines[1] == {"line": 2, "skipped": "a macao coup (not chemin de fer)"}
    assert [line.get("state") for line in lines] == ["settled", None, "settled"]
    assert "2 coups imported" in summary and "1 coups of other games left out" in summary
    assert Coup.objects.count() == before + 2
    path.write_bytes(b'{"id":"f1","game":"faro","bank":10}\n')
    lines, summary, code = run(path, table, croupier)
    assert code == 1 and "1 lines rejected" in summary and list(lines[0]) == ["line", "id", "error"]

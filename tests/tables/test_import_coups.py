"""import_coups: a recorded history loaded through the table services."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from audit.models import AuditEvent
from ledger.models import Transaction
from tables.models import Coup, CoupStep

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
        code = int(exc.code)
    return [json.loads(x) for x in out.getvalue().splitlines()], err.getvalue(), code


def test_the_examples_import_with_exactly_their_verdicts(croupier, table) -> None:
    lines, summary, code = run(DATA / "coups.jsonl", table, croupier)
    expected = [json.loads(x) for x in (DATA / "verdicts.jsonl").read_text().splitlines()]
    assert code == 1  # one line rejected
    assert len(lines) == 11
    for got, want in zip(lines, expected, strict=True):
        if "error" in want:
            assert got == {"line": 11, "error": want["error"]}
            continue
        got = dict(got)
        del got["line"], got["coup"], got["state"]
        assert got == want
    states = {line["id"]: line["state"] for line in lines if "id" in line}
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
    }
    assert Coup.objects.filter(shoe__table=table).count() == 10
    assert "10 coups imported (6 flagged, 4 restored awaiting approval, 2 awaiting correction)" in summary
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
    # valid as a record, but no table can have played it: the banker drew after the player showed
    # a natural (a natural ends the coup at once)
    impossible = {
        "id": "impossible",
        "profile": "casino",
        "bank": 100,
        "bets": [{"punter": "seat-3", "amount": 50}],
        "player": {"cards": ["8H", "KC"], "action": "natural"},
        "banker": {"cards": ["2S", "3H", "4D"], "action": "draw"},
    }
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(impossible) + "\n")
    lines, _summary, code = run(path, table, croupier)
    assert code == 1
    assert lines[0]["state"] == "settled" and lines[0]["line"] == 1
    assert lines[1]["line"] == 2 and "not possible" in lines[1]["error"]
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
    coup.refresh_from_db()
    assert (coup.state, result.step.kind, result.step.payload) == (
        "void",
        "coup_voided",
        {"reason": "bets beyond the bank"},
    )

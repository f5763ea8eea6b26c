"""The older games in the exports: the coup-records report (command and Celery run) carries each
settled game coup as a JSON line with its ``"game"``, record, id and house settings; ``validate_coups``
judges that file under those settings, and its settlements are the ledger's postings; the audit
trail shows every game coup event."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from audit.models import AuditEvent
from ledger.models import Account, Entry
from older_games.engine.game_play import FUND, POOL
from older_games.selectors import game_coup_record_id
from older_games.services import key_player_id
from reports.models import ReportRun
from reports.services import report_run_request
from reports.storage import reports_storage
from tables.gaming_day import casino_calendar
from tables.models import GameCoup
from tests.older_games.coups import GameHistory
from tests.reports.helpers import run

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def reports_root(settings: Any, tmp_path: Path) -> Path:
    root = tmp_path / "reports"
    settings.STORAGES = {
        **settings.STORAGES,
        "reports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    return root


def _export(games: GameHistory, path: Path) -> list[dict[str, Any]]:
    casino = games.macao.table.casino
    day = casino_calendar(casino).day_of(games.macao.created_at).isoformat()
    call_command(
        "report", "coup-records", "--from", day, "--to", day, "--format", "jsonl",
        "--casino", str(casino.pk), "--out", str(path), stdout=io.StringIO(),
    )  # fmt: skip
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _ledger_net(coup: GameCoup) -> dict[str, int]:
    """Each party's net over the coup's postings, by the record's names (fund, pool, player-<id>)."""
    net: Counter[str] = Counter()
    for account_id, amount in Entry.objects.filter(transaction__game_coup=coup).values_list(
        "account_id", "amount"
    ):
        account = Account.objects.get(pk=account_id)
        parties: dict[str, str] = {Account.Kind.FUND: FUND, Account.Kind.POOL: POOL}
        key = parties.get(account.kind, f"player-{account.player_id}")
        net[key] += amount
    return {k: v for k, v in net.items() if v}


def test_the_coup_records_carry_each_settled_game_coup(games: GameHistory, tmp_path: Path) -> None:
    *lines, anchor = _export(games, tmp_path / "coups.jsonl")
    assert "anchor" in anchor
    settled = [games.macao, games.landsknecht, games.tie]  # in creation order; void and open: no record
    assert lines == [
        {"id": game_coup_record_id(c), **(c.record or {}), "settings": c.house_settings} for c in settled
    ]
    assert [(line["id"], line["game"]) for line in lines] == [
        (f"T{games.macao.table_id}-macao-coup1", "macao"),
        (f"T{games.landsknecht.table_id}-landsknecht-coup1", "landsknecht"),
        (f"T{games.tie.table_id}-old-baccarat-coup1", "old-baccarat"),
    ]
    assert lines[2]["settings"]["tie_rule"] == "pool"


def test_validate_coups_on_the_export_agrees_with_the_ledger(games: GameHistory, tmp_path: Path) -> None:
    path = tmp_path / "coups.jsonl"
    _export(games, path)
    out, err = io.StringIO(), io.StringIO()
    call_command("validate_coups", str(path), stdout=out, stderr=err)
    assert err.getvalue().strip() == "3 records, 0 with violations, 0 malformed"
    verdicts = [json.loads(line) for line in out.getvalue().splitlines()]
    coups = {game_coup_record_id(c): c for c in (games.macao, games.landsknecht, games.tie)}
    assert [v["id"] for v in verdicts] == list(coups)
    for verdict in verdicts:
        coup = coups[verdict["id"]]
        assert verdict["outcome"] == coup.outcome
        net = {k: v for k, v in verdict["settlement"]["net"].items() if v}
        assert net == _ledger_net(coup), verdict["id"]
        assert all(key_player_id(k) is not None for k in net if k not in (FUND, POOL))
    # the tie pooled under the table's settings: under the defaults the banker would take it
    assert _ledger_net(games.tie) == {
        f"player-{p.pk}": n for p, n in zip(games.players["tie"], (10, 0, -10), strict=True) if n
    }


def test_without_its_settings_a_line_is_judged_under_the_defaults(games: GameHistory, tmp_path: Path) -> None:
    path = tmp_path / "coups.jsonl"
    *lines, _anchor = _export(games, path)
    tie = {k: v for k, v in lines[2].items() if k != "settings"}
    path.write_text(json.dumps(tie) + "\n")
    out = io.StringIO()
    call_command("validate_coups", str(path), stdout=out, stderr=io.StringIO())
    verdict = json.loads(out.getvalue())
    assert verdict["settlement"]["net"] != _ledger_net(games.tie)


def test_the_celery_run_writes_the_same_file(
    games: GameHistory, accountant, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    from reports.kinds import ReportRequest

    casino = games.macao.table.casino
    day = casino_calendar(casino).day_of(games.macao.created_at)
    with django_capture_on_commit_callbacks(execute=True):
        report = report_run_request(
            actor=accountant,
            request=ReportRequest(kind="coup-records", fmt="jsonl", start=day, end=day, casino_id=casino.pk),
        )
    report.refresh_from_db()
    assert report.status == ReportRun.Status.FINISHED
    stored = reports_storage().open(str(report.file.name), "rb").read()
    *lines, _anchor = stored.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [
        game_coup_record_id(c) for c in (games.macao, games.landsknecht, games.tie)
    ]


def test_the_audit_trail_shows_every_game_coup_event(games: GameHistory) -> None:
    day = casino_calendar(games.macao.table.casino).day_of(games.macao.created_at)
    body, _result = run("audit-trail", "jsonl", day, day, casino_id=games.macao.table.casino_id)
    events = [json.loads(line) for line in body.splitlines() if b'"anchor"' not in line[:12]]
    actions = Counter(e["action"] for e in events if e["action"].startswith("tables.game_coup."))
    steps = sum(c.step_count for c in GameCoup.objects.all())
    assert actions == {
        "tables.game_coup.start": 5,
        "tables.game_coup.step": steps,
        "tables.game_coup.settle": 3,
        "tables.game_coup.void": 1,
    }
    assert actions == Counter(
        AuditEvent.objects.filter(action__startswith="tables.game_coup.").values_list("action", flat=True)
    )
    void = next(e for e in events if e["action"] == "tables.game_coup.void")
    assert void["object_id"] == str(games.void.pk) and void["after"]["reason"] == "misdeal"

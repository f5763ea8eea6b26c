"""The accounting exports: exact content for a known history, the coup-record round trip through
the offline validator, the audit trail re-verified from the export alone, and the export's own audit."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import hmac
import io
import json

import pytest
from django.core.management import call_command
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone

from audit.canonical import GENESIS_HASH, canonical_json
from audit.models import AuditEvent
from ledger.models import Transaction
from ledger.selectors import clock_hour_floor
from reports import exports
from tables.engine_bridge import exported_record
from tables.models import CoupStep
from tables.money import fees as ledger  # hourly_fees_bill, card_money_charge
from tables.rules.interchange import record_to_dict
from tables.rules.validator import validate_lines
from tests.tables.play import open_floor

pytestmark = pytest.mark.django_db


def _today() -> dict[str, str]:
    today = timezone.localdate().isoformat()
    return {"start": today, "end": today}


def _download(client, kind: str, data: dict[str, str]) -> tuple[StreamingHttpResponse, bytes]:
    response = client.post(reverse("review:export", args=[kind]), data)
    assert response.status_code == 200, response.content[:500]
    assert response.streaming
    return response, b"".join(response.streaming_content)


def _csv(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8"))))


def _local(at: dt.datetime) -> str:
    return timezone.localtime(at).replace(microsecond=0).isoformat()


# ------------------------------------------------------------------------------ percentage tax
def test_percentage_tax_report(client, accountant, history, table) -> None:
    client.force_login(accountant)
    response, body = _download(client, "percentage-tax", _today())
    day = timezone.localdate().isoformat()
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="percentage-tax_{day}_{day}.csv"'
    assert body.endswith(b"\r\n")
    # coups 200 (banker, levy 10), 400 restored to a banker win (levy 20), 100 lost to a natural
    assert _csv(body) == [
        ["date", "table_id", "table", "coups", "banker_wins", "covered_stakes", "levy"],
        [day, str(table.pk), table.name, "3", "2", "700", "30"],
    ]


def test_percentage_tax_report_by_table_and_day(client, pit_boss, history, table, other_table) -> None:
    client.force_login(pit_boss)
    other = {**_today(), "table": other_table.pk}
    response, body = _download(client, "percentage-tax", other)
    assert _csv(body) == [["date", "table_id", "table", "coups", "banker_wins", "covered_stakes", "levy"]]
    assert response["Content-Disposition"].endswith(f'_table-{other_table.pk}.csv"')
    yesterday = (timezone.localdate() - dt.timedelta(days=1)).isoformat()
    _, body = _download(client, "percentage-tax", {"start": yesterday, "end": yesterday})
    assert len(_csv(body)) == 1


# ------------------------------------------------------------------------------ fees, card money
def test_hourly_fee_and_card_money_report(client, accountant, croupier, table, club_table) -> None:
    casino = table.casino
    casino.levy_mode, casino.hourly_fee_amount, casino.card_money_amount = "hourly_fee", 30, 5
    casino.save()
    floor = open_floor(croupier, table, seats=(1, 2))
    hour = clock_hour_floor(floor.session.opened_at)
    ledger.hourly_fees_bill(session=floor.session, hour_start=hour, now=hour + dt.timedelta(hours=2))
    club = open_floor(croupier, club_table, seats=(1, 2))  # seating charges the club's card money
    ledger.card_money_charge(session=club.session, player=club.players[2], actor=croupier)  # once only

    client.force_login(accountant)
    _, body = _download(client, "fees", _today())
    fees = list(Transaction.objects.filter(kind="hourly_fee").order_by("id"))
    cards = list(Transaction.objects.filter(kind="card_money").order_by("id"))
    p1, p2 = floor.players[1], floor.players[2]
    assert [t.memo.split(": ")[-1] for t in fees] == [p1.display_name, p2.display_name]
    session, club_session = str(floor.session.pk), str(club.session.pk)
    assert _csv(body) == [
        list(exports.FEES_HEADER),
        [_local(fees[0].posted_at), "hourly_fee", str(fees[0].pk), session, str(table.pk), table.name,
         _local(hour), str(p1.pk), "Player 1", "30"],
        [_local(fees[1].posted_at), "hourly_fee", str(fees[1].pk), session, str(table.pk), table.name,
         _local(hour), str(p2.pk), "Player 2", "30"],
        *[
            [_local(card.posted_at), "card_money", str(card.pk), club_session, str(club_table.pk),
             club_table.name, "", str(club.players[n].pk), f"Player {n}", "5"]
            for n, card in ((1, cards[0]), (2, cards[1]))
        ],
    ]  # fmt: skip
    _, only_club = _download(client, "fees", {**_today(), "table": club_table.pk})
    assert [row[1] for row in _csv(only_club)[1:]] == ["card_money", "card_money"]


# ------------------------------------------------------------------------------ coup records
def test_coup_records_export_is_the_interchange_format(client, pit_boss, history, table) -> None:
    client.force_login(pit_boss)
    response, body = _download(client, "coup-records", _today())
    assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"
    lines = [json.loads(line) for line in body.decode().splitlines()]
    t = table.pk
    assert lines == [
        {
            "id": f"T{t}-shoe1-coup1", "profile": "casino", "bank": 200,
            # in betting order: from the banker's right (seat 1: 12, 11, ... 4, 3, 2)
            "bets": [{"punter": "seat-4", "amount": 30}, {"punter": "seat-3", "amount": 50},
                     {"punter": "seat-2", "amount": 120}],
            "banco": False, "first_coup_of_bank": True,
            "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
            "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
            "shoe_next": [],
        },
        {
            "id": f"T{t}-shoe1-coup2", "profile": "casino", "bank": 400,
            "bets": [{"punter": "seat-3", "amount": 160}, {"punter": "seat-2", "amount": 240}],
            "banco": False, "first_coup_of_bank": False,
            "player": {"cards": ["TH", "2C", "6D"], "action": "draw"},
            "banker": {"cards": ["3S", "2H"], "action": "stand"},
            "shoe_next": ["4C"],
        },
        {
            "id": f"T{t}-shoe1-coup3", "profile": "casino", "bank": 780,
            "bets": [{"punter": "seat-2", "amount": 100}],
            "banco": False, "first_coup_of_bank": False,
            "player": {"cards": ["9H", "KC"], "action": "natural"},
            "banker": {"cards": ["AS", "2D"], "action": "none"},
            "shoe_next": [],
        },
    ]  # fmt: skip


def test_coup_records_round_trip_through_the_offline_validator(client, pit_boss, history) -> None:
    """export -> validate_lines: the same violations as recorded at the table, the same
    restoration as the approved correction, the same settlements as were posted."""
    client.force_login(pit_boss)
    _, body = _download(client, "coup-records", _today())
    out = io.BytesIO()
    summary = validate_lines(body.splitlines(keepends=True), out)
    assert (summary.lines, summary.malformed, summary.flagged) == (3, 0, 1)
    verdicts = [json.loads(line) for line in out.getvalue().splitlines()]
    for coup, verdict in zip((history.clean, history.flagged, history.natural), verdicts, strict=True):
        steps = list(coup.steps.order_by("index"))
        recorded = [code for s in steps for code in s.violations]
        assert [v["code"] for v in verdict["violations"]] == recorded
        reveal = next(s for s in steps if s.kind == CoupStep.Kind.REVEAL).payload["verdict"]
        assert (verdict["id"], verdict["outcome"]) == (reveal["id"], reveal["outcome"])
        if not recorded:
            assert verdict == reveal
    flagged = [s for s in history.flagged.steps.order_by("index")]
    correction = next(s for s in flagged if s.kind == CoupStep.Kind.CORRECTION)
    approval = next(s for s in flagged if s.kind == CoupStep.Kind.CORRECTION_APPROVED)
    assert verdicts[1]["violations"] == [{"code": "BANKER_SHOULD_DRAW", "side": "banker", "detail": ""}]
    assert verdicts[1]["restored"] == correction.payload["restored"]
    assert verdicts[1]["settlement"] == approval.payload["settlement"]


def test_the_validate_coups_command_reads_the_export(client, pit_boss, history, tmp_path) -> None:
    from django.core.management import call_command

    client.force_login(pit_boss)
    _, body = _download(client, "coup-records", _today())
    path = tmp_path / "coups.jsonl"
    path.write_bytes(body)
    out, err = io.StringIO(), io.StringIO()
    call_command("validate_coups", str(path), stdout=out, stderr=err)
    assert err.getvalue().strip() == "3 records, 1 with violations, 0 malformed"
    assert len(out.getvalue().splitlines()) == 3


def test_a_rejected_correction_leaves_no_shoe_next(pit_boss, awaiting) -> None:
    from review.period import Period
    from tables import services

    services.correction_reject(actor=pit_boss, coup=awaiting.flagged, reason="wrong card")
    today = timezone.localdate()
    records = list(exports.coup_record_dicts(period=Period(today, today)))
    assert [r["shoe_next"] for r in records] == [[], []]


def test_the_export_the_api_and_import_coups_give_one_json_per_coup(
    client, pit_boss, history, table, other_table, other_croupier, tmp_path
) -> None:
    """One writer (``interchange.record_to_dict``): the coup records export, the API's record
    endpoint and the record of the same coup loaded by ``manage.py import_coups`` are one JSON."""
    client.force_login(pit_boss)
    _, body = _download(client, "coup-records", {**_today(), "table": table.pk})
    exported = [json.loads(line) for line in body.decode().splitlines()]
    coups = (history.clean, history.flagged, history.natural)
    from_api = [client.get(f"/api/v1/coups/{coup.pk}/record/").json() for coup in coups]
    assert from_api == exported
    for coup, record in zip(coups, exported, strict=True):
        steps = list(coup.steps.order_by("index"))
        assert record_to_dict(exported_record(coup, steps)) == record

    # the same records through the command into another table: the same JSON back, but the id
    path = tmp_path / "coups.jsonl"
    path.write_bytes(body)
    call_command(
        "import_coups", str(path), table=other_table.pk, croupier=other_croupier.username, buy_in=1000,
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    _, again = _download(client, "coup-records", {**_today(), "table": other_table.pk})
    imported = [json.loads(line) for line in again.decode().splitlines()]
    assert [{**r, "id": None} for r in imported] == [{**r, "id": None} for r in exported]


def test_a_rejected_correction_leaves_no_shoe_next_in_the_api_either(client, pit_boss, awaiting) -> None:
    from tables import services

    services.correction_reject(actor=pit_boss, coup=awaiting.flagged, reason="wrong card")
    client.force_login(pit_boss)
    record = client.get(f"/api/v1/coups/{awaiting.flagged.pk}/record/").json()
    assert record["shoe_next"] == []


# ------------------------------------------------------------------------------ audit trail
@pytest.fixture
def shared_key(settings) -> None:
    """The key the regulator holds to re-verify an export (set before any event is written)."""
    settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY = "k2", "the-regulator-shares-this-key-0123456"


def test_the_audit_trail_export_re_verifies_offline_with_the_key(
    shared_key, client, accountant, awaiting
) -> None:
    client.force_login(accountant)
    response, body = _download(client, "audit-trail", _today())
    assert response["Content-Disposition"].startswith('attachment; filename="audit-trail_')
    parsed = [json.loads(line) for line in body.decode().splitlines()]
    lines = [line for line in parsed if "anchor" not in line]
    last = [line for line in parsed if "anchor" in line]
    assert parsed == lines + last  # the anchors close the file
    assert len(lines) == AuditEvent.objects.count()  # every event of the day, this export's own included
    chains = sorted({line["chain"] for line in lines})
    # the global chain (logins, the export's own event) and the casino's (the coup's, the ledger's)
    casino_chain = awaiting.clean.shoe.table.casino_id
    assert chains == [0, casino_chain]
    keys = {"seq", "occurred_at", "actor_id", "actor_label", "action", "object_type", "object_id", "before",
            "after", "key_id", "chain", "prev_hash", "hash"}  # fmt: skip
    heads = {}
    for chain in chains:  # chain by chain, each from its genesis, in seq order
        prev = GENESIS_HASH
        of_chain = [line for line in lines if line["chain"] == chain]
        assert lines.index(of_chain[0]) + len(of_chain) - 1 == lines.index(of_chain[-1])  # one stretch
        for n, line in enumerate(of_chain, 1):
            assert set(line) == keys
            assert (line["seq"], line["prev_hash"], line["key_id"]) == (n, prev, "k2")
            # what is hashed: the line but its links, and its chain unless it is the global one
            content = {k: v for k, v in line.items() if k not in ("prev_hash", "hash")}
            if content["chain"] == 0:
                del content["chain"]
            digest = hmac.new(
                b"the-regulator-shares-this-key-0123456",
                line["prev_hash"].encode("ascii") + b"\n" + canonical_json(content),
                hashlib.sha256,
            ).hexdigest()
            assert digest == line["hash"], (chain, line["seq"])
            prev = line["hash"]
        heads[chain] = of_chain[-1]
    # the last lines: each chain's signed head when the export was taken, the global one first
    assert [set(line) for line in last] == [{"anchor"}, {"anchor"}]
    for line, chain in zip(last, chains, strict=True):
        anchor = line["anchor"]
        assert (anchor["scope"], anchor["seq"], anchor["hash"], anchor["key_id"]) == (
            "global" if chain == 0 else f"casino:{chain}",
            heads[chain]["seq"],
            heads[chain]["hash"],
            "k2",
        )
        signed = {k: anchor[k] for k in ("scope", "seq", "hash", "at", "key_id")}
        assert (
            anchor["sig"]
            == hmac.new(
                b"the-regulator-shares-this-key-0123456",
                b"chemin-audit-anchor-v1\n" + canonical_json(signed),
                hashlib.sha256,
            ).hexdigest()
        )
    assert json.loads(response["X-Audit-Anchor"]) == last[0]["anchor"]  # the global chain's
    first = AuditEvent.objects.get(chain=0, seq=1)
    assert lines[0] == {
        "seq": 1,
        "occurred_at": first.occurred_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "actor_id": first.actor_id,
        "actor_label": first.actor_label,
        "action": first.action,
        "object_type": first.object_type,
        "object_id": first.object_id,
        "before": first.before,
        "after": first.after,
        "key_id": "k2",
        "chain": 0,
        "prev_hash": GENESIS_HASH,
        "hash": first.hash,
    }
    lines = [line for line in lines if line["chain"] == 0]  # the export's own event ends the global chain
    day = timezone.localdate().isoformat()
    assert (lines[-1]["action"], lines[-1]["actor_label"], lines[-1]["after"]) == (
        "audit.auditevent.export",
        "accountant",
        {"export": "audit-trail", "from": day, "to": day, "table": None,
         "filename": f"audit-trail_{day}_{day}.jsonl"},
    )  # fmt: skip


def test_every_export_is_audited_with_who_what_and_when(client, pit_boss, table) -> None:
    client.force_login(pit_boss)
    day = timezone.localdate().isoformat()
    expected = {
        "percentage-tax": "tables.banktax.export",
        "fees": "ledger.transaction.export",
        "audit-trail": "audit.auditevent.export",
        "coup-records": "tables.coup.export",
    }
    for kind, action in expected.items():
        _download(client, kind, {**_today(), "table": table.pk})
        event = AuditEvent.objects.order_by("-seq").first()
        assert event is not None
        scoped = kind != "audit-trail"
        suffix = f"_table-{table.pk}" if scoped else ""
        extension = "csv" if kind in ("percentage-tax", "fees") else "jsonl"
        assert (event.action, event.actor, event.object_type) == (action, pit_boss, "")
        assert event.after == {
            "export": kind, "from": day, "to": day, "table": table.pk if scoped else None,
            "filename": f"{kind}_{day}_{day}{suffix}.{extension}",
        }  # fmt: skip


def test_every_export_carries_the_signed_head_and_appends_it_to_the_anchor_file(
    client, pit_boss, table, tmp_path, settings
) -> None:
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    client.force_login(pit_boss)
    for n, kind in enumerate(("percentage-tax", "fees", "audit-trail", "coup-records"), 1):
        response, _ = _download(client, kind, {**_today(), "table": table.pk})
        head = AuditEvent.objects.order_by("-seq").first()
        assert head is not None and head.action == exports.EXPORTS[kind].action
        anchors = (tmp_path / "anchors.jsonl").read_text().splitlines()
        assert len(anchors) == n
        assert anchors[-1] == response["X-Audit-Anchor"]
        assert (json.loads(anchors[-1])["seq"], json.loads(anchors[-1])["hash"]) == (head.seq, head.hash)
    out = io.StringIO()
    call_command("verify_audit", anchors=settings.AUDIT_ANCHOR_FILE, stdout=out, stderr=io.StringIO())
    assert "anchors checked: 4" in out.getvalue() and "anchors OK" in out.getvalue()


def test_a_bad_period_is_refused_and_nothing_is_audited(client, pit_boss) -> None:
    client.force_login(pit_boss)
    before = AuditEvent.objects.count()
    today = timezone.localdate()
    response = client.post(
        reverse("review:export", args=["audit-trail"]),
        {"start": today.isoformat(), "end": (today - dt.timedelta(days=3)).isoformat()},
    )
    assert response.status_code == 400
    assert "The period starts after it ends." in response.content.decode()
    assert AuditEvent.objects.count() == before


def test_exports_stream_in_chunks(client, pit_boss, awaiting, monkeypatch) -> None:
    monkeypatch.setattr(exports, "CHUNK_LINES", 2)
    client.force_login(pit_boss)
    response = client.post(reverse("review:export", args=["audit-trail"]), _today())
    chunks = list(response.streaming_content)
    assert len(chunks) > 10 and all(chunk.count(b"\n") <= 2 for chunk in chunks)

"""The old immediate downloads' URL (POST /review/exports/<kind>/, kept for bookmarks and scripts):
it no longer streams a report but asks for the equivalent run, idempotently, and sends the browser
to the reports page. What the streamed files were tested for is tested here on the runs' files:
exact content for a known history, the coup-record round trip through the offline validator, the
audit trail re-verified from the file alone, who asked for what, and the chains' signed heads."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.http import FileResponse
from django.urls import reverse
from django.utils import timezone

from audit.canonical import GENESIS_HASH, canonical_json
from audit.models import AuditEvent
from chemin_de_fer.engine.interchange import record_to_dict
from chemin_de_fer.engine.validator import validate_lines
from core.models import OutboxMessage
from ledger.models import Transaction
from ledger.selectors import clock_hour_floor
from reports.builders.coup_records import coup_record_dicts
from reports.models import ReportRun
from reports.services import report_run_execute
from tables.engine_bridge import exported_record
from tables.games import offline_judges
from tables.gaming_day import casino_calendar
from tables.models import Coup, CoupStep, ImportedRecord
from tables.money import fees as ledger  # hourly_fees_bill, card_money_charge
from tests.reports.helpers import csv_parts
from tests.review.history import play_clean
from tests.tables.play import open_floor, play

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
PAGE = "/review/exports/#report-runs"


def _days(day: dt.date) -> dict[str, str]:
    return {"start": day.isoformat(), "end": day.isoformat()}


def _gaming_day(casino: Any, at: dt.datetime) -> dt.date:
    """The gaming day of ``at`` in the casino's calendar (``None``: UTC days, across casinos)."""
    return casino_calendar(casino).day_of(at)


def _counts() -> tuple[int, int, int]:
    return ReportRun.objects.count(), AuditEvent.objects.count(), OutboxMessage.objects.count()


def _ask(client, kind: str, data: dict[str, Any], **headers: Any) -> ReportRun:
    """Post to the old URL: a 303 to the reports page, and the run it asked for."""
    response = client.post(reverse("review:export", args=[kind]), data, **headers)
    assert response.status_code == 303, response.content[:500]
    assert response["Location"] == PAGE
    run = ReportRun.objects.order_by("-pk").first()
    assert run is not None
    return run


def _take(client, run: ReportRun) -> tuple[FileResponse, bytes]:
    """The run written (what the worker does), then its file downloaded from the page."""
    report_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == ReportRun.Status.FINISHED, run.error
    response = client.get(reverse("review:report_run_file", args=[run.pk]))
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    # the file is whole: the one whose sha256 the run (and its audit event) recorded
    assert response["X-Report-SHA256"] == run.sha256 == hashlib.sha256(body).hexdigest()
    return response, body


def _jsonl(body: bytes) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the records, the closing anchors) of a JSON Lines report."""
    parsed = [json.loads(line) for line in body.decode().splitlines()]
    records = [line for line in parsed if "anchor" not in line]
    anchors = [line for line in parsed if "anchor" in line]
    assert parsed == records + anchors  # the anchors close the file
    return records, anchors


# --------------------------------------------------------------------------------- the URL now
def test_the_old_url_asks_for_a_run_and_sends_to_the_reports_page(client, accountant, table) -> None:
    client.force_login(accountant)
    before = AuditEvent.objects.count()
    run = _ask(client, "percentage-tax", {**_days(dt.date(2026, 11, 2)), "casino": table.casino_id})
    assert (run.kind, run.format, run.start, run.end, run.casino_id, run.table_id, run.status) == (
        "levy", "csv", dt.date(2026, 11, 2), dt.date(2026, 11, 2), table.casino_id, None, "queued",
    )  # fmt: skip
    assert run.requested_by == accountant
    assert not run.file  # nothing is written inside the request: a worker writes the run
    assert AuditEvent.objects.count() == before + 1
    assert OutboxMessage.objects.get().kwargs == {"run_id": run.pk}
    # asked again (a double click, a script retried): the same run
    assert _ask(client, "percentage-tax", {**_days(dt.date(2026, 11, 2)), "casino": table.casino_id}) == run
    assert _counts() == (1, before + 1, 1)


@pytest.mark.parametrize(
    ("kind", "equivalent", "fmt"),
    [
        ("percentage-tax", "levy", "csv"),
        ("fees", "fees", "csv"),
        ("audit-trail", "audit-trail", "jsonl"),
        ("coup-records", "coup-records", "jsonl"),
    ],
)
def test_each_old_kind_is_its_equivalent_run(client, pit_boss, table, kind, equivalent, fmt) -> None:
    client.force_login(pit_boss)
    run = _ask(client, kind, {**_days(dt.date(2026, 11, 2)), "table": table.pk})
    by_table = kind != "audit-trail"  # the audit trail's download ignored the table, and so does its run
    assert (run.kind, run.format, run.casino_id, run.table_id) == (
        equivalent,
        fmt,
        table.casino_id if by_table else None,  # the table's casino
        table.pk if by_table else None,
    )


def test_htmx_gets_the_history_with_the_run(client, pit_boss, table) -> None:
    client.force_login(pit_boss)
    response = client.post(
        reverse("review:export", args=["coup-records"]),
        {**_days(dt.date(2026, 11, 2)), "table": table.pk},
        **HTMX,
    )
    assert response.status_code == 200
    run = ReportRun.objects.get()
    html = response.content.decode()
    assert html.startswith('<section class="card report-runs" id="report-runs"')
    assert f'hx-get="{reverse("review:report_run", args=[run.pk])}" hx-trigger="every 2s"' in html


def test_a_per_casino_report_without_a_table_or_a_casino_is_refused(client, accountant, table) -> None:
    client.force_login(accountant)
    before = _counts()
    response = client.post(reverse("review:export", args=["percentage-tax"]), _days(dt.date(2026, 11, 2)))
    assert response.status_code == 400
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    # the report by its title, as the page names it (not its slug)
    assert response.content.decode() == (
        "The Levy (percentage tax) report is for one casino: send the table or the casino (its id) "
        "it is for.\n"
    )
    htmx = client.post(reverse("review:export", args=["fees"]), _days(dt.date(2026, 11, 2)), **HTMX)
    assert htmx.status_code == 400
    assert (
        "The Hourly fees and card money report is for one casino: send the table or the casino "
        "(its id) it is for." in htmx.content.decode()
    )
    assert _counts() == before


def test_a_table_of_another_casino_than_the_one_posted_is_refused(client, accountant, table) -> None:
    from tests.factories import CasinoFactory

    client.force_login(accountant)
    other = CasinoFactory()
    before = _counts()
    response = client.post(
        reverse("review:export", args=["coup-records"]),
        {**_days(dt.date(2026, 11, 2)), "table": table.pk, "casino": other.pk},
    )
    assert response.status_code == 400
    assert response.content.decode() == f"table: Table {table.pk} is not in that casino.\n"
    assert _counts() == before


def test_a_bad_period_is_refused_and_nothing_is_written(client, pit_boss) -> None:
    client.force_login(pit_boss)
    before = _counts()
    today = dt.date(2026, 11, 2)
    response = client.post(
        reverse("review:export", args=["audit-trail"]),
        {"start": today.isoformat(), "end": (today - dt.timedelta(days=3)).isoformat()},
    )
    assert response.status_code == 400
    assert response.content.decode() == "The period starts after it ends.\n"
    assert _counts() == before


# ------------------------------------------------------------------------- levy (percentage tax)
def test_percentage_tax_is_the_levy_report(client, accountant, history, table) -> None:
    client.force_login(accountant)
    day = _gaming_day(table.casino, history.clean.settled_at)
    run = _ask(client, "percentage-tax", {**_days(day), "casino": table.casino_id})
    response, body = _take(client, run)
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    name = f"levy_{day}_{day}_casino-{table.casino_id}.csv"
    assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    assert body.endswith(b"\r\n")
    # coups 200 (banker, levy 10), 400 restored to a banker win (levy 20), 100 lost to a natural
    _, rows = csv_parts(body)
    assert [r for r in rows if r[0] == "data"] == [
        ["data", day.isoformat(), str(table.pk), table.name, "3", "2", "700", "30"]
    ]


def test_percentage_tax_by_table_and_day(client, pit_boss, history, table, other_table) -> None:
    client.force_login(pit_boss)
    day = _gaming_day(table.casino, history.clean.settled_at)
    run = _ask(client, "percentage-tax", {**_days(day), "table": other_table.pk})
    response, body = _take(client, run)
    assert response["Content-Disposition"].endswith(f'_table-{other_table.pk}.csv"')
    assert [r for r in csv_parts(body)[1] if r[0] == "data"] == []  # the other table played nothing
    yesterday = day - dt.timedelta(days=1)
    _, body = _take(client, _ask(client, "percentage-tax", {**_days(yesterday), "casino": table.casino_id}))
    assert [r for r in csv_parts(body)[1] if r[0] == "data"] == []


# ------------------------------------------------------------------------------ fees, card money
def test_fees_is_the_fees_report_of_the_tables_casino(
    client, accountant, croupier, table, club_table
) -> None:
    casino = table.casino
    casino.levy_mode, casino.hourly_fee_amount, casino.card_money_amount = "hourly_fee", 30, 5
    casino.save()
    floor = open_floor(croupier, table, seats=(1, 2))
    hour = clock_hour_floor(floor.session.opened_at)
    ledger.hourly_fees_bill(session=floor.session, hour_start=hour, now=hour + dt.timedelta(hours=2))
    club = open_floor(croupier, club_table, seats=(1, 2))  # seating charges the club's card money
    ledger.card_money_charge(session=club.session, player=club.players[2], actor=croupier)  # once only
    fees = list(Transaction.objects.filter(kind="hourly_fee").order_by("id"))
    cards = list(Transaction.objects.filter(kind="card_money").order_by("id"))
    p1, p2 = floor.players[1], floor.players[2]
    assert [t.memo.split(": ")[-1] for t in fees] == [p1.display_name, p2.display_name]

    client.force_login(accountant)
    day = _gaming_day(casino, cards[-1].posted_at)
    run = _ask(client, "fees", {**_days(day), "table": club_table.pk})
    assert (run.kind, run.casino_id, run.table_id) == ("fees", casino.pk, club_table.pk)
    _, body = _take(client, run)
    rows = [r for r in csv_parts(body)[1] if r[0] == "data"]
    assert [(r[4], r[5], r[8], r[10], r[11]) for r in rows] == [
        (str(club.session.pk), "card money", str(club.players[n].pk), "5", str(card.pk))
        for n, card in ((1, cards[0]), (2, cards[1]))
    ]


# ------------------------------------------------------------------------------ coup records
def test_coup_records_are_the_interchange_format(client, pit_boss, history, table) -> None:
    client.force_login(pit_boss)
    day = _gaming_day(None, history.clean.settled_at)  # across casinos: UTC days
    run = _ask(client, "coup-records", _days(day))
    assert (run.casino_id, run.table_id) == (None, None)
    response, body = _take(client, run)
    assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"
    lines, anchors = _jsonl(body)
    assert [set(a) for a in anchors] == [{"anchor"}, {"anchor"}]  # the global chain's, the casino's
    # the table, its session and the shoe of that session: unique in the table's history
    t, s = table.pk, history.clean.shoe.session_id
    assert lines == [
        {
            "id": f"T{t}-session{s}-shoe1-coup1", "profile": "casino", "bank": 200,
            # in betting order: from the banker's right (seat 1: 12, 11, ... 4, 3, 2)
            "bets": [{"punter": "seat-4", "amount": 30}, {"punter": "seat-3", "amount": 50},
                     {"punter": "seat-2", "amount": 120}],
            "banco": False, "first_coup_of_bank": True,
            "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
            "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
            "shoe_next": [],
        },
        {
            "id": f"T{t}-session{s}-shoe1-coup2", "profile": "casino", "bank": 400,
            "bets": [{"punter": "seat-3", "amount": 160}, {"punter": "seat-2", "amount": 240}],
            "banco": False, "first_coup_of_bank": False,
            "player": {"cards": ["TH", "2C", "6D"], "action": "draw"},
            "banker": {"cards": ["3S", "2H"], "action": "stand"},
            "shoe_next": ["4C"],
        },
        {
            "id": f"T{t}-session{s}-shoe1-coup3", "profile": "casino", "bank": 780,
            "bets": [{"punter": "seat-2", "amount": 100}],
            "banco": False, "first_coup_of_bank": False,
            "player": {"cards": ["9H", "KC"], "action": "natural"},
            "banker": {"cards": ["AS", "2D"], "action": "none"},
            "shoe_next": [],
        },
    ]  # fmt: skip


def test_coup_records_round_trip_through_the_offline_validator_and_its_command(
    client, pit_boss, history, table, tmp_path
) -> None:
    """run file -> validate_lines: the same violations as recorded at the table, the same
    restoration as the approved correction, the same settlements as were posted; and the same
    file through ``manage.py validate_coups`` (the closing anchors are no records)."""
    client.force_login(pit_boss)
    day = _gaming_day(table.casino, history.clean.settled_at)
    _, body = _take(client, _ask(client, "coup-records", {**_days(day), "table": table.pk}))
    out = io.BytesIO()
    summary = validate_lines(body.splitlines(keepends=True), out, others=offline_judges())
    assert (summary.lines, summary.malformed, summary.flagged) == (3, 0, 1)  # the anchors: no lines
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

    path = tmp_path / "coups.jsonl"
    path.write_bytes(body)
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command("validate_coups", str(path), stdout=stdout, stderr=stderr)
    assert stderr.getvalue().strip() == "3 records, 1 with violations, 0 malformed"
    assert len(stdout.getvalue().splitlines()) == 3


def test_a_rejected_correction_leaves_no_shoe_next(pit_boss, awaiting) -> None:
    from tables import services
    from tables.gaming_day import Period

    services.correction_reject(actor=pit_boss, coup=awaiting.flagged, reason="wrong card")
    today = timezone.localdate()
    records = list(coup_record_dicts(period=Period(today, today)))
    assert [r["shoe_next"] for r in records] == [[], []]


def test_the_run_the_api_and_import_coups_give_one_json_per_coup(
    client, pit_boss, history, table, other_table, other_croupier, tmp_path
) -> None:
    """One writer (``interchange.record_to_dict``): the coup records run, the API's record
    endpoint and the record of the same coup loaded by ``manage.py import_coups`` are one JSON."""
    client.force_login(pit_boss)
    day = _gaming_day(table.casino, history.clean.settled_at)
    _, body = _take(client, _ask(client, "coup-records", {**_days(day), "table": table.pk}))
    exported, _ = _jsonl(body)
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
    _, again = _take(client, _ask(client, "coup-records", {**_days(day), "table": other_table.pk}))
    imported, _ = _jsonl(again)
    assert [{**r, "id": None} for r in imported] == [{**r, "id": None} for r in exported]


def test_a_table_s_sessions_give_its_coups_ids_of_their_own(
    client, pit_boss, croupier, table, other_table, other_croupier, tmp_path
) -> None:
    """Every session's first shoe is shoe 1: three sessions of one table each play a "shoe 1, coup
    1" and "coup 2". Their ids name the session, so no two are alike, and ``import_coups`` (which
    imports an id once per table) takes all six, where it took two and called four already there."""
    from tables import services

    played = []
    for _ in range(3):
        floor = open_floor(croupier, table)
        first = play_clean(floor)  # the banker wins 200 less the levy: his next bank is at least 390
        natural = play(floor, bank=390, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural")
        played += [first, natural]
        services.table_session_close(actor=croupier, session=floor.session)
    client.force_login(pit_boss)
    day = _gaming_day(table.casino, played[0].created_at)
    _, body = _take(client, _ask(client, "coup-records", {**_days(day), "table": table.pk}))
    exported, _ = _jsonl(body)
    t = table.pk
    assert [r["id"] for r in exported] == [
        f"T{t}-session{c.shoe.session_id}-shoe1-coup{c.number}" for c in played
    ]
    assert len({r["id"] for r in exported}) == 6 and len({c.shoe.session_id for c in played}) == 3
    # the same id in the API's record and in the verdict the table recorded
    for coup, record in zip(played, exported, strict=True):
        assert client.get(f"/api/v1/coups/{coup.pk}/record/").json()["id"] == record["id"]
        reveal = coup.steps.get(kind=CoupStep.Kind.REVEAL)
        assert reveal.payload["verdict"]["id"] == record["id"]

    path = tmp_path / "coups.jsonl"
    path.write_bytes(body)
    before = Coup.objects.filter(shoe__table=other_table).count()
    call_command(
        "import_coups", str(path), table=other_table.pk, croupier=other_croupier.username, buy_in=1000,
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert Coup.objects.filter(shoe__table=other_table).count() - before == 6
    imported = ImportedRecord.objects.filter(table=other_table).values_list("record_id", flat=True)
    assert sorted(imported) == sorted(r["id"] for r in exported)


def test_a_rejected_correction_leaves_no_shoe_next_in_the_api_either(client, pit_boss, awaiting) -> None:
    from tables import services

    services.correction_reject(actor=pit_boss, coup=awaiting.flagged, reason="wrong card")
    client.force_login(pit_boss)
    record = client.get(f"/api/v1/coups/{awaiting.flagged.pk}/record/").json()
    assert record["shoe_next"] == []


# ------------------------------------------------------------------------------ audit trail
@pytest.fixture
def shared_key(settings) -> None:
    """The key the regulator holds to re-verify a report (set before any event is written)."""
    settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY = "k2", "the-regulator-shares-this-key-0123456"


def test_the_audit_trail_run_re_verifies_offline_with_the_key(
    shared_key, client, accountant, awaiting
) -> None:
    client.force_login(accountant)
    day = _gaming_day(None, awaiting.clean.settled_at)  # across casinos: UTC days
    run = _ask(client, "audit-trail", _days(day))
    written_before = AuditEvent.objects.count()  # the events when the worker writes the file
    response, body = _take(client, run)
    assert response["Content-Disposition"] == f'attachment; filename="audit-trail_{day}_{day}.jsonl"'
    lines, last = _jsonl(body)
    assert len(lines) == written_before  # every event of the day, this run's request included
    chains = sorted({line["chain"] for line in lines})
    # the global chain (the run's request) and the casino's (the coup's, the ledger's)
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
            # "rows": the rows the event bound (audit.rows), hashed with the rest
            assert set(line) in (keys, keys | {"rows"})
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
    assert any(line.get("rows") for line in lines)  # the coup's and the ledger's rows, bound
    # the last lines: each chain's signed head when the file was written, the global one first
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
    # the run's finish, audited: the file's sha256 and the global chain's head it carries
    finish = AuditEvent.objects.get(action="reports.reportrun.finish", object_id=str(run.pk))
    assert finish.after is not None
    assert (finish.after["sha256"], finish.after["chain_head"]) == (run.sha256, last[0]["anchor"]["hash"])
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
    lines = [line for line in lines if line["chain"] == 0]  # the run's request ends the global chain
    assert (lines[-1]["action"], lines[-1]["actor_label"], lines[-1]["object_id"], lines[-1]["after"]) == (
        "reports.reportrun.request",
        "accountant",
        str(run.pk),
        {"kind": "audit-trail", "format": "jsonl", "from": day.isoformat(), "to": day.isoformat(),
         "casino": None, "table": None, "requested_by": "accountant"},
    )  # fmt: skip


def test_every_old_kind_asked_for_is_audited_with_who_what_and_when(client, pit_boss, table) -> None:
    client.force_login(pit_boss)
    day = dt.date(2026, 11, 2)
    expected = {
        "percentage-tax": ("levy", "csv"),
        "fees": ("fees", "csv"),
        "audit-trail": ("audit-trail", "jsonl"),
        "coup-records": ("coup-records", "jsonl"),
    }
    for kind, (equivalent, fmt) in expected.items():
        run = _ask(client, kind, {**_days(day), "table": table.pk})
        event = AuditEvent.objects.get(action="reports.reportrun.request", object_id=str(run.pk))
        scoped = kind != "audit-trail"
        assert (event.actor, event.object_type) == (pit_boss, "reports.reportrun")
        assert event.after == {
            "kind": equivalent, "format": fmt, "from": day.isoformat(), "to": day.isoformat(),
            "casino": table.casino_id if scoped else None, "table": table.pk if scoped else None,
            "requested_by": "pitboss",
        }  # fmt: skip
    assert AuditEvent.objects.filter(action="reports.reportrun.request").count() == 4


def test_the_json_lines_runs_carry_the_signed_heads_and_append_them_to_the_anchor_file(
    client, pit_boss, table, tmp_path, settings
) -> None:
    """The audit trail and the coup records end with the chains' signed heads, the same lines
    appended to the anchor file. (The levy and fees runs' CSV carry no head: each run's sha256 is
    in the audit chain instead, with its finish, and the heads published once that commits vouch
    for it: tested below.)"""
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    client.force_login(pit_boss)
    day = _gaming_day(table.casino, dt.datetime.now(dt.UTC))
    appended = 0
    for kind in ("audit-trail", "coup-records"):
        run = _ask(client, kind, {**_days(day), "table": table.pk})
        _, body = _take(client, run)
        _, anchors = _jsonl(body)
        written = (tmp_path / "anchors.jsonl").read_text().splitlines()
        # the file's anchors are among those this run appended (every chain's head is appended; a
        # casino's file closes with its own chain's)
        assert anchors and all(a["anchor"] in [json.loads(w) for w in written[appended:]] for a in anchors)
        appended = len(written)
        # each anchor is its chain's head when the file was written
        for anchor in (a["anchor"] for a in anchors):
            chain = 0 if anchor["scope"] == "global" else int(anchor["scope"].split(":")[1])
            event = AuditEvent.objects.get(chain=chain, seq=anchor["seq"])
            assert event.hash == anchor["hash"]
    for kind in ("percentage-tax", "fees"):
        run = _ask(client, kind, {**_days(day), "table": table.pk})
        _, body = _take(client, run)
        finish = AuditEvent.objects.get(action="reports.reportrun.finish", object_id=str(run.pk))
        assert finish.after is not None and finish.after["sha256"] == hashlib.sha256(body).hexdigest()
    # (the finish's own anchors are published after COMMIT: this test's transaction never commits)
    assert len((tmp_path / "anchors.jsonl").read_text().splitlines()) == appended
    out = io.StringIO()
    call_command("verify_audit", anchors=settings.AUDIT_ANCHOR_FILE, stdout=out, stderr=io.StringIO())
    assert f"anchors checked: {appended}" in out.getvalue() and "anchors OK" in out.getvalue()


def test_a_finished_run_publishes_the_heads_that_vouch_for_its_sha256(
    client, pit_boss, table, tmp_path, settings, django_capture_on_commit_callbacks
) -> None:
    """Once a run's finish (with its sha256) commits, every chain's signed head is appended to the
    anchor file: the anchor of the finish event's chain is at or past that event, so the report
    handed out is vouched for outside the database."""
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    client.force_login(pit_boss)
    day = _gaming_day(table.casino, dt.datetime.now(dt.UTC))
    run = _ask(client, "percentage-tax", {**_days(day), "table": table.pk})
    with django_capture_on_commit_callbacks(execute=True):
        _take(client, run)
    finish = AuditEvent.objects.get(action="reports.reportrun.finish", object_id=str(run.pk))
    written = [json.loads(line) for line in (tmp_path / "anchors.jsonl").read_text().splitlines()]
    scope = "global" if finish.chain == 0 else f"casino:{finish.chain}"
    mine = [a for a in written if a["scope"] == scope]
    assert mine and mine[-1]["seq"] >= finish.seq
    assert AuditEvent.objects.get(chain=finish.chain, seq=mine[-1]["seq"]).hash == mine[-1]["hash"]

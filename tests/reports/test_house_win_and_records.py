"""The house win by croupier shift (overlapping shifts, nobody on shift, an hourly fee), the JSON
Lines kinds with the chain head, and the PDF's pages: repeated headings and the row cap."""

from __future__ import annotations

import datetime as dt
import io
import json
import subprocess
import zoneinfo

import pytest
from django.core.management import call_command

from audit.models import AuditEvent
from audit.selectors import audit_chain_heads
from ledger.services import cage_buy_in
from reports.model import Column, ColumnType, Line, LineKind, Report
from reports.writers import pdf as pdf_writer
from tables.money import fees
from tests.factories import CasinoFactory, CroupierAssignmentFactory, SeatFactory, TableFactory, UserFactory
from tests.reports.helpers import csv_parts, floor_of, floors_forget, run, settled_coup

pytestmark = [pytest.mark.django_db]

PARIS = zoneinfo.ZoneInfo("Europe/Paris")


def _at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, tzinfo=PARIS)  # November 2026


def test_house_win_goes_to_the_croupier_on_shift_at_that_instant() -> None:
    floors_forget()
    casino = CasinoFactory(time_zone="Europe/Paris", levy_mode="hourly_fee", hourly_fee_amount=30)
    table = TableFactory(casino=casino, name="A")
    alice, bob, carol = (UserFactory(username=n, roles=["croupier"]) for n in ("alice", "bob", "carol"))
    shifts = {
        user.username: CroupierAssignmentFactory(user=user, table=table, shift_start=start, shift_end=end)
        for user, start, end in (
            (alice, _at(2, 18), _at(3, 2)),
            (carol, _at(3, 1), _at(3, 3)),
            (bob, _at(3, 2), _at(3, 10)),
        )
    }
    settled_coup(table, _at(2, 20), bets=(200,), outcome="banker", levy=10)  # alice
    settled_coup(table, _at(3, 1, 30), bets=(100,), outcome="banker", levy=5)  # carol relieves alice
    settled_coup(table, _at(3, 2), bets=(140,), outcome="banker", levy=7)  # bob, alice's shift over
    settled_coup(table, _at(3, 5, 59), bets=(60,), outcome="banker", levy=3)  # bob, 2 Nov still
    settled_coup(table, _at(3, 6), bets=(40,), outcome="banker", levy=2)  # bob, 3 Nov
    settled_coup(table, _at(3, 12), bets=(20,), outcome="banker", levy=1)  # nobody on shift
    # an hourly fee for the hour 23:00-24:00 of the 2nd, billed the next morning: alice's
    session = floor_of(table)[0].session
    seat = SeatFactory(session=session, number=9, joined_at=_at(2, 23, 10), left_at=_at(2, 23, 50))
    cage_buy_in(casino=casino, player=seat.player, amount=100, actor=None, key="buy-in")
    fees.hourly_fees_bill(session=session, hour_start=_at(2, 23), now=_at(3, 9))

    body, _ = run("house-win", "csv", dt.date(2026, 11, 2), dt.date(2026, 11, 3), casino_id=casino.pk)
    _, rows = csv_parts(body)
    t = str(table.pk)

    def iso(shift) -> tuple[str, str]:
        return shift.shift_start.isoformat(), shift.shift_end.isoformat()

    assert rows[1:] == [
        ["data", "2026-11-02", t, "A", "alice", *iso(shifts["alice"]), "1", "10", "30", "0", "40"],
        ["data", "2026-11-02", t, "A", "carol", *iso(shifts["carol"]), "1", "5", "0", "0", "5"],
        ["data", "2026-11-02", t, "A", "bob", *iso(shifts["bob"]), "2", "10", "0", "0", "10"],
        ["subtotal", "2026-11-02", "", "all tables", "", "", "", "4", "25", "30", "0", "55"],
        ["data", "2026-11-03", t, "A", "", "", "", "1", "1", "0", "0", "1"],
        ["data", "2026-11-03", t, "A", "bob", *iso(shifts["bob"]), "1", "2", "0", "0", "2"],
        ["subtotal", "2026-11-03", "", "all tables", "", "", "", "2", "3", "0", "0", "3"],
        ["total", "period", "", "all tables", "", "", "", "6", "28", "30", "0", "58"],
    ]


# ---------------------------------------------------------------------------- JSON Lines kinds
def test_audit_trail_ends_with_the_chain_head(history, table) -> None:
    today = dt.datetime.now(dt.UTC).date()
    body, result = run("audit-trail", "jsonl", today - dt.timedelta(days=1), today + dt.timedelta(days=1))
    lines = [json.loads(line) for line in body.splitlines()]
    events = [line for line in lines if "anchor" not in line]
    anchors = [line["anchor"] for line in lines if "anchor" in line]
    assert lines == events + [{"anchor": a} for a in anchors]  # the anchors close the file
    assert result.rows == len(events) == AuditEvent.objects.count()
    # every chain's head, the global one first (empty here: its genesis), then the casino's
    heads = {c: (p.seq, p.hash) for c, p in audit_chain_heads().items()}
    assert [(a["scope"], a["seq"], a["hash"]) for a in anchors] == [
        ("global", *heads.get(0, (0, "0" * 64))),
        (f"casino:{table.casino_id}", *heads[table.casino_id]),
    ]
    assert result.chain_head == anchors[0]["hash"]
    of_casino = [e for e in events if e["chain"] == table.casino_id]
    assert (of_casino[-1]["seq"], of_casino[-1]["hash"]) == heads[table.casino_id]
    # a casino's report is its chain, vouched for by its anchor
    body, result = run(
        "audit-trail",
        "jsonl",
        today - dt.timedelta(days=1),
        today + dt.timedelta(days=1),
        casino_id=table.casino_id,
    )
    *mine, last = [json.loads(line) for line in body.splitlines()]
    assert {e["chain"] for e in mine} == {table.casino_id}
    assert [e["seq"] for e in mine] == list(range(1, heads[table.casino_id][0] + 1))
    assert (
        last["anchor"]["scope"] == f"casino:{table.casino_id}" and result.chain_head == last["anchor"]["hash"]
    )


def test_coup_records_end_with_the_chain_head_and_still_validate(history, table, tmp_path) -> None:
    from tables.gaming_day import casino_calendar

    day = casino_calendar(table.casino).day_of(history.clean.created_at)
    body, result = run("coup-records", "jsonl", day, day, casino_id=table.casino_id, table_id=table.pk)
    *records, last = [json.loads(line) for line in body.splitlines()]
    assert result.rows == len(records) == 3
    assert [r["bank"] for r in records] == [200, 400, 780]
    # the anchor of the casino's chain, where the coups' events are
    head = AuditEvent.objects.filter(chain=table.casino_id).order_by("-seq").first()
    assert head is not None and last["anchor"]["hash"] == head.hash == result.chain_head
    assert last["anchor"]["scope"] == f"casino:{table.casino_id}"
    path = tmp_path / "coups.jsonl"
    path.write_bytes(body)
    out, err = io.StringIO(), io.StringIO()
    call_command("validate_coups", str(path), stdout=out, stderr=err)
    assert err.getvalue().strip() == "3 records, 1 with violations, 0 malformed"  # the anchor: no record


# ---------------------------------------------------------------------------------- PDF pages
def _big(n: int) -> Report:
    columns = (
        Column("day", "Day", ColumnType.DATE),
        Column("name", "Name"),
        Column("chips", "Chips", ColumnType.INT),
    )
    lines = [Line((dt.date(2026, 1, 1) + dt.timedelta(days=i % 300), f"Игрок {i}", i)) for i in range(n)]
    lines.append(Line(("period", "all", sum(range(n))), LineKind.TOTAL))
    return Report(title="Big", facts=[("Casino", "Test")], columns=columns, lines=iter(lines))


def _pages(body: bytes, tmp_path) -> list[str]:
    path = tmp_path / "big.pdf"
    path.write_bytes(body)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True).stdout
    return text.decode().split("\f")[:-1]


@pytest.mark.poppler
def test_pdf_tables_paginate_with_their_headings_repeated(tmp_path) -> None:
    out = io.BytesIO()
    assert pdf_writer.write(_big(300), out, lambda *_: None) == 300
    pages = _pages(out.getvalue(), tmp_path)
    assert len(pages) >= 4
    assert all("Day" in page and "Chips" in page for page in pages)
    assert "Игрок 299" in pages[-1]  # names in Cyrillic (DejaVu Sans where the system has it)
    assert "44,850" in pages[-1]  # the total, its thousands grouped in English, like every export


@pytest.mark.poppler
def test_a_pdf_caps_its_data_rows_but_keeps_the_totals(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(pdf_writer, "MAX_DATA_ROWS", 50)
    out = io.BytesIO()
    assert pdf_writer.write(_big(300), out, lambda *_: None) == 50
    text = "".join(_pages(out.getvalue(), tmp_path))
    assert "Игрок 49" in text and "Игрок 50" not in text
    assert "44,850" in text  # the total of all 300
    assert "250 more data rows are not shown" in " ".join(text.split())

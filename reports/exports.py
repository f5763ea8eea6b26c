"""Accounting exports: streaming generators over the database, reads only (docs/review.md).

Each generator yields ``bytes`` chunks of a few hundred lines, read from the database with
server-side iteration, so a view can hand it to ``StreamingHttpResponse`` and an export of a
million rows never sits in memory. The export itself is audited by the view's service call
(``reports.services.export_record``) before the first byte is streamed.

- ``percentage_tax_csv``: per day and table, the coups settled, banker wins, covered stakes, levy.
- ``fees_csv``: every hourly-fee and card-money charge on a player, per session/player/hour.
- ``audit_jsonl``: the audit trail with every field needed to re-verify its hash chain offline
  (given the key), ending with the chain's signed head (docs/audit.md, "Anchors").
- ``coup_records_jsonl``: one coup record (docs/coup-record.md) per revealed coup, for
  ``manage.py validate_coups``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from django.utils import timezone

from audit.anchors import Anchor
from audit.selectors import audit_events_between
from ledger.models import Account, Entry, Transaction
from reports.builders.audit_trail import audit_event_dict
from reports.builders.coup_records import coup_record_dicts
from review.period import Period
from review.selectors.dashboard import settled_coup_facts
from tables.models import Table

#: lines per streamed chunk: one write per line would cost more than producing the line
CHUNK_LINES = 500


def _chunks(lines: Iterable[bytes]) -> Iterator[bytes]:
    buffer: list[bytes] = []
    for line in lines:
        buffer.append(line)
        if len(buffer) >= CHUNK_LINES:
            yield b"".join(buffer)
            buffer.clear()
    if buffer:
        yield b"".join(buffer)


def _prepend(first: bytes, rest: Iterable[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest


def _csv_line(row: Sequence[Any]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(row)
    return out.getvalue().encode("utf-8")


def _local(at: dt.datetime | None) -> str:
    """An instant as ISO 8601 in the casino's time zone (settings.TIME_ZONE), to the second."""
    return timezone.localtime(at).replace(microsecond=0).isoformat() if at is not None else ""


# ------------------------------------------------------------------------ (a) percentage tax
TAX_HEADER = ("date", "table_id", "table", "coups", "banker_wins", "covered_stakes", "levy")


def percentage_tax_rows(*, period: Period, table: Table | None = None) -> Iterator[tuple[Any, ...]]:
    """Per local day (of settlement) and table: coups settled, banker wins (as settled: a
    corrected coup counts with its approved restoration), covered stakes, levy (BankTax).
    Ordered by day, then table name. Holds one small counter per day and table."""
    totals: dict[tuple[dt.date, int], list[Any]] = {}
    for fact in settled_coup_facts(period=period, table=table):
        day = timezone.localtime(fact.settled_at).date()
        row = totals.setdefault((day, fact.table_id), [fact.table_name, 0, 0, 0, 0])
        row[1] += 1
        row[2] += fact.outcome == "banker"
        row[3] += fact.covered
        row[4] += fact.levy
    for (day, table_id), (name, coups, wins, covered, levy) in sorted(
        totals.items(), key=lambda item: (item[0][0], item[1][0], item[0][1])
    ):
        yield (day.isoformat(), table_id, name, coups, wins, covered, levy)


def percentage_tax_csv(*, period: Period, table: Table | None = None) -> Iterator[bytes]:
    lines = (_csv_line(row) for row in percentage_tax_rows(period=period, table=table))
    return _chunks(_prepend(_csv_line(TAX_HEADER), lines))


# ---------------------------------------------------------------- (b) hourly fees, card money
FEES_HEADER = (
    "posted_at", "kind", "transaction_id", "session_id", "table_id", "table", "hour_start",
    "player_id", "player", "amount",
)  # fmt: skip


def fees_rows(*, period: Period, table: Table | None = None) -> Iterator[tuple[Any, ...]]:
    """One row per player charged by an hourly-fee or card-money transaction posted in the period
    (a table-hour fee shared among several players gives one row each), oldest first. ``amount``
    is what the player paid, in chips."""
    start, end = period.bounds
    entries = (
        Entry.objects.filter(
            transaction__kind__in=[Transaction.Kind.HOURLY_FEE, Transaction.Kind.CARD_MONEY],
            transaction__posted_at__gte=start,
            transaction__posted_at__lt=end,
            account__kind=Account.Kind.PLAYER,
        )
        .select_related("transaction__fee_posting__session__table", "account__player")
        .order_by("transaction__posted_at", "transaction_id", "id")
    )
    for entry in entries.iterator(chunk_size=2000):
        txn = entry.transaction
        # the session and billed hour: the floor's link to the posting (tables.FeePosting)
        link = getattr(txn, "fee_posting", None)
        session = link.session if link is not None else None
        if table is not None and (session is None or session.table_id != table.pk):
            continue
        player = entry.account.player
        yield (
            _local(txn.posted_at),
            txn.kind,
            txn.pk,
            session.pk if session else "",
            session.table_id if session else "",
            session.table.name if session else "",
            _local(link.hour_start if link is not None else None),
            player.pk if player else "",
            player.display_name if player else "",
            -entry.amount,
        )


def fees_csv(*, period: Period, table: Table | None = None) -> Iterator[bytes]:
    lines = (_csv_line(row) for row in fees_rows(period=period, table=table))
    return _chunks(_prepend(_csv_line(FEES_HEADER), lines))


# ------------------------------------------------------------------------------ (c) audit trail
def audit_jsonl(*, period: Period, anchor: Anchor | Sequence[Anchor] | None = None) -> Iterator[bytes]:
    """The events that occurred in the period, chain by chain (the global chain, 0, first), each in
    ``seq`` order, one JSON object a line (keys sorted). A chain's first line's ``prev_hash`` links
    its stretch to the event before it. The last lines, ``{"anchor": {...}}``, one per chain, are
    the chains' signed heads when the export was taken (audit.anchors), the same anchors that were
    appended to the anchor file: the export itself vouches for each chain's tail."""
    start, end = period.bounds
    events = audit_events_between(start=start, end=end).iterator(chunk_size=2000)
    lines: Iterable[bytes] = (
        orjson.dumps(audit_event_dict(e), option=orjson.OPT_SORT_KEYS) + b"\n" for e in events
    )
    anchors = [anchor] if isinstance(anchor, Anchor) else list(anchor or [])
    if anchors:
        lines = itertools.chain(
            lines,
            [orjson.dumps({"anchor": a.as_dict()}, option=orjson.OPT_SORT_KEYS) + b"\n" for a in anchors],
        )
    return _chunks(lines)


# --------------------------------------------------------------------------- (d) coup records
def coup_records_jsonl(*, period: Period, table: Table | None = None) -> Iterator[bytes]:
    return _chunks(orjson.dumps(d) + b"\n" for d in coup_record_dicts(period=period, table=table))


# ---------------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class ExportKind:
    slug: str
    title: str
    description: str
    action: str  # the audit action recording that it was exported
    extension: str
    content_type: str
    by_table: bool  # the table filter applies
    stream: Callable[..., Iterator[bytes]]
    anchored: bool = False  # the stream ends with the audit chain's signed head

    def filename(self, period: Period, table: Table | None = None) -> str:
        scope = f"_table-{table.pk}" if table is not None and self.by_table else ""
        return f"{self.slug}_{period.label}{scope}.{self.extension}"

    def rows(
        self, period: Period, table: Table | None, anchor: Anchor | Sequence[Anchor] | None = None
    ) -> Iterator[bytes]:
        kwargs: dict[str, Any] = {"table": table} if self.by_table else {}
        if self.anchored:
            kwargs["anchor"] = anchor
        return self.stream(period=period, **kwargs)


CSV = "text/csv; charset=utf-8"
JSONL = "application/x-ndjson; charset=utf-8"

EXPORTS: dict[str, ExportKind] = {
    e.slug: e
    for e in (
        ExportKind(
            slug="percentage-tax",
            description="Per day and table: coups settled, banker wins, covered stakes, levy. CSV.",
            title="Percentage-tax report",
            action="tables.banktax.export",
            extension="csv",
            content_type=CSV,
            by_table=True,
            stream=percentage_tax_csv,
        ),
        ExportKind(
            slug="fees",
            description="Hourly fees and card money charged per session, player and hour (ledger). CSV.",
            title="Hourly-fee and card-money report",
            action="ledger.transaction.export",
            extension="csv",
            content_type=CSV,
            by_table=True,
            stream=fees_csv,
        ),
        ExportKind(
            slug="audit-trail",
            description="Every event, with all it takes to re-verify the hash chain offline. JSON Lines.",
            title="Audit trail",
            action="audit.auditevent.export",
            extension="jsonl",
            content_type=JSONL,
            by_table=False,
            stream=audit_jsonl,
            anchored=True,
        ),
        ExportKind(
            slug="coup-records",
            description="One coup record per revealed coup, for manage.py validate_coups. JSON Lines.",
            title="Coup records",
            action="tables.coup.export",
            extension="jsonl",
            content_type=JSONL,
            by_table=True,
            stream=coup_records_jsonl,
        ),
    )
}

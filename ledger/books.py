"""Verifying the books, the ledger's half (``verify_books``; docs/ledger.md, "Verifying the books"):
every account's stored balance against the sum of its entries, every transaction's entries against
zero, and every posting against the audit event written with it. The game's half (each coup's
settlement re-derived by the rules engine, the levy, the fees' and card money's source rows) is
tables/money/books.py, which runs this one too: the ledger knows nothing of the floor.

Everything here reads; nothing writes. Transactions are walked in id order, a chunk at a time
(``CHUNK``), so the memory used does not grow with the size of the ledger.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from django.db.models import BigIntegerField
from django.db.models.functions import Cast

from audit.models import AuditEvent
from audit.row_verify import RowDifference, rows_verify
from core.differences import DifferenceTally
from ledger.models import Account, Entry, Transaction
from ledger.selectors import ledger_drift, unbalanced_transactions

#: transactions read (with their entries and audit events) per round trip
CHUNK = 2000
#: the ``object_type`` of a posting's audit event (``audit_record(target=txn)``)
TRANSACTION_OBJECT_TYPE = Transaction._meta.label_lower
#: how many differences a report keeps (all are counted, and printed as they are found)
KEPT_DIFFERENCES = 1000


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing the books and their sources disagree on: what it is about (``subject``: "coup 12
    (T1-shoe1-coup3)", "account 7 Player 2", "transaction 55"), which check found it and the
    figures on each side, in chips."""

    subject: str
    check: str
    detail: str

    def __str__(self) -> str:
        return f"{self.subject} [{self.check}]: {self.detail}"

    def as_dict(self) -> dict[str, str]:
        return {"subject": self.subject, "check": self.check, "detail": self.detail}


@dataclass
class BooksReport(DifferenceTally[Difference]):
    """What one verification checked and the differences it found (the first
    ``KEPT_DIFFERENCES``; ``difference_count`` counts them all)."""

    kept: ClassVar[int] = KEPT_DIFFERENCES

    coups: int = 0
    #: the older games' coups (Macao, Landsknecht, old baccarat: tables.GameCoup)
    game_coups: int = 0
    transactions: int = 0
    accounts: int = 0
    #: rows of the bound tables checked against the audit events that bound them (audit.rows)
    rows: int = 0

    def extend(self, differences: Iterable[Difference]) -> None:
        for difference in differences:
            self.add(difference)


def chips(amount: int) -> str:
    """An entry's amount as the reports print it: signed (+120, -30, 0)."""
    return f"{amount:+d}" if amount else "0"


def entries_text(entries: dict[int, int], names: dict[int, str]) -> str:
    return (
        ", ".join(f"{names.get(pk, f'account {pk}')} {chips(a)}" for pk, a in sorted(entries.items()))
        or "none"
    )


# ----------------------------------------------------------------------------- balances and sums


def balance_differences() -> Iterator[Difference]:
    """Accounts whose stored balance is not the sum of their entries (one aggregate query)."""
    for drift in ledger_drift():
        yield Difference(
            f"account {drift.account_id} {drift.account}",
            "balance",
            f"balance {drift.balance} but its entries sum to {drift.entries_total} "
            f"(off by {chips(drift.balance - drift.entries_total)})",
        )


def unbalanced_differences() -> Iterator[Difference]:
    for txn_id, total in unbalanced_transactions():
        yield Difference(f"transaction {txn_id}", "balanced", f"its entries sum to {chips(total)}, not 0")


# ------------------------------------------------------------------------ postings and their audit


def _audited_entries(after: Any) -> dict[int, int] | None:
    """The entries an audit event says its posting wrote (None: the event says none legibly)."""
    try:
        return {int(e["account"]): int(e["amount"]) for e in after["entries"]}
    except (KeyError, TypeError, ValueError):
        return None


def _audit_mismatch(txn: dict[str, Any], entries: dict[int, int], event: dict[str, Any]) -> list[str]:
    """How a transaction and its entries differ from what its audit event recorded."""
    after = event["after"] if isinstance(event["after"], dict) else {}
    found: list[str] = []
    if event["action"] != f"ledger.transaction.{txn['kind']}":
        found.append(f"audit action {event['action']!r}, transaction kind {txn['kind']!r}")
    for name, column in (
        ("kind", "kind"),
        ("idempotency_key", "idempotency_key"),
        ("coup", "coup_id"),
        ("reverses", "reverses_id"),
    ):
        if after.get(name) != txn[column]:
            found.append(f"audit {name} {after.get(name)!r}, ledger {txn[column]!r}")
    audited = _audited_entries(after)
    if audited != entries:
        names = {
            int(e["account"]): str(e.get("name", "")) for e in after.get("entries", []) if "account" in e
        }
        audited_text = "unreadable" if audited is None else entries_text(audited, names)
        found.append(f"audit entries [{audited_text}], ledger entries [{entries_text(entries, names)}]")
    return found


def _audit_chunk(txns: list[dict[str, Any]]) -> Iterator[Difference]:
    ids = [t["id"] for t in txns]
    entries: dict[int, dict[int, int]] = {pk: {} for pk in ids}
    for txn_id, account_id, amount in Entry.objects.filter(transaction_id__in=ids).values_list(
        "transaction_id", "account_id", "amount"
    ):
        entries[txn_id][account_id] = amount
    events: dict[int, list[dict[str, Any]]] = {}
    for event in AuditEvent.objects.filter(
        object_type=TRANSACTION_OBJECT_TYPE, object_id__in=[str(pk) for pk in ids]
    ).values("seq", "object_id", "action", "after"):
        events.setdefault(int(event["object_id"]), []).append(dict(event))
    for txn in txns:
        subject = f"transaction {txn['id']} ({txn['kind']} {txn['idempotency_key']})"
        found = events.get(txn["id"], [])
        if not found:
            yield Difference(
                subject,
                "audit",
                f"no audit event records this posting (entries: {entries_text(entries[txn['id']], {})})",
            )
            continue
        if len(found) > 1:
            seqs = ", ".join(str(e["seq"]) for e in found)
            yield Difference(subject, "audit", f"{len(found)} audit events record this posting (seq {seqs})")
        for mismatch in _audit_mismatch(txn, entries[txn["id"]], found[0]):
            yield Difference(subject, "audit", f"{mismatch} (event seq {found[0]['seq']})")


def transaction_chunks(chunk: int = CHUNK) -> Iterator[list[dict[str, Any]]]:
    """Every transaction, in id order, ``chunk`` at a time (keyset pagination: no OFFSET)."""
    last = 0
    while True:
        rows: list[dict[str, Any]] = [
            dict(row)
            for row in Transaction.objects.filter(pk__gt=last)
            .order_by("pk")
            .values("id", "kind", "idempotency_key", "coup_id", "reverses_id")[:chunk]
        ]
        if not rows:
            return
        yield rows
        last = rows[-1]["id"]


def orphan_audit_differences() -> Iterator[Difference]:
    """Audit events of postings whose transaction is no longer in the ledger."""
    orphans = (
        AuditEvent.objects.filter(object_type=TRANSACTION_OBJECT_TYPE)
        .annotate(txn_id=Cast("object_id", BigIntegerField()))
        .exclude(txn_id__in=Transaction.objects.values("pk"))
        .order_by("seq")
        .values_list("seq", "object_id", "action")
    )
    for seq, object_id, action in orphans.iterator(chunk_size=CHUNK):
        yield Difference(
            f"transaction {object_id}",
            "audit",
            f"audit event seq {seq} ({action}) records a posting the ledger lacks",
        )


def ledger_books_check(report: BooksReport, *, chunk: int = CHUNK) -> None:
    """The ledger's half of ``verify_books``, its differences added to ``report``."""
    report.accounts += Account.objects.count()
    report.extend(balance_differences())
    report.extend(unbalanced_differences())
    for txns in transaction_chunks(chunk):
        report.transactions += len(txns)
        report.extend(_audit_chunk(txns))
    report.extend(orphan_audit_differences())


def bound_rows_check(report: BooksReport) -> None:
    """Every row that records the game or the money against the audit event that bound it, both
    ways (audit.row_verify): a row inserted, edited or deleted behind the application's back is a
    difference, named by table, row and column, whether or not the money moved."""

    def add(row: RowDifference) -> None:
        report.add(Difference(f"{row.table} row {row.pk}", "audit row", row.detail))

    report.rows += rows_verify(on_difference=add).rows

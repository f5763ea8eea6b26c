"""The rows of the bound tables against the events that bound them, both ways (audit.rows; docs/
audit.md, "Rows bound to their events"). Reads only.

- every row of a bound table has an event that binds it (``AUDIT_BOUND_WHEN``: every row in that
  state), and the digest the **latest** such event carries is the row's digest now;
- every row an event binds is still there.

So a row inserted behind the application's back (no event binds it), deleted (an event binds a row
that is gone) or edited (the digest differs) is found whether or not the money moved, and named:
the table, the row's id, and the columns whose prints differ.

The whole check reads every bound row and every event's bindings once, each as a stream sorted by
table and id, merged side by side: memory does not grow with the history. The bindings are trusted
as far as the chain is (``verify_audit`` walks the chain's HMACs over the same column first). The
incremental check (``rows_verify_since``) reads only the rows that the events appended since the
vouched-for heads bind: what the nightly full check adds is the rows nobody bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from django.db import connections, transaction

from audit.models import GLOBAL_CHAIN, AuditEvent
from audit.rows import READ_CHUNK, Bound, RowReader, binding_unpack, bound_models, bound_when, prints_differ
from core.differences import DifferenceTally

#: differences a report keeps (all are counted)
KEPT = 1000
#: rows read per round trip in the whole check
CHUNK = 2000

UNBOUND, GONE, CHANGED, BETWEEN = "unbound", "gone", "changed", "between"


@dataclass(frozen=True, slots=True)
class RowDifference:
    """One row that its binding event does not vouch for: which table and row, what is wrong
    (``UNBOUND``, ``GONE``, ``CHANGED``), the columns that changed where the prints name them, and
    the event that bound it last (none for an unbound row)."""

    table: str
    pk: int
    problem: str
    columns: tuple[str, ...] = ()
    chain: int | None = None
    seq: int | None = None
    note: str = ""
    #: ``BETWEEN``: the event that bound the row before (``chain``/``seq`` found it changed)
    earlier: tuple[int, int] | None = None

    @property
    def event(self) -> str:
        return _event_name(self.chain, self.seq)

    @property
    def detail(self) -> str:
        if self.problem == UNBOUND:
            return "no audit event binds this row (written outside the application)"
        if self.problem == GONE:
            return f"the row is gone, {self.event} bound it"
        if self.problem == BETWEEN:
            assert self.earlier is not None
            what = _columns_said(self.columns) or "the row"
            changed = "changed" if self.columns else f"changed ({self.note})"
            return (
                f"{what} {changed} between {_event_name(*self.earlier)} and {self.event}, "
                "outside the application"
            )
        if self.columns:
            verb = "differs" if len(self.columns) == 1 else "differ"
            return f"{_columns_said(self.columns)} {verb} from what {self.event} bound"
        return f"the row differs from what {self.event} bound ({self.note})"

    def __str__(self) -> str:
        return f"{self.table} row {self.pk}: {self.detail}"


def _event_name(chain: int | None, seq: int | None) -> str:
    where = "the global chain" if chain == GLOBAL_CHAIN else f"chain {chain}"
    return f"event seq {seq} of {where}"


def _columns_said(columns: tuple[str, ...]) -> str:
    if not columns:
        return ""
    word = "column" if len(columns) == 1 else "columns"
    return f"{word} {', '.join(columns)}"


@dataclass
class RowsReport(DifferenceTally[RowDifference]):
    """What a check read and the differences it found (the first ``KEPT``; all counted)."""

    kept: ClassVar[int] = KEPT

    rows: int = 0
    bindings: int = 0
    tables: int = 0


@dataclass(frozen=True, slots=True)
class _Binding:
    table: str
    pk: int
    digest: str
    prints: str
    chain: int
    seq: int
    #: the row as the event's transaction loaded it, before changing it (audit.rows.rows_loaded)
    before_digest: str | None = None
    before_prints: str = ""


@dataclass(slots=True)
class _Row:
    """Every binding of one row, oldest first."""

    table: str
    pk: int
    bindings: list[_Binding]

    @property
    def latest(self) -> _Binding:
        return self.bindings[-1]


# every binding, sorted bytewise by table, then by row id, each row's oldest first (by event id: a
# row's events are appended in the order of the transactions that changed it, each under its lock)
_BINDINGS_SQL = {
    "postgresql": """
SELECT b.value->>0, (b.value->>1)::bigint, b.value->>2, b.value->>3, b.value->>4, b.value->>5,
       e.chain, e.seq
FROM {table} e CROSS JOIN LATERAL jsonb_array_elements(e.rows) AS b(value)
WHERE e.rows IS NOT NULL {since}
ORDER BY (b.value->>0) COLLATE "C", (b.value->>1)::bigint, e.id
""",
    "sqlite": """
SELECT json_extract(b.value, '$[0]'), json_extract(b.value, '$[1]'), json_extract(b.value, '$[2]'),
       json_extract(b.value, '$[3]'), json_extract(b.value, '$[4]'), json_extract(b.value, '$[5]'),
       e.chain, e.seq
FROM {table} e, json_each(e.rows) AS b
WHERE e.rows IS NOT NULL {since}
ORDER BY 1, 2, e.id
""",
}


def _since_sql(points: dict[int, int] | None) -> tuple[str, list[Any]]:
    """The events appended after each chain's vouched-for ``seq`` (a chain not named: all of it)."""
    if points is None:
        return "", []
    if not points:
        return "AND 1 = 1", []
    parts = " OR ".join("(e.chain = %s AND e.seq > %s)" for _ in points)
    named = ", ".join("%s" for _ in points)
    params: list[Any] = [v for chain, seq in sorted(points.items()) for v in (chain, seq)]
    return f"AND ({parts} OR e.chain NOT IN ({named}))", [*params, *sorted(points)]


def _bindings(using: str, points: dict[int, int] | None) -> Iterator[_Row]:
    """Every bound row with its bindings, sorted by table and id (``points``: only the events
    appended past them)."""
    conn = connections[using]
    since, params = _since_sql(points)
    sql = _BINDINGS_SQL["postgresql" if conn.vendor == "postgresql" else "sqlite"].format(
        table=conn.ops.quote_name(AuditEvent._meta.db_table), since=since
    )
    row: _Row | None = None
    with conn.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(CHUNK):
            for table, pk, digest, prints, before, before_prints, chain, seq in batch:
                if prints is None:  # packed (audit.rows.binding_pack): the same digests, in hex
                    bound = _unpacked(str(digest))
                    digest, prints, before, before_prints = (
                        bound.digest, bound.prints, bound.before_digest, bound.before_prints
                    )
                binding = _Binding(
                    str(table), int(pk), str(digest), str(prints or ""), int(chain), int(seq),
                    str(before) if before is not None else None, str(before_prints or ""),
                )  # fmt: skip
                if row is not None and (row.table, row.pk) == (binding.table, binding.pk):
                    row.bindings.append(binding)
                    continue
                if row is not None:
                    yield row
                row = _Row(binding.table, binding.pk, [binding])
    if row is not None:
        yield row


def _unpacked(packed: str) -> Bound:
    """A packed binding, or, for a string that is none (forged), a digest no row has: the row is
    reported as differing from it, its columns not named."""
    try:
        return binding_unpack(packed)
    except ValueError:
        return Bound(digest=f"unreadable binding {packed[:20]!r}", prints="")


def _continuity(columns_now: list[str], row: _Row, report: RowsReport) -> None:
    """Each binding that says how its transaction found the row (``before``) against the binding
    before it: a row changed in between was changed by no event."""
    for earlier, later in zip(row.bindings, row.bindings[1:], strict=False):
        if later.before_digest is None or later.before_digest == earlier.digest:
            continue
        columns = prints_differ(columns_now, earlier.prints, later.before_prints)
        note = "the columns that changed are not named" if not columns else ""
        report.add(
            RowDifference(
                row.table, row.pk, BETWEEN, tuple(columns or ()), later.chain, later.seq,
                note=note, earlier=(earlier.chain, earlier.seq),
            )
        )  # fmt: skip


class _Peek:
    """An iterator one can look ahead in by one."""

    def __init__(self, items: Iterator[_Row]) -> None:
        self.items, self.head = items, next(items, None)

    def pop(self) -> _Row:
        assert self.head is not None
        item, self.head = self.head, next(self.items, None)
        return item


def _compare(reader: RowReader, values: tuple[Any, ...], binding: _Binding, report: RowsReport) -> None:
    state = reader.state(values, prints=False)
    if state.digest == binding.digest:
        return
    now = reader.state(values).prints
    columns = prints_differ(reader.columns, binding.prints, now)
    note = ""
    if columns is None:
        bound = len(binding.prints) // 4
        note = f"the table's columns changed since it was bound: {bound} then, {len(reader.columns)} now"
        columns = []
    elif not columns:
        note = "no column's print differs"
    report.add(
        RowDifference(
            reader.table, state.pk, CHANGED, tuple(columns), binding.chain, binding.seq, note=note
        )
    )


def _rows_in_order(reader: RowReader) -> Iterator[tuple[tuple[Any, ...], bool]]:
    """Every row of the table by id, with whether it must be bound (``AUDIT_BOUND_WHEN``)."""
    when = bound_when(reader.model)
    manager = reader.model._base_manager.using(reader.using)
    last: int | None = None
    while True:
        page = manager.order_by("pk")
        if last is not None:
            page = page.filter(pk__gt=last)
        rows = list(page.values_list(*reader.attnames)[:CHUNK])
        if not rows:
            return
        pks = [row[reader.pk_at] for row in rows]
        must = set(pks)
        if when is not None:
            must = set(manager.filter(when, pk__in=pks).values_list("pk", flat=True))
        for row in rows:
            yield row, row[reader.pk_at] in must
        last = pks[-1]


@contextmanager
def _snapshot(using: str) -> Iterator[None]:
    """One snapshot for the rows and the bindings (PostgreSQL: a read-only REPEATABLE READ
    transaction; SQLite: a deferred one), so a row committed with its event while the check runs is
    seen with both or neither. Inside a caller's transaction (a test's), that transaction's own
    view."""
    conn = connections[using]
    if conn.in_atomic_block:
        yield
        return
    if conn.vendor == "sqlite":
        # Without it the check read in autocommit, its snapshot renewed whenever no statement was
        # open: a bound row committed after its bindings were read (the last bound table's) was
        # named "no audit event binds this row". A transaction of Django's own on this connection
        # would be BEGIN IMMEDIATE (settings: transaction_mode), the database's write lock for the
        # whole check, every table waiting; a deferred one that only reads takes none (write-ahead
        # log: readers and the writer never wait for each other).
        with conn.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            with conn.cursor() as cursor:
                cursor.execute("COMMIT")  # it only read: nothing to keep or undo
        return
    if conn.vendor != "postgresql":
        yield
        return
    with transaction.atomic(using=using):
        with conn.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def rows_verify(
    *, using: str = "default", on_difference: Callable[[RowDifference], None] | None = None
) -> RowsReport:
    """Every row of every bound table against its latest binding, and every binding against its
    row (the whole check)."""
    report = RowsReport(on_difference=on_difference)
    models = bound_models()
    known = {m._meta.db_table for m in models}
    with _snapshot(using):
        bindings = _Peek(_bindings(using, None))
        for model in models:
            reader = RowReader(model, using)
            # bindings of a table no model binds any more sort before or among the known ones
            while bindings.head is not None and bindings.head.table.encode() < reader.table.encode():
                _orphan(bindings.pop(), known, report)
            _table_check(reader, bindings, report)
        while bindings.head is not None:
            _orphan(bindings.pop(), known, report)
    return report


def _table_check(reader: RowReader, bindings: _Peek, report: RowsReport) -> None:
    """One table's rows (by id) merged with its bound rows (by id): a bound row that is not there is
    gone, a row with no binding (and that must have one) unbound, both a comparison with the
    latest binding; and every row's bindings one after the other (``_continuity``)."""
    report.tables += 1

    def mine() -> bool:
        return bindings.head is not None and bindings.head.table == reader.table

    def take() -> _Row:
        row = bindings.pop()
        report.bindings += len(row.bindings)
        _continuity(reader.columns, row, report)
        return row

    def gone() -> None:
        latest = take().latest
        report.add(RowDifference(latest.table, latest.pk, GONE, (), latest.chain, latest.seq))

    for values, must in _rows_in_order(reader):
        pk = int(values[reader.pk_at])
        report.rows += 1
        while mine() and bindings.head.pk < pk:  # type: ignore[union-attr]
            gone()
        if mine() and bindings.head.pk == pk:  # type: ignore[union-attr]
            _compare(reader, values, take().latest, report)
        elif must:
            report.add(RowDifference(reader.table, pk, UNBOUND))
    while mine():
        gone()


def _orphan(row: _Row, known: set[str], report: RowsReport) -> None:
    """Bindings of a table that is no bound model's: the row is checked by nobody."""
    report.bindings += len(row.bindings)
    if row.table not in known:
        latest = row.latest
        report.add(RowDifference(row.table, row.pk, GONE, (), latest.chain, latest.seq))


def rows_verify_since(
    points: dict[int, int],
    *,
    using: str = "default",
    on_difference: Callable[[RowDifference], None] | None = None,
) -> RowsReport:
    """The rows bound by the events appended after ``points`` (chain -> vouched-for seq; a chain
    not named: every event of it), each against its latest binding there, and their bindings there
    one after the other (the incremental check: a row nobody bound, or changed before its first
    binding in the window, is the whole check's to find)."""
    report = RowsReport(on_difference=on_difference)
    by_table: dict[str, dict[int, _Row]] = {}
    models = {m._meta.db_table: m for m in bound_models()}
    known = set(models)
    with _snapshot(using):
        for row in _bindings(using, points):
            by_table.setdefault(row.table, {})[row.pk] = row
            report.bindings += len(row.bindings)
        for table, bound in sorted(by_table.items()):
            model = models.get(table)
            if model is None:
                for row in bound.values():
                    _orphan(row, known, report)
                continue
            reader = RowReader(model, using)
            report.tables += 1
            pks = sorted(bound)
            seen: set[int] = set()
            for at in range(0, len(pks), READ_CHUNK):
                for values in reader.values(pk__in=pks[at : at + READ_CHUNK]):
                    pk = int(values[reader.pk_at])
                    seen.add(pk)
                    report.rows += 1
                    _continuity(reader.columns, bound[pk], report)
                    _compare(reader, values, bound[pk].latest, report)
            for pk in pks:
                if pk not in seen:
                    latest = bound[pk].latest
                    report.add(RowDifference(table, pk, GONE, (), latest.chain, latest.seq))
    return report

"""Rows bound to their audit events (docs/audit.md, "Rows bound to their events").

The chain proves that nobody changed the *events*; it said nothing of the rows they describe. A
coup step, a bet or a ledger entry inserted, edited or deleted straight in the database (with the
application's own login, or as a superuser with the triggers off) left every event intact. So
every row that records the game or the money is **bound** to the audit event that wrote it: the
event carries, per row, the digest of the row's canonical bytes (every column, as stored) and a
short print of each column, and the event's HMAC covers them. The verifier (audit.row_verify)
then checks both ways: every bound table's row has an event carrying its current digest, and the
row each event binds last is there unchanged; a difference is named by table, row and column.

Which tables: a model says so itself, ``AUDIT_BOUND = True`` on its class (``AUDIT_BOUND_WHEN``,
a ``Q``, for a table whose rows are bound only once they reach a state: a report run once it is
finished or failed, its progress columns moving freely before). ``bound_models()`` lists them.

Writing: the service that writes such a row names it in the ``rows`` of the event it records
(``audit_record(..., rows=[step, coup, RowsWhere(Entry, "transaction_id", txn.pk)])``). The
digests are taken when the transaction's events are appended, just before COMMIT, from the rows
as the database then holds them (one SELECT per table for the whole transaction): whatever the
transaction did to a row before (an UPDATE through a queryset, a column the database fills, a
COPY), the digest is of the row as committed.

A row that changes after it was first bound (a coup as it is played, a bet a banco withdraws) is
bound again by every event that changes it. So that nothing can change it *between* two of those
events unseen, the service that locks such a row before changing it says so (``rows_loaded``):
its digest as loaded, before the transaction touched it, goes into the binding too, and the
verifier checks that it is the digest the row's previous binding carried.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import functools
import hashlib
import json
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

import orjson
from django.apps import apps
from django.db import models

from audit.canonical import instant_text
from audit.flush import audit_flush_point
from core.model_kit import attributes_reader

#: how many ids one SELECT of bound rows names (SQLite's parameter limit, PostgreSQL's planner)
READ_CHUNK = 500
#: the fixed labels the digests start with: no digest of a row can pass for a column's or an
#: event's hash (those start with 64 hex digits), and a future layout takes a new label
ROW_LABEL = b"chemin-row-v1\n"
COLUMN_LABEL = b"chemin-column-v1\n"
#: hex digits of one column's print: enough to name the column that changed (the row's digest,
#: 256 bits, is what detects the change; a print only points at it)
PRINT_HEX = 4
#: bytes of a row's digest (SHA-256)
DIGEST_BYTES = 32


class RowNotFound(RuntimeError):
    """An event names a row that is not in the database when it is appended: a writer's bug (the
    row was never written, or deleted in the same transaction); the transaction fails whole."""


@dataclass(frozen=True, slots=True)
class RowsWhere:
    """Every row of ``model`` whose column ``attname`` equals ``value`` when the event is appended
    (a posting's entries, a coup's bets after a banco withdrew the others), to bind to an event
    (``audit_record(rows=)``). A plain value: ``audit_record`` checks the table is bound."""

    model: type[models.Model]
    attname: str
    value: Any


@dataclass(frozen=True, slots=True)
class RowWritten:
    """A row this transaction INSERTed whole and changes no more (an append-only step, bet or card
    just created; a locked row whose every change the service made on this same instance too):
    its digest is taken from the instance at the append, as ``rows_loaded`` takes the state as
    loaded, instead of reading the row back, one SELECT a step less. The instance's values are
    the ones the INSERT sent, a JSON column's as the database gives it back (``_as_stored``).
    The writer says so (``audit_record(rows=[RowWritten(step)])``): nothing may have changed the
    row behind the instance's back. A plain value: ``audit_record`` checks it (bound, saved)."""

    obj: models.Model


RowSpec = models.Model | RowsWhere | RowWritten


# ----------------------------------------------------------------------------------- the tables


def is_bound(model: type[models.Model]) -> bool:
    return bool(getattr(model, "AUDIT_BOUND", False))


def bound_check(model: type[models.Model]) -> None:
    """Refuse to bind a row of a table the verifier does not check: a binding it never reads
    would be a promise nobody keeps. A migration's historical model is taken by its table."""
    table = model._meta.db_table
    if table not in _bound_tables():
        raise ValueError(f"{table} is not a bound table (AUDIT_BOUND on its model)")


@functools.cache
def bound_models() -> tuple[type[models.Model], ...]:
    """Every model whose rows are bound to their events, by table name (bytewise: the order the
    verifier's SQL sorts them in with the C collation). Read once: the models are all loaded
    before the first event is written, and every binding of every step asks."""
    found = [m for m in apps.get_models() if is_bound(m)]
    return tuple(sorted(found, key=lambda m: m._meta.db_table.encode()))


@functools.cache
def _bound_tables() -> frozenset[str]:
    return frozenset(m._meta.db_table for m in bound_models())


def bound_when(model: type[models.Model]) -> models.Q | None:
    """The rows of ``model`` that must be bound (None: all of them)."""
    when: models.Q | None = getattr(model, "AUDIT_BOUND_WHEN", None)
    return when


def row_columns(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    """The columns a row's digest covers: every concrete field, by column name (bytewise); a
    model's ``AUDIT_ROW_READS`` may read one of them otherwise (``RowReader``)."""
    return sorted(model._meta.concrete_fields, key=lambda f: str(f.column).encode())


# ------------------------------------------------------------------------------ canonical bytes


def _plain(value: Any) -> Any:
    """A column's value as the digest reads it: JSON types, instants in UTC with microseconds."""
    if value is None or isinstance(value, bool | int | str | float | dict | list):
        return value
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:  # a naive value (USE_TZ off): read as UTC, never refused
            value = value.replace(tzinfo=dt.UTC)
        return instant_text(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    return str(value)  # a FieldFile and the like: its name


#: the types ``_plain`` gives back as they are (exactly these, not their subclasses)
_AS_IS = frozenset({type(None), bool, int, str, float, dict, list})
#: the types whose values key a column's kept prints as they are (``RowReader._prints_of``): no
#: two values of them that differ in JSON are equal in Python (``True == 1`` and ``1.0 == 1`` are
#: why a bool or a float is keyed by its JSON instead)
_KEYED = frozenset({type(None), int, str})
_dumps, _SORT_KEYS = orjson.dumps, orjson.OPT_SORT_KEYS
#: how many column prints one reader keeps (``RowReader._prints``) before starting afresh
PRINTS_KEPT = 50_000


def _json(value: Any) -> bytes:
    """Sorted keys (at every depth), no whitespace, UTF-8: orjson's bytes, or, for what orjson
    refuses (an integer beyond 64 bits inside a JSON column), the standard encoder's in the same
    form. Either way the same value always gives the same bytes."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def row_digest(table: str, columns: Sequence[str], values: Sequence[Any]) -> str:
    """The digest of one row: SHA-256 over a fixed label, the table's name and the canonical JSON
    object of every column (by column name) with its value as stored; lowercase hex."""
    content = {column: _plain(value) for column, value in zip(columns, values, strict=True)}
    return hashlib.sha256(ROW_LABEL + table.encode() + b"\n" + _json(content)).hexdigest()


def column_prints(columns: Sequence[str], values: Sequence[Any]) -> str:
    """One short print per column, in ``columns``' order: where a row's digest no longer matches,
    the prints that differ name the columns that changed."""
    out = []
    for column, value in zip(columns, values, strict=True):
        data = COLUMN_LABEL + column.encode() + b"\n" + _json(_plain(value))
        out.append(hashlib.sha256(data).hexdigest()[:PRINT_HEX])
    return "".join(out)


def prints_differ(columns: Sequence[str], bound: str, now: str) -> list[str] | None:
    """The columns whose prints differ between ``bound`` (the event's) and ``now``; None when the
    prints cannot be compared (the table's columns changed since the row was bound)."""
    if len(bound) != len(now) or len(now) != PRINT_HEX * len(columns):
        return None
    return [
        column
        for i, column in enumerate(columns)
        if bound[i * PRINT_HEX : (i + 1) * PRINT_HEX] != now[i * PRINT_HEX : (i + 1) * PRINT_HEX]
    ]


class RowState(NamedTuple):
    """One row as the digest reads it (a named tuple: made for every row a bulk writer binds,
    where a frozen dataclass's ``__init__`` costs several times more)."""

    pk: int
    digest: str
    prints: str


class RowReader:
    """Reads rows of one table and gives their digests: the writer's (at the append) and the
    verifier's (over the whole table) are this same code, so both see the same bytes."""

    def __init__(self, model: type[models.Model], using: str) -> None:
        self.model, self.using = model, using
        self.table = model._meta.db_table
        # a column the model reads otherwise (AUDIT_ROW_READS: a reference the digest covers by
        # what it references) takes the name and the lookup it says, its attribute that name
        reads: dict[str, tuple[str, str]] = getattr(model, "AUDIT_ROW_READS", {})
        fields = model._meta.concrete_fields
        named = [(*reads.get(f.attname, (str(f.column), f.attname)), f.attname) for f in fields]
        named.sort(key=lambda n: n[0].encode())
        self.columns = [column for column, _, _ in named]
        self.attnames = [lookup for _, lookup, _ in named]
        self.attributes = [column if attname in reads else attname for column, _, attname in named]
        self.pk_at = self.attnames.index(model._meta.pk.attname)
        # the fixed bytes of every digest and print of this table, encoded once
        self._row_label = ROW_LABEL + self.table.encode() + b"\n"
        self._print_labels = [COLUMN_LABEL + column.encode() + b"\n" for column in self.columns]
        # each column's prints, by the column's value (_prints_of): the same value in the same
        # column (an id, a kind, a flag, null) recurs over thousands of rows, its SHA-256 is taken once
        self._prints: list[dict[Any, str]] = [{} for _ in self.columns]
        self._prints_kept = 0

    def state(self, values: Sequence[Any], *, prints: bool = True) -> RowState:
        """``row_digest`` and ``column_prints`` of the row (the binding of every write and the
        verifier's walk over whole tables run this for every row): the row's JSON object in one
        orjson call, whose bytes are ``row_digest``'s since the columns are sorted as orjson sorts
        keys, and each column's print from the kept ones (``_prints_of``)."""
        # a value of a JSON type as such is what _plain gives back unchanged: only the others
        # (instants, decimals, bytes, subclasses…) pay its call, for every row and column
        plain = [value if type(value) in _AS_IS else _plain(value) for value in values]
        try:
            body = _dumps(dict(zip(self.columns, plain, strict=True)), option=_SORT_KEYS)
        except TypeError:  # what orjson refuses (see _json): the reference functions, whole
            return RowState(
                pk=int(values[self.pk_at]),
                digest=row_digest(self.table, self.columns, values),
                prints=column_prints(self.columns, values) if prints else "",
            )
        return RowState(
            pk=int(values[self.pk_at]),
            digest=hashlib.sha256(self._row_label + body).hexdigest(),
            prints=self._prints_of(plain) if prints else "",
        )

    def _prints_of(self, plain: list[Any]) -> str:
        """Each column's print of its ``plain`` value (``column_prints``): a kept one where the
        column had that value before, keyed by the value itself where its type allows
        (``_KEYED``), else by its JSON; only a value not seen yet is encoded and hashed."""
        keys = [value if type(value) in _KEYED else _dumps(value, option=_SORT_KEYS) for value in plain]
        found = [kept.get(key) for kept, key in zip(self._prints, keys, strict=True)]
        if None in found:
            for at, hit in enumerate(found):
                if hit is not None:
                    continue
                key = keys[at]
                encoded = key if type(key) is bytes else _dumps(key)
                found[at] = digest = hashlib.sha256(self._print_labels[at] + encoded).hexdigest()[:PRINT_HEX]
                if at == self.pk_at:  # never seen again: kept, it would only push the others out
                    continue
                if self._prints_kept >= PRINTS_KEPT:  # a bound memory, whatever the table's size
                    for column in self._prints:
                        column.clear()
                    self._prints_kept = 0
                self._prints[at][key] = digest
                self._prints_kept += 1
        return "".join(found)  # type: ignore[arg-type]

    def instance_values(self, obj: models.Model) -> list[Any]:
        """A loaded instance's columns (``attnames``' order): what ``values`` would read, the ORM
        having converted them alike (a file field's name, as the column holds it)."""
        return list(self._read(obj))

    @functools.cached_property
    def _read(self) -> Any:
        """Every attribute of an instance in one call (a bulk writer binds thousands of rows)."""
        return attributes_reader(self.model, self.attributes)

    def written_values(self, obj: models.Model) -> list[Any]:
        """A just written instance's columns as ``values`` would read them back: a JSON column's
        value goes through the JSON text the INSERT sent (a tuple comes back a list, an integer
        key a string), the others are the ORM's Python values already."""
        values = self.instance_values(obj)
        for at, field in self._json_fields.items():
            values[at] = _as_stored(field, values[at])
        return values

    @functools.cached_property
    def _json_fields(self) -> dict[int, models.JSONField[Any]]:
        by_attname = {f.attname: f for f in self.model._meta.concrete_fields}
        return {
            at: field
            for at, name in enumerate(self.attnames)
            if isinstance(field := by_attname.get(name), models.JSONField)
        }

    def values(self, **lookup: Any) -> list[tuple[Any, ...]]:
        """Rows matching ``lookup``, every column (``attnames``' order)."""
        qs = self.model._base_manager.using(self.using).filter(**lookup).order_by()
        return list(qs.values_list(*self.attnames))


@functools.lru_cache(maxsize=256)
def row_reader(model: type[models.Model], using: str) -> RowReader:
    """The ``RowReader`` of a model's table, built once: its columns, sorted and encoded, are the
    model's for the process's life, and every binding of every transaction asks for them (an
    import binds some 70,000 rows a couple of thousand coups)."""
    return RowReader(model, using)


def _as_stored(field: models.JSONField[Any], value: Any) -> Any:
    """A JSON column's value as the database gives it back: the text Django writes for it
    (``json.dumps`` with the field's encoder), read as Django reads it (the field's decoder)."""
    if value is None:
        return None
    if field.encoder is None and field.decoder is None:
        # the plain field's text, read back, is what orjson's gives back for every value both
        # encoders take (a tuple a list, a string key as it is); what orjson refuses (a key not a
        # string, an integer beyond 64 bits) takes the standard encoder's way. Several times
        # cheaper: a bulk writer binds thousands of steps (import_coups)
        try:
            return orjson.loads(orjson.dumps(value))
        except TypeError:
            pass
    return json.loads(json.dumps(value, cls=field.encoder), cls=field.decoder)


# ------------------------------------------------------------------------------------- binding


def rows_loaded(obj: models.Model) -> None:
    """``obj`` was just read from the database (locked) by a service that may change it: keep its
    digest as it stands now, before this transaction changes it, for the binding of the event that
    will (the first read in a transaction counts). Costs no query; nothing outside a transaction
    of an audit backend that keeps events (audit.backends)."""
    from django.db import connections

    conn: Any = connections[obj._state.db or "default"]
    if not (getattr(conn, "audit_deferred", False) and conn.in_atomic_block):
        return
    key = (obj._meta.db_table, int(obj.pk))
    # where this transaction's events go (a test's transaction holds several of the code's, each
    # flushed at its own savepoint): a state loaded for an earlier one is not this one's "before"
    point = audit_flush_point(conn)
    kept = conn.audit_rows_before.get(key)
    if kept is None or kept[0] != point:
        reader = row_reader(type(obj), conn.alias)
        conn.audit_rows_before[key] = (point, reader.state(reader.instance_values(obj)))


#: a spec as ``specs_check`` keeps it for the binding: a row bound as written by its (table, id),
#: read once here, and its instance; the others as they came
_Checked = models.Model | RowsWhere | tuple[tuple[str, int], models.Model]


def specs_check(rows: Iterable[RowSpec]) -> list[_Checked]:
    """``audit_record``'s ``rows`` checked at once (a row not saved yet, a table not bound), each
    row bound as written kept by its (table, id): a bulk writer binds tens of thousands of them,
    and the binding asks for that key twice more (``rows_settle``)."""
    out: list[_Checked] = []
    tables = _bound_tables()
    for spec in rows:
        if isinstance(spec, RowWritten):  # the most of them (a bulk writer's tens of thousands)
            obj = spec.obj
        elif isinstance(spec, RowsWhere):
            bound_check(spec.model)
            out.append(spec)
            continue
        else:
            obj = spec
        table = obj._meta.db_table
        if table not in tables:
            bound_check(type(obj))  # which refuses it
        pk = obj.pk
        if pk is None:
            raise ValueError(f"a {type(obj).__name__} with no id cannot be bound to an audit event")
        out.append(((table, int(pk)), obj) if isinstance(spec, RowWritten) else spec)
    return out


def rows_settle(
    events: Sequence[Any], *, using: str, before: dict[tuple[str, int], tuple[Any, RowState]] | None = None
) -> None:
    """Give each event that names rows (``event._bind``) its ``rows``: ``[table, id, digest,
    prints]`` per row, sorted by table and id, read from the database now (just before the
    transaction's events are appended), and ``before_digest, before_prints`` after them for a row
    the transaction loaded first (``before``: ``rows_loaded``'s). One SELECT per table and chunk of
    ids for the whole transaction, one per table and column for the ``RowsWhere`` bindings, none
    for a row bound as written (``RowWritten``) that no other binding reads."""
    waiting = [e for e in events if getattr(e, "_bind", None)]
    if not waiting:
        return
    readers, ids, where, written = _specs_sorted(waiting, using)
    loaded = {key: state for key, (_, state) in (before or {}).items()}
    states: dict[str, dict[int, RowState]] = defaultdict(dict)
    by_value: dict[tuple[str, str], dict[Any, list[int]]] = {}
    for table, pks in ids.items():
        reader = readers[table]
        ordered = sorted(pks)
        for at in range(0, len(ordered), READ_CHUNK):
            for values in reader.values(pk__in=ordered[at : at + READ_CHUNK]):
                state = reader.state(values)
                states[table][state.pk] = state
    for (table, attname), wanted in where.items():
        reader = readers[table]
        column_at = reader.attnames.index(attname)
        found: dict[Any, list[int]] = defaultdict(list)
        ordered_values = sorted(wanted, key=repr)
        for at in range(0, len(ordered_values), READ_CHUNK):
            lookup = {f"{attname}__in": ordered_values[at : at + READ_CHUNK]}
            for values in reader.values(**lookup):
                state = states[table].get(int(values[reader.pk_at])) or reader.state(values)
                states[table][state.pk] = state
                found[values[column_at]].append(state.pk)
        by_value[(table, attname)] = found
    # a row bound as written, from its instance; read above all the same when another binding of
    # the transaction asked for it from the database, and then the database's answer is the one
    for (table, pk), obj in written.items():
        if pk not in states[table]:
            reader = readers[table]
            states[table][pk] = reader.state(reader.written_values(obj))
    # in the order the events get their ids (chain by chain, each in the order recorded: as
    # audit.services._append inserts them), which is the order the verifier reads bindings in
    _bindings_give(waiting, states, by_value, loaded)


def _specs_sorted(
    waiting: list[Any], using: str
) -> tuple[
    dict[str, RowReader],
    dict[str, set[int]],
    dict[tuple[str, str], set[Any]],
    dict[tuple[str, int], models.Model],
]:
    """The rows the events bind, by how they are bound (``rows_settle``): each table's reader, the
    ids to read, the ``RowsWhere`` values to read by, the rows bound as written."""
    readers: dict[str, RowReader] = {}
    ids: dict[str, set[int]] = defaultdict(set)
    where: dict[tuple[str, str], set[Any]] = defaultdict(set)
    written: dict[tuple[str, int], models.Model] = {}
    for event in waiting:
        specs: list[_Checked] = event._bind
        for spec in specs:
            if isinstance(spec, tuple):  # bound as written (the most of them: specs_check)
                key, obj = spec
                if key[0] not in readers:
                    readers[key[0]] = row_reader(type(obj), using)
                written[key] = obj
                continue
            model = _spec_model(spec)
            table = model._meta.db_table
            readers.setdefault(table, row_reader(model, using))
            if isinstance(spec, RowsWhere):
                where[(table, spec.attname)].add(spec.value)
            else:
                ids[table].add(int(spec.pk))
    return readers, ids, where, written


def _bindings_give(
    waiting: list[Any],
    states: dict[str, dict[int, RowState]],
    by_value: dict[tuple[str, str], dict[Any, list[int]]],
    loaded: dict[tuple[str, int], RowState],
) -> None:
    """Each event's ``rows`` from the states read or computed (``rows_settle``)."""
    # a row's binding as committed is the same string in every event that binds it (a coup in each
    # of its steps' events): packed once
    packed: dict[tuple[str, int], str] = {}
    for event in sorted(waiting, key=lambda e: e.chain):
        in_order = sorted(_event_keys(event._bind, states, by_value), key=lambda k: (k[0].encode(), k[1]))
        # the state as loaded goes with the transaction's first binding of the row only: its later
        # bindings (another event of the same transaction) carry the same state as committed
        rows = []
        for key in in_order:
            first = loaded.pop(key, None)
            if first is not None:
                rows.append(_binding(*key, states[key[0]][key[1]], first))
                continue
            alone = packed.get(key)
            if alone is None:
                alone = packed[key] = binding_pack(states[key[0]][key[1]], None)
            rows.append([*key, alone])
        event.rows = rows
        event._bind = None


def _spec_model(spec: models.Model | RowsWhere) -> type[models.Model]:
    return spec.model if isinstance(spec, RowsWhere) else type(spec)


def _event_keys(
    specs: Sequence[_Checked],
    states: dict[str, dict[int, RowState]],
    by_value: dict[tuple[str, str], dict[Any, list[int]]],
) -> set[tuple[str, int]]:
    """The (table, id) of every row one event binds; RowNotFound for a row named by its id that
    the database does not hold."""
    keys: set[tuple[str, int]] = set()
    for spec in specs:
        if isinstance(spec, tuple):  # bound as written (specs_check)
            keys.add(spec[0])
        elif isinstance(spec, RowsWhere):
            table = spec.model._meta.db_table
            keys.update((table, pk) for pk in by_value[(table, spec.attname)].get(spec.value, ()))
        else:
            table = type(spec)._meta.db_table
            if int(spec.pk) not in states[table]:
                raise RowNotFound(f"{table} row {spec.pk} is bound to an audit event but is not written")
            keys.add((table, int(spec.pk)))
    return keys


def _binding(table: str, pk: int, state: RowState, loaded: RowState | None) -> list[Any]:
    """One row of an event's ``rows``: ``[table, id, packed]`` (``binding_pack``)."""
    return [table, pk, binding_pack(state, loaded)]


# ------------------------------------------------------------------------ a binding's packing
# A binding written before audit 0011 is ``[table, id, digest, prints]`` (then ``before_digest,
# before_prints`` for a row its transaction loaded first), each a hex string. Since then the same
# digests and prints are one string, ``[table, id, packed]``: base64url (no padding) of a layout
# byte, the digest's 32 bytes and the prints' 2 bytes a column, then for a row loaded first the
# same two of the row as loaded. The same bits, bound by the event's HMAC as before: a coup's
# binding in a step's event is 162 characters (121 bytes) instead of 240 hex characters in two
# more array elements; the verifier reads both layouts (``binding_unpack``).

#: the layout byte: the row as committed alone, or followed by the row as its transaction loaded it
PACKED_ALONE, PACKED_WITH_LOADED = 1, 2


@dataclass(frozen=True, slots=True)
class Bound:
    """One binding's content, in hex whatever its layout."""

    digest: str
    prints: str
    before_digest: str | None = None
    before_prints: str = ""


def binding_pack(state: RowState, loaded: RowState | None) -> str:
    """``state`` (and ``loaded``, the row as the transaction loaded it) as one packed string."""
    raw = bytearray([PACKED_ALONE if loaded is None else PACKED_WITH_LOADED])
    raw += bytes.fromhex(state.digest) + bytes.fromhex(state.prints)
    if loaded is not None:
        raw += bytes.fromhex(loaded.digest) + bytes.fromhex(loaded.prints)
    return base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode("ascii")


def binding_unpack(packed: str) -> Bound:
    """A packed binding's digests and prints in hex. ValueError for a string that is not one (a
    forged binding: the caller reports the row as not matching it)."""
    try:
        raw = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"not a packed binding: {packed[:20]!r}") from error
    if not raw or raw[0] not in (PACKED_ALONE, PACKED_WITH_LOADED):
        raise ValueError(f"not a packed binding: {packed[:20]!r}")
    body = raw[1:]
    if raw[0] == PACKED_ALONE:
        first, second = body, b""
    else:
        half = len(body) // 2
        first, second = body[:half], body[half:]
    if len(first) < DIGEST_BYTES or (second and len(second) < DIGEST_BYTES):
        raise ValueError(f"not a packed binding: {packed[:20]!r}")
    return Bound(
        digest=first[:DIGEST_BYTES].hex(),
        prints=first[DIGEST_BYTES:].hex(),
        before_digest=second[:DIGEST_BYTES].hex() if second else None,
        before_prints=second[DIGEST_BYTES:].hex(),
    )

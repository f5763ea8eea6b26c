"""The batched import writes what the record-at-a-time services write: the same rows, the same
ledger postings and balances, the same audit events in the same order (only ids and times differ).

One history is imported twice, into two tables of two casinos alike: once record by record through
the services (``coup_import``, the reference), once through the batched writer
(``import_batch``), and everything each import wrote is compared, ids translated to the order in
which the objects were created.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from django.db import connection
from django.db.models import Model, Q
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEvent
from audit.row_verify import rows_verify
from audit.rows import bound_models
from audit.selectors import audit_chains_verify
from bench.coupgen import record_dicts
from chemin_de_fer.engine.interchange import verdict_to_dict
from ledger.models import Account, Entry, Transaction
from tables.management.commands.import_coups import parse_line
from tables.models import (
    BankTax,
    BankTurn,
    Bet,
    Casino,
    Coup,
    CoupStep,
    ImportedRecord,
    Player,
    Seat,
    Shoe,
    ShoeCard,
    Spectator,
    Table,
    TableSession,
)
from tables.services import imports
from tables.services.import_batch import NeedsServices, _Batch
from tests.factories import CasinoFactory, CroupierAssignmentFactory, TableFactory, builtin_profile

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

DATA = Path(__file__).resolve().parents[1] / "data"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def history() -> list[bytes]:
    """Generated coups of every profile (many played wrongly: flagged, restored, awaiting a pit
    boss), the documented examples, a banker's card after the player's shown natural (flagged as
    validate_coups flags it: CARD_AFTER_NATURAL), and records the services refuse halfway."""
    lines = [orjson.dumps(d) for d in record_dicts(150, seed=11, error_rate=0.35, malformed_every=0)]
    examples = [x.encode() for x in (DATA / "coups.jsonl").read_text().splitlines() if x.strip()]
    after_natural = {
        "id": "card-after-shown-natural",
        "profile": "casino",
        "bank": 100,
        "bets": [{"punter": "seat-3", "amount": 50}],
        "player": {"cards": ["8H", "KC"], "action": "natural"},
        "banker": {"cards": ["2S", "3H", "4D"], "action": "draw"},
    }
    rich = {
        **json.loads(examples[0]),
        "id": "too-rich",
        "bank": 30_000,
        "bets": [{"punter": "seat-2", "amount": 25_000}],
    }
    # a name the JSON and COPY layers must carry as it is: quotes, a backslash, a tab, accents
    odd = {**json.loads(lines[5]), "id": "odd-name"}
    odd["bets"] = [{**odd["bets"][0], "punter": 'Zoë "the \\ tab\t" Ł'}]
    lines.insert(6, orjson.dumps(odd))
    lines.insert(30, orjson.dumps({**odd, "id": "odd-name-again"}))  # seated now: through the batch
    return (
        lines[:60]
        + examples
        + [orjson.dumps(after_natural)]
        + lines[60:120]
        + [orjson.dumps(rich)]
        + lines[120:]
    )


def world(croupier, name: str) -> Table:
    casino = CasinoFactory(name=name)
    # a home table: its casino lends no chips, so banks and bets beyond a player's chips are refused
    table = TableFactory(casino=casino, name="Twin table", profile=builtin_profile("home"))
    CroupierAssignmentFactory(user=croupier, table=table)
    return Table.objects.get(name="Twin table", casino__name=name)


def import_all(table: Table, croupier, lines: list[bytes], *, batched: bool, chunk: int) -> dict[int, Any]:
    parsed = []
    for number, line in enumerate(lines, 1):
        try:
            record, rid = parse_line(line)
        except ValueError:
            continue
        parsed.append((number, record, rid))
    outcomes: dict[int, Any] = {}
    for start in range(0, len(parsed), chunk):
        outcomes.update(
            imports._chunk_import(
                actor=croupier,
                table=table,
                records=parsed[start : start + chunk],
                buy_in=2_000,
                batched=batched,
            )
        )
    return {
        n: (o.error or "skipped")
        if o.imported is None
        else (o.imported.coup.state, o.imported.restored, verdict_to_dict(o.imported.verdict))
        for n, o in outcomes.items()
    }


class Dump:
    """Everything one import wrote, ids replaced by creation order."""

    KEYS: dict[str, type[Model]] = {
        "shoe": Shoe,
        "shoe_id": Shoe,
        "coup": Coup,
        "coup_id": Coup,
        "account": Account,
        "session": TableSession,
        "session_id": TableSession,
        "player": Player,
        "player_id": Player,
        "seat_id": Seat,
        "spectator_id": Spectator,
        "rotation_from_id": Seat,
        "turn_id": BankTurn,
        "bank_turn_id": BankTurn,
        "table": Table,
        "table_id": Table,
        "casino_id": Casino,
        "reverses": Transaction,
        "banker": Player,
        "banker_id": Player,
        "cut_by_id": Player,
    }

    def __init__(self, table: Table, after: dict[int, int], until_global: int | None = None) -> None:
        """The events since ``after`` (a head per chain) on the table's casino's chain and on the
        global chain (up to ``until_global``), the global chain's first, each chain in seq order."""
        self.table = table
        glob = Q(chain=0, seq__gt=after[0]) & (Q(seq__lte=until_global) if until_global is not None else Q())
        mine = Q(chain=table.casino_id, seq__gt=after[table.casino_id])
        self.events = list(AuditEvent.objects.filter(glob | mine).order_by("chain", "seq"))
        self.order: dict[type[Model], dict[int, int]] = {Table: {table.pk: 0}, Casino: {table.casino_id: 0}}
        kinds: tuple[type[Model], ...] = (Shoe, Coup, Account, TableSession, Player, Seat, Spectator)
        kinds += (BankTurn, Transaction)
        models = {m._meta.label_lower: m for m in kinds}
        for event in self.events:
            model = models.get(event.object_type)
            if model is not None:
                seen = self.order.setdefault(model, {})
                seen.setdefault(int(event.object_id), len(seen))

    def id(self, model: type[Model], pk: Any) -> Any:
        if pk is None:
            return None
        return ("#", model.__name__, self.order.get(model, {}).get(int(pk), f"unknown {pk}"))

    def value(self, key: str, value: Any, top: type[Model] | None = None) -> Any:
        if isinstance(value, dict):
            if key == "balances_after":
                return {str(self.id(Account, k)): v for k, v in value.items()}
            if key == "punters":
                return {self.punter(k): v for k, v in value.items()}
            inner = self.KEYS.get(key, top) if key else top  # {"table": {"id": …}} names a table
            return {k: self.value(k, v, inner) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(key, v, top) for v in value]
        if key == "id" and top is not None and isinstance(value, int):
            return self.id(top, value)
        if key in self.KEYS and isinstance(value, int) and not isinstance(value, bool):
            return self.id(self.KEYS[key], value)
        if isinstance(value, str) and key in ("punter", "winner"):
            return self.punter(value)
        if isinstance(value, str):
            if ISO.match(value):
                return "<time>"
            value = value.replace(self.table.casino.name, "<casino>")
            named = {"buy-in:": Player, "coup:": Coup, "bankturn:": BankTurn}  # idempotency keys
            value = re.sub(
                r"(buy-in:|coup:|bankturn:)(\d+)", lambda m: f"{m[1]}{self.id(named[m[1]], m[2])}", value
            )
            value = re.sub(r"#(\d+)\)", lambda m: f"{self.id(Player, m[1])})", value)
            return re.sub(r"^T\d+-session\d+-shoe", "T-shoe", value)
        return value

    def punter(self, key: str) -> str:
        """The engine names a spectator by his row's id (``spectator-17``)."""
        if key.startswith("spectator-"):
            return str(self.id(Spectator, key.removeprefix("spectator-")))
        return key

    def row(self, obj: Model, skip: tuple[str, ...] = ()) -> dict[str, Any]:
        out = {}
        for f in obj._meta.concrete_fields:
            if f.primary_key or f.attname in skip:
                continue
            v = getattr(obj, f.attname)
            if f.get_internal_type() == "DateTimeField":
                v = v is not None
            elif f.is_relation:
                v = self.id(f.related_model, v) if f.related_model in self.order else v
            else:
                v = self.value(f.attname, v)
            out[f.attname] = v
        return out

    def events_content(self) -> list[tuple[Any, ...]]:
        models = {m._meta.label_lower: m for m in self.order}
        return [
            (
                e.actor_label,
                e.action,
                e.object_type,
                self.id(models[e.object_type], e.object_id) if e.object_type in models else e.object_id,
                self.value("", e.before, models.get(e.object_type)),
                self.value("", e.after, models.get(e.object_type)),
                # the tables of the rows it binds (audit.rows), one entry a row
                tuple(r[0] for r in e.rows or ()),
            )
            for e in self.events
        ]

    def rows(self) -> dict[str, Any]:
        table = self.table
        coups = sorted(Coup.objects.filter(shoe__table=table), key=lambda c: self.order[Coup][c.pk])
        step_key = {
            s.pk: (self.id(Coup, s.coup_id), s.index) for s in CoupStep.objects.filter(coup__in=coups)
        }
        txns = sorted(
            Transaction.objects.filter(casino=table.casino), key=lambda t: self.order[Transaction][t.pk]
        )
        return {
            "coups": [self.row(c) for c in coups],
            "steps": sorted(
                (
                    {**self.row(s, ("corrects_id",)), "corrects": step_key.get(s.corrects_id or 0)}
                    for s in CoupStep.objects.filter(coup__in=coups)
                ),
                key=lambda r: (r["coup_id"][2], r["index"]),
            ),
            "bets": sorted(
                (self.row(b) for b in Bet.objects.filter(coup__in=coups)),
                key=lambda r: (r["coup_id"][2], r["betting_order"]),
            ),
            "cards": sorted(
                (self.row(c) for c in ShoeCard.objects.filter(shoe__table=table)),
                key=lambda r: (r["shoe_id"][2], r["position"]),
            ),
            "taxes": sorted((self.row(t) for t in BankTax.objects.filter(coup__in=coups)), key=str),
            "turns": sorted(
                (self.row(t) for t in BankTurn.objects.filter(session__table=table)), key=lambda r: str(r)
            ),
            "shoes": [self.row(s) for s in Shoe.objects.filter(table=table).order_by("number")],
            "txns": [self.row(t) for t in txns],
            "entries": sorted(
                (self.id(Transaction, e.transaction_id), self.id(Account, e.account_id), e.amount)
                for e in Entry.objects.filter(transaction__in=txns)
            ),
            "balances": sorted(
                (self.id(Account, a.pk), a.balance) for a in Account.objects.filter(casino=table.casino)
            ),
            "records": sorted(
                (r.record_id, self.id(Coup, r.coup_id)) for r in ImportedRecord.objects.filter(table=table)
            ),
        }


def _parses(line: bytes) -> bool:
    try:
        parse_line(line)
    except ValueError:
        return False
    return True


def head(chain: int) -> int:
    last = AuditEvent.objects.filter(chain=chain).order_by("-seq").first()
    return last.seq if last else 0


@pytest.mark.parametrize("chunk", [500, 23])
def test_the_batched_import_writes_what_the_services_write(croupier, chunk, monkeypatch) -> None:
    lines = history()
    played = []
    play = _Batch.coup_import

    def counted(self: _Batch, **kwargs: Any) -> Any:
        try:
            result = play(self, **kwargs)
        except NeedsServices:  # tried, then handed over (nothing of it kept)
            raise
        except BaseException:
            played.append(kwargs["record_id"])  # refused by the batch itself
            raise
        played.append(kwargs["record_id"])
        return result

    monkeypatch.setattr(_Batch, "coup_import", counted)
    handed_over = []  # the records the batched run handed to the record-at-a-time services
    services = imports.coup_import

    def services_counted(**kwargs: Any) -> Any:
        handed_over.append(kwargs["record_id"])
        return services(**kwargs)

    seated_by_services = []  # the records whose newcomers the services seated for the batch
    newcomers = imports._newcomers_import

    def newcomers_counted(**kwargs: Any) -> Any:
        seated_by_services.append(kwargs["rid"])
        return newcomers(**kwargs)

    reference_table, batched_table = world(croupier, "Twin casino A"), world(croupier, "Twin casino B")

    # each twin casino has its own chain; what goes on the global chain is compared too
    start = {0: head(0), reference_table.casino_id: head(reference_table.casino_id)}
    reference = import_all(reference_table, croupier, lines, batched=False, chunk=chunk)
    middle = {0: head(0), batched_table.casino_id: head(batched_table.casino_id)}
    monkeypatch.setattr(imports, "coup_import", services_counted)
    monkeypatch.setattr(imports, "_newcomers_import", newcomers_counted)
    batched = import_all(batched_table, croupier, lines, batched=True, chunk=chunk)

    assert batched == reference
    # only what the batch cannot play goes through the services: the first record (no session, no
    # shoe yet) and the banco suivi; a record naming a newcomer has him seated and is played in the
    # batch (the odd name, the documented examples' punters, the generated newcomers)
    assert handed_over == ["c0", "X-suivi"]
    # and the batch seats, stands and buys in every newcomer itself: only the two records whose
    # seat is taken (refused by the services) are handed to them for seating
    assert sorted(seated_by_services) == ["home-several-punters-stand-on-3", "home-single-punter-stands-on-3"]
    # the punters (IMP-<name>), and the importer's banker (IMP:banker, outside their names)
    imported = Player.objects.filter(membership_number__startswith="IMP-")
    assert imported.filter(casino=batched_table.casino).count() == 11
    assert imported.filter(casino=reference_table.casino).count() == 11
    banker = Player.objects.filter(membership_number="IMP:banker")
    assert banker.filter(casino=batched_table.casino).count() == 1
    assert banker.filter(casino=reference_table.casino).count() == 1
    ids = [parse_line(line)[1] for line in lines if _parses(line)]
    # the rest were refused before any coup was played: the services refuse to seat their punters
    refused_at_seating = {parse_line(lines[n - 1])[1]: v for n, v in reference.items() if isinstance(v, str)}
    left = {rid: refused_at_seating.get(rid) for rid in set(ids) - set(played) - set(handed_over)}
    assert sorted(left) == ["home-several-punters-stand-on-3", "home-single-punter-stands-on-3"]
    assert {str(message).split(" by ")[0] for message in left.values()} == {"seat 6 is taken"}
    states = [v[0] for v in reference.values() if isinstance(v, tuple)]
    refused = [v for v in reference.values() if isinstance(v, str)]
    # the history covers what it must: settled, restored and unrestorable coups, refusals
    assert {"settled", "awaiting_approval", "awaiting_correction"} <= set(states)
    # (no record is refused as a step a table could not play: every well-formed record replays,
    # flagged where validate_coups flags it — tests/tables/test_import_validate_agreement.py)
    assert not any("not possible" in r for r in refused) and any("chips" in r for r in refused), refused

    want, got = Dump(reference_table, start, until_global=middle[0]), Dump(batched_table, middle)
    assert {e.chain for e in got.events} <= {0, batched_table.casino_id}
    assert len(got.events) == len(want.events) > 0
    for n, (a, b) in enumerate(zip(got.events_content(), want.events_content(), strict=True)):
        assert a == b, f"event {n}: {a[1]}"
    want_rows, got_rows = want.rows(), got.rows()
    for name in want_rows:
        assert got_rows[name] == want_rows[name], name
    assert all(report.ok for report in audit_chains_verify())
    # every row either import wrote is bound to its event as written (audit.rows)
    assert [str(d) for d in rows_verify().differences] == []

    # ids follow creation order at the table, as the services' do (the ledger's "later coup" and
    # "last banker of the bank" read them so)
    coups = list(Coup.objects.filter(shoe__table=batched_table).order_by("pk"))
    assert [got.order[Coup][c.pk] for c in coups] == sorted(got.order[Coup][c.pk] for c in coups)
    txns = list(Transaction.objects.filter(casino=batched_table.casino).order_by("pk"))
    assert [got.order[Transaction][t.pk] for t in txns] == list(range(len(txns)))


#: a bound table's rows read by their ids (or their posting's, their coup's): what audit.rows
#: reads back at COMMIT for a row not bound by its values
READ_BACK = re.compile(r'FROM "(\w+)".*? WHERE "\1"\."(?:id|transaction_id|coup_id)" IN \(', re.S)


def test_every_row_the_batch_bound_by_its_values_is_the_row_as_committed(croupier) -> None:
    """The batch binds the rows it writes by the values it sent (audit.rows.RowWritten), as the
    steps do: at COMMIT none is read back (on SQLite but a posting, whose posted_at is SQLite's
    clock at its INSERT), and every one of them, a coup changed step after step, the bets a banco
    withdrew, the ledger's entries, is what the database holds: the whole check finds nothing."""
    table = world(croupier, "Bound by values")
    # the services play the first record (they open the session and the shoe) and a banco suivi,
    # and read a banco's bets back: the batch plays the others
    lines = [x for x in history() if not (_parses(x) and parse_line(x)[0].banco_suivi)]
    import_all(table, croupier, lines[:1], batched=True, chunk=500)
    with CaptureQueriesContext(connection) as ctx:
        outcomes = import_all(table, croupier, lines[1:], batched=True, chunk=500)
    played = [v for v in outcomes.values() if isinstance(v, tuple)]
    assert len(played) == 162
    assert Bet.objects.filter(coup__shoe__table=table, banco=True).count() == 20
    bound = {m._meta.db_table for m in bound_models()}
    read_back = {m.group(1) for q in ctx.captured_queries if (m := READ_BACK.search(q["sql"]))} & bound
    assert read_back == (set() if connection.vendor == "postgresql" else {"ledger_transaction"})
    assert [str(d) for d in rows_verify().differences] == []

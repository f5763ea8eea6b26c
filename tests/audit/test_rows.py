"""Rows bound to their audit events (audit.rows; issue 20 §1): the bytes of a row's digest, what a
service's event binds, and what a binding refuses.

The verifier's side (every row against its binding, both ways) is tests/audit/test_row_verify.py;
the attacks on the rows, as the application's role and as a superuser, tests/security/
test_row_tamper.py."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
from typing import Any

import pytest
from django.db import models, transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.models import AuditEvent
from audit.row_verify import rows_verify
from audit.rows import (
    Bound,
    RowNotFound,
    RowReader,
    RowState,
    RowsWhere,
    RowWritten,
    binding_pack,
    binding_unpack,
    bound_models,
    column_prints,
    prints_differ,
    row_columns,
    row_digest,
    row_reader,
)
from audit.selectors import audit_bound_rows, audit_chain_verify
from audit.services import audit_record
from ledger.models import Entry, Transaction
from tables.models import Bet, Casino, Coup, CoupStep, RulesSnapshot
from tests.tables.play import K, open_floor, step

# ------------------------------------------------------------------------------------- the bytes


def test_a_row_digest_is_sha256_of_a_label_the_table_and_the_sorted_columns_as_json() -> None:
    """The layout docs/audit.md gives, recomputed with the standard library."""
    at = dt.datetime(2026, 12, 5, 4, 5, 6, 789, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    columns = ["withdrawn", "amount", "id", "seen_at", "note"]
    digest = row_digest("tables_bet", columns, [False, 120, 7, at, {"b": 1, "a": "é"}])
    body = (
        '{"amount":120,"id":7,"note":{"a":"é","b":1},"seen_at":"2026-12-05T03:05:06.000789Z",'
        '"withdrawn":false}'
    )
    assert digest == hashlib.sha256(b"chemin-row-v1\ntables_bet\n" + body.encode()).hexdigest()


def test_a_column_print_is_the_first_four_hex_digits_of_its_own_sha256() -> None:
    prints = column_prints(["amount", "card"], [120, "TD"])
    by_hand = [
        hashlib.sha256(b"chemin-column-v1\namount\n120").hexdigest()[:4],
        hashlib.sha256(b'chemin-column-v1\ncard\n"TD"').hexdigest()[:4],
    ]
    assert prints == "".join(by_hand)


def test_an_integer_beyond_64_bits_in_a_json_column_has_a_digest_all_the_same() -> None:
    value = {"n": 2**70}
    body = json.dumps({"payload": value}, separators=(",", ":")).encode()
    assert row_digest("t", ["payload"], [value]) == hashlib.sha256(b"chemin-row-v1\nt\n" + body).hexdigest()


_plain = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=12),
    st.floats(allow_nan=False, allow_infinity=False),
)
_json = st.recursive(
    _plain,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    row=st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), _json, min_size=1, max_size=8),
    data=st.data(),
)
def test_one_column_changed_changes_the_digest_and_its_print_names_it(row: dict[str, Any], data: Any) -> None:
    """Any one column given any other value: the row's digest differs, and the prints name that
    column (or, 1 time in 65,536, none: the digest still differs)."""
    columns = sorted(row)
    values = [row[c] for c in columns]
    changed = data.draw(st.sampled_from(columns))
    was = json.dumps(row[changed], sort_keys=True)
    other = data.draw(_json.filter(lambda v: json.dumps(v, sort_keys=True) != was))
    edited = [other if c == changed else row[c] for c in columns]
    assert row_digest("t", columns, edited) != row_digest("t", columns, values)
    named = prints_differ(columns, column_prints(columns, values), column_prints(columns, edited))
    assert named in ([changed], [])


@given(st.dictionaries(st.text(max_size=6), st.integers(), min_size=2, max_size=6))
def test_the_order_of_a_json_objects_keys_does_not_change_the_digest(obj: dict[str, int]) -> None:
    reordered = dict(reversed(list(obj.items())))
    assert row_digest("t", ["payload"], [obj]) == row_digest("t", ["payload"], [reordered])


_datetimes = st.datetimes(
    min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(2100, 1, 1), timezones=st.just(dt.UTC)
) | st.datetimes(
    # an instant in another zone, or before the year 1000 (which %Y does not pad to four digits)
    min_value=dt.datetime(1, 1, 2),
    max_value=dt.datetime(9999, 12, 30),
    timezones=st.sampled_from(
        [dt.UTC, dt.timezone(dt.timedelta(hours=3)), dt.timezone(dt.timedelta(hours=-5))]
    ),
)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_reader_gives_each_row_the_digest_and_prints_of_the_reference_functions(data: Any) -> None:
    """``RowReader.state`` encodes each column once for both the digest and the prints: the same
    bytes as ``row_digest`` and ``column_prints``, for any values (a JSON column, an instant, an
    integer beyond 64 bits that orjson refuses)."""
    reader = RowReader(Coup, "default")
    values = [data.draw(_json | _datetimes) for _ in reader.columns]
    values[reader.pk_at] = data.draw(st.integers(min_value=1, max_value=2**62))
    state = reader.state(values)
    assert (state.pk, state.digest, state.prints) == (
        values[reader.pk_at],
        row_digest(reader.table, reader.columns, values),
        column_prints(reader.columns, values),
    )
    assert reader.state(values, prints=False).prints == ""


@pytest.mark.parametrize("kept", [5, 50_000])
def test_the_shared_reader_gives_the_reference_digest_and_prints_row_after_row(
    monkeypatch: pytest.MonkeyPatch, kept: int
) -> None:
    """``row_reader`` builds a table's reader once and its prints are taken once a value and
    column: over rows whose values recur (a flag, an id, a kind — a str subclass — an instant,
    values equal in Python but not in JSON), with the kept prints dropped every few rows or
    never, each row's state is the reference's."""
    reader = row_reader(Coup, "default")
    assert row_reader(Coup, "default") is reader
    for column in reader._prints:
        column.clear()
    monkeypatch.setattr(reader, "_prints_kept", 0)
    monkeypatch.setattr("audit.rows.PRINTS_KEPT", kept)
    kinds = [
        None,
        True,
        False,
        7,
        "x",
        CoupStep.Kind.BET,
        {"b": [1, 2], "a": None},
        dt.datetime(2026, 1, 2, tzinfo=dt.UTC),
        # equal in Python, not in JSON: each keeps a print of its own
        1,
        1.0,
        "1",
        "bet",
        dt.datetime(999, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    ]
    for row in range(3 * len(kinds)):
        values: list[Any] = [kinds[(row + at) % len(kinds)] for at in range(len(reader.columns))]
        values[reader.pk_at] = row + 1
        state = reader.state(values)
        assert (state.pk, state.digest, state.prints) == (
            row + 1,
            row_digest(reader.table, reader.columns, values),
            column_prints(reader.columns, values),
        )
    assert sum(len(column) for column in reader._prints) <= kept


@settings(max_examples=300, deadline=None)
@given(_datetimes)
def test_an_instant_reads_as_its_utc_strftime_with_microseconds_and_a_z(at: dt.datetime) -> None:
    """The digest's form of an instant, whichever way it is produced (an ISO string for the common
    case): the characters a row bound before that way was taken had."""
    text = at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    body = b'{"at":"' + text.encode() + b'"}'
    assert row_digest("t", ["at"], [at]) == hashlib.sha256(b"chemin-row-v1\nt\n" + body).hexdigest()


# ------------------------------------------------------------------------------------ the tables


def test_the_bound_tables_are_the_records_of_the_game_and_the_money() -> None:
    assert [m._meta.db_table for m in bound_models()] == [
        "compliance_cashlogentry",
        "compliance_cashreport",
        "compliance_playeridentification",
        "ledger_entry",
        "ledger_transaction",
        "reports_reportrun",
        "tables_bankshare",
        "tables_banktax",
        "tables_bankturn",
        "tables_bet",
        "tables_coup",
        "tables_coupstep",
        "tables_feehour",
        "tables_gamecoup",
        "tables_gamestep",
        "tables_seat",
        "tables_shoe",
        "tables_shoecard",
        "tables_spectator",
    ]


#: every bound table's columns: a migration that changes them must bind the table's rows again
#: (docs/audit.md, "Rows bound to their events"), and this list says it was thought of
BOUND_COLUMNS = {
    "compliance_cashlogentry": [
        "amount", "cashier_id", "casino_id", "direction", "gaming_day", "id", "logged_at", "player_id",
        "table_id", "transaction_id", "value_cents",
    ],
    "compliance_cashreport": [
        "casino_id", "direction", "filed_at", "filed_by_id", "gaming_day", "id", "opened_at", "player_id",
        "status", "total", "total_value_cents", "transaction_id",
    ],
    "compliance_playeridentification": [
        "document_number", "document_type", "id", "player_id", "recorded_at", "recorded_by_id",
    ],
    "ledger_entry": ["account_id", "amount", "id", "transaction_id"],
    "ledger_transaction": [
        "actor_id", "casino_id", "coup_id", "coup_step_id", "game_coup_id", "id", "idempotency_key",
        "kind", "memo", "posted_at", "reverses_id",
    ],
    "reports_reportrun": [
        "attempts", "casino_id", "end", "error", "file", "finished_at", "format", "heartbeat_at", "id",
        "kind", "parameters", "requested_at", "requested_by_id", "requested_label", "row_count",
        "rows_done", "rows_expected", "sha256", "start", "started_at", "status", "table_id",
    ],
    "tables_bankshare": [
        "contributed", "contributed_at", "id", "spectator_id", "turn_id", "withdrawn", "withdrawn_at",
    ],
    "tables_banktax": ["amount", "basis", "coup_id", "id"],
    "tables_bankturn": [
        "end_reason", "ended_at", "id", "player_id", "required_minimum", "rotation_from_id", "seat_id",
        "session_id", "started_at", "started_how",
    ],
    "tables_bet": [
        "amount", "banco", "banco_suivi", "betting_order", "coup_id", "id", "replaces_id", "seat_id",
        "spectator_id", "withdrawn",
    ],
    "tables_coup": [
        "alarm", "bank", "bank_turn_id", "banker_id", "created_at", "first_coup_of_bank", "flagged", "id",
        "number", "rules", "settled_at", "shoe_id", "state", "step_count",
    ],
    "tables_coupstep": [
        "actor_id", "corrects_id", "coup_id", "created_at", "id", "idempotency_key", "index", "kind",
        "payload", "supersedes_id", "violations",
    ],
    "tables_feehour": ["billed_at", "hour_start", "id", "session_id", "total"],
    "tables_gamecoup": [
        "banker_id", "created_at", "created_by_id", "ended_at", "game", "house_settings", "id", "number",
        "outcome", "record", "seating", "session_id", "state", "step_count", "table_id", "void_reason",
    ],
    "tables_gamestep": ["actor_id", "coup_id", "created_at", "id", "idempotency_key", "index", "payload"],
    "tables_seat": ["id", "joined_at", "left_at", "number", "player_id", "session_id"],
    "tables_shoe": [
        "alarm", "burnt_cards", "close_reason", "closed_at", "cut_by_id", "cut_card_position", "decks",
        "early_reshuffle", "id", "imported", "number", "session_id", "shuffled_at", "state",
        "stop_card_position", "stop_reached", "table_id",
    ],
    "tables_shoecard": ["card", "coup_id", "id", "position", "replaces_id", "role", "seen_at", "shoe_id"],
    "tables_spectator": ["id", "joined_at", "left_at", "player_id", "session_id"],
}  # fmt: skip


def test_the_columns_of_every_bound_table_are_known() -> None:
    """What each digest covers, by name: a coup's ``rules`` is the content of the rules snapshot
    it references (``Coup.AUDIT_ROW_READS``), under the name its own copy had."""
    assert {m._meta.db_table: RowReader(m, "default").columns for m in bound_models()} == BOUND_COLUMNS
    columns = {m._meta.db_table: [f.column for f in row_columns(m)] for m in bound_models()}
    assert columns["tables_coup"] == [
        "alarm", "bank", "bank_turn_id", "banker_id", "created_at", "first_coup_of_bank", "flagged", "id",
        "number", "rules_snapshot_id", "settled_at", "shoe_id", "state", "step_count",
    ]  # fmt: skip


# ------------------------------------------------------------------------------------- the writer


def _by_hand(model: type[models.Model], pk: int) -> tuple[str, str]:
    """A row's digest and prints from ``.values()`` (by attribute name, mapped to the columns)."""
    row = model._base_manager.values().get(pk=pk)
    named = {str(f.column): row[f.attname] for f in model._meta.concrete_fields}
    if model is Coup:  # the rules it references, under the name its copy had (Coup.AUDIT_ROW_READS)
        named["rules"] = RulesSnapshot.objects.get(digest=named.pop("rules_snapshot_id")).content
    columns = sorted(named)
    values = [named[column] for column in columns]
    return row_digest(model._meta.db_table, columns, values), column_prints(columns, values)


@pytest.mark.django_db
def test_a_bet_step_binds_the_coup_the_step_and_the_bet_as_committed(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = Coup.objects.get(pk=step_coup(floor).pk)
    started = AuditEvent.objects.get(action="tables.coup.start", object_id=str(coup.pk))
    first = CoupStep.objects.get(coup=coup, index=1)
    coup_then = _by_hand(Coup, coup.pk)
    assert started.rows == [
        ["tables_coup", coup.pk, _packed(*coup_then)],
        ["tables_coupstep", first.pk, _packed(*_by_hand(CoupStep, first.pk))],
    ]
    step(floor, coup, K.BET, seat=2, amount=50)
    event = AuditEvent.objects.filter(action="tables.coup.step").latest("id")
    bet = Bet.objects.get(coup=coup)
    second = CoupStep.objects.get(coup=coup, index=2)
    # the coup as the step found it (locked) goes with its binding: the state the start bound
    assert event.rows == [
        ["tables_bet", bet.pk, _packed(*_by_hand(Bet, bet.pk))],
        ["tables_coup", coup.pk, _packed(*_by_hand(Coup, coup.pk), *coup_then)],
        ["tables_coupstep", second.pk, _packed(*_by_hand(CoupStep, second.pk))],
    ]


def test_a_row_bound_as_written_has_the_digest_of_its_json_as_the_database_gives_it_back() -> None:
    """A step bound by its values in memory (RowWritten): a tuple in its payload comes back from
    the database a list and an integer key a string, and the digest is of that, as read back."""
    at = dt.datetime(2026, 1, 2, 3, 4, 5, 6789, tzinfo=dt.UTC)
    common = {"pk": 7, "coup_id": 3, "index": 2, "kind": "bet", "actor_id": 1, "created_at": at}
    sent = CoupStep(**common, payload={"cards": ("2H", "3C"), 4: {"n": 1}}, violations=("no_bet",))
    stored = CoupStep(**common, payload={"cards": ["2H", "3C"], "4": {"n": 1}}, violations=["no_bet"])
    reader = RowReader(CoupStep, "default")
    assert reader.state(reader.written_values(sent)) == reader.state(reader.instance_values(stored))
    # the instance's own values would not do: a tuple column is not the list the database holds
    plain = CoupStep(**common, payload={"cards": ["2H", "3C"], "4": {"n": 1}}, violations=("no_bet",))
    assert reader.state(reader.instance_values(plain)) != reader.state(reader.instance_values(stored))
    assert reader.state(reader.written_values(plain)) == reader.state(reader.instance_values(stored))


@pytest.mark.django_db
def test_a_row_not_saved_is_refused_as_written_too() -> None:
    with transaction.atomic(), pytest.raises(ValueError, match="tables_casino is not a bound table"):
        audit_record(actor=None, action="test.bind", rows=[RowWritten(Casino(pk=1))])
    with transaction.atomic(), pytest.raises(ValueError, match="a Bet with no id cannot be bound"):
        audit_record(actor=None, action="test.bind", rows=[RowWritten(Bet())])


def _packed(*hexes: str) -> str:
    """A binding's packed string by hand (docs/audit.md): base64url, no padding, of the layout byte
    (1: the row as committed; 2: then as its transaction loaded it) and the digests and prints."""
    raw = bytes([1 if len(hexes) == 2 else 2]) + b"".join(bytes.fromhex(h) for h in hexes)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def test_a_packed_binding_reads_back_as_the_hex_it_packed() -> None:
    committed = RowState(pk=7, digest="ab" * 32, prints="0123" * 14)
    loaded = RowState(pk=7, digest="cd" * 32, prints="4567" * 14)
    alone, both = binding_pack(committed, None), binding_pack(committed, loaded)
    assert (len(alone), len(both)) == (82, 162)  # 61 and 121 bytes, base64: hex took 120 and 240
    assert binding_unpack(alone) == Bound(digest="ab" * 32, prints="0123" * 14)
    assert binding_unpack(both) == Bound(
        digest="ab" * 32, prints="0123" * 14, before_digest="cd" * 32, before_prints="4567" * 14
    )
    for forged in (
        "",
        "!!",
        _packed("ab" * 16, "")[:-2],
        base64.urlsafe_b64encode(b"\x03" + bytes(40)).decode(),
    ):
        with pytest.raises(ValueError, match="not a packed binding"):
            binding_unpack(forged)


def step_coup(floor: Any) -> Coup:
    from tables import services

    return services.coup_start(actor=floor.croupier, session=floor.session, amount=200).coup


@pytest.mark.django_db
def test_a_posting_binds_its_transaction_and_every_entry(croupier, table) -> None:
    open_floor(croupier, table, seats=(1,))
    txn = Transaction.objects.get(kind="buy_in")
    event = AuditEvent.objects.get(object_type="ledger.transaction", object_id=str(txn.pk))
    entries = sorted(Entry.objects.filter(transaction=txn).values_list("pk", flat=True))
    assert len(entries) == 2
    assert event.rows == [
        *(["ledger_entry", pk, _packed(*_by_hand(Entry, pk))] for pk in entries),
        ["ledger_transaction", txn.pk, _packed(*_by_hand(Transaction, txn.pk))],
    ]


@pytest.mark.django_db
def test_a_row_of_a_table_that_is_not_bound_is_refused_at_once(table) -> None:
    with transaction.atomic(), pytest.raises(ValueError, match="tables_casino is not a bound table"):
        audit_record(actor=None, action="test.bind", rows=[table.casino])
    with transaction.atomic(), pytest.raises(ValueError, match="tables_casino is not a bound table"):
        audit_record(actor=None, action="test.bind", rows=[RowsWhere(Casino, "id", table.casino_id)])


@pytest.mark.django_db
def test_a_row_not_saved_is_refused_at_once() -> None:
    with transaction.atomic(), pytest.raises(ValueError, match="a Bet with no id cannot be bound"):
        audit_record(actor=None, action="test.bind", rows=[Bet()])


@pytest.mark.django_db(transaction=True)
def test_an_event_binding_a_row_that_was_never_written_fails_the_transaction_whole(table) -> None:
    """The writer's bug (an id that names nothing) is found at the COMMIT: nothing is written."""
    events = AuditEvent.objects.count()
    refusal = "tables_bet row 987654 is bound to an audit event but is not written"
    with pytest.raises(RowNotFound, match=refusal), transaction.atomic():
        audit_record(actor=None, action="test.bind", target=table.casino)
        audit_record(actor=None, action="test.bind", rows=[Bet(pk=987654)])
    assert AuditEvent.objects.count() == events


# ------------------------------------------------------------------- showing what an event binds


@pytest.mark.django_db
def test_the_rows_a_page_of_events_binds_are_read_with_one_select_a_table(
    croupier, table, django_assert_num_queries
) -> None:
    """A step's event names its step (index and kind): its content is the bound coupstep row,
    read for a whole page of events with one SELECT per table, not one a row."""
    floor = open_floor(croupier, table)
    coup = step_coup(floor)
    step(floor, coup, K.BET, seat=2, amount=50)
    step(floor, coup, K.BETS_CLOSED)
    events = list(AuditEvent.objects.filter(action="tables.coup.step").order_by("seq"))
    assert [e.after for e in events] == [{"index": 2, "kind": "bet"}, {"index": 3, "kind": "bets_closed"}]
    bet, closed = CoupStep.objects.filter(coup=coup, index__in=(2, 3)).order_by("index")
    with django_assert_num_queries(3):  # tables_bet, tables_coup, tables_coupstep
        shown = audit_bound_rows(events)
    assert [[(b.table, b.pk, b.as_bound) for b in shown[e.pk]] for e in events] == [
        # the coup was bound again by the next step: the first event's binding is of it as it was
        [("tables_bet", Bet.objects.get(coup=coup).pk, True), ("tables_coup", coup.pk, False),
         ("tables_coupstep", bet.pk, True)],
        [("tables_coup", coup.pk, True), ("tables_coupstep", closed.pk, True)],
    ]  # fmt: skip
    steps = audit_bound_rows(events, tables={"tables_coupstep"})
    assert [[(b.values or {})["payload"] for b in steps[e.pk]] for e in events] == [
        [{"order": 11, "amount": 50, "punter": "seat-2", "spectator": False}],
        [{}],
    ]


@pytest.mark.django_db
def test_an_event_that_copied_its_step_still_verifies_beside_those_that_name_it(croupier, table) -> None:
    """The events stored before steps were named rather than copied keep their whole ``after``:
    the hash covers whatever an event stored, so they verify as they did, beside the new ones."""
    floor = open_floor(croupier, table)
    coup = step_coup(floor)
    step(floor, coup, K.BET, seat=2, amount=50)
    row = CoupStep.objects.get(coup=coup, index=2)
    copied = {"index": 2, "kind": "bet", "payload": row.payload, "violation": None, "confirmed": False}
    with transaction.atomic():
        old = audit_record(actor=croupier, action="tables.coup.step", target=coup, after=copied, rows=[row])
    step(floor, coup, K.BETS_CLOSED)
    assert AuditEvent.objects.get(pk=old.pk).after == copied
    assert [r.table for r in audit_bound_rows([old])[old.pk] if r.as_bound] == ["tables_coupstep"]
    report = audit_chain_verify(chain=table.casino_id)
    assert (report.ok, report.checked) == (True, AuditEvent.objects.filter(chain=table.casino_id).count())
    assert [str(d) for d in rows_verify().differences] == []

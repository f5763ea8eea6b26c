"""The exact SQL statements a step POST costs, step kind by step kind (issue 22 §1): the counts
measured when they were cut, pinned on both databases so that a statement more (or a savepoint
back) is seen at once. tests/tables/api/test_queries_api.py bounds the same coups with a margin;
this file pins them without one.

What a plain step (bets_closed, a draw or a stand, a natural) costs now, 8 statements on
PostgreSQL: the token with its user; BEGIN (here SAVEPOINT); the idempotency claim; the coup's
table, shoe and coup locked, the croupier's shift asked and the coup's steps read (tables.sql, one
statement; the steps are read again only when a step was committed while it waited); the step's row
with the coup's counter and flag (one data-modifying WITH); the stored answer; the audit event,
inserted by the statement that takes the chain's lock and reads its head, and only if that head is
the one this connection appended last (audit.services ``_append_at_head``; when another transaction
appended meanwhile, that statement inserts nothing and the event is inserted after it: one
statement more, as before); COMMIT (here RELEASE). No row is read back for the audit event's
binding: a step binds the rows it wrote by the values it sent (audit.rows.RowWritten). A bet adds
the read of its bettor's place (its row, its betting order found by the INSERT, is written by the
step's own WITH: tables.sql.step_bet_insert), a card nothing (its row and the shoe's counts, the
same: step_card_insert), a banco the other bets withdrawn and the ledger's checks. A ledger
posting's transaction is one ``INSERT … ON CONFLICT (idempotency_key) DO NOTHING``, with no
savepoint inside the request's transaction (ledger.sql.transaction_insert), and it and its entries
are bound to their audit event as their INSERTs gave them back (no read). A coup's start looks for
no replay of its bank's posting (the coup is new); a reveal first reads the bindings of the events
about its coup, to vouch for the coup's row and steps, its bank turn and the seats and spectators
of its bets (read by that same statement) before money moves on them (tables.services.vouching, one
statement); its settlement reads the coup's bets with the coup in its context and its prior
postings (tables.money.settlement.coup_settle_reads_punters, one statement), binds the coup as the
step left it, and writes the coup settled, its levy's row and the banker's next minimum in one
data-modifying WITH (tables.sql.coup_settled_write), the bank turn not read first: its audit
event's minimum before and after are the ones that statement found and left.

A coup's start (bank declared), 15 statements on PostgreSQL: the token, BEGIN, the idempotency
claim; the table and its open session locked, the table read with its profile and casino and the
croupier's shift there asked, all in one statement (tables.sql ``open_session_lock``: what the
view read before the service locked); the open shoe locked and everything the start checks and
counts read with it — its bank turn with the seat and player, a coup still in play, a pause, the
series, the shoe's last coup number and the bank's coups played (``coup_start_read``, a statement
of its own so that it reads what a start that held the table's lock before it committed); the
bindings of the events about the bank turn, its seat and the session, to vouch for the turn and
its seat before the bank is funded from its player's chips (tables.services.vouching
``bank_rows_vouch``, one statement: a turn handed to another player in the database was played
on before); the rules snapshot, the coup and its step; the bank's funding (tables/money/: three); the stored
answer, the audit event, COMMIT.

PostgreSQL and SQLite differ by the statements PostgreSQL alone runs (the ledger's hot-path SQL)
and by the ones it runs as one where SQLite has no data-modifying WITH: a step's row and its
coup's counter, a card's counts and its row (SQLite one statement more for each), a settled coup's
state, levy and bank minimum (SQLite three statements and the bank turn's read), the audit
chain's head and its event (SQLite reads the head under the database's write lock, then inserts)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEvent
from audit.row_verify import rows_verify
from tables.models import BankTurn
from tests.tables.play import open_floor

from .conftest import Api

pytestmark = pytest.mark.django_db


def _played(croupier: Any, table: Any) -> list[tuple[str, int, list[str]]]:
    """Two coups through the API (three bets and a levy, then a banco): per POST its kind, the
    number of statements and those that open or release a savepoint."""
    floor = open_floor(croupier, table, spectators=1)
    api = Api(croupier)
    seen: list[tuple[str, int, list[str]]] = []

    def post(path: str, body: dict[str, Any], kind: str) -> dict[str, Any]:
        with CaptureQueriesContext(connection) as ctx:
            answer = api.ok(api.post(path, body))
        sql = [q["sql"] for q in ctx.captured_queries]
        seen.append((kind, len(sql), [s for s in sql if "SAVEPOINT" in s.upper()]))
        return answer

    def play(bank: int, steps: list[tuple[str, dict[str, Any]]]) -> str:
        coup = post(f"/tables/{table.pk}/coups/", {"bank": bank}, "bank_declared")["coup"]
        for kind, fields in steps:
            body = {"step": api.seen[coup["id"]], "kind": kind, **fields}
            coup = post(f"/coups/{coup['id']}/steps/", body, kind)["coup"]
        return str(coup["state"])

    cards = ("card_to_player", "card_to_banker", "card_to_player", "card_to_banker")
    first = play(
        200,
        [
            *[("bet", {"seat": seat, "amount": amount}) for seat, amount in ((2, 120), (3, 50), (4, 30))],
            ("bets_closed", {}),
            *[(kind, {"card": card}) for kind, card in zip(cards, ("2H", "AS", "3C", "2D"), strict=True)],
            ("player_draw", {}),
            ("card_to_player", {"card": "9H"}),
            ("banker_draw", {}),
            ("card_to_banker", {"card": "5S"}),
            ("reveal", {}),
        ],
    )
    second = play(
        390,
        [
            ("banco", {"callers": [{"spectator": floor.spectators[0].pk}, {"seat": 3}]}),
            ("bets_closed", {}),
            *[(kind, {"card": card}) for kind, card in zip(cards, ("4H", "5D", "AC", "3S"), strict=True)],
            ("player_stand", {}),
            ("banker_natural", {}),
            ("reveal", {}),
        ],
    )
    assert (first, second) == ("settled", "settled")
    return seen


#: per POST of the two coups, in order: (kind, statements on PostgreSQL, on SQLite). In a test the
#: request's transaction is a savepoint of the test's (SAVEPOINT / RELEASE where a real request
#: has BEGIN / COMMIT: the same count). A card is one statement more when the next step is an
#: option (the advice reads the shoe); on SQLite a card's counts and row are two statements more
#: than its step's. The first coup of a bank opens its ledger accounts. A coup's start keeps its
#: rules snapshot (one INSERT … ON CONFLICT DO NOTHING: tables 0031).
EXPECTED = [
    # the start vouches for its bank turn (one statement more since the floor's rows were bound)
    ("bank_declared", 22, 24),
    ("bet", 9, 12),
    ("bet", 9, 12),
    ("bet", 9, 12),
    ("bets_closed", 8, 10),
    ("card_to_player", 8, 12),
    ("card_to_banker", 8, 12),
    ("card_to_player", 8, 12),
    ("card_to_banker", 9, 13),
    ("player_draw", 8, 10),
    ("card_to_player", 9, 13),
    ("banker_draw", 8, 10),
    ("card_to_banker", 8, 12),
    ("reveal", 18, 24),  # three punters paid and a levy
    ("bank_declared", 15, 16),
    ("banco", 13, 15),
    ("bets_closed", 8, 10),
    ("card_to_player", 8, 12),
    ("card_to_banker", 8, 12),
    ("card_to_player", 8, 12),
    ("card_to_banker", 8, 12),
    ("player_stand", 8, 10),
    ("banker_natural", 8, 10),
    ("reveal", 15, 21),
]


def test_each_step_post_costs_exactly_the_statements_measured(croupier, table) -> None:
    column = 1 if connection.vendor == "postgresql" else 2
    played = [(kind, count) for kind, count, _ in _played(croupier, table)]
    assert played == [(row[0], row[column]) for row in EXPECTED]


def test_a_step_opens_no_savepoint_of_its_own(croupier, table) -> None:
    """The step service joins the request's transaction (core.atomic): the only savepoint of a
    step that moves no chips is the request's own transaction, here inside the test's."""
    for kind, _, savepoints in _played(croupier, table):
        if kind in ("bank_declared", "reveal") and savepoints[1:-1]:
            continue  # the first coup's posting opens the ledger accounts, each in a savepoint
        assert [s.split()[0] for s in savepoints] == ["SAVEPOINT", "RELEASE"], kind


def test_every_row_the_steps_bound_by_their_values_is_the_row_as_committed(croupier, table) -> None:
    """The steps bind the rows they just wrote by the values they sent (audit.rows.RowWritten),
    not read back: every one of them, and the coup's state carried from one step's binding to the
    next one's, is what the database holds — the whole check of the bound rows finds nothing."""
    _played(croupier, table)
    assert [str(d) for d in rows_verify().differences] == []


def test_a_reveal_audits_the_bankers_new_minimum_with_the_turn_before_and_after(croupier, table) -> None:
    """The reveal writes the bank turn's new minimum without reading the turn (PostgreSQL: with
    the coup's state and the levy, tables.sql.coup_settled_write): its event carries the field it
    changed before and after, as every audited change of a row does (row_update_audited, the
    path SQLite takes), on the table's casino's chain: 1 -> 390 after the first coup (a bank of
    200: 200 won, 10 levied), 390 -> 761 after the second (390 won, 19 levied)."""
    _played(croupier, table)
    turn = BankTurn.objects.get(session__table=table)
    assert (turn.required_minimum, turn.ended_at) == (761, None)
    events = AuditEvent.objects.filter(action="tables.bank.continue").order_by("seq")
    assert [(e.chain, e.object_id, e.before, e.after) for e in events] == [
        (table.casino_id, str(turn.pk), {"required_minimum": 1}, {"required_minimum": 390}),
        (table.casino_id, str(turn.pk), {"required_minimum": 390}, {"required_minimum": 761}),
    ]

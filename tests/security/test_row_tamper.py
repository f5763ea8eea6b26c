"""Issue 20 §1: a row that records the game or the money, changed behind the application's back,
is found and named (the table, the row, the column), whether or not the money moved; run as the
application's own database role (what it may do is detected, what it may not is refused with
nothing changed) and as a superuser with every trigger off.

The data is the real services' (tests/security/test_db_attacks.py's ``played``: a coup settled
with its levy, the next coup open with a bet), committed so that the attacker's connection sees it.
Each attack is one list of statements, run as either; the verdicts are read by the test's own
connection: ``verify_books`` and ``verify_audit --full`` name each row.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from audit.row_verify import rows_verify
from chemin_de_fer.engine.order import betting_turn
from chemin_de_fer.engine.profiles import Side
from ledger.models import Transaction
from tables.lifecycle import CoupRecordsChanged
from tables.models import Bet, Coup, CoupStep, ShoeCard
from tables.money.books import books_verify
from tests.audit.rows import books_line, bound_by, row_changed, row_gone, row_unbound
from tests.security.db_role import (
    INSUFFICIENT_PRIVILEGE,
    RESTRICT_VIOLATION,
    AppRole,
    Played,
    _books,
    refused,
)
from tests.tables.play import K, step

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

Statements = list[tuple[str, Sequence[Any]]]


def as_app(role: AppRole, statements: Statements) -> None:
    with role.connect() as conn, conn.transaction():
        for sql, params in statements:
            conn.execute(sql, params)


def as_superuser(statements: Statements) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        for sql, params in statements:
            cursor.execute(sql, params)


def rows_named() -> list[str]:
    return [str(d) for d in rows_verify().differences]


def verify_audit_rows() -> tuple[int, list[str]]:
    out = io.StringIO()
    try:
        call_command("verify_audit", "--full", stdout=out, stderr=io.StringIO())
    except CommandError as error:
        code = error.returncode
    else:
        code = 0
    lines = out.getvalue().splitlines()
    return code, [line.removeprefix("  ROW ") for line in lines if line.startswith("  ROW ")]


def test_the_played_history_is_clean(played: Played) -> None:
    assert rows_named() == []
    assert verify_audit_rows() == (0, [])
    assert [str(d) for d in books_verify().differences] == []


# ------------------------------------------ the reporter's attack: a forged bet the app then settles


def _forged_bet(played: Played) -> Statements:
    """A bet of seat 3 (50 chips) and its step, written straight into the open coup, its step
    count moved on so the tablet's next step follows it."""
    coup = played.open_coup
    last = CoupStep.objects.filter(coup=coup).order_by("-index").first()
    seat = coup.shoe.session.seats.get(number=3)
    assert last is not None
    table = coup.shoe.table
    order = betting_turn(
        seat=3, banker_seat=1, seat_count=table.seat_count, betting_from=Side(table.profile.betting_from)
    )
    payload = json.dumps({"punter": "seat-3", "amount": 50, "spectator": False, "order": order})
    return [
        (
            'INSERT INTO tables_coupstep (coup_id, "index", kind, payload, actor_id, created_at, violations, '
            "idempotency_key) VALUES (%s, %s, 'bet', %s, %s, now(), '[]', '')",
            (coup.pk, last.index + 1, payload, last.actor_id),
        ),
        (
            "INSERT INTO tables_bet (coup_id, seat_id, amount, banco, banco_suivi, betting_order, withdrawn) "
            "VALUES (%s, %s, 50, false, false, 2, false)",
            (coup.pk, seat.pk),
        ),
        ("UPDATE tables_coup SET step_count = step_count + 1 WHERE id = %s", (coup.pk,)),
    ]


def _play_to_the_reveal(played: Played) -> Coup:
    """The croupier plays the open coup on to its reveal, which refuses to settle the forged bet."""
    coup, floor = Coup.objects.get(pk=played.open_coup.pk), played.floor
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in (
        (K.CARD_TO_PLAYER, "9C"),
        (K.CARD_TO_BANKER, "2C"),
        (K.CARD_TO_PLAYER, "KH"),
        (K.CARD_TO_BANKER, "3D"),
    ):
        step(floor, coup, kind, card=card)
    step(floor, coup, K.PLAYER_NATURAL)
    with pytest.raises(CoupRecordsChanged) as refused_reveal:
        step(floor, coup, K.REVEAL)
    assert str(refused_reveal.value) == (
        "This coup's record was changed outside the application (step 3 was never recorded at the "
        "table): nothing was settled. Call the pit boss: the coup can only be voided."
    )
    coup.refresh_from_db()
    return coup


@pytest.mark.parametrize("who", ["app", "superuser"])
def test_a_forged_bet_step_is_named_and_the_application_refuses_to_settle_it(
    who: str, app_role: AppRole, played: Played
) -> None:
    """The reporter's attack (issue 20): a forged bet was settled by the next reveal, the chips
    moved. The reveal now vouches for the coup's steps first (tables.services.vouching): nothing is
    settled, and the verifier names the same rows as before."""
    forged = _forged_bet(played)
    bound_before = bound_by("tables_coup", played.open_coup.pk)
    as_app(app_role, forged) if who == "app" else as_superuser(forged)
    coup = _play_to_the_reveal(played)
    assert coup.state == Coup.State.OPEN
    assert not Transaction.objects.filter(coup=coup, kind=Transaction.Kind.COUP_SETTLEMENT).exists()
    step_row = CoupStep.objects.get(coup=coup, index=3)
    bet = Bet.objects.get(coup=coup, seat__number=3)
    bound_after = CoupStep.objects.get(coup=coup, index=4)  # bets closed: the coup's next binding
    closed = _events_binding("tables_coupstep", bound_after.pk)[0]
    named = [
        f"tables_bet row {bet.pk}: no audit event binds this row (written outside the application)",
        f"tables_coup row {coup.pk}: column step_count changed between event seq {bound_before.seq} of "
        f"chain {bound_before.chain} and event seq {closed.seq} of chain {closed.chain}, outside the "
        "application",
        row_unbound("tables_coupstep", step_row.pk),
    ]
    assert rows_named() == named
    assert verify_audit_rows() == (1, named)
    books = [str(d) for d in books_verify().differences]
    assert books == [books_line(n) for n in named]


def _events_binding(table: str, pk: int) -> list[Any]:
    from audit.models import AuditEvent

    events = AuditEvent.objects.exclude(rows=None).order_by("id")
    return [e for e in events if [table, pk] in [r[:2] for r in e.rows or ()]]


# ------------------------------------------------------------------ what only a superuser can do


@dataclass(frozen=True)
class Attack:
    name: str
    statements: Callable[[Played], Statements]
    #: what the rows' check names (the rows read before the attack)
    named: Callable[[Played], list[str]]
    #: the application's role: refused with this SQLSTATE (it may not touch the row at all)
    refused_as: str


def _card(played: Played) -> ShoeCard:
    return ShoeCard.objects.get(coup=played.coup, card="2H")


def _card_step(played: Played) -> CoupStep:
    return CoupStep.objects.get(coup=played.coup, kind="card_to_player", payload__card="2H")


def _reveal(played: Played) -> CoupStep:
    return CoupStep.objects.get(coup=played.coup, kind="reveal")


ATTACKS = [
    Attack(
        "a dealt card changed, the money the same (2H for 2S)",
        lambda p: [
            ("UPDATE tables_shoecard SET card = '2S' WHERE id = %s", (_card(p).pk,)),
            ("UPDATE tables_coupstep SET payload = '{\"card\": \"2S\"}' WHERE id = %s", (_card_step(p).pk,)),
        ],
        lambda p: [
            row_changed("tables_coupstep", _card_step(p).pk, "payload"),
            row_changed("tables_shoecard", _card(p).pk, "card"),
        ],
        INSUFFICIENT_PRIVILEGE,
    ),
    Attack(
        "who recorded a step",
        lambda p: [
            ("UPDATE tables_coupstep SET actor_id = %s WHERE id = %s", (_other_user(), _card_step(p).pk))
        ],
        lambda p: [row_changed("tables_coupstep", _card_step(p).pk, "actor_id")],
        INSUFFICIENT_PRIVILEGE,
    ),
    Attack(
        "the stored result (the reveal's verdict)",
        lambda p: [
            (
                "UPDATE tables_coupstep SET payload = jsonb_set(payload, '{verdict,outcome}', '\"player\"') "
                "WHERE coup_id = %s AND kind = 'reveal'",
                (p.coup.pk,),
            )
        ],
        lambda p: [row_changed("tables_coupstep", _reveal(p).pk, "payload")],
        INSUFFICIENT_PRIVILEGE,
    ),
    Attack(
        "the settle time",
        lambda p: [
            (
                "UPDATE tables_coup SET settled_at = settled_at + interval '1 second' WHERE id = %s",
                (p.coup.pk,),
            )
        ],
        lambda p: [row_changed("tables_coup", p.coup.pk, "settled_at")],
        RESTRICT_VIOLATION,  # a coup that is over is frozen
    ),
    Attack(
        "a bet deleted",
        lambda p: [("DELETE FROM tables_bet WHERE id = %s", (_first_bet(p).pk,))],
        lambda p: [row_gone("tables_bet", _first_bet(p).pk, bound_by("tables_bet", _first_bet(p).pk))],
        RESTRICT_VIOLATION,  # a bet is never deleted
    ),
    Attack(
        "a levy lowered",
        lambda p: [("UPDATE tables_banktax SET amount = 5 WHERE coup_id = %s", (p.coup.pk,))],
        lambda p: [row_changed("tables_banktax", p.coup.tax.pk, "amount")],
        INSUFFICIENT_PRIVILEGE,
    ),
]


def _first_bet(played: Played) -> Bet:
    bet = Bet.objects.filter(coup=played.coup).order_by("pk").first()
    assert bet is not None
    return bet


def _other_user() -> int:
    from tests.factories import UserFactory

    return UserFactory(username="someone-else").pk


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_as_a_superuser_the_change_is_named(attack: Attack, played: Played) -> None:
    named = attack.named(played)
    statements = attack.statements(played)
    as_superuser(statements)
    assert rows_named() == named
    assert verify_audit_rows() == (1, named)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_as_the_app_role_the_change_is_refused_and_nothing_changes(
    attack: Attack, app_role: AppRole, played: Played
) -> None:
    statements = attack.statements(played)
    before = _books()
    steps = list(CoupStep.objects.order_by("pk").values_list("pk", "payload", "actor_id"))
    cards = list(ShoeCard.objects.order_by("pk").values_list("pk", "card"))
    error = refused(app_role, statements)
    assert error.sqlstate == attack.refused_as, str(error)
    assert _books() == before
    assert list(CoupStep.objects.order_by("pk").values_list("pk", "payload", "actor_id")) == steps
    assert list(ShoeCard.objects.order_by("pk").values_list("pk", "card")) == cards
    assert rows_named() == []


def test_an_open_coup_changed_by_the_app_role_is_named_while_it_is_played(
    app_role: AppRole, played: Played
) -> None:
    """The app's role may update an open coup (the services do): its bank lowered between two
    steps is named, though the next step binds the coup as it then is."""
    coup = played.open_coup
    before = bound_by("tables_coup", coup.pk)
    as_app(app_role, [("UPDATE tables_coup SET bank = 300 WHERE id = %s", (coup.pk,))])
    assert rows_named() == [row_changed("tables_coup", coup.pk, "bank")]
    step(played.floor, Coup.objects.get(pk=coup.pk), K.BETS_CLOSED)
    after = bound_by("tables_coup", coup.pk)
    assert rows_named() == [
        f"tables_coup row {coup.pk}: column bank changed between event seq {before.seq} of chain "
        f"{before.chain} and event seq {after.seq} of chain {after.chain}, outside the application"
    ]


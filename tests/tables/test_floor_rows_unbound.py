"""The floor's rows that no event binds (docs/audit.md, "Before money moves"): a seat or a bank
turn INSERTed straight into the database, with no audit event binding it, is refused like a
changed one at the coup's start and at its reveal (tables.services.vouching), nothing written,
and the pit boss's void the way on; a row bound as the upgrade bound those it found (tables 0036:
events about no object) is vouched for by that binding."""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.utils import timezone

from audit.models import AuditEvent
from audit.row_verify import rows_verify
from ledger import services as ledger
from ledger.models import Account, AccountKind, Entry
from tables import services
from tables.lifecycle import CoupRecordsChanged
from tables.models import BankTurn, Coup, CoupStep, Seat
from tests.audit.rows import superuser_sql
from tests.factories import PlayerFactory
from tests.tables.play import K, open_floor, row_counts, step
from tests.tables.test_floor_rows_bound import CARDS, balances, coup_at_its_reveal, play

pytestmark = pytest.mark.django_db

REVEAL_REFUSED = (
    "This coup's record was changed outside the application ({changes}): nothing was settled. "
    "Call the pit boss: the coup can only be voided."
)


def raw(sql: str, params: list[Any]) -> None:
    """A write as the application's own login could make it: no trigger stands in its way."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def seat_inserted(session_id: int, player_id: int, number: int) -> int:
    raw(
        "INSERT INTO tables_seat (session_id, player_id, number, joined_at) VALUES (%s, %s, %s, %s)",
        [session_id, player_id, number, timezone.now()],
    )
    return Seat.objects.get(session_id=session_id, number=number, left_at__isnull=True).pk


def victim_bought_in(table: Any, croupier: Any, chips: int = 5000) -> Any:
    victim = PlayerFactory(casino=table.casino, display_name="Victim")
    ledger.cage_buy_in(casino=table.casino, player=victim, amount=chips, actor=croupier, key="victim")
    return victim


#: a coup played up to its reveal (tests/tables/test_floor_rows_bound.py)
played_to_its_reveal = coup_at_its_reveal


def chips(player: Any) -> int:
    return Account.objects.get(kind=AccountKind.PLAYER, player=player).balance


def written() -> tuple[dict[str, int], dict[int, int], int, int]:
    """Every count and balance a refusal must leave as it found them."""
    return row_counts(), balances(), CoupStep.objects.count(), Entry.objects.count()


def bound_as_the_upgrade_binds() -> None:
    """Tables 0036's own binding of the rows it finds (events about no object, 500 rows each)."""
    migration = importlib.import_module("tables.migrations.0036_bind_floor_rows")
    with transaction.atomic():
        migration.bind_existing(apps, SimpleNamespace(connection=connection))


def test_a_seat_inserted_for_a_victim_is_refused_at_the_reveal_nothing_written(
    croupier, table, pit_boss
) -> None:
    floor = open_floor(croupier, table)
    victim = victim_bought_in(table, croupier)
    seat = seat_inserted(floor.session.pk, victim.pk, 5)
    assert any(f"tables_seat row {seat}" in str(d) for d in rows_verify().differences)
    coup = played_to_its_reveal(floor, croupier, seat=5)  # the bet is the victim's chips at stake
    before = written()
    with pytest.raises(CoupRecordsChanged) as refused:
        step(floor, coup, K.REVEAL)
    assert str(refused.value) == REVEAL_REFUSED.format(changes="seat 5 was never recorded at the table")
    assert written() == before
    assert chips(victim) == 5000
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == (Coup.State.OPEN, 11)
    # the pit boss's void is the way on
    services.coup_void(actor=pit_boss, coup=coup, reason="a seat nobody recorded")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID
    assert chips(victim) == 5000


def test_a_bank_turn_inserted_for_another_player_is_refused_at_bank_declared(croupier, table) -> None:
    floor = open_floor(croupier, table, banker_seat=None)
    assert not BankTurn.objects.filter(session=floor.session).exists()
    other = floor.seats[2]
    raw(
        "INSERT INTO tables_bankturn (session_id, player_id, seat_id, rotation_from_id, started_at,"
        " started_how, required_minimum, end_reason) VALUES (%s, %s, %s, %s, %s, %s, 1, '')",
        [floor.session.pk, other.player_id, other.pk, other.pk, timezone.now(), BankTurn.Start.LOT],
    )
    before = written()
    with pytest.raises(CoupRecordsChanged) as refused:
        services.coup_start(actor=croupier, session=floor.session, amount=200)
    assert str(refused.value) == (
        "The bank's record was changed outside the application (the bank turn was never recorded at "
        "the table): no coup was started. Call the pit boss."
    )
    assert written() == before
    assert not Coup.objects.exists()


def test_a_seat_bound_as_the_upgrade_binds_is_vouched_for_and_its_change_refused(croupier, table) -> None:
    """A seat written before its table was bound and bound by tables 0036 (no event about it) is
    settled on; changed after the upgrade, it is refused as a changed seat."""
    floor = open_floor(croupier, table)
    victim = victim_bought_in(table, croupier)
    seat = seat_inserted(floor.session.pk, victim.pk, 5)
    bound_as_the_upgrade_binds()
    assert not AuditEvent.objects.filter(object_type="tables.seat", object_id=str(seat)).exists()
    assert [str(d) for d in rows_verify().differences] == []
    coup = played_to_its_reveal(floor, croupier, seat=5)
    step(floor, coup, K.REVEAL)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED
    superuser_sql("UPDATE tables_seat SET joined_at = %s WHERE id = %s", [timezone.now(), seat])
    coup = played_to_its_reveal(floor, croupier, seat=5, bank=1000)  # the bank won 400: 685 at least
    before = written()
    with pytest.raises(CoupRecordsChanged) as refused:
        step(floor, coup, K.REVEAL)
    assert str(refused.value) == REVEAL_REFUSED.format(changes="seat 5 was changed")
    assert written() == before


def test_a_bank_turn_bound_as_the_upgrade_binds_starts_its_coup(croupier, table) -> None:
    """A bank turn taken by the services and a seat bound only by the upgrade's events: the start
    reads the upgrade's binding of the banker's seat, and plays."""
    floor = open_floor(croupier, table, banker_seat=None)
    victim = victim_bought_in(table, croupier)
    seat_inserted(floor.session.pk, victim.pk, 5)
    bound_as_the_upgrade_binds()
    seat = Seat.objects.get(number=5, session=floor.session)
    services.bank_first_assign(actor=croupier, session=floor.session, seat=seat)
    result = play(floor, bank=200, bets=[(3, 100)], **CARDS)
    assert result is not None

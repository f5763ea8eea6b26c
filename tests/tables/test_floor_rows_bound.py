"""The floor's rows bound to their events (docs/audit.md, "Rows bound to their events"): seats,
spectators, bank turns, bank shares and shoes, written by every service that writes them, and
vouched for before money moves on them (tables.services.vouching): a bank turn handed to another
player in the database, or a seat given to a player who never sat, is named by the verifier and
refused by the next coup's start or reveal, nothing written."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from audit.row_verify import rows_verify
from ledger import services as ledger
from ledger.models import Account
from tables import services
from tables.lifecycle import CoupRecordsChanged
from tables.models import BankTurn, Coup, Seat, Shoe, Spectator
from tests.audit.rows import row_changed, superuser_sql
from tests.factories import PlayerFactory
from tests.tables.play import K, open_floor, play, row_counts, step

pytestmark = pytest.mark.django_db

CARDS: dict[str, Any] = dict(
    cards=("2H", "AS", "3C", "2D"), player="draw", player_card="9H", banker="draw", banker_card="5S"
)


def verify_full() -> tuple[int, list[str]]:
    out = io.StringIO()
    try:
        call_command("verify_audit", "--full", stdout=out, stderr=io.StringIO())
    except CommandError as error:
        return error.returncode, out.getvalue().splitlines()
    return 0, out.getvalue().splitlines()


def balances() -> dict[int, int]:
    return dict(Account.objects.values_list("pk", "balance"))


def differences() -> list[str]:
    return [str(d) for d in rows_verify().differences]


def test_every_service_that_writes_the_floor_binds_its_rows(croupier, table) -> None:
    """Seats taken and left, spectators joining and leaving, the bank taken, continued, lost and
    passed, shoes started and closed, a session closed: the whole row check finds nothing."""
    floor = open_floor(croupier, table, spectators=2)
    play(floor, bank=200, bets=[(3, 100), (4, 50)], **CARDS)  # the bank won: its minimum moves on
    services.seat_leave(actor=croupier, seat=floor.seats[4])
    newcomer = PlayerFactory(casino=table.casino)
    services.seat_take(actor=croupier, session=floor.session, player=newcomer, number=4)
    services.spectator_leave(actor=croupier, spectator=floor.spectators[0])
    services.bank_pass(actor=croupier, session=floor.session)
    assert differences() == []
    for kind in (Seat, Spectator, BankTurn, Shoe):
        assert kind.objects.exists()
    shoe = Shoe.objects.get(session=floor.session, state=Shoe.State.OPEN)
    services.shoe_close(actor=croupier, shoe=shoe)
    services.table_session_close(actor=croupier, session=floor.session)
    assert differences() == []
    code, out = verify_full()
    assert code == 0, out


def test_a_bank_turn_handed_to_another_player_is_named_and_its_coup_refused(croupier, table) -> None:
    floor = open_floor(croupier, table)
    turn = BankTurn.objects.get(session=floor.session, ended_at__isnull=True)
    other = floor.seats[2]
    superuser_sql(
        "UPDATE tables_bankturn SET player_id = %s, seat_id = %s, rotation_from_id = %s, required_minimum = 1"
        " WHERE id = %s",
        [other.player_id, other.pk, other.pk, turn.pk],
    )
    code, out = verify_full()
    assert code == 1
    # (the table's minimum bank is 1 already: that column is as it was)
    changed = row_changed("tables_bankturn", turn.pk, "player_id", "rotation_from_id", "seat_id")
    assert f"  ROW {changed}" in out
    counts, money = row_counts(), balances()
    with pytest.raises(CoupRecordsChanged) as refused:
        services.coup_start(actor=croupier, session=floor.session, amount=200)
    assert str(refused.value) == (
        "The bank's record was changed outside the application (the bank turn was changed): no coup "
        "was started. Call the pit boss."
    )
    assert (row_counts(), balances()) == (counts, money)
    assert not Coup.objects.exists()


def coup_at_its_reveal(floor: Any, croupier: Any, *, seat: int = 3, bank: int = 400) -> Coup:
    """A coup of a ``bank`` played up to its reveal: ``seat`` bets 300, both hands draw."""
    coup = services.coup_start(actor=croupier, session=floor.session, amount=bank).coup
    step(floor, coup, K.BET, seat=seat, amount=300)
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in zip(
        (K.CARD_TO_PLAYER, K.CARD_TO_BANKER, K.CARD_TO_PLAYER, K.CARD_TO_BANKER),
        ("2H", "AS", "3C", "2D"),
        strict=True,
    ):
        step(floor, coup, kind, card=card)
    step(floor, coup, K.PLAYER_DRAW)
    step(floor, coup, K.CARD_TO_PLAYER, card="9H")
    step(floor, coup, K.BANKER_DRAW)
    step(floor, coup, K.CARD_TO_BANKER, card="5S")
    return coup


def test_a_seat_given_to_a_player_who_never_sat_is_named_and_the_reveal_refused(croupier, table) -> None:
    floor = open_floor(croupier, table)
    victim = PlayerFactory(casino=table.casino, display_name="Victim")
    ledger.cage_buy_in(casino=table.casino, player=victim, amount=5000, actor=croupier, key="victim")
    seat = floor.seats[3]
    superuser_sql("UPDATE tables_seat SET player_id = %s WHERE id = %s", [victim.pk, seat.pk])
    code, out = verify_full()
    assert code == 1
    assert f"  ROW {row_changed('tables_seat', seat.pk, 'player_id')}" in out
    coup = coup_at_its_reveal(floor, croupier)
    counts, money = row_counts(), balances()
    with pytest.raises(CoupRecordsChanged) as refused:
        step(floor, coup, K.REVEAL)
    assert str(refused.value) == (
        "This coup's record was changed outside the application (seat 3 was changed): nothing was "
        "settled. Call the pit boss: the coup can only be voided."
    )
    assert (row_counts(), balances()) == (counts, money)
    coup.refresh_from_db()
    assert coup.state == Coup.State.OPEN


def test_a_banker_seat_changed_between_two_events_is_named(croupier, table) -> None:
    """A seat changed and then left by the service: the leave's binding carries the seat as it
    found it, so the change in between is named (audit.rows.rows_loaded)."""
    floor = open_floor(croupier, table)
    seat = floor.seats[4]
    superuser_sql("UPDATE tables_seat SET number = 7 WHERE id = %s", [seat.pk])
    services.seat_leave(actor=croupier, seat=seat)
    found = differences()
    assert len(found) == 1 and found[0].startswith(f"tables_seat row {seat.pk}: column number changed"), found

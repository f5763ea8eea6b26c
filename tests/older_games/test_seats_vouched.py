"""An older game's coup moves the chips of the players seated at its table (its seating was taken
from the seats, an old baccarat newcomer joins from his): every step vouches, with the coup's row
and steps and in the same statement, for the seats at its session of the players it names
(tables.services.vouching.game_coup_vouch). A seat inserted in the database for a player who
never sat there, or a party's seat changed, is refused, nothing written: no step, no posting."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from ledger import services as ledger
from ledger.models import Account, AccountKind, Entry, Transaction
from older_games import services as svc
from tables.lifecycle import CoupRecordsChanged
from tables.models import GameCoup, GameStep, Seat
from tests.audit.rows import superuser_sql
from tests.factories import PlayerFactory
from tests.older_games.coups import macao_steps

pytestmark = pytest.mark.django_db

REFUSED = (
    "This coup's record was changed outside the application ({changes}): nothing was settled. "
    "Call the pit boss: the coup can only be voided."
)


def seat_inserted(session_id: int, player_id: int, number: int) -> int:
    """A seat written as the application's own login could write it, with no event."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO tables_seat (session_id, player_id, number, joined_at) VALUES (%s, %s, %s, %s)",
            [session_id, player_id, number, timezone.now()],
        )
    return Seat.objects.get(session_id=session_id, number=number, left_at__isnull=True).pk


def victim(table: Any, croupier: Any) -> Any:
    player = PlayerFactory(casino=table.casino, display_name="Victim")
    ledger.cage_buy_in(casino=table.casino, player=player, amount=1000, actor=croupier, key="victim")
    return player


def written() -> tuple[int, int, int, dict[int, int]]:
    return (
        GameStep.objects.count(),
        Transaction.objects.count(),
        Entry.objects.count(),
        dict(Account.objects.values_list("pk", "balance")),
    )


def chips(player: Any) -> int:
    return Account.objects.get(kind=AccountKind.PLAYER, player=player).balance


def test_a_seat_inserted_for_a_victim_puts_him_in_the_seating_and_the_coup_is_refused(
    game_table, croupier, pit_boss
) -> None:
    table, session, _players = game_table("macao", players=3)
    stranger = victim(table, croupier)
    seat_inserted(session.pk, stranger.pk, 4)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert svc.player_key(stranger) in coup.seating["punters"]  # his chips are at stake
    before = written()
    with pytest.raises(CoupRecordsChanged) as refused:
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "9H"})
    assert str(refused.value) == REFUSED.format(changes="seat 4 was never recorded at the table")
    assert written() == before
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == (GameCoup.State.OPEN, 0)
    # the pit boss's void is the way on, and moves none of his chips
    svc.game_coup_void(actor=pit_boss, coup=coup, reason="a seat nobody recorded")
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.VOID
    assert chips(stranger) == 1000


def test_a_partys_seat_changed_before_the_settling_step_is_refused_nothing_settled(
    game_table, croupier
) -> None:
    _table, session, players = game_table("macao", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    *steps, last = macao_steps()
    for payload in steps:
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    seat = Seat.objects.get(session=session, player=players[1])
    superuser_sql("UPDATE tables_seat SET number = 7 WHERE id = %s", [seat.pk])
    before = written()
    with pytest.raises(CoupRecordsChanged) as refused:
        svc.game_step_record(actor=croupier, coup=coup, payload=last)
    assert str(refused.value) == REFUSED.format(changes="seat 7 was changed")
    assert written() == before
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.OPEN


def test_an_old_baccarat_newcomer_from_an_inserted_seat_is_refused(game_table, croupier) -> None:
    table, session, _players = game_table(
        "old-baccarat", players=3, settings={"min_stake": 10, "tie_rule": "pool"}
    )
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    stranger = victim(table, croupier)
    seat_inserted(session.pk, stranger.pk, 4)
    before = written()
    with pytest.raises(CoupRecordsChanged) as refused:
        svc.game_step_record(
            actor=croupier,
            coup=coup,
            payload={"kind": "stake", "player": svc.player_key(stranger), "amount": 20},
        )
    assert str(refused.value) == REFUSED.format(changes="seat 4 was never recorded at the table")
    assert written() == before
    assert chips(stranger) == 1000


def test_a_coup_of_seats_taken_at_the_table_settles(game_table, croupier) -> None:
    """The seats the floor's services wrote are vouched for: the coup settles as before."""
    _table, session, _players = game_table("macao", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    for payload in macao_steps():
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.SETTLED

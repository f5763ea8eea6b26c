"""The table now (tables.selectors.table_now / tables_now): what it holds at each stage of a known
session, that it agrees with the selectors it gathers (bank_rotation), and that reading many
tables costs the same queries as reading one."""

from __future__ import annotations

import pytest

from chemin_de_fer.engine.machine import Move
from tables import services
from tables.models import BankTurn, Coup, Seat, Shoe, Table
from tables.selectors import TableNow, bank_rotation, table_floor, table_now, tables_now
from tests.factories import CroupierAssignmentFactory, TableFactory
from tests.review.history import play_clean, play_flagged
from tests.tables.play import open_floor, seat_number, step

pytestmark = pytest.mark.django_db


def _seat_numbers(seats: list[Seat]) -> list[int]:
    return [s.number for s in seats]


def test_a_closed_table_holds_nothing(table) -> None:
    assert table_now(table=table) == TableNow(
        table=table,
        session=None,
        pause=None,
        seats=[],
        spectators=[],
        shoe=None,
        last_shoe=None,
        cards_dealt=0,
        cards_left=0,
        alarms=[],
        bank=None,
        bank_coup=None,
        rotation=None,
        coup=None,
        last_coup=None,
        awaiting_approval=[],
    )


def test_a_coup_being_played(croupier, table) -> None:
    floor = open_floor(croupier, table, spectators=1)
    clean = play_clean(floor)  # the banker wins and keeps the bank
    in_play = services.coup_start(actor=croupier, session=floor.session, amount=390).coup
    step(floor, in_play, Move.BET, seat=2, amount=100)

    now = table_now(table=table)
    assert now.table is table and now.session == floor.session and now.pause is None
    assert _seat_numbers(now.seats) == [1, 2, 3, 4]
    assert [s.player.display_name for s in now.seats] == ["Player 1", "Player 2", "Player 3", "Player 4"]
    assert now.spectators == floor.spectators
    assert (now.shoe, now.last_shoe) == (floor.shoe, floor.shoe)
    # 3 burnt cards and the 6 of the clean coup, out of 6 decks
    assert (now.cards_dealt, now.cards_left) == (9, 312 - 9)
    assert now.alarms == []
    assert now.bank is not None and (now.bank.player.display_name, seat_number(now.bank.seat)) == (
        "Player 1",
        1,
    )
    assert now.rotation is None
    assert (now.coup, now.bank_coup, now.last_coup) == (in_play, in_play, in_play)
    assert now.awaiting_approval == []
    assert clean.state == Coup.State.SETTLED


def test_a_flagged_coup_is_in_play_until_restored_then_awaits_approval(croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    play_clean(floor)
    flagged = play_flagged(floor)
    assert flagged.state == Coup.State.AWAITING_CORRECTION
    now = table_now(table=table)
    assert (now.coup, now.last_coup, now.bank_coup, now.awaiting_approval) == (flagged, flagged, flagged, [])
    assert (now.cards_dealt, now.cards_left) == (14, 298)

    services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
    now = table_now(table=table)
    assert now.coup is None and now.last_coup == flagged
    assert now.awaiting_approval == [flagged]
    assert now.awaiting_approval[0].state == Coup.State.AWAITING_APPROVAL
    assert (now.cards_dealt, now.cards_left) == (15, 297)

    services.correction_approve(actor=pit_boss, coup=flagged)
    now = table_now(table=table)
    assert (now.coup, now.last_coup, now.awaiting_approval) == (None, flagged, [])


def test_a_paused_table_and_a_closed_shoe(croupier, table) -> None:
    floor = open_floor(croupier, table)
    play_clean(floor)
    assert floor.shoe is not None
    services.shoe_close(actor=croupier, shoe=floor.shoe, reason="shoe damaged")
    services.session_pause_start(actor=croupier, session=floor.session)
    now = table_now(table=table)
    assert now.pause is not None and now.pause.session == floor.session
    assert now.shoe is None and now.last_shoe == floor.shoe
    assert (now.cards_dealt, now.cards_left) == (0, 0)
    # closing before 5/6 was dealt raised an alarm on the shoe
    assert [(a.kind, a.shoe) for a in now.alarms] == [("early_reshuffle", floor.shoe)]


def _rotation(now: TableNow) -> tuple[str, int, list[int], list[int], int | None]:
    r = now.rotation
    assert r is not None
    asked = r.offer_to.number if r.offer_to else None
    return (r.how, r.required_minimum, _seat_numbers(r.order), _seat_numbers(r.candidates), asked)


def test_the_rotation_while_nobody_holds_the_bank(croupier, table) -> None:
    table.first_banker_method = Table.FirstBanker.ACCEPTANCE
    table.save()
    floor = open_floor(croupier, table, banker_seat=None)
    now = table_now(table=table)
    assert now.bank is None and now.bank_coup is None
    assert now.rotation is not None and now.rotation.previous is None
    # the casino profile passes the bank to the right: from seat 12 down, the empty seats skipped
    assert _rotation(now) == (BankTurn.Start.ACCEPTANCE, 1, [4, 3, 2, 1], [4, 3, 2, 1], 4)

    # seat 4 refuses: the bank goes on to seat 3
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[4], accept=False)
    assert _rotation(table_now(table=table)) == (BankTurn.Start.ACCEPTANCE, 1, [4, 3, 2, 1], [3, 2, 1], 3)
    assert bank_rotation(session=floor.session) == table_now(table=table).rotation


def test_the_rotation_after_a_passed_bank(croupier, table) -> None:
    floor = open_floor(croupier, table)
    play_clean(floor)  # seat 1 wins 200: he must go on with at least 390
    services.bank_pass(actor=croupier, session=floor.session)
    now = table_now(table=table)
    assert now.bank is None and now.rotation is not None and now.rotation.previous is not None
    assert now.rotation.previous.seat == floor.seats[1]
    # at the casino the taker of a passed bank sets his own, from the minimum (RULES.md §7)
    assert _rotation(now) == (BankTurn.Start.PASSED, 1, [4, 3, 2], [4, 3, 2], 4)
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[4], accept=False)
    assert _rotation(table_now(table=table)) == (BankTurn.Start.PASSED, 1, [4, 3, 2], [3, 2], 3)


def test_the_croupiers_floor_is_the_table_now_and_more(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = play_clean(floor)
    screen = table_floor(table=table)
    now = table_now(table=table)
    assert {name: getattr(screen, name) for name in TableNow.__dataclass_fields__} == {
        name: getattr(now, name) for name in TableNow.__dataclass_fields__
    }
    assert screen.last_result is not None and screen.last_result.coup == coup
    assert screen.shoe_coups == [coup]
    assert screen.bank_is_new is False  # the bank has been played


def test_many_tables_are_read_in_the_same_queries_as_one(croupier, table, django_assert_num_queries) -> None:
    others = [TableFactory(casino=table.casino) for _ in range(4)]
    for other in others:
        CroupierAssignmentFactory(user=croupier, table=other)
    for n, each in enumerate([table, *others]):
        floor = open_floor(croupier, each, banker_seat=None if n == 2 else 1, spectators=1)
        if n in (1, 3):
            play_clean(floor)
        if n == 3:
            play_flagged(floor)
    tables = list(Table.objects.select_related("casino", "profile").order_by("pk"))
    assert len(tables) == 5
    with django_assert_num_queries(10):
        [one] = tables_now(tables=tables[:1])
    with django_assert_num_queries(10):
        five = tables_now(tables=tables)
    assert five[0] == one and [n.table for n in five] == tables
    assert [n.coup is not None for n in five] == [False, False, False, True, False]
    assert [n.rotation is not None for n in five] == [False, False, True, False, False]
    # and each is what the table alone reads
    assert five == [table_now(table=t) for t in tables]


def test_a_shoe_knows_its_size_and_what_is_left() -> None:
    shoe = Shoe(decks=6)
    assert (Shoe.size_of(1), Shoe.size_of(8), shoe.size, shoe.cards_left(19)) == (52, 416, 312, 293)

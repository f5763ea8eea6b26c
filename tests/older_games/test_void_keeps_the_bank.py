"""older_games/services.py ``seating_proposed``: a voided coup changes nothing about the bank. The
next coup is seated as the voided one was (its banker, his opening), not given back to seat 1
(docs/games/at-the-table.md, "Voiding": nothing is settled; RULES.md §11: old baccarat's passing
of the bank is the banker's recorded choice, which a void does not take back)."""

from __future__ import annotations

from typing import Any

import pytest

from older_games import services as svc
from tables import services
from tables.models import GameCoup, Seat
from tests.older_games.coups import landsknecht_steps, macao_steps, old_baccarat_tie_steps, play

pytestmark = pytest.mark.django_db


def _void(pit_boss: Any, coup: GameCoup) -> None:
    voided = svc.game_coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    assert isinstance(voided, GameCoup) and voided.state == GameCoup.State.VOID


def test_macao_the_voided_coup_s_banker_keeps_it(game_table, croupier, pit_boss) -> None:
    _t, session, (a, b, c) = game_table("macao", players=3)
    assert play(croupier, session, macao_steps()).state == GameCoup.State.SETTLED  # a banked
    second = svc.game_coup_start(actor=croupier, session=session).coup
    assert second.seating["banker"] == svc.player_key(b)  # the bank passed to a's left
    svc.game_step_record(actor=croupier, coup=second, payload={"kind": "deal", "card": "2C"})
    _void(pit_boss, second)
    nxt = svc.seating_proposed(session)
    assert (nxt.banker, nxt.punters) == (svc.player_key(b), (svc.player_key(c), svc.player_key(a)))


def test_macao_a_voided_coup_s_banker_who_left_hands_it_on(game_table, croupier, pit_boss) -> None:
    _t, session, (a, b, c) = game_table("macao", players=3)
    play(croupier, session, macao_steps())
    second = svc.game_coup_start(actor=croupier, session=session).coup
    _void(pit_boss, second)
    services.seat_leave(actor=croupier, seat=Seat.objects.get(session=session, player=b))
    nxt = svc.seating_proposed(session)
    assert (nxt.banker, nxt.punters) == (svc.player_key(c), (svc.player_key(a),))


def test_old_baccarat_a_passed_bank_stays_passed_after_a_void(game_table, croupier, pit_boss) -> None:
    settings = {"min_stake": 10, "tie_rule": "pool"}
    _t, session, (a, b, c) = game_table("old-baccarat", players=3, settings=settings)
    first = play(croupier, session, old_baccarat_tie_steps([a, b, c]))
    assert first.state == GameCoup.State.SETTLED and first.seating["banker"] == svc.player_key(a)
    # a passes the bank: the croupier names b; that coup is voided
    second = svc.game_coup_start(actor=croupier, session=session, banker=b).coup
    _void(pit_boss, second)
    nxt = svc.seating_proposed(session)
    assert (nxt.banker, nxt.punters) == (svc.player_key(b), (svc.player_key(c), svc.player_key(a)))


def test_landsknecht_the_bank_after_a_take_survives_a_void(game_table, croupier, pit_boss) -> None:
    _t, session, (a, b) = game_table("landsknecht", players=2)
    svc.game_fund_collect(actor=croupier, session=session)
    first = play(croupier, session, landsknecht_steps([a, b]))  # a wins and takes
    assert first.state == GameCoup.State.SETTLED and first.seating["banker"] == svc.player_key(a)
    second = svc.game_coup_start(actor=croupier, session=session).coup
    assert (second.seating["banker"], second.seating["opening"]) == (svc.player_key(b), "after-take")
    assert second.seating["previous"] == 100  # the sum a took: his stake 50, the covers 30 and 20
    _void(pit_boss, second)
    nxt = svc.seating_proposed(session)
    assert (nxt.banker, nxt.punters, nxt.opening, nxt.previous) == (
        svc.player_key(b),
        (svc.player_key(a),),
        "after-take",
        second.seating["previous"],
    )
    third = svc.game_coup_start(actor=croupier, session=session).coup
    assert third.seating == {**second.seating, "fund": third.seating["fund"]}

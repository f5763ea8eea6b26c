"""What a player could still lose in the older games' coups in play (older_games.selectors
.game_chips_at_stake, the cage's question through the games' seam): the game's exposure, as punter
or banker, by table; nothing once the coup is over; a coup changed in the database counted on the
steps of it that replay, and never a crash."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from ledger.services import cage_buy_in
from older_games import services as svc
from older_games.selectors import game_chips_at_stake, game_table_view
from tables import services
from tables.games import wing_for
from tables.models import GameCoup, GameStep
from tests.audit.rows import superuser_sql
from tests.factories import PlayerFactory
from tests.older_games.coups import landsknecht_steps, macao_steps, play

pytestmark = pytest.mark.django_db


def test_a_macao_coup_holds_each_punter_s_most_and_the_banker_s(game_table, croupier) -> None:
    table, session, (banker, first, second) = game_table("macao", players=3)
    svc.game_coup_start(actor=croupier, session=session)
    # unit 10, the scale: a punter loses at most 30, the banker 30 to each
    assert game_chips_at_stake(player=first) == {table.name: 30} == game_chips_at_stake(player=second)
    assert game_chips_at_stake(player=banker) == {table.name: 60}
    assert wing_for(table.game).chips_at_stake(player=banker) == {table.name: 60}  # through the seam
    outsider = PlayerFactory(casino=table.casino)
    assert game_chips_at_stake(player=outsider) == {}


def test_nothing_is_at_stake_once_the_coup_is_over(game_table, croupier, pit_boss) -> None:
    _table, session, players = game_table("macao", players=3)
    play(croupier, session, macao_steps())
    assert [game_chips_at_stake(player=p) for p in players] == [{}, {}, {}]
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert game_chips_at_stake(player=players[1]) != {}
    svc.game_coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    assert [game_chips_at_stake(player=p) for p in players] == [{}, {}, {}]


def test_landsknecht_holds_the_banker_s_stake_and_each_cover(game_table, croupier) -> None:
    table, session, (banker, punter) = game_table("landsknecht", players=2)
    svc.game_fund_collect(actor=croupier, session=session)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert game_chips_at_stake(player=banker) == {} == game_chips_at_stake(player=punter)  # nothing laid
    for payload in landsknecht_steps([banker, punter])[:2]:  # he stakes 50, the punter covers 30
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    assert game_chips_at_stake(player=banker) == {table.name: 50}
    assert game_chips_at_stake(player=punter) == {table.name: 30}


def test_a_coup_changed_in_the_database_is_counted_on_what_replays(game_table, croupier) -> None:
    table, session, (banker, punter, _other) = game_table(
        "old-baccarat", players=3, settings={"min_stake": 10}
    )
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    for amount in (40, 60):  # he stakes 40, then (a second step) the other 60
        who = punter if amount == 40 else _other
        payload = {"kind": "stake", "player": svc.player_key(who), "amount": amount}
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    second = GameStep.objects.get(coup=coup, index=2)
    superuser_sql(
        "UPDATE tables_gamestep SET payload = %s WHERE id = %s",
        [json.dumps({"kind": "take the pot"}), second.pk],
    )
    # the first step still replays: his 40 is at stake, the other's changed stake is not counted
    assert game_chips_at_stake(player=punter) == {table.name: 40}
    assert game_chips_at_stake(player=_other) == {}
    # a seating nothing can replay: the coup counts nothing, and nobody's question fails
    superuser_sql(
        "UPDATE tables_gamecoup SET seating = %s WHERE id = %s", [json.dumps({"who": "knows"}), coup.pk]
    )
    assert game_chips_at_stake(player=punter) == {} == game_chips_at_stake(player=banker)
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.OPEN


# ------------------------------------------------------------- a new session's screen (defect 2)
def test_a_new_session_shows_none_of_the_last_session_s_coups(game_table, croupier) -> None:
    table, session, _players = game_table("macao", players=3)
    last = play(croupier, session, macao_steps())
    assert last.state == GameCoup.State.SETTLED
    assert [c.pk for c in game_table_view(session).recent] == [last.pk]
    for seat in session.seats.filter(left_at__isnull=True):
        services.seat_leave(actor=croupier, seat=seat)
    services.table_session_close(actor=croupier, session=session)
    reopened = services.table_session_open(actor=croupier, table=table)
    newcomers = [PlayerFactory(casino=table.casino, display_name=f"Newcomer {n}") for n in (1, 2)]
    for n, player in enumerate(newcomers, 1):
        cage_buy_in(casino=table.casino, player=player, amount=1000, actor=croupier, key=f"again:{player.pk}")
        services.seat_take(actor=croupier, session=reopened, player=player, number=n)
    view = game_table_view(reopened)
    assert (view.recent, view.open_coup) == ([], None)
    client = Client()
    client.force_login(croupier)
    html = client.get(reverse("floor:game", args=[table.pk])).content.decode()
    assert 'data-testid="last-net"' not in html and 'data-testid="recent"' not in html
    # the new session's own first coup is shown, numbered on from the table's
    steps = [*({"kind": "deal", "card": card} for card in ("9H", "5D")), {"kind": "stand"}, {"kind": "stand"}]
    first = play(croupier, reopened, steps)
    view = game_table_view(reopened)
    assert [c.pk for c in view.recent] == [first.pk] and first.number == 2
    html = client.get(reverse("floor:game", args=[table.pk])).content.decode()
    assert 'data-testid="last-net"' in html and 'data-testid="recent-2"' in html
    assert 'data-testid="recent-1"' not in html


"""older_games/services.py: a seated player with no chips to play with is not dealt into an
older game's coup (he keeps his seat); a bank without chips goes on to the next player who has
some; a coup nobody but the banker could play is refused, saying why, with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from audit.models import AuditEvent
from ledger.services import cage_buy_in, cage_cash_out
from older_games import services as svc
from older_games.selectors import game_table_view
from tables import services
from tables.models import GameCoup, Seat
from tests.factories import PlayerFactory
from tests.older_games.coups import macao_steps, play

pytestmark = pytest.mark.django_db

NOBODY = (
    "Too few of the seated players hold chips to play a coup (a banker and a punter): "
    "a buy-in at the cage comes first."
)


def _seat(croupier: Any, session: Any, number: int, chips: int, name: str) -> Any:
    player = PlayerFactory(casino=session.table.casino, display_name=name)
    if chips:
        casino = session.table.casino
        cage_buy_in(casino=casino, player=player, amount=chips, actor=croupier, key=f"b:{player.pk}")
    services.seat_take(actor=croupier, session=session, player=player, number=number)
    return player


def test_a_macao_punter_without_chips_is_not_dealt_in(game_table, croupier):
    table, session, (a, b) = game_table("macao", players=2)
    broke = _seat(croupier, session, 3, 0, "M. Sans-le-sou")
    short = _seat(croupier, session, 4, 25, "Mme Juste")  # under the 30 a banker's 9 collects
    view = game_table_view(session)
    assert (view.proposed_banker, view.proposed_punters) == (svc.player_key(a), [svc.player_key(b)])
    assert view.sitting_out == [broke, short]
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert coup.seating["banker"] == svc.player_key(a)
    assert coup.seating["punters"] == [svc.player_key(b)]
    # both keep their seats; once bought in, the next coup deals them in
    assert Seat.objects.filter(session=session, left_at__isnull=True).count() == 4
    svc.game_coup_void(actor=croupier, coup=coup, reason="test")
    cage_buy_in(casino=table.casino, player=broke, amount=100, actor=croupier, key="broke-again")
    cage_buy_in(casino=table.casino, player=short, amount=5, actor=croupier, key="short-again")
    again = svc.game_coup_start(actor=croupier, session=session).coup
    assert again.seating["punters"] == [svc.player_key(p) for p in (b, broke, short)]


def test_the_screen_says_who_is_not_dealt_in(game_table, croupier):
    table, session, _players = game_table("macao", players=2)
    _seat(croupier, session, 3, 0, "M. Sans-le-sou")
    client = Client()
    client.force_login(croupier)
    html = client.get(reverse("floor:game", args=[table.pk])).content.decode()
    assert (
        '<p class="hint" data-testid="sitting-out">'
        + escape("Not dealt in, no chips to play with: M. Sans-le-sou (a buy-in at the cage first).")
        + "</p>"
    ) in html


def test_the_bank_the_game_sends_to_a_player_without_chips_goes_on_to_the_next(game_table, croupier):
    table, session, (a, b, c) = game_table("macao", players=3)
    first = play(croupier, session, macao_steps())  # a banks, pays b 30 and c 20
    assert first.state == GameCoup.State.SETTLED
    # the bank passes to a's left, b, who cashes everything out meanwhile: it goes on to c
    cage_cash_out(casino=table.casino, player=b, amount=1030, actor=croupier, key="b-out")
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert (coup.seating["banker"], coup.seating["punters"]) == (svc.player_key(c), [svc.player_key(a)])


def test_a_banker_named_without_chips_is_refused(game_table, croupier):
    _table, session, (_a, _b) = game_table("macao", players=2)
    broke = _seat(croupier, session, 3, 0, "M. Sans-le-sou")
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError) as refused:
        svc.game_coup_start(actor=croupier, session=session, banker=broke)
    assert refused.value.messages == [
        "M. Sans-le-sou holds no chips and cannot hold the bank: a buy-in at the cage comes first, "
        "or another player banks."
    ]
    assert not GameCoup.objects.exists() and AuditEvent.objects.count() == events


@pytest.mark.parametrize("game", ["macao", "old-baccarat"])
def test_no_coup_when_only_the_banker_holds_chips(game_table, croupier, game):
    _table, session, _players = game_table(game, players=1)
    _seat(croupier, session, 2, 0, "M. Sans-le-sou")
    events = AuditEvent.objects.count()
    assert game_table_view(session).blocked == NOBODY
    with pytest.raises(ValidationError) as refused:
        svc.game_coup_start(actor=croupier, session=session)
    assert refused.value.messages == [NOBODY]
    assert not GameCoup.objects.exists() and AuditEvent.objects.count() == events

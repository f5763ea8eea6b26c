"""Old baccarat: the cut is a punter's at the table ("банкомёт обязан дать одному из играющих снять
колоду", docs/games/old_baccarat.md): a punter who pressed "Leaves the table" is not offered it
while a punter still at the table can cut (older_games.selectors ``game_coup_view``: the screen and
the API's ``next_steps``). When every punter who staked has left, the engine's cut by one of them
stays the way on, so the next steps are empty only when the coup is over."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from older_games import services as svc
from tests.older_games.test_old_baccarat_floor import _newcomer, _offered, _record

pytestmark = pytest.mark.django_db


def test_a_leaver_is_not_offered_the_cut(game_table, croupier) -> None:
    table, session, (_a, b, c) = game_table("old-baccarat", players=3)
    kb, kc = svc.player_key(b), svc.player_key(c)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    _record(
        croupier,
        coup,
        {"kind": "stake", "player": kb, "amount": 20},
        {"kind": "stake", "player": kc, "amount": 10},
        {"kind": "leave", "player": kb},
    )
    assert _offered(coup) == [("cut", kc), ("leave", kc)]
    client = Client()
    client.force_login(croupier)
    html = client.get(reverse("floor:game", args=[table.pk])).content.decode()
    assert f'data-testid="step-cut-{kb}"' not in html and f'data-testid="step-cut-{kc}"' in html
    # a newcomer who stakes may cut; the leaver still may not
    d = _newcomer(croupier, table, session, 4)
    kd = svc.player_key(d)
    _record(croupier, coup, {"kind": "stake", "player": kd, "amount": 10})
    assert _offered(coup) == [("cut", kc), ("cut", kd), ("leave", kc), ("leave", kd)]


def test_when_every_staker_has_left_the_cut_is_still_the_way_on(game_table, croupier) -> None:
    _table, session, (_a, b, c) = game_table("old-baccarat", players=3)
    kb, kc = svc.player_key(b), svc.player_key(c)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    _record(
        croupier,
        coup,
        {"kind": "stake", "player": kb, "amount": 20},
        {"kind": "stake", "player": kc, "amount": 10},
        {"kind": "leave", "player": kb},
        {"kind": "leave", "player": kc},
    )
    assert _offered(coup) == [("cut", kb), ("cut", kc)]

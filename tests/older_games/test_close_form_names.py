"""Closing an older game's table: the close form of a Landsknecht table says whom the reserve fund
goes back to, every payer by his name — one who paid his due and left the table too (never his
key, older_games/views.py); a close refused for a coup in play says who can really void it
(older_games/services.py ``session_close_refusal``)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from older_games import services as svc
from tables import services
from tables.models import Seat

pytestmark = pytest.mark.django_db


def test_a_payer_who_left_is_named_on_the_close_form(game_table, croupier) -> None:
    table, session, (a, b, c) = game_table("landsknecht", players=3)
    for player, name in ((a, "Comte Orlov"), (b, "Mme Vernier"), (c, "M. Lazare")):
        player.display_name = name
        player.save(update_fields=["display_name"])
    svc.game_fund_collect(actor=croupier, session=session)
    services.seat_leave(actor=croupier, seat=Seat.objects.get(session=session, player=c))
    client = Client()
    client.force_login(croupier)
    html = client.get(reverse("floor:game", args=[table.pk])).content.decode()
    assert (
        '<p class="hint" data-testid="fund-return">'
        + "The reserve fund's 30 chips go back to those who paid into it:"
        + '\n    <span class="nowrap">Comte Orlov 10</span>, <span class="nowrap">Mme Vernier 10</span>, '
        '<span class="nowrap">M. Lazare 10</span></p>'
    ) in html
    assert svc.player_key(c) not in html


def test_a_close_refused_once_a_step_is_recorded_names_the_pit_boss(game_table, croupier, pit_boss) -> None:
    from django.core.exceptions import ValidationError

    from tables.models import GameCoup
    from tables.wording import CLOSE_GAME_COUP_IN_PLAY, CLOSE_GAME_COUP_STEPS_RECORDED

    table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(ValidationError) as refused:  # no step yet: the croupier voids it on his screen
        services.table_session_close(actor=croupier, session=session)
    assert refused.value.messages == [CLOSE_GAME_COUP_IN_PLAY]
    svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "2C"})
    with pytest.raises(ValidationError) as refused:
        services.table_session_close(actor=croupier, session=session)
    # he recorded a step: no void on his screen; a pit boss who recorded none voids it
    assert refused.value.messages == [CLOSE_GAME_COUP_STEPS_RECORDED]
    assert CLOSE_GAME_COUP_STEPS_RECORDED == (
        "A coup is still being played: the croupier finishes it, or a pit boss who recorded none of its "
        "steps voids it (“Void the coup” on the coup's review page, reached from the dashboard). Then "
        "the table can be closed."
    )
    client = Client()
    client.force_login(croupier)
    html = client.get(reverse("floor:game", args=[table.pk])).content.decode()
    assert 'data-testid="void-open"' not in html
    close = reverse("floor:session_close", args=[table.pk])
    answer = client.post(close, {"reason": ""}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 400
    page = answer.content.decode()
    assert escape(CLOSE_GAME_COUP_STEPS_RECORDED) in page and "Void coup…" not in page
    voided = svc.game_coup_void(actor=pit_boss, coup=coup, reason="the table closes")
    assert isinstance(voided, GameCoup)
    services.table_session_close(actor=croupier, session=session)

"""A player's page counts the coups he played as his rating slip does (docs/review.md, "A player"):
a voided coup (every stake returned) is no coup played, neither on the tiles ("coups as banker",
"bets", "average bet") nor in the slip's "As banker", nor in the list of coups played. And the
slip's period fields show the period the slip is of when none was asked for."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tables import services
from tables.gaming_day import casino_calendar
from tables.models import Coup
from tests.review.history import play_clean
from tests.review.test_rating import cells
from tests.tables.play import coup_with_bets, open_floor

pytestmark = pytest.mark.django_db


def _tile(html: str, testid: str) -> str:
    return re.search(rf'data-testid="{testid}">([^<]*)<', html).group(1)  # type: ignore[union-attr]


def test_a_voided_coup_is_no_coup_played(client, croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    play_clean(floor)  # banker seat 1; seat 2 bets 120
    voided = coup_with_bets(floor, (2, 100), bank=400)
    services.coup_void(actor=pit_boss, coup=voided, reason="deal gone wrong")
    assert Coup.objects.get(pk=voided.pk).state == Coup.State.VOID
    client.force_login(pit_boss)

    banker = client.get(reverse("review:player", args=[floor.players[1].pk])).content.decode()
    assert _tile(banker, "banks-held") == "1"  # was 2: the voided coup counted
    assert cells(banker, "rating-total")["banked"] == "1"

    punter = client.get(reverse("review:player", args=[floor.players[2].pk])).content.decode()
    assert (_tile(punter, "bets"), _tile(punter, "average-bet")) == ("1", "120")  # not 2 bets, 110
    assert cells(punter, "rating-total")["coups"] == "1"
    assert punter.count('data-testid="player-coups"') == 1
    coups = punter[punter.index('data-testid="player-coups"') :]
    assert coups.count("<tr>") == 2  # the heading and the settled coup, not the voided one


def test_the_slip_s_fields_show_the_period_it_is_of(client, croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    play_clean(floor)
    client.force_login(pit_boss)
    url = reverse("review:player", args=[floor.players[1].pk])
    today = casino_calendar(table.casino).day_of(timezone.now())
    first = today - dt.timedelta(days=6)  # the last seven gaming days (review.forms.DEFAULT_DAYS)
    html = client.get(url).content.decode()
    start = html.index('data-testid="rating-period"')
    form = html[start : html.index("</form>", start)]
    assert f'name="start" id="id_start" min="1900-01-01" max="9998-12-31" value="{first:%Y-%m-%d}"' in form
    assert f'name="end" id="id_end" min="1900-01-01" max="9998-12-31" value="{today:%Y-%m-%d}"' in form
    assert f"{first:%Y-%m-%d}" in html and f"{today:%Y-%m-%d}" in html  # the hint says the same
    # a period asked for is shown as asked
    asked = client.get(url, {"start": today.isoformat(), "end": today.isoformat()}).content.decode()
    assert f'value="{today:%Y-%m-%d}"' in asked and f'value="{first:%Y-%m-%d}"' not in asked

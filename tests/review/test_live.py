"""The live pit: the dashboard's polled partial (content, the alerts scan it runs when stale,
the navigation count out of band, a query count independent of the number of tables), the
SVG charts' values, and a player's page."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from chemin_de_fer.engine.odds import profile_odds
from chemin_de_fer.engine.profiles import CASINO
from review.models import Alert, AlertScan
from review.selectors.charts import coups_per_hour, hold_by_gaming_day
from review.services import alerts_raise
from tables.models import Player
from tables.services.rollups import rollups_refresh
from tests.factories import CroupierAssignmentFactory, TableFactory
from tests.review.history import play_flagged
from tests.tables.play import open_floor

pytestmark = pytest.mark.django_db


def test_the_live_partial_shows_each_open_table(client, pit_boss, awaiting, table) -> None:
    client.force_login(pit_boss)
    answer = client.get(reverse("review:dashboard_live"))
    assert answer.status_code == 200
    [row] = answer.context["live"].tables
    assert row.croupiers == ["croupier"]
    assert (row.open.banker.display_name, row.open.bank) == ("Player 1", 400)
    assert row.coups_last_hour == 2
    assert row.minutes_since_last_step == 0
    assert (row.open.cards_dealt, row.shoe_size, row.open.shoe.stop_reached) == (15, 312, False)
    html = answer.content.decode()
    assert 'data-testid="shoe-progress">15/312<' in html
    assert 'data-testid="croupier">croupier<' in html
    assert 'data-testid="coups-last-hour">2<' in html
    assert reverse("review:player", args=[row.open.banker.pk]) in html
    # the poll ran the scan (none had run): the flagged coup and the croupier's error rate
    assert Alert.objects.count() == 2 and AlertScan.objects.exists()
    # the scan comes first: the flagged coup's alert is the table's (the error rate is the croupier's)
    assert row.open_alerts == 1 and answer.context["live"].alerts_open == 2
    assert 'hx-swap-oob="true">2<' in client.get(reverse("review:dashboard_live")).content.decode()


def test_the_dashboard_polls_its_live_part(client, accountant, awaiting) -> None:
    client.force_login(accountant)
    html = client.get(reverse("review:dashboard")).content.decode()
    assert f'hx-get="{reverse("review:dashboard_live")}"' in html
    assert 'hx-trigger="every 10s, pitvisible from:document"' in html and "data-poll" in html
    # the accountant reads the partial, raises nothing and sees no alerts
    answer = client.get(reverse("review:dashboard_live"))
    assert answer.status_code == 200 and "live-alerts-title" not in answer.content.decode()
    assert not Alert.objects.exists()


@pytest.mark.parametrize("persona", ["croupier", "outsider"])
def test_the_live_partial_is_refused_to_others(client, request, persona) -> None:
    client.force_login(request.getfixturevalue(persona))
    assert client.get(reverse("review:dashboard_live")).status_code == 403
    assert not Alert.objects.exists()


def test_the_live_partial_costs_the_same_queries_for_one_table_as_for_five(
    client, pit_boss, croupier, table, django_assert_max_num_queries
) -> None:
    url = reverse("review:dashboard_live")
    client.force_login(pit_boss)
    play_flagged(open_floor(croupier, table))
    alerts_raise(now=timezone.now())  # a fresh scan: the poll only checks its time
    client.get(url)  # warm the session and permission caches for both counts alike
    with django_assert_max_num_queries(24) as one_table:  # 23 and the casinos he works for
        one = client.get(url)
    more = [TableFactory(casino=table.casino) for _ in range(4)]
    for n, t in enumerate(more):
        CroupierAssignmentFactory(user=croupier, table=t)
        floor = open_floor(croupier, t)
        if n % 2:
            play_flagged(floor)
    alerts_raise(now=timezone.now())
    with django_assert_max_num_queries(len(one_table.captured_queries)):
        five = client.get(url)
    assert len(one.context["live"].tables) == 1 and len(five.context["live"].tables) == 5
    flagged_tables = {r.open.table.pk for r in five.context["live"].tables if r.open_alerts}
    assert flagged_tables == {table.pk, more[1].pk, more[3].pk}


# ------------------------------------------------------------------------------------- charts
def test_the_hold_per_gaming_day_against_the_expectation(client, pit_boss, history, table) -> None:
    now = timezone.now()
    rollups_refresh()  # the charts read the rollups
    days = hold_by_gaming_day(casino=table.casino, days=3, now=now)
    assert [d.coups for d in days] == [0, 0, 3]
    today = days[-1]
    expected = profile_odds(CASINO, decks=6).expected_levy_per_unit
    assert (today.covered, today.levy, today.hold) == (700, 30, Fraction(30, 700))
    # kept in the rollups to a millionth of a chip (tables.TableDay.expected_levy_micro)
    assert today.expected_levy == Fraction(round(expected * 700 * 10**6), 10**6)
    assert days[0].hold is None

    client.force_login(pit_boss)
    answer = client.get(reverse("review:charts"), {"casino": table.casino.pk, "days": 3})
    html = answer.content.decode()
    assert '<title id="hold-chart-title">Levy hold per gaming day against the expected levy</title>' in html
    # the day as the page's language writes it (English: 12/07/2026), not 2026-12-07
    said_day = f"{today.day:%m/%d/%Y}"
    assert f"<title>{said_day}: hold 4.286\xa0%</title>" in html
    assert f"<title>{said_day}: expected {float(expected) * 100:.3f}\xa0%</title>" in html
    # the table beside the chart: chips grouped, shares in the page's number format
    assert '<td class="num">700</td><td class="num">30</td><td class="num">4.286\xa0%</td>' in html
    assert '<td class="num">—</td>' in html  # a day without coups has no hold
    assert '<desc id="hold-chart-desc">' in html and 'role="img"' in html
    assert html.count('class="chart-marker"') == 1  # no expectation on the days without coups
    chart = answer.context["hold_chart"]
    bar = chart.bars[-1]
    # the scale goes up to 5 %, in ticks of 1.25 %: the hold, 4.286 %, is that share of the plot
    assert [t.text for t in chart.ticks] == ["0\xa0%", "1.25\xa0%", "2.5\xa0%", "3.75\xa0%", "5\xa0%"]
    assert bar.height == pytest.approx((chart.height - 12 - 36) * 4.2857 / 5, abs=0.02)
    # in French the scale, the bars' titles and the table say the decimal comma
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    answer = client.get(reverse("review:charts"), {"casino": table.casino.pk, "days": 3})
    assert [t.text for t in answer.context["hold_chart"].ticks] == [
        "0\xa0%",
        "1,25\xa0%",
        "2,5\xa0%",
        "3,75\xa0%",
        "5\xa0%",
    ]
    assert '<td class="num">4,286\xa0%</td>' in answer.content.decode()


def test_coups_per_hour_per_table(client, accountant, history, table) -> None:
    [row] = coups_per_hour(casino=table.casino, now=timezone.now())
    assert row.table == table and len(row.hours) == 24 and row.total == 3
    assert row.hours[-1][1] + row.hours[-2][1] == 3  # played in this hour (or the one before)
    client.force_login(accountant)
    html = client.get(reverse("review:charts")).content.decode()
    assert f"Coups per hour at {table.name}, last 24 hours" in html
    assert "3 coups in 24 hours, one bar per hour." in html
    assert ">4</text>" in html and ">1</text>" in html  # whole-number ticks: 0 to 4
    # each table's chart has ids of its own, which its aria-labelledby names
    chart_id = f"hours-chart-{table.pk}"
    assert f'aria-labelledby="{chart_id}-title {chart_id}-desc"' in html
    assert f'data-testid="{chart_id}"' in html and f'<title id="{chart_id}-title">' in html


# ------------------------------------------------------------------------------------ a player
def test_a_players_page(client, pit_boss, history, table) -> None:
    player = Player.objects.get(display_name="Player 2", casino=table.casino)
    client.force_login(pit_boss)
    answer = client.get(reverse("review:player", args=[player.pk]))
    assert answer.status_code == 200
    data = answer.context["data"]
    # bets 120 (banker won), 240 (banker won, as restored), 100 (player natural, won)
    assert [(p.bet.amount, p.outcome, p.net) for p in data.coups] == [
        (100, "player", 100),
        (240, "banker", -240),
        (120, "banker", -120),
    ]
    assert (data.bets, data.staked, data.average_bet) == (3, 460, Fraction(460, 3))
    assert data.chips.balance == 1000 - 120 - 240 + 100
    [session] = data.sessions
    assert session.place == "seat 2" and session.left_at is None
    assert data.banks_held == 0
    html = answer.content.decode()
    # the average stake to the whole chip (153.33… → 153), never "153.3" nor "300.0"
    assert 'data-testid="chips">740<' in html and 'data-testid="average-bet">153<' in html
    assert '<td class="num">+100</td>' in html and '<td class="num">-240</td>' in html


def test_the_players_page_is_linked_where_players_appear(client, pit_boss, awaiting) -> None:
    banker = awaiting.flagged.banker
    link = reverse("review:player", args=[banker.pk])
    client.force_login(pit_boss)
    assert link in client.get(reverse("review:coup", args=[awaiting.flagged.pk])).content.decode()
    assert link in client.get(reverse("review:queue")).content.decode()
    assert link in client.get(reverse("review:dashboard")).content.decode()  # the open table's banker
    assert link in client.get(reverse("cage:history", args=[banker.pk])).content.decode()


@pytest.mark.parametrize(("persona", "status"), [("accountant", 200), ("croupier", 403), ("outsider", 403)])
def test_who_sees_a_players_page(client, request, history, table, persona, status) -> None:
    player = Player.objects.get(display_name="Player 2", casino=table.casino)
    client.force_login(request.getfixturevalue(persona))
    assert client.get(reverse("review:player", args=[player.pk])).status_code == status


@pytest.mark.parametrize(
    ("largest", "integer", "top"),
    [
        (0.04286, False, 0.05),
        (0.0229, False, 0.025),
        (3, True, 4),
        (9, True, 12),
        (0, True, 4),
        (0, False, 1),
    ],
)
def test_the_scale_of_a_chart(largest, integer, top) -> None:
    from review.charts import scale_top

    assert scale_top(largest, integer=integer) == pytest.approx(top)

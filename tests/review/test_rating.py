"""A played night rated by hand against the product's slip (review/selectors/rating.py)."""

from __future__ import annotations

import datetime as dt
import re
from fractions import Fraction

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from cage.selectors import player_chips
from chemin_de_fer.engine.odds import punto_banco_odds
from review.selectors.rating import player_rating
from tables.gaming_day import casino_calendar
from tables.models import RuleProfile, Seat
from tests.factories import SessionPauseFactory
from tests.review.history import play_clean
from tests.tables.play import Floor, open_floor, play

pytestmark = pytest.mark.django_db

#: the casino profile's levy (5 %) on a fresh 8-deck shoe: there every option comes out as Punto
#: Banco's choice (docs/odds.md), so the expectation per covered chip is Punto Banco's banker win
#: times 5 %
PER_CHIP = punto_banco_odds(decks=8, levy_bp=500).banker_win * Fraction(5, 100)


def played_night(croupier, table, *, second_bank: int = 390) -> tuple[Floor, dt.datetime]:
    """Seat 1 banks: (1) bank 200 against 120 + 50 + 30, the banker wins, levy 10; (2) bank
    ``second_bank`` (what the first coup left him: 390, or 400 where it paid no levy) against seat
    2's 100, a player natural. Seat 1 then sat from t0 to t0 + 2 h 41 min 17 s, with the table
    paused from t0 + 30 min to t0 + 47 min 05 s."""
    floor = open_floor(croupier, table, decks=8)
    play_clean(floor)
    play(floor, bank=second_bank, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural")
    t0 = timezone.now().replace(microsecond=0) - dt.timedelta(hours=5)
    Seat.objects.filter(session=floor.session).update(
        joined_at=t0, left_at=t0 + dt.timedelta(hours=2, minutes=41, seconds=17)
    )
    SessionPauseFactory(
        session=floor.session,
        started_at=t0 + dt.timedelta(minutes=30),
        ended_at=t0 + dt.timedelta(minutes=47, seconds=5),
    )
    return floor, t0


def whole_night(floor: Floor, t0: dt.datetime) -> tuple[dt.date, dt.date]:
    cal = casino_calendar(floor.table.casino)
    return cal.day_of(t0) - dt.timedelta(days=1), cal.day_of(timezone.now()) + dt.timedelta(days=1)


def test_a_played_night_equals_the_hand_computed_slip(croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    banker = player_rating(player=floor.players[1], first=first, last=last, now=timezone.now())
    seated = 2 * 3600 + 41 * 60 + 17 - (17 * 60 + 5)  # 2 h 24 min 12 s
    t = banker.total
    assert (t.seconds, t.coups, t.banked, t.bets, t.staked, t.largest_stake, t.average_stake) == (
        seated,
        2,
        2,
        0,
        0,
        0,
        None,
    )
    # +200 covered less the levy of 10, then -100 to the natural
    assert (t.net, t.levy, t.fees, t.actual) == (90, 10, 0, 10)
    assert t.expected_levy == PER_CHIP * 300
    assert t.theoretical == PER_CHIP * 300
    # the published figure: 0.458597 banker wins on 8 decks, 5 % of 300 covered chips
    assert round(float(t.expected_levy), 4) == round(0.458597 * 0.05 * 300, 4)
    assert [(s.session_id, s.seconds, s.coups) for s in banker.sessions] == [(floor.session.pk, seated, 2)]
    assert sum(d.seconds for d in banker.days) == seated
    assert sum(d.coups for d in banker.days) == 2

    punter = player_rating(player=floor.players[2], first=first, last=last, now=timezone.now()).total
    assert (punter.seconds, punter.coups, punter.banked, punter.staked, punter.largest_stake) == (
        seated,
        2,
        0,
        220,
        120,
    )
    assert (punter.average_stake, punter.net, punter.levy, punter.expected_levy) == (110, -20, 0, 0)


def first_coup_exempt(table) -> None:
    """Play ``table`` under a copy of the built-in profile that exempts a bank's first coup from
    the levy (the casino's own profile)."""
    exempt = RuleProfile.objects.get(slug="casino")
    exempt.pk, exempt.slug, exempt.casino, exempt.first_coup_exempt = None, "first-free", table.casino, True
    exempt.save()
    table.profile = exempt
    table.save(update_fields=["profile"])


def test_a_bank_s_first_coup_exempt_from_the_levy_is_expected_to_pay_none(croupier, table) -> None:
    """The casino's own profile exempts a bank's first coup from the levy: the first coup's 200
    covered chips pay none and none is expected of them; the second coup's 100 are priced."""
    first_coup_exempt(table)
    floor, t0 = played_night(croupier, table, second_bank=400)
    first, last = whole_night(floor, t0)
    t = player_rating(player=floor.players[1], first=first, last=last, now=timezone.now()).total
    # +200 covered with no levy, then -100 to the natural
    assert (t.coups, t.banked, t.net, t.levy, t.fees, t.actual) == (2, 2, 100, 0, 0, 0)
    assert t.expected_levy == t.theoretical == PER_CHIP * 100


def test_a_period_before_the_night_is_empty(croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, _last = whole_night(floor, t0)
    before = first - dt.timedelta(days=3)
    slip = player_rating(player=floor.players[1], first=before, last=before, now=timezone.now())
    assert (slip.sessions, slip.days, slip.total.seconds, slip.total.coups) == ([], [], 0, 0)


def test_a_seat_still_taken_counts_to_now(croupier, table) -> None:
    floor = open_floor(croupier, table, seats=(1, 2))
    t0 = timezone.now().replace(microsecond=0) - dt.timedelta(minutes=10)
    Seat.objects.filter(session=floor.session).update(joined_at=t0)
    cal = casino_calendar(table.casino)
    now = t0 + dt.timedelta(minutes=9, seconds=59)
    slip = player_rating(
        player=floor.players[2], first=cal.day_of(t0) - dt.timedelta(days=1), last=cal.day_of(now), now=now
    )
    assert (slip.total.seconds, slip.total.coups) == (599, 0)


def test_card_money_is_a_fee_he_paid_and_the_house_expected(croupier, club_table) -> None:
    """The club charges card money once per seated player per session, as he sits down."""
    casino = club_table.casino
    casino.card_money_amount = 15
    casino.save(update_fields=["card_money_amount"])
    floor = open_floor(croupier, club_table, seats=(1, 2))
    today = casino_calendar(casino).day_of(timezone.now())
    for n in (1, 2):
        slip = player_rating(player=floor.players[n], first=today, last=today, now=timezone.now())
        t = slip.total
        assert (t.fees, t.levy, t.expected_levy, t.theoretical, t.actual, t.coups) == (15, 0, 0, 15, 15, 0)
        assert [(s.session_id, s.fees) for s in slip.sessions] == [(floor.session.pk, 15)]
    assert player_chips(player=floor.players[2]).chips == 1000 - 15
    yesterday = today - dt.timedelta(days=1)
    assert (
        player_rating(player=floor.players[2], first=yesterday, last=yesterday, now=timezone.now()).total.fees
        == 0
    )


# ------------------------------------------------------------------------------ the player's page
def cells(html: str, row: str) -> dict[str, str]:
    """The figures of the first rating row marked ``row`` (data-testid), by their own test ids: the
    slip is two tables on the same lines (what he played; then ``row``-revenue, the house's levy,
    fees, theoretical and actual revenue), read together."""
    figures: dict[str, str] = {}
    for marked in (row, f"{row}-revenue"):
        start = html.index(f'data-testid="{marked}"')
        part = html[start : html.index("</tr>", start)]
        figures.update(re.findall(r'data-testid="(\w+)">([^<]*)<', part))
    return figures


def test_the_players_page_shows_his_slip(client, pit_boss, croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    client.force_login(pit_boss)
    url = reverse("review:player", args=[floor.players[1].pk])
    answer = client.get(url, {"start": first.isoformat(), "end": last.isoformat()})
    assert answer.status_code == 200
    html = answer.content.decode()
    assert cells(html, "rating-total") == {
        "seated": "2:24:12",
        "coups": "2",
        "banked": "2",
        "staked": "0",
        "average": "—",
        "largest": "0",
        "net": "+90",
        "levy": "10",
        "fees": "0",
        "theoretical": "6.88",  # 300 x 0.022930 (docs/odds.md, casino profile on 8 decks)
        "actual": "10",
    }
    assert cells(html, "rating-session")["seated"] == "2:24:12"
    assert f"{table.name} · " in html
    assert answer.context["slip"].total.expected_levy == PER_CHIP * 300


def test_the_slip_in_french_and_russian(client, pit_boss, croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    client.force_login(pit_boss)
    url = reverse("review:player", args=[floor.players[1].pk])
    query = {"start": first.isoformat(), "end": last.isoformat()}
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    french = client.get(url, query).content.decode()
    assert "Évaluation" in french and "Temps assis" in french
    assert cells(french, "rating-total")["theoretical"] == "6,88"
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"
    russian = client.get(url, query).content.decode()
    assert (
        "Рейтинг" in russian
        and "Время за столом" in russian
        and cells(russian, "rating-total")["theoretical"] == "6,88"
    )


def test_a_reversed_period_is_refused_on_the_page(client, pit_boss, croupier, table) -> None:
    floor, _t0 = played_night(croupier, table)
    client.force_login(pit_boss)
    answer = client.get(
        reverse("review:player", args=[floor.players[1].pk]), {"start": "2026-12-05", "end": "2026-12-01"}
    )
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "The period starts after it ends." in html
    assert answer.context["slip"] is None and 'data-testid="rating-total"' not in html


def test_a_bad_date_is_refused_on_the_page(client, pit_boss, croupier, table) -> None:
    floor, _t0 = played_night(croupier, table)
    client.force_login(pit_boss)
    answer = client.get(reverse("review:player", args=[floor.players[1].pk]), {"start": "yesterday"})
    assert answer.status_code == 200
    assert answer.context["slip"] is None
    assert 'data-testid="rating-error"' in answer.content.decode()


@pytest.mark.parametrize("persona", ["croupier", "cashier", "outsider"])
def test_who_may_not_see_a_slip(client, request, croupier, table, persona) -> None:
    floor, _t0 = played_night(croupier, table)
    client.force_login(request.getfixturevalue(persona))
    answer = client.get(reverse("review:player", args=[floor.players[1].pk]))
    assert answer.status_code == 403
    assert b"rating" not in answer.content.lower() and b"+90" not in answer.content

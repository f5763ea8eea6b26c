"""The back office's date fields (core.widgets): an ``<input type="date">`` carries its value as ISO
8601 in every language (French and Russian wrote 01/12/2026 and 01.12.2026, which the browser
refused: the fields came up blank and "Show" sent ``?start=&end=``), and a day off the calendar
the product supports (1900-01-01 to 9998-12-31) is refused with the field's error, on the screens
(the page, its error beside the field) and in the API (400), where it was an OverflowError (500)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone, translation

from review.forms import ComplianceDayForm, PeriodForm, RatingForm
from review.selectors.dashboard import dashboard
from review.selectors.rating import player_rating
from tables.gaming_day import EARLIEST, LATEST, GamingCalendar, Period, casino_calendar
from tests.factories import PlayerFactory
from tests.review.test_rating_api import OUT_OF_RANGE, rating_path
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db

#: noon UTC, 2026-12-01: the dashboard's week is 2026-11-25 to 2026-12-01
NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
BOUNDS = 'min="1900-01-01" max="9998-12-31"'


def _frozen(monkeypatch, at: dt.datetime = NOON) -> None:
    monkeypatch.setattr(timezone, "now", lambda: at)


def _in(client, language: str) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language


def _error(html: str, testid: str) -> str:
    found = re.search(rf'data-testid="{testid}">([^<]*)</p>', html)
    assert found, f"no {testid} in the page"
    return found.group(1).strip()


# ------------------------------------------------------------------------ ISO in every language
@pytest.mark.parametrize("language", ["en", "fr", "ru"])
@pytest.mark.parametrize("persona", ["pit_boss", "accountant"])
def test_the_dashboard_s_period_is_iso_in_every_language(
    client, request, monkeypatch, table, persona, language
) -> None:
    client.force_login(request.getfixturevalue(persona))
    _in(client, language)
    _frozen(monkeypatch)
    response = client.get(reverse("review:dashboard"))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<input type="date" name="start" value="2026-11-25" {BOUNDS} id="id_start">' in html
    assert f'<input type="date" name="end" value="2026-12-01" {BOUNDS} id="id_end">' in html


@pytest.mark.parametrize("language", ["fr", "ru"])
def test_the_dashboard_s_period_asked_for_is_shown_as_asked(client, pit_boss, table, language) -> None:
    client.force_login(pit_boss)
    _in(client, language)
    html = client.get(reverse("review:dashboard"), {"start": "2026-11-02", "end": "2026-11-08"}).content
    assert f'<input type="date" name="start" value="2026-11-02" {BOUNDS} id="id_start">' in html.decode()
    assert f'<input type="date" name="end" value="2026-11-08" {BOUNDS} id="id_end">' in html.decode()


@pytest.mark.parametrize("language", ["en", "fr", "ru"])
def test_compliance_s_day_is_iso_in_every_language(
    client, compliance_officer, monkeypatch, table, language
) -> None:
    client.force_login(compliance_officer)
    _in(client, language)
    _frozen(monkeypatch)  # noon: the casino's gaming day (06:00 cut-off) is the calendar's
    html = client.get(reverse("review:compliance")).content.decode()
    assert f'<input type="date" name="day" value="2026-12-01" {BOUNDS} id="id_day">' in html


@pytest.mark.parametrize("language", ["fr", "ru"])
def test_every_date_field_of_the_back_office_renders_iso(language) -> None:
    day = dt.date(2026, 12, 1)
    with translation.override(language):
        period = PeriodForm(initial={"start": day, "end": day})
        rating = RatingForm(initial={"start": day, "end": day}, today=day)
        compliance = ComplianceDayForm(initial={"day": day})
        rendered = [str(period["start"]), str(period["end"]), str(rating["start"]), str(rating["end"])]
        rendered.append(str(compliance["day"]))
    assert [re.findall(r'value="([^"]*)"', html) for html in rendered] == [["2026-12-01"]] * 5


# ------------------------------------------------------------------- days off the calendar: API
# refused with a 400: tests/review/test_rating_api.py (test_a_bad_period_is_a_400); answered:
@pytest.mark.parametrize(
    ("query", "period"),
    [
        ("?from=1900-01-01&to=1900-01-07", ("1900-01-01", "1900-01-07")),
        ("?to=1900-01-03", ("1900-01-01", "1900-01-03")),  # the default week starts on the first day
        ("?from=9998-12-25&to=9998-12-31", ("9998-12-25", "9998-12-31")),
        ("?to=9998-12-31", ("9998-12-25", "9998-12-31")),
    ],
)
def test_the_first_and_the_last_days_are_answered(pit_boss, table, query, period) -> None:
    player = PlayerFactory(casino=table.casino)
    response = Api(pit_boss).get(rating_path(player.pk, query))
    assert response.status_code == 200, response.content[:500]
    body = response.json()
    assert (body["from"], body["to"], body["sessions"], body["total"]["coups"]) == (*period, [], 0)


# ---------------------------------------------------------------- days off the calendar: screens
@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"end": "0001-01-01"}, f"To: {OUT_OF_RANGE}"),
        ({"end": "9999-12-31"}, f"To: {OUT_OF_RANGE}"),
        ({"start": "9999-12-31", "end": "9999-12-31"}, f"From: {OUT_OF_RANGE} To: {OUT_OF_RANGE}"),
        ({"start": "0001-01-01"}, f"From: {OUT_OF_RANGE}"),
    ],
)
@pytest.mark.parametrize("persona", ["pit_boss", "accountant"])
def test_the_dashboard_refuses_a_day_off_the_calendar(client, request, table, persona, query, error) -> None:
    client.force_login(request.getfixturevalue(persona))
    response = client.get(reverse("review:dashboard"), query)
    assert response.status_code == 200
    assert _error(response.content.decode(), "filters-error") == error
    assert response.context["data"].period == Period.last_days()  # the page shows the last week


def test_the_dashboard_answers_the_first_and_the_last_days(client, pit_boss, table) -> None:
    client.force_login(pit_boss)
    for query, period in (
        ({"end": "9998-12-31"}, (dt.date(9998, 12, 25), dt.date(9998, 12, 31))),
        ({"end": "1900-01-02"}, (dt.date(1900, 1, 1), dt.date(1900, 1, 2))),
    ):
        response = client.get(reverse("review:dashboard"), query)
        assert response.status_code == 200
        assert 'data-testid="filters-error"' not in response.content.decode()
        data = response.context["data"]
        assert (data.period.start, data.period.end, data.rates, data.hold) == (*period, [], [])


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"end": "0001-01-01"}, f"To: {OUT_OF_RANGE}"),
        ({"end": "9999-12-31"}, f"To: {OUT_OF_RANGE}"),
        ({"start": "9999-12-31", "end": "9999-12-31"}, f"From: {OUT_OF_RANGE} To: {OUT_OF_RANGE}"),
    ],
)
def test_a_player_s_page_refuses_a_day_off_the_calendar(client, pit_boss, table, query, error) -> None:
    player = PlayerFactory(casino=table.casino)
    client.force_login(pit_boss)
    response = client.get(reverse("review:player", args=[player.pk]), query)
    assert response.status_code == 200
    assert _error(response.content.decode(), "rating-error") == error
    assert response.context["slip"] is None


def test_a_player_s_page_answers_the_last_day(client, pit_boss, table) -> None:
    player = PlayerFactory(casino=table.casino)
    client.force_login(pit_boss)
    response = client.get(reverse("review:player", args=[player.pk]), {"end": "9998-12-31"})
    assert response.status_code == 200
    slip = response.context["slip"]
    assert (slip.first, slip.last, slip.total.coups) == (dt.date(9998, 12, 25), dt.date(9998, 12, 31), 0)


@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31"])
def test_compliance_refuses_a_day_off_the_calendar(
    client, compliance_officer, monkeypatch, table, day
) -> None:
    client.force_login(compliance_officer)
    _frozen(monkeypatch)
    response = client.get(reverse("review:compliance"), {"day": day})
    assert response.status_code == 200
    assert _error(response.content.decode(), "compliance-day-error") == f"Gaming day: {OUT_OF_RANGE}"
    assert response.context["page"].day == dt.date(2026, 12, 1)  # today's page instead


# ------------------------------------------------------------- the gaming day at the calendar's ends
def test_a_day_s_bounds_stop_at_the_ends_of_the_calendar() -> None:
    """tables.gaming_day: a day whose start (in UTC) or whose next day is off Python's calendar is
    bounded by EARLIEST or LATEST, not an OverflowError (the rating and the dashboard asked it)."""
    utc = casino_calendar(None)
    assert utc.bounds(dt.date.min, dt.date.max) == (EARLIEST, LATEST)
    assert utc.bounds(dt.date(9999, 12, 31), dt.date(9999, 12, 31)) == (
        dt.datetime(9999, 12, 31, tzinfo=dt.UTC),
        LATEST,
    )
    # Tokyo is ahead of UTC: 06:00 there on 0001-01-01 is the year before in UTC
    tokyo = GamingCalendar(cutoff=dt.time(6), time_zone="Asia/Tokyo")
    assert tokyo.bounds(dt.date.min, dt.date.min)[0] == EARLIEST
    assert tokyo.day_start(dt.date(2026, 12, 1)) == dt.datetime(2026, 11, 30, 21, 0, tzinfo=dt.UTC)
    # New York is behind: 23:00 there on 9999-12-31 is the year after in UTC
    late = GamingCalendar(cutoff=dt.time(23), time_zone="America/New_York")
    assert late.bounds(dt.date(9999, 12, 30), dt.date(9999, 12, 30))[1] == LATEST
    assert Period(start=dt.date.min, end=dt.date.max).bounds == (EARLIEST, LATEST)
    assert tokyo.day_start(dt.date(1, 1, 2)) > EARLIEST
    assert late.day_start(dt.date(9999, 12, 29)) < LATEST


def test_a_slip_and_the_dashboard_at_the_ends_of_the_calendar(table) -> None:
    """The selectors the forms now keep away from those days still answer them (nothing played).
    The slip's own arithmetic (tables.rating.rating_slip) still adds a day to its last: it is
    asked up to 9999-12-30 here."""
    player = PlayerFactory(casino=table.casino)
    now = timezone.now()
    for first, last in ((dt.date.min, dt.date(1, 1, 7)), (dt.date(9999, 12, 24), dt.date(9999, 12, 30))):
        slip = player_rating(player=player, first=first, last=last, now=now)
        assert (slip.first, slip.last, slip.sessions, slip.total.coups) == (first, last, [], 0)
    for first, last in ((dt.date.min, dt.date(1, 1, 7)), (dt.date(9999, 12, 25), dt.date.max)):
        data = dashboard(period=Period(start=first, end=last))
        assert (data.rates, data.hold, list(data.flagged.object_list), list(data.alarms.object_list)) == (
            [],
            [],
            [],
            [],
        )

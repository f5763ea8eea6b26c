"""The per table-day rollups (tables/services/rollups.py, issue 13 §1): exact figures on a known
history, corrections followed, idempotent refreshes, the SQL and the row-by-row derivation agree,
gaming days computed in SQL as the calendar computes them, an imported history checked."""

from __future__ import annotations

import datetime as dt
import io
from fractions import Fraction
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from chemin_de_fer.engine.odds import expected_levy_at_rate
from chemin_de_fer.engine.profiles import profile_from_dict
from review.selectors.rating import player_rating
from tables import services
from tables.gaming_day import GamingCalendar, casino_calendar, gaming_day_sql, sql_date
from tables.models import CORRECTION_KINDS, Coup, CoupStep, CroupierDay, RollupMark, TableDay
from tables.services.rollups import (
    _figures_python,
    _figures_sql,
    rollups_check,
    rollups_rebuild,
    rollups_refresh,
)
from tests.review.history import awaiting as awaiting_fixture
from tests.review.history import history as history_fixture

pytestmark = [pytest.mark.django_db]
awaiting, history = awaiting_fixture, history_fixture  # the review pages' known night, as fixtures

DATA = Path(__file__).resolve().parents[1] / "data"


def today(table) -> dt.date:
    return casino_calendar(table.casino).day_of(timezone.now())


def expected_micro(coup, covered: int) -> int:
    rules = coup.rules
    per_unit = expected_levy_at_rate(
        profile_from_dict(rules["profile"]), coup.shoe.decks, rules["levy"]["rate_bp"]
    )
    return round(per_unit * covered * 1_000_000)


def test_a_known_night_rolls_up_to_its_exact_figures(history, table, croupier) -> None:
    outcome = rollups_refresh()
    day = TableDay.objects.get()
    # clean: covered 200, levy 10, banker; flagged restored: covered 400, levy 20, banker;
    # natural: covered 100, player wins
    assert (day.table_id, day.gaming_day) == (table.pk, today(table))
    figures = (day.coups, day.banker_wins, day.covered, day.levy, day.flagged, day.alarms)
    assert figures == (3, 2, 700, 30, 1, 0)
    clean = history.clean
    per_unit = Fraction(expected_micro(clean, 1_000_000), 1_000_000)  # same profile, decks, rate
    assert day.expected_levy_micro == round(per_unit * 700)
    steps = CoupStep.objects.filter(actor=croupier).exclude(kind__in=[k.value for k in CORRECTION_KINDS])
    person = CroupierDay.objects.get()
    assert (person.user_id, person.coups, person.steps, person.wrong_steps) == (
        croupier.pk,
        3,
        steps.count(),
        1,
    )
    assert outcome.table_days == 1 and outcome.to_seq == RollupMark.objects.get().audit_seq
    assert rollups_check() == []


def test_a_correction_approved_later_moves_the_figures(awaiting, pit_boss, table) -> None:
    rollups_refresh()
    day = TableDay.objects.get()
    assert (day.coups, day.banker_wins, day.covered, day.levy, day.flagged) == (1, 1, 200, 10, 1)
    services.correction_approve(actor=pit_boss, coup=awaiting.flagged)
    rollups_refresh()
    day = TableDay.objects.get()
    assert (day.coups, day.banker_wins, day.covered, day.levy, day.flagged) == (2, 2, 600, 30, 1)
    assert rollups_check() == []


def test_a_second_refresh_reads_nothing_and_changes_nothing(history) -> None:
    rollups_refresh()
    before = list(TableDay.objects.values())
    again = rollups_refresh()
    assert (again.events, again.table_days) == (0, 0)
    assert list(TableDay.objects.values()) == before


def test_a_rebuild_from_scratch_gives_the_same_rows(history) -> None:
    rollups_refresh()
    columns = ("table_id", "gaming_day", "coups", "levy", "expected_levy_micro")
    refreshed = list(TableDay.objects.values(*columns))
    assert rollups_rebuild() == 1
    rebuilt = list(TableDay.objects.values(*columns))
    assert rebuilt == refreshed


def test_the_check_names_a_stored_figure_that_differs(history, table) -> None:
    rollups_refresh()
    TableDay.objects.update(levy=31)
    differences = rollups_check()
    assert [(d.table_id, d.gaming_day, d.what, d.stored, d.derived) for d in differences] == [
        (table.pk, today(table), "levy", 31, 30)
    ]
    out = io.StringIO()
    with pytest.raises(CommandError) as info:
        call_command("rollups", check=True, stdout=out)
    assert str(info.value) == "rollups differ from the records in 1 places"
    assert f"table {table.pk} on {today(table)}: levy stored 31, derived 30" in out.getvalue()


def test_the_command_refreshes_then_checks(history) -> None:
    out = io.StringIO()
    call_command("rollups", stdout=out)
    call_command("rollups", check=True, stdout=out)
    text = out.getvalue()
    assert "refreshed: 1 table-days from" in text and "rollups match the records" in text


@pytest.mark.postgres  # the refresh's grouping SQL is PostgreSQL's road; SQLite's is the row-by-row one
def test_the_database_and_the_row_by_row_derivation_agree(history, table) -> None:
    start, end = casino_calendar(table.casino).bounds(today(table), today(table))
    sql_figures, sql_people = _figures_sql([table.pk], start, end)
    py_figures, py_people = _figures_python([table.pk], start, end)
    assert dict(sql_figures) == dict(py_figures)
    assert sorted(sql_people) == sorted(py_people)


@pytest.mark.parametrize(
    ("zone", "cutoff"),
    [("UTC", dt.time(6)), ("Europe/Paris", dt.time(6)), ("America/New_York", dt.time(4, 30))],
)
def test_the_gaming_day_in_sql_is_the_calendars(zone: str, cutoff: dt.time) -> None:
    """Instants around the cut-off, and across both daylight-saving changes of 2026."""
    calendar = GamingCalendar(cutoff=cutoff, time_zone=zone)
    days = [dt.date(2026, 3, 8), dt.date(2026, 3, 29), dt.date(2026, 10, 25), dt.date(2026, 11, 1)]
    instants = [
        calendar.day_start(day) + dt.timedelta(minutes=offset)
        for day in days
        for offset in (-61, -1, 0, 1, 59, 60, 61, 23 * 60 + 59)
    ]
    vendor = connection.vendor
    # the definition the rollups and the reports share (tables.gaming_day.gaming_day_sql), in this
    # database's SQL: PostgreSQL's time zones, or SQLite's gaming_day() over the stored UTC text
    instant = "CAST(%s AS timestamptz)" if vendor == "postgresql" else "%s"
    sql = "SELECT " + gaming_day_sql(instant, tz="%s", cutoff="%s", vendor=vendor)
    with connection.cursor() as cursor:
        for at in instants:
            cursor.execute(sql, [connection.ops.adapt_datetimefield_value(at), zone, cutoff.isoformat()])
            assert sql_date(cursor.fetchone()[0]) == calendar.day_of(at), at


def test_an_imported_history_rolls_up_as_the_records_say(croupier, table) -> None:
    # the spec's examples include records the import refuses (exit status 1): the rest is imported
    with pytest.raises(SystemExit):
        call_command(
            "import_coups",
            str(DATA / "coups.jsonl"),
            table=table.pk,
            croupier=croupier.username,
            buy_in=100_000,
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    rollups_refresh()
    settled = Coup.objects.filter(state=Coup.State.SETTLED).count()
    assert settled > 0
    assert sum(TableDay.objects.values_list("coups", flat=True)) == settled
    assert rollups_check() == []
    # imported coups are nobody's live steps: no croupier row
    assert not CroupierDay.objects.exists()


def test_a_bank_s_exempt_first_coup_is_expected_to_pay_no_levy(croupier, table) -> None:
    """The dashboard prices a coup as the rating slip does (engine_bridge.expected_levy_per_chip):
    under a profile that exempts a bank's first coup, its 200 covered chips expect no levy and
    the second coup's 100 are priced; the grouping SQL, the row-by-row derivation and the slip agree."""
    from tests.review.test_rating import PER_CHIP, first_coup_exempt, played_night, whole_night

    first_coup_exempt(table)
    floor, t0 = played_night(croupier, table, second_bank=400)
    rollups_refresh()
    day = TableDay.objects.get()
    assert (day.coups, day.covered, day.levy) == (2, 300, 0)
    assert day.expected_levy_micro == round(PER_CHIP * 100 * 1_000_000)
    assert rollups_check() == []
    first, last = whole_night(floor, t0)
    slip = player_rating(player=floor.players[1], first=first, last=last, now=timezone.now()).total
    assert slip.expected_levy == PER_CHIP * 100
    if connection.vendor == "postgresql":
        start, end = casino_calendar(table.casino).bounds(day.gaming_day, day.gaming_day)
        in_sql, row_by_row = _figures_sql([table.pk], start, end), _figures_python([table.pk], start, end)
        assert dict(in_sql[0]) == dict(row_by_row[0])

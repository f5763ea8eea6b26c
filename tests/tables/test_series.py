"""A home series at the table (docs/rules.md §10): started, played to its end, standings with shared
places."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from tables import services
from tables.models import Series
from tables.money.series import series_standings

from .play import open_floor, play

pytestmark = pytest.mark.django_db

SUITS = "SHDC"
TENS = "TJQK"


def tie(floor, n: int) -> None:
    """A stand-off of two natural nines, with cards that vary so no card is seen too often."""
    a, b = SUITS[(2 * n) % 4], SUITS[(2 * n + 1) % 4]
    ten = TENS[n % 4]
    play(
        floor,
        bank=20,
        bets=[(2, 5), (3, 5)],
        cards=(f"9{a}", f"9{b}", f"{ten}{a}", f"{ten}{b}"),
        player="natural",
    )


def test_a_series_of_twelve_coups_and_its_standings(croupier, home_table) -> None:
    floor = open_floor(croupier, home_table, seats=(1, 2, 3), chips=0)
    series = services.series_begin(actor=croupier, session=floor.session)
    assert (series.coups_planned, series.start_chips) == (12, 100)
    with pytest.raises(ValidationError, match="already being played"):
        services.series_begin(actor=croupier, session=floor.session)
    # the banker (seat 1) wins the first coup: 5 + 5 from the punters
    play(
        floor,
        bank=10,
        bets=[(2, 5), (3, 5)],
        cards=("2H", "9S", "3C", "KD"),
        player="stand",
        banker="natural",
    )
    for n in range(11):
        tie(floor, n)
    with pytest.raises(ValidationError, match="All 12 coups have been played"):
        services.coup_start(actor=croupier, session=floor.session, amount=20)
    with pytest.raises(ValidationError):
        services.series_finish(actor=croupier, session=floor.session, reason="no_bank")  # banks are possible
    ended = services.series_finish(actor=croupier, session=floor.session, reason="completed")
    assert ended.end_reason == "completed"
    standings = [(s.place, s.player.display_name, s.chips, s.delta) for s in series_standings(series=ended)]
    assert standings == [(1, "Player 1", 110, 10), (2, "Player 2", 95, -5), (2, "Player 3", 95, -5)]
    assert floor.session.bank_turns.filter(ended_at__isnull=True).count() == 0  # the bank went back


def test_the_table_screen_starts_and_shows_the_series(client, croupier, home_table) -> None:
    floor = open_floor(croupier, home_table, seats=(1, 2, 3), chips=0)
    client.force_login(croupier)
    page = client.get(reverse("floor:table", args=[home_table.pk])).content.decode()
    assert 'data-testid="series-start"' in page
    client.post(reverse("floor:series_begin", args=[home_table.pk]))
    assert Series.objects.filter(session=floor.session, ended_at__isnull=True).count() == 1
    page = client.get(reverse("floor:table", args=[home_table.pk])).content.decode()
    assert "12 of 12 coups left." in page and 'data-testid="standing"' in page
    client.post(reverse("floor:series_finish", args=[home_table.pk]), {"reason": "abandoned"})
    assert Series.objects.get().end_reason == "abandoned"


def test_a_casino_table_plays_no_series(croupier, table) -> None:
    floor = open_floor(croupier, table, seats=(1, 2, 3))
    with pytest.raises(ValidationError, match="plays no series"):
        services.series_begin(actor=croupier, session=floor.session)

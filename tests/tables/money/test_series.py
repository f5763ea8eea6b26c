"""Home series: start, standings with shared places, early end, returning every chip."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.template.loader import render_to_string

from audit.models import AuditEvent
from chemin_de_fer.engine.coup import Outcome
from ledger import selectors
from ledger import services as ledger
from ledger.models import Account, Transaction
from tables.models import Series
from tables.money import series as series_money
from tests.ledger.builders import rig

pytestmark = pytest.mark.django_db


def home_series(players: int = 4):
    r = rig("home", players=players, chips=None)
    series = series_money.series_start(session=r.session, players=r.players, actor=r.actor)
    return r, series


def test_series_start_buys_everybody_in_once() -> None:
    r, series = home_series()
    assert (series.coups_planned, series.start_chips, series.min_bank, series.min_bet) == (12, 100, 2, 1)
    again = series_money.series_start(session=r.session, players=r.players, actor=r.actor)
    assert again == series
    assert [selectors.player_available(casino=r.casino, player=p) for p in r.players] == [100] * 4
    assert Transaction.objects.filter(kind="buy_in").count() == 4
    assert AuditEvent.objects.filter(action="ledger.series.start").count() == 1


def test_series_start_refuses_players_not_seated_and_tables_without_series() -> None:
    r = rig("home", players=2, chips=None)
    outsider = rig("home", players=1, chips=None).players[0]
    with pytest.raises(ValidationError, match="Not seated"):
        series_money.series_start(session=r.session, players=[*r.players, outsider], actor=r.actor)
    casino = rig("casino", players=2, chips=None)
    with pytest.raises(ValidationError, match="does not play series"):
        series_money.series_start(session=casino.session, players=casino.players, actor=None)


def test_standings_share_places_for_equal_chips() -> None:
    r, series = home_series(4)
    a, b, c, d = r.players
    r.play(a, 20, Outcome.PLAYER, [(b, 10), (c, 10)])  # a -20, b +10, c +10
    r.play(b, 10, Outcome.BANKER, [(d, 5)])  # b +5 (reserve 5 & bank 10 counted), d -5
    standings = series_money.series_standings(series=series)
    assert [(s.place, s.player, s.chips, s.delta) for s in standings] == [
        (1, b, 115, 15),
        (2, c, 110, 10),
        (3, d, 95, -5),
        (4, a, 80, -20),
    ]
    r.play(b, 10, Outcome.PLAYER, [(c, 5), (d, 5)])  # b loses his bank of 10, keeps his reserve 5
    assert [(s.place, s.player, s.chips) for s in series_money.series_standings(series=series)] == [
        (1, c, 115),
        (2, b, 105),
        (3, d, 100),
        (4, a, 80),
    ]


def test_shared_places_are_1_1_3() -> None:
    r, series = home_series(3)
    a, b, c = r.players
    r.play(a, 10, Outcome.PLAYER, [(b, 5), (c, 5)])  # a 90, b 105, c 105
    assert [(s.place, s.player, s.chips) for s in series_money.series_standings(series=series)] == [
        (1, b, 105),
        (1, c, 105),
        (3, a, 90),
    ]
    html = render_to_string(
        "ledger/_series_standings.html", {"standings": series_money.series_standings(series=series)}
    )
    assert html.count('data-testid="standing"') == 3 and "+5" in html and "-10" in html


def test_series_end_returns_bank_and_reserves_and_keeps_the_standings() -> None:
    r, series = home_series(3)
    a, b, c = r.players
    r.play(a, 20, Outcome.BANKER, [(b, 7), (c, 5)])  # the home rule sheet's example: bank 24, reserve 8
    before = [(s.player, s.chips) for s in series_money.series_standings(series=series)]
    with pytest.raises(ValidationError, match="Only 1 of 12 coups"):  # coups recorded as tables rows
        series_money.series_end(series=series, reason="completed", actor=r.actor)
    ended = series_money.series_end(series=series, reason="abandoned", actor=r.actor)
    assert (ended.end_reason, ended.ended_at is not None) == ("abandoned", True)
    assert selectors.account_balance(casino=r.casino, kind="bank", table=r.table) == 0
    assert selectors.account_balance(casino=r.casino, kind="reserve", player=a) == 0
    assert selectors.account_balance(casino=r.casino, kind="player", player=a) == 112
    assert [(s.player, s.chips) for s in series_money.series_standings(series=series)] == before
    assert series_money.series_end(series=series, reason="abandoned", actor=r.actor) == ended  # idempotent
    with pytest.raises(ValidationError, match="already ended"):
        series_money.series_end(series=series, reason="no_bets", actor=r.actor)
    assert series_money.series_can_continue(series=ended) == (False, "The series has ended (abandoned).")
    assert sum(Account.objects.filter(casino=r.casino).values_list("balance", flat=True)) == 0


def test_a_series_is_completed_after_its_coups() -> None:
    r, series = home_series(3)
    a, b, _ = r.players
    Series.objects.filter(pk=series.pk).update(coups_planned=2)
    series.refresh_from_db()
    r.play(a, 10, Outcome.TIE, [(b, 4)])
    assert series_money.series_can_continue(series=series) == (True, "1 of 2 coups left.")
    r.play(a, 10, Outcome.BANKER, [(b, 4)])
    assert series_money.series_coups_played(series=series) == 2
    assert series_money.series_can_continue(series=series) == (False, "All 2 coups have been played.")
    series_money.series_end(series=series, reason="completed", actor=r.actor)


def test_the_series_stops_when_nobody_can_bank_or_bet() -> None:
    r, series = home_series(2)
    a, b = r.players
    r.play(a, 100, Outcome.PLAYER, [(b, 99)])  # a keeps 1 chip: he cannot open a bank of 2
    assert series_money.series_can_continue(series=series)[0] is True  # b can bank, a can bet 1
    r.play(b, 199, Outcome.BANKER, [(a, 1)])  # a has nothing left
    ok, why = series_money.series_can_continue(series=series)
    assert (ok, why) == (False, "Nobody can bet against the bank.")
    with pytest.raises(ValidationError, match="Somebody can still open a bank"):
        series_money.series_end(series=series, reason="no_bank", actor=r.actor)
    series_money.series_end(series=series, reason="no_bets", actor=r.actor)


def test_nobody_can_open_a_bank() -> None:
    r = rig("home", players=3, chips=None)
    series = series_money.series_start(session=r.session, players=r.players, actor=r.actor)
    for p in r.players:  # everybody cashes out all but one chip
        ledger.cage_cash_out(casino=r.casino, player=p, amount=99, actor=None, key=f"out:{p.pk}")
    assert series_money.series_can_continue(series=series) == (False, "Nobody can open a bank of 2 chips.")
    series_money.series_end(series=series, reason="no_bank", actor=r.actor)


def test_chips_held_before_the_series_do_not_count() -> None:
    r = rig("home", players=3, chips=None)
    a = r.players[0]
    ledger.cage_buy_in(casino=r.casino, player=a, amount=40, actor=None, key="earlier")
    series = series_money.series_start(session=r.session, players=r.players, actor=r.actor)
    assert selectors.player_available(casino=r.casino, player=a) == 140
    assert [(s.place, s.chips) for s in series_money.series_standings(series=series)] == [(1, 100)] * 3

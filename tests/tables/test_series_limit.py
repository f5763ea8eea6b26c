"""While a home series runs at the table (docs/rules.md §10: 12 coups, 100 chips each), a player
stakes only the chips he holds in the series, counted from his series buy-in
(tables.money.series): a bank, a bet or a banco beyond them is refused and nothing is written,
however many chips his cage account holds besides. A player seated at the table who is not an
entrant of the series neither bets nor banks in it."""

from __future__ import annotations

from html import unescape

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from ledger import services as ledger
from ledger.models import Account
from ledger.selectors import account_balance
from tables import services
from tables.models import Coup, Series
from tables.money.series import series_standings
from tables.services import Caller
from tests.factories import PlayerFactory

from .play import Floor, K, open_floor, play, row_counts, step
from .views.conftest import HTMX

pytestmark = pytest.mark.django_db

LATE_BANK = "Late Comer is not playing the series at this table: his bank is refused."
LATE_BET = "Late Comer is not playing the series at this table: his bet is refused."
BANK_SAID = "Player 1 has only 100 chips in the series; a bank of 5,000 is refused."
BET_SAID = "Player 2 has only 40 chips in the series; a bet of 50 is refused."

#: what each player holds at the cage before the series (the demo's players hold about this much)
BEFORE = 9900


def wallet(floor: Floor, player) -> int:
    return account_balance(casino=floor.table.casino, kind=Account.Kind.PLAYER, player=player, table=None)


def reserve(floor: Floor, player) -> int:
    return account_balance(casino=floor.table.casino, kind=Account.Kind.RESERVE, player=player, table=None)


def bank(floor: Floor) -> int:
    return account_balance(casino=floor.table.casino, kind=Account.Kind.BANK, table=floor.table)


def series_floor(croupier, home_table, *, banker_seat: int | None = 1) -> Floor:
    """Three players seated with 9,900 chips each, a series started (each bought in for 100)."""
    floor = open_floor(croupier, home_table, seats=(1, 2, 3), chips=BEFORE, banker_seat=banker_seat)
    services.series_begin(actor=croupier, session=floor.session)
    return floor


def balances(floor: Floor) -> list[int]:
    return [wallet(floor, p) for p in floor.players.values()] + [bank(floor)]


def test_a_bank_beyond_the_series_chips_is_refused_and_nothing_is_written(croupier, home_table) -> None:
    floor = series_floor(croupier, home_table)
    assert balances(floor) == [10_000, 10_000, 10_000, 0]
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        services.coup_start(actor=croupier, session=floor.session, amount=5000)
    assert refused.value.messages == ["Player 1 has only 100 chips in the series; a bank of 5000 is refused."]
    assert row_counts() == before
    assert balances(floor) == [10_000, 10_000, 10_000, 0]
    with pytest.raises(ValidationError, match="has only 100 chips in the series; a bank of 101 is refused"):
        services.coup_start(actor=croupier, session=floor.session, amount=101)
    assert row_counts() == before
    # all of his series chips he may put up
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    assert coup.bank == 100 and bank(floor) == 100 and wallet(floor, floor.players[1]) == 9900


def test_bets_and_a_banco_beyond_the_series_chips_are_refused(croupier, home_table) -> None:
    floor = series_floor(croupier, home_table)
    one, two, three = floor.players.values()
    # the banker wins 60 from seat 2: bank 120, 40 uncovered in his reserve; seat 2 keeps 40
    play(floor, bank=100, bets=[(2, 60)], cards=("2H", "9S", "3C", "KD"), player="stand", banker="natural")
    assert [(s.player, s.chips) for s in series_standings(series=Series.objects.get())] == [
        (one, 160),
        (three, 100),
        (two, 40),
    ]
    coup = services.coup_start(actor=croupier, session=floor.session, amount=160).coup
    before, money = row_counts(), balances(floor)
    with pytest.raises(ValidationError) as refused:
        step(floor, coup, K.BET, seat=2, amount=50)
    assert refused.value.messages == ["Player 2 has only 40 chips in the series; a bet of 50 is refused."]
    assert row_counts() == before and balances(floor) == money
    step(floor, coup, K.BET, seat=2, amount=30)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        step(floor, coup, K.BET, seat=2, amount=20)
    assert refused.value.messages == [
        "Player 2 has only 40 chips in the series; a bet of 20 besides the 30 already staked is refused."
    ]
    assert row_counts() == before
    step(floor, coup, K.BET, seat=2, amount=10)  # 40 in all: every chip he has in the series
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        step(floor, coup, K.BANCO, callers=(Caller(seat=3),))
    assert refused.value.messages == ["Player 3 has only 100 chips in the series; a bet of 160 is refused."]
    assert row_counts() == before and balances(floor) == money
    coup.refresh_from_db()
    assert list(coup.bets.filter(withdrawn=False).values_list("amount", flat=True).order_by("pk")) == [30, 10]


def test_a_player_seated_after_the_series_began_neither_bets_nor_banks(croupier, home_table) -> None:
    floor = series_floor(croupier, home_table, banker_seat=None)
    late = PlayerFactory(casino=home_table.casino, display_name="Late Comer")
    ledger.cage_buy_in(casino=home_table.casino, player=late, amount=5000, actor=croupier, key="late")
    seat = services.seat_take(actor=croupier, session=floor.session, player=late, number=4)
    services.bank_first_assign(actor=croupier, session=floor.session, seat=seat)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        services.coup_start(actor=croupier, session=floor.session, amount=10)
    assert refused.value.messages == [LATE_BANK]
    assert row_counts() == before and wallet(floor, late) == 5000 and bank(floor) == 0


def test_a_player_not_in_the_series_may_not_bet_in_it(croupier, home_table) -> None:
    floor = series_floor(croupier, home_table)
    late = PlayerFactory(casino=home_table.casino, display_name="Late Comer")
    ledger.cage_buy_in(casino=home_table.casino, player=late, amount=5000, actor=croupier, key="late")
    services.seat_take(actor=croupier, session=floor.session, player=late, number=4)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=20).coup
    before, money = row_counts(), wallet(floor, late)
    with pytest.raises(ValidationError) as refused:
        step(floor, coup, K.BET, seat=4, amount=5)
    assert refused.value.messages == [LATE_BET]
    assert row_counts() == before and wallet(floor, late) == money == 5000


def test_once_the_series_ended_the_whole_account_counts_again(croupier, home_table) -> None:
    floor = series_floor(croupier, home_table, banker_seat=None)
    services.series_finish(actor=croupier, session=floor.session, reason="abandoned")
    services.bank_first_assign(actor=croupier, session=floor.session, seat=floor.seats[1])
    coup = services.coup_start(actor=croupier, session=floor.session, amount=5000).coup
    assert coup.bank == 5000 and bank(floor) == 5000 and wallet(floor, floor.players[1]) == 5000


def test_the_repro_through_the_croupiers_screen(client, croupier, home_table) -> None:
    """The QA sweep's repro: three seated, "Start a series", seat 1 holds the bank and declares
    5000: refused in a sentence on the screen, nothing written, the standings unchanged; a bet
    beyond a punter's series chips likewise, in his row."""
    floor = open_floor(croupier, home_table, seats=(1, 2, 3), chips=BEFORE)
    client.force_login(croupier)
    client.post(reverse("floor:series_begin", args=[home_table.pk]))
    series = Series.objects.get(session=floor.session, ended_at__isnull=True)
    before, money = row_counts(), balances(floor)
    response = client.post(reverse("floor:coup_start", args=[home_table.pk]), {"amount": 5000}, **HTMX)
    page = unescape(response.content.decode())
    assert response.status_code == 400
    assert f'data-testid="error"><p>{BANK_SAID}</p>' in page
    assert row_counts() == before and balances(floor) == money == [10_000, 10_000, 10_000, 0]
    assert [s.chips for s in series_standings(series=series)] == [100, 100, 100]
    # the banker wins 60 from seat 2, who keeps 40 in the series
    play(floor, bank=100, bets=[(2, 60)], cards=("2H", "9S", "3C", "KD"), player="stand", banker="natural")
    started = client.post(reverse("floor:coup_start", args=[home_table.pk]), {"amount": 160}, **HTMX)
    assert started.status_code == 200
    coup = Coup.objects.get(shoe__session=floor.session, state=Coup.State.OPEN)
    before, money = row_counts(), balances(floor)
    response = client.post(
        reverse("floor:coup_step", args=[home_table.pk, coup.pk]),
        {"kind": "bet", "punter": "seat-2", "amount": 50, "expected_step": coup.step_count},
        **HTMX,
    )
    page = unescape(response.content.decode())
    assert response.status_code == 400 and row_counts() == before and balances(floor) == money
    row = page[page.index('data-testid="bettor-seat-2"') : page.index('class="banco-multi"')]
    assert f'data-testid="error"><p>{BET_SAID}</p>' in row
    assert [s.chips for s in series_standings(series=series)] == [160, 100, 40]


def test_the_series_ends_early_when_nobody_has_series_chips_left_to_bet(croupier, home_table) -> None:
    """Chips held before the series do not keep it going: who can bank or bet is counted in
    series chips, as the floor counts them."""
    floor = series_floor(croupier, home_table)
    # seat 1 wins 100 from seat 2 and 100 from seat 3 (all their series chips): nothing left
    play(floor, bank=100, bets=[(2, 100)], cards=("2H", "9S", "3C", "KD"), player="stand", banker="natural")
    play(floor, bank=200, bets=[(3, 100)], cards=("2D", "9C", "3H", "KS"), player="stand", banker="natural")
    assert [s.chips for s in series_standings(series=Series.objects.get())] == [300, 0, 0]
    with pytest.raises(ValidationError, match=r"Nobody can bet against the bank\. End the series"):
        services.coup_start(actor=croupier, session=floor.session, amount=400)

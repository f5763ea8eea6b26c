"""The croupier's screen for the rules of issue 9 §4: the house bank (RULES.md §2), spectators after
the seated round and the club's consent (§2), a passed bank's terms and auction (§7), the stop
card (§8)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tables.models import BankTurn, Bet, Coup, Shoe
from tests.tables.play import Floor, open_floor, play, row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def page(client: Client, table: Any) -> str:
    return client.get(reverse("floor:table", args=[table.pk])).content.decode()


def bet(client: Client, coup: Coup, **data: Any) -> Any:
    coup.refresh_from_db()
    data = {"expected_step": coup.step_count, "kind": "bet", **data}
    return client.post(reverse("floor:coup_step", args=[coup.shoe.table_id, coup.pk]), data, **HTMX)


def start(client: Client, floor: Floor, amount: int) -> Coup:
    response = client.post(reverse("floor:coup_start", args=[floor.table.pk]), {"amount": amount}, **HTMX)
    assert response.status_code == 200, response.content.decode()
    return Coup.objects.latest("pk")


def test_the_croupier_gives_the_bank_to_the_house_and_it_shows_as_house(croupier, table, as_croupier) -> None:
    """RULES.md §2: a house-bank table offers "The house banks"; the screen then shows House as
    the banker, played by the croupier, and a coup's result names House."""
    table.house_bank = True
    table.save()
    floor = open_floor(croupier, table, banker_seat=None)
    assert 'data-testid="house-bank"' in page(as_croupier, table)
    html = as_croupier.post(reverse("floor:bank_house", args=[table.pk]), **HTMX).content.decode()
    assert 'data-testid="banker">House<' in html
    assert "the croupier plays the bank hand for the house" in html
    assert "The house stops banking" in html
    play(
        floor,
        bank=100,
        bets=[(4, 100)],
        cards=("2H", "AS", "3C", "6D"),
        player="draw",
        player_card="KH",
        banker="stand",
    )
    html = page(as_croupier, table)
    assert "Banker House" in html and 'data-testid="banker-net">+100<' in html


def test_a_table_without_the_setting_shows_no_house_button_and_refuses_it(floor, table, as_croupier) -> None:
    """RULES.md §2: off by default."""
    assert 'data-testid="house-bank"' not in page(as_croupier, table)
    before = row_counts()
    response = as_croupier.post(reverse("floor:bank_house", args=[table.pk]), **HTMX)
    assert response.status_code == 400 and "house does not bank this table" in response.content.decode()
    assert row_counts() == before


def test_a_spectator_row_asks_whether_the_seated_round_is_over(croupier, table, as_croupier) -> None:
    """RULES.md §2: refused before the seated round, taken with the box ticked."""
    floor = open_floor(croupier, table, spectators=1)
    coup = start(as_croupier, floor, 100)
    key = f"spectator-{floor.spectators[0].pk}"
    html = page(as_croupier, table)
    assert f'data-testid="seated-round-over-{key}"' in html and f'data-testid="consent-{key}"' not in html
    before = row_counts()
    response = bet(as_croupier, coup, punter=key, amount=100)
    assert response.status_code == 400
    assert "once every seated punter has had a turn: seats 4, 3, 2 to go" in response.content.decode()
    assert row_counts() == before
    assert bet(as_croupier, coup, punter="seat-3", amount=40).status_code == 200
    assert bet(as_croupier, coup, punter=key, amount=60, seated_round_over="1").status_code == 200
    assert [b.amount for b in Bet.objects.filter(coup=coup)] == [40, 60]


def test_a_club_spectator_row_asks_for_the_bankers_consent(croupier, club_table, as_croupier) -> None:
    """RULES.md §2 (seed 002): the club's consent box; without it the bet is refused."""
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    coup = start(as_croupier, floor, 10)
    key = f"spectator-{floor.spectators[0].pk}"
    assert f'data-testid="consent-{key}"' in page(as_croupier, club_table)
    before = row_counts()
    response = bet(as_croupier, coup, punter=key, amount=5, seated_round_over="1")
    assert response.status_code == 400 and "only with the banker&#x27;s consent" in response.content.decode()
    assert row_counts() == before
    ok = bet(as_croupier, coup, punter=key, amount=5, seated_round_over="1", consent="1")
    assert ok.status_code == 200 and Bet.objects.get(coup=coup).amount == 5


def test_a_passed_bank_auction_on_the_screen(croupier, table, as_croupier) -> None:
    """RULES.md §7 (seed 000 b): where the table holds auctions, the screen offers one at the bank
    just played (100), and awards it at that amount."""
    table.passed_bank_auction = True
    table.save()
    floor = open_floor(croupier, table)
    play(
        floor,
        bank=100,
        bets=[(2, 100)],
        cards=("2H", "AS", "3C", "6D"),
        player="draw",
        player_card="KH",
        banker="stand",
    )
    html = as_croupier.post(reverse("floor:bank_pass", args=[table.pk]), **HTMX).content.decode()
    assert 'data-testid="auction-bank">100<' in html and 'data-testid="offer-minimum">1<' in html
    url = reverse("floor:bank_auction", args=[table.pk])
    before = row_counts()
    response = as_croupier.post(url, {"seat": floor.seats[3].pk, "amount": 195}, **HTMX)
    assert response.status_code == 400 and "puts up 100, the bank just played" in response.content.decode()
    assert row_counts() == before
    as_croupier.post(url, {"seat": floor.seats[3].pk, "amount": 100}, **HTMX)
    turn = BankTurn.objects.get(session=floor.session, ended_at__isnull=True)
    assert (turn.seat, turn.started_how, turn.required_minimum) == (floor.seats[3], "auction", 100)


def test_the_shoe_form_offers_a_valid_stop_card_and_refuses_others(croupier, table, as_croupier) -> None:
    """RULES.md §8: the form's default (8) is valid; 3 and 100 are refused with nothing written."""
    from tables import services

    services.table_session_open(actor=croupier, table=table)
    html = page(as_croupier, table)
    assert 'name="stop_card_position" value="8" min="7" max="10"' in html
    url = reverse("floor:shoe_start", args=[table.pk])
    for bad in (3, 100):
        before = row_counts()
        response = as_croupier.post(
            url, {"decks": 6, "burnt_cards": "2c 3c 4c", "stop_card_position": bad}, **HTMX
        )
        assert response.status_code == 400 and "7 to 10 cards from the bottom" in response.content.decode()
        assert row_counts() == before
    as_croupier.post(url, {"decks": 6, "burnt_cards": "2c 3c 4c", "stop_card_position": 8}, **HTMX)
    assert Shoe.objects.get(table=table).stop_card_position == 8

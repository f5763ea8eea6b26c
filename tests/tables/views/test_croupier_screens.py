"""The croupier's screens through Django's test client: who may see and do what, the htmx
partials, the confirm flow, stale tablets, refused input (with nothing written)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from tables import services
from tables.models import BankTurn, Bet, Coup, Seat, SessionPause, Shoe, ShoeCard, Spectator, TableSession
from tests.factories import PlayerFactory, UserFactory
from tests.tables.play import Floor, open_floor, play, row_counts, seat_number, shoe_dealt_down_to

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def page_url(table: Any) -> str:
    return reverse("floor:table", args=[table.pk])


def step_url(coup: Coup) -> str:
    return reverse("floor:coup_step", args=[coup.shoe.table_id, coup.pk])


def start(client: Client, floor: Floor, amount: int = 100) -> Coup:
    response = client.post(reverse("floor:coup_start", args=[floor.table.pk]), {"amount": amount}, **HTMX)
    assert response.status_code == 200, response.content.decode()
    return Coup.objects.latest("pk")


def send(client: Client, coup: Coup, **data: Any) -> Any:
    coup.refresh_from_db()
    data.setdefault("expected_step", coup.step_count)
    return client.post(step_url(coup), data, **HTMX)


def to_banker_decision(client: Client, floor: Floor) -> Coup:
    """Player 2 (must draw, draws a 6), banker 5: he must draw now."""
    coup = start(client, floor, 100)
    send(client, coup, kind="bet", punter="seat-2", amount=100)
    send(client, coup, kind="bets_closed")
    for kind, card in (
        ("card_to_player", "th"),
        ("card_to_banker", "3s"),
        ("card_to_player", "2c"),
        ("card_to_banker", "2h"),
    ):
        assert send(client, coup, kind=kind, card=card).status_code == 200
    send(client, coup, kind="player_draw")
    send(client, coup, kind="card_to_player", rank="6", suit="D")
    return coup


# ------------------------------------------------------------------------------------- who may
def test_anonymous_users_are_sent_to_log_in(floor, table) -> None:
    client = Client()
    for url in (reverse("floor:mine"), page_url(table)):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    before = row_counts()
    response = client.post(reverse("floor:coup_start", args=[table.pk]), {"amount": 100})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert row_counts() == before


def test_another_tables_croupier_gets_the_403_page_and_nothing_changes(
    floor, table, as_croupier, as_other_croupier
) -> None:
    coup = start(as_croupier, floor)
    before = row_counts()
    response = as_other_croupier.get(page_url(table))
    assert response.status_code == 403
    assert b"Not allowed" in response.content
    assert (
        as_other_croupier.post(reverse("floor:coup_start", args=[table.pk]), {"amount": 5}).status_code == 403
    )
    response = send(as_other_croupier, coup, kind="bet", punter="seat-2", amount=10)
    assert response.status_code == 403
    # htmx swaps the whole page for the 403 page, not a corner of the screen
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("body", "innerHTML")
    assert as_other_croupier.post(reverse("floor:pause", args=[table.pk])).status_code == 403
    assert row_counts() == before


@pytest.mark.parametrize("reader", ["as_pit_boss", "as_accountant"])
def test_pit_boss_and_accountant_read_the_table_but_change_nothing(
    request, reader, floor, table, as_croupier
) -> None:
    client: Client = request.getfixturevalue(reader)
    coup = start(as_croupier, floor)
    response = client.get(page_url(table))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="read-only"' in html
    assert 'hx-trigger="every 10s"' in html  # a reader's screen follows the table by itself
    assert step_url(coup) not in html  # no step form at all
    assert reverse("floor:seat_take", args=[table.pk]) not in html
    before = row_counts()
    assert send(client, coup, kind="bet", punter="seat-2", amount=10).status_code == 403
    assert client.post(reverse("floor:bank_pass", args=[table.pk])).status_code == 403
    assert (
        client.post(reverse("floor:seat_take", args=[table.pk]), {"number": 9, "new_name": "X"}).status_code
        == 403
    )
    assert row_counts() == before


def test_my_table_goes_straight_to_the_croupiers_table(floor, table, as_croupier) -> None:
    response = as_croupier.get(reverse("floor:mine"))
    assert response.status_code == 302 and response.url == page_url(table)


def test_a_croupier_without_a_shift_is_told_so(db) -> None:
    client = Client()
    client.force_login(UserFactory(username="idle", roles=["croupier"]))
    response = client.get(reverse("floor:mine"))
    assert response.status_code == 200
    assert b'data-testid="no-assignment"' in response.content
    assert b"no table for this shift" in response.content


def test_a_pit_boss_sees_every_table(floor, table, as_pit_boss) -> None:
    response = as_pit_boss.get(reverse("floor:mine"))
    assert response.status_code == 200
    assert page_url(table).encode() in response.content


# --------------------------------------------------------------------------------- htmx answers
def test_a_step_answers_htmx_with_the_coup_panel_and_plain_posts_with_a_redirect(
    floor, table, as_croupier
) -> None:
    coup = start(as_croupier, floor)
    response = send(as_croupier, coup, kind="bet", punter="seat-2", amount=40)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html
    assert 'id="coup-panel"' in html
    assert 'id="seating"' in html and 'hx-swap-oob="true"' in html  # the banker badge stays right
    assert 'data-testid="uncovered">60<' in html
    coup.refresh_from_db()
    response = as_croupier.post(
        step_url(coup), {"kind": "bet", "punter": "seat-3", "amount": 10, "expected_step": 2}
    )
    assert response.status_code == 303 and response.url == page_url(table)
    assert Bet.objects.filter(coup=coup).count() == 2


def test_a_floor_change_answers_htmx_with_the_table_body(floor, table, as_croupier) -> None:
    response = as_croupier.post(
        reverse("floor:seat_take", args=[table.pk]), {"number": 7, "new_name": "  Zoé  "}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="table-body"' in html and 'id="coup-panel"' in html and "<html" not in html
    seat = Seat.objects.get(session=floor.session, number=7, left_at__isnull=True)
    assert seat.player.display_name == "Zoé"
    assert 'data-testid="seat-7"' in html


def test_seating_a_new_player_is_all_or_nothing(floor, table, as_croupier) -> None:
    before = row_counts()
    response = as_croupier.post(
        reverse("floor:seat_take", args=[table.pk]), {"number": 2, "new_name": "Late Larry"}, **HTMX
    )
    assert response.status_code == 400
    assert "Seat 2 is taken." in response.content.decode()
    assert row_counts() == before  # the new player was not created either


def test_the_seating_forms_fold_behind_one_button_while_play_goes_on(croupier, table, as_croupier) -> None:
    """Open before the session's first shoe (players still sitting down), folded once it has
    started (they are taller than the seat list), open again when one of them shows a refusal."""
    as_croupier.post(reverse("floor:session_open", args=[table.pk]), **HTMX)
    opened = 'data-testid="seating-tools" open>'
    assert opened in as_croupier.get(page_url(table)).content.decode()  # nobody seated yet
    session = TableSession.objects.get(table=table, closed_at__isnull=True)
    for number in (1, 2):
        services.seat_take(
            actor=croupier, session=session, player=PlayerFactory(casino=table.casino), number=number
        )
    assert opened in as_croupier.get(page_url(table)).content.decode()  # seated, no shoe yet
    profile = table.profile
    burnt = ("2C", "3C", "4C")[: profile.burn_cards_min]
    services.shoe_start(actor=croupier, session=session, decks=profile.decks_allowed[0], burnt_cards=burnt)
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="seating-tools">' in html and 'data-testid="seat-form"' in html
    taken = as_croupier.post(
        reverse("floor:seat_take", args=[table.pk]), {"number": 2, "new_name": "Ann"}, **HTMX
    )
    assert taken.status_code == 400 and opened in taken.content.decode()
    nobody = as_croupier.post(reverse("floor:spectator_join", args=[table.pk]), {"new_name": ""}, **HTMX)
    assert nobody.status_code == 400 and opened in nobody.content.decode()


def test_seating_an_existing_player_and_a_spectator_leaving(floor, table, as_croupier) -> None:
    regular = PlayerFactory(casino=table.casino, display_name="Regular Rita")
    as_croupier.post(reverse("floor:seat_take", args=[table.pk]), {"number": 5, "player": regular.pk}, **HTMX)
    assert Seat.objects.get(session=floor.session, number=5).player == regular
    as_croupier.post(reverse("floor:spectator_join", args=[table.pk]), {"new_name": "Sam"}, **HTMX)
    spectator = Spectator.objects.get(session=floor.session, player__display_name="Sam")
    html = as_croupier.get(page_url(table)).content.decode()
    assert "Regular Rita" in html and "Sam" in html
    as_croupier.post(reverse("floor:spectator_leave", args=[table.pk, spectator.pk]), **HTMX)
    spectator.refresh_from_db()
    assert spectator.left_at is not None


# ------------------------------------------------------------------------------ the coup's steps
def test_only_the_legal_next_steps_are_offered(floor, table, as_croupier) -> None:
    coup = to_banker_decision(as_croupier, floor)
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="step-banker_draw"' in html and 'data-testid="step-banker_stand"' in html
    assert 'data-testid="step-player_draw"' not in html and 'data-testid="step-reveal"' not in html
    assert "The banker (5, against the player&#x27;s third card 6♦) must draw." in html
    assert html.count("against the rules</span>") == 1  # standing is offered, and marked
    coup.refresh_from_db()
    assert coup.step_count == 9


def test_a_step_against_the_rules_asks_for_confirmation_first(floor, table, as_croupier) -> None:
    coup = to_banker_decision(as_croupier, floor)
    before = row_counts()
    response = send(as_croupier, coup, kind="banker_stand")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="confirm"' in html
    assert "The banker must draw on 5 against the player&#x27;s third card 6♦" in html
    assert '<input type="hidden" name="confirm" value="1">' in html
    assert '<input type="hidden" name="expected_step" value="9">' in html
    assert row_counts() == before  # asked, not written

    response = send(as_croupier, coup, kind="banker_stand", confirm="1")
    assert response.status_code == 200
    coup.refresh_from_db()
    assert (coup.step_count, coup.flagged) == (10, True)
    assert coup.steps.get(index=10).violations == ["BANKER_SHOULD_DRAW"]
    assert 'data-testid="flagged"' in response.content.decode()


def test_going_back_from_the_confirm_panel_renders_the_current_coup(floor, table, as_croupier) -> None:
    to_banker_decision(as_croupier, floor)
    response = as_croupier.get(page_url(table) + "?part=panel", **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert 'id="coup-panel"' in html and 'data-testid="confirm"' not in html


def test_a_stale_tablet_is_told_and_shown_where_the_coup_is(floor, table, as_croupier) -> None:
    coup = start(as_croupier, floor)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=40)
    before = row_counts()
    response = as_croupier.post(
        step_url(coup), {"kind": "bet", "punter": "seat-3", "amount": 10, "expected_step": 1}, **HTMX
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert "Another tablet moved this coup on" in html
    assert 'data-testid="staked-seat-2">40<' in html  # the current state, re-rendered
    assert '<input type="hidden" name="expected_step" value="2">' in html
    assert row_counts() == before


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"card": "1x"}, "bad card"),
        ({"card": "11h"}, "bad card"),
        ({"suit": "H"}, "Tap the rank first, then the suit."),
        ({}, "Which card?"),
        ({"rank": "Z", "suit": "H"}, "Select a valid choice"),
    ],
)
def test_a_bad_card_is_refused_next_to_the_picker_and_nothing_is_written(
    floor, table, as_croupier, data, message
) -> None:
    coup = start(as_croupier, floor)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    send(as_croupier, coup, kind="bets_closed")
    before = row_counts()
    response = send(as_croupier, coup, kind="card_to_player", **data)
    html = response.content.decode()
    assert response.status_code == 400
    assert message in html
    assert 'data-testid="error"' in html
    assert html.index('data-testid="error"') > html.index('data-testid="card-form-card_to_player"')
    assert row_counts() == before


def test_cards_are_read_as_typed_or_tapped(floor, as_croupier) -> None:
    coup = start(as_croupier, floor)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    send(as_croupier, coup, kind="bets_closed")
    send(as_croupier, coup, kind="card_to_player", card="10d")
    send(as_croupier, coup, kind="card_to_banker", rank="Q", suit="S")
    send(as_croupier, coup, kind="card_to_player", card=" 9h ")
    assert list(ShoeCard.objects.filter(coup=coup).values_list("card", flat=True)) == ["TD", "QS", "9H"]


def test_a_bet_above_the_bank_is_refused_in_its_row(floor, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    before = row_counts()
    response = send(as_croupier, coup, kind="bet", punter="seat-2", amount=150)
    html = response.content.decode()
    assert response.status_code == 400
    assert "only 100 of the bank is left" in html
    # seats bet from the banker's right: 4, 3, then 2 (the last row before the banco picker)
    assert html.index('data-testid="bettor-seat-4"') < html.index('data-testid="bettor-seat-2"')
    row = html[html.index('data-testid="bettor-seat-2"') : html.index('class="banco-multi"')]
    assert "only 100 of the bank is left" in row
    assert row_counts() == before


def test_a_banco_by_several_callers_and_the_settlement_shown(croupier, table, as_croupier) -> None:
    floor = open_floor(croupier, table, spectators=1)
    coup = start(as_croupier, floor, 100)
    spectator = floor.spectators[0]
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=30)
    response = send(as_croupier, coup, kind="banco", callers=[f"spectator-{spectator.pk}", "seat-3"])
    assert response.status_code == 200
    banco = Bet.objects.get(coup=coup, banco=True)
    assert banco.seat is not None
    assert (banco.seat.number, banco.amount) == (3, 100)  # a seated caller before a spectator
    send(as_croupier, coup, kind="bets_closed")
    for kind, card in (
        ("card_to_player", "9h"),
        ("card_to_banker", "as"),
        ("card_to_player", "kc"),
        ("card_to_banker", "2d"),
    ):
        send(as_croupier, coup, kind=kind, card=card)
    send(as_croupier, coup, kind="player_natural")
    html = send(as_croupier, coup, kind="reveal").content.decode()
    assert 'data-testid="outcome">Player wins<' in html
    assert 'data-testid="score">9 to 3<' in html
    assert 'data-testid="punter-seat-3"' in html and "+100" in html
    assert "the bank is lost" in html
    assert 'data-testid="offer-to">Seat 4 · Player 4<' in html  # the casino bank passes to the right


def test_the_advice_is_shown_at_an_option_point(floor, table, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    send(as_croupier, coup, kind="bets_closed")
    for kind, card in (
        ("card_to_player", "2h"),
        ("card_to_banker", "as"),
        ("card_to_player", "3c"),
        ("card_to_banker", "2d"),
    ):
        send(as_croupier, coup, kind=kind, card=card)
    html = as_croupier.get(page_url(table)).content.decode()
    assert "The player (5) is free to draw or stand." in html
    assert 'data-testid="advice"' in html and "this shoe&#x27;s remaining cards" in html
    assert html.count("advised</span>") == 1


# ------------------------------------------------------------------------------ restoring a coup
def test_a_flagged_coup_is_restored_through_the_screen(floor, table, as_croupier) -> None:
    coup = play(
        floor, bank=100, bets=[(2, 60), (3, 40)], cards=("TH", "3S", "2C", "2H"),
        player="draw", player_card="6D", banker="stand", confirm=True,
    )  # fmt: skip
    assert coup.state == Coup.State.AWAITING_CORRECTION
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="needs-cards"><strong>1</strong> more card needed' in html
    assert "Banker stands: The banker must draw on 5" in html
    url = reverse("floor:coup_restore", args=[table.pk, coup.pk])

    before = row_counts()
    response = as_croupier.post(url, {"action": "add", "card": "5x", "cards": ""}, **HTMX)
    assert response.status_code == 400 and "bad card" in response.content.decode()
    response = as_croupier.post(url, {"action": "add", "rank": "4", "suit": "C", "cards": ""}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="restored-outcome"><strong>Banker wins</strong>, 8 to 9<' in html
    assert '<input type="hidden" name="cards" value="4C">' in html
    response = as_croupier.post(url, {"action": "add", "card": "9d", "cards": "4C"}, **HTMX)
    assert "does not take the last 1 card" in response.content.decode()
    assert 'data-testid="submit-restore"' not in response.content.decode()
    response = as_croupier.post(url, {"action": "undo", "cards": "4C 9D"}, **HTMX)
    assert '<input type="hidden" name="cards" value="4C">' in response.content.decode()
    assert row_counts() == before  # previews write nothing

    response = as_croupier.post(url, {"action": "submit", "cards": "4C"}, **HTMX)
    assert response.status_code == 200
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL
    html = response.content.decode()
    assert "awaiting pit boss approval" in html
    assert 'data-testid="result-restored">Restored · awaiting pit boss approval<' in html


def test_submitting_an_incomplete_restoration_is_refused(floor, table, as_croupier) -> None:
    coup = play(
        floor, bank=100, bets=[(2, 100)], cards=("TH", "3S", "2C", "2H"),
        player="draw", player_card="6D", banker="stand", confirm=True,
    )  # fmt: skip
    before = row_counts()
    url = reverse("floor:coup_restore", args=[table.pk, coup.pk])
    response = as_croupier.post(url, {"action": "submit", "cards": ""}, **HTMX)
    assert response.status_code == 400
    assert "needs 1 more card from the shoe" in response.content.decode()
    assert row_counts() == before


# --------------------------------------------------------------------------------------- the bank
def test_a_lost_bank_is_offered_in_rotation_refusals_skipped(floor, table, as_croupier) -> None:
    play(floor, bank=100, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural")
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="offer-to">Seat 4 · Player 4<' in html
    offer = reverse("floor:bank_offer", args=[table.pk])
    as_croupier.post(offer, {"seat": floor.seats[4].pk, "answer": "refuse"}, **HTMX)
    before = row_counts()
    response = as_croupier.post(offer, {"seat": floor.seats[2].pk, "answer": "accept"}, **HTMX)
    assert response.status_code == 400 and "it goes to seat 3 now" in response.content.decode()
    assert row_counts() == before
    response = as_croupier.post(offer, {"seat": floor.seats[3].pk, "answer": "accept"}, **HTMX)
    assert 'data-testid="banker">Player 3<' in response.content.decode()
    turn = BankTurn.objects.get(session=floor.session, ended_at__isnull=True)
    assert (seat_number(turn.seat), turn.started_how) == (3, "rotation")


def test_when_everybody_refuses_the_first_neighbour_opens_a_new_bank(floor, table, as_croupier) -> None:
    play(floor, bank=100, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural")
    offer = reverse("floor:bank_offer", args=[table.pk])
    for n in (4, 3, 2):
        as_croupier.post(offer, {"seat": floor.seats[n].pk, "answer": "refuse"}, **HTMX)
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="all-refused"' in html and 'data-testid="new-bank"' in html
    as_croupier.post(reverse("floor:bank_new", args=[table.pk]), {"seat": floor.seats[4].pk}, **HTMX)
    turn = BankTurn.objects.get(session=floor.session, ended_at__isnull=True)
    assert (seat_number(turn.seat), turn.started_how) == (4, "new_bank")


def test_the_bank_is_passed_and_its_minimum_shown(floor, table, as_croupier) -> None:
    play(
        floor,
        bank=100,
        bets=[(2, 100)],
        cards=("2H", "AS", "3C", "5D"),
        player="draw",
        player_card="KH",
        banker="stand",
    )
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="bank-minimum">195<' in html
    response = as_croupier.post(reverse("floor:coup_start", args=[table.pk]), {"amount": 150}, **HTMX)
    assert response.status_code == 400 and "the bank must be at least 195" in response.content.decode()
    html = as_croupier.post(reverse("floor:bank_pass", args=[table.pk]), **HTMX).content.decode()
    # the taker of a passed bank sets his own at the casino (RULES.md §7)
    assert 'data-testid="offer-minimum">1<' in html and "passed the bank" in html
    assert "sets the bank: at least" in html and 'data-testid="auction-bank"' not in html


def test_the_first_banker_by_auction_names_his_bank(croupier, table, as_croupier) -> None:
    table.first_banker_method = table.FirstBanker.AUCTION
    table.save()
    floor = open_floor(croupier, table, banker_seat=None)
    html = as_croupier.get(page_url(table)).content.decode()
    assert "Choose the first banker" in html and 'name="amount"' in html
    url = reverse("floor:bank_first", args=[table.pk])
    as_croupier.post(url, {"seat": floor.seats[3].pk, "amount": 500}, **HTMX)
    turn = BankTurn.objects.get(session=floor.session)
    assert (seat_number(turn.seat), turn.started_how, turn.required_minimum) == (3, "auction", 500)


def test_the_first_banker_by_acceptance_in_turn(croupier, table, as_croupier) -> None:
    table.first_banker_method = table.FirstBanker.ACCEPTANCE
    table.save()
    floor = open_floor(croupier, table, banker_seat=None)
    html = as_croupier.get(page_url(table)).content.decode()
    assert "The bank is offered in turn" in html
    offer_to = html.split('data-testid="offer-to">')[1].split("<")[0]
    number = int(offer_to.split()[1])
    url = reverse("floor:bank_offer", args=[table.pk])
    html = as_croupier.post(
        url, {"seat": floor.seats[number].pk, "answer": "accept"}, **HTMX
    ).content.decode()
    assert f'data-testid="banker">Player {number}<' in html
    turn = BankTurn.objects.get(session=floor.session)
    assert (seat_number(turn.seat), turn.started_how) == (number, "acceptance")


# -------------------------------------------------------------------------------- shoe and pause
def test_shoe_errors_are_shown_next_to_the_shoe_form(croupier, table, as_croupier) -> None:
    floor = open_floor(croupier, table, banker_seat=None)
    html = as_croupier.post(reverse("floor:shoe_close", args=[table.pk]), {"reason": "new cards"}, **HTMX)
    assert "Reshuffled before 5/6 dealt" in html.content.decode()  # closed after 3 cards
    before = row_counts()
    url = reverse("floor:shoe_start", args=[table.pk])
    response = as_croupier.post(url, {"decks": 4, "burnt_cards": "2c 3c 4c", "stop_card_position": 8}, **HTMX)
    assert response.status_code == 400 and "plays 6 or 8 decks" in response.content.decode()
    response = as_croupier.post(url, {"decks": 6, "burnt_cards": "2c 3c 1x", "stop_card_position": 8}, **HTMX)
    assert response.status_code == 400 and "bad card" in response.content.decode()
    assert row_counts() == before
    response = as_croupier.post(
        url, {"decks": 8, "burnt_cards": "2c, 3c 4c", "stop_card_position": 8}, **HTMX
    )
    assert response.status_code == 200
    shoe = Shoe.objects.get(session=floor.session, state="open")
    assert (shoe.number, shoe.decks, shoe.burnt_cards, shoe.stop_card_position) == (
        2,
        8,
        ["2C", "3C", "4C"],
        8,
    )


def test_the_stop_card_ends_the_shoe_and_the_screen_asks_for_a_new_one(croupier, table, as_croupier) -> None:
    floor = open_floor(croupier, table, stop_card_position=10)
    shoe_dealt_down_to(floor, left=15, keep=("2H", "AS", "3C", "5D", "KH"))
    play(
        floor,
        bank=100,
        bets=[(2, 100)],
        cards=("2H", "AS", "3C", "5D"),
        player="draw",
        player_card="KH",
        banker="stand",
    )
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="shoe-ended"' in html and "stop card reached" in html
    assert 'data-testid="start-shoe"' in html
    assert "Reshuffled before 5/6 dealt" not in html  # 302 of 312 cards were dealt


def test_an_impossible_card_raises_an_alarm_on_the_screen(croupier, club_table, as_croupier) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2))
    coup = start(as_croupier, floor, 10)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=10)
    send(as_croupier, coup, kind="bets_closed")
    for kind in ("card_to_player", "card_to_banker", "card_to_player"):
        response = send(as_croupier, coup, kind=kind, card="as")
    html = response.content.decode()
    assert 'data-testid="alarm"' in html and "A♠ seen 3 times; a 2-deck shoe holds 2" in html


def test_pause_and_resume(floor, table, as_croupier) -> None:
    html = as_croupier.post(reverse("floor:pause", args=[table.pk]), **HTMX).content.decode()
    assert 'data-testid="paused"' in html and 'id="table-body"' in html
    assert SessionPause.objects.filter(session=floor.session, ended_at__isnull=True).exists()
    before = row_counts()
    response = as_croupier.post(reverse("floor:coup_start", args=[table.pk]), {"amount": 100}, **HTMX)
    assert response.status_code == 400 and "The table is paused." in response.content.decode()
    assert row_counts() == before
    as_croupier.post(reverse("floor:resume", args=[table.pk]), **HTMX)
    assert not SessionPause.objects.filter(session=floor.session, ended_at__isnull=True).exists()


def test_opening_and_closing_the_table(croupier, table, as_croupier) -> None:
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="open-table"' in html
    as_croupier.post(reverse("floor:session_open", args=[table.pk]), **HTMX)
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="seat-form"' in html and 'data-testid="shoe-setup"' in html
    as_croupier.post(reverse("floor:session_close", args=[table.pk]), {"reason": "end of night"}, **HTMX)
    assert 'data-testid="open-table"' in as_croupier.get(page_url(table)).content.decode()


def test_the_home_series_standings_show_on_a_home_table(croupier, home_table, as_croupier) -> None:
    open_floor(croupier, home_table, seats=(1, 2, 3))
    html = as_croupier.get(page_url(home_table)).content.decode()
    assert 'data-testid="series-standings"' in html


# -------------------------------------------------------------------------------------- the nav
def test_the_nav_links_each_role_to_its_pages(floor, as_croupier, as_pit_boss) -> None:
    home = as_croupier.get(reverse("home")).content.decode()
    assert reverse("floor:mine") in home and 'data-testid="my-table"' in home
    home = as_pit_boss.get(reverse("home")).content.decode()
    assert reverse("review:queue") in home and reverse("review:dashboard") in home


@override_settings(ROOT_URLCONF="tests.tables.views.urls_without_review")
def test_pages_render_before_the_review_pages_exist(floor, table, as_croupier, as_pit_boss) -> None:
    assert as_pit_boss.get("/").status_code == 200
    assert as_croupier.get(page_url(table)).status_code == 200


def test_a_banco_suivi_is_offered_where_the_profile_has_it(croupier, home_table, table, as_croupier) -> None:
    floor = open_floor(croupier, home_table, seats=(1, 2, 3))
    start(as_croupier, floor, 10)
    assert 'name="suivi"' in as_croupier.get(page_url(home_table)).content.decode()
    casino_floor = open_floor(croupier, table)
    start(as_croupier, casino_floor, 10)
    assert 'name="suivi"' not in as_croupier.get(page_url(table)).content.decode()


# ------------------------------------------------------------------------------------ never a 500
GARBAGE = [
    {},
    {"amount": "lots", "seat": "x", "number": "-3", "player": "abc", "decks": "", "answer": "maybe"},
    {
        "kind": "teleport",
        "expected_step": "soon",
        "punter": "seat-x",
        "callers": ["nobody-1"],
        "cards": "ZZ 9H",
    },
    {"kind": "bet", "expected_step": "1", "punter": "spectator-999999", "amount": "5"},
    {"kind": "banco", "expected_step": "1", "callers": ["seat-1", "seat-1"], "suivi": "seat-2"},
    {"kind": "card_to_player", "expected_step": "1", "rank": "A"},
    {"action": "submit", "cards": "1x 2y"},
    {"seat": "999999", "amount": "0", "player": "999999", "new_name": "   ", "cut_by": "999999"},
]


@pytest.mark.parametrize("data", GARBAGE)
def test_garbage_input_never_breaks_a_screen(floor, table, as_croupier, data) -> None:
    coup = start(as_croupier, floor, 100)
    names = [
        "session_close", "pause", "resume", "seat_take", "spectator_join", "shoe_start", "shoe_close",
        "bank_first", "bank_offer", "bank_auction", "bank_new", "bank_pass", "coup_start",
    ]  # fmt: skip
    urls = [reverse(f"floor:{name}", args=[table.pk]) for name in names]
    urls += [
        reverse("floor:coup_step", args=[table.pk, coup.pk]),
        reverse("floor:coup_restore", args=[table.pk, coup.pk]),
        reverse("floor:seat_leave", args=[table.pk, 999999]),
        reverse("floor:spectator_leave", args=[table.pk, 999999]),
    ]
    for url in urls:
        for extra in ({}, HTMX):
            response = as_croupier.post(url, data, **extra)
            assert response.status_code < 500, (url, data, response.status_code)
    assert as_croupier.post(reverse("floor:coup_step", args=[table.pk, 999999]), data).status_code == 404


# ------------------------------------------------------------------ a bank withdrawn, and what it says
def test_withdrawing_the_bank_says_what_happened(floor, table, as_croupier) -> None:
    coup = start(as_croupier, floor, 150)
    url = reverse("floor:coup_withdraw", args=[table.pk, coup.pk])
    response = as_croupier.post(url, {"expected_step": coup.step_count}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    coup.refresh_from_db()
    assert coup.state == Coup.State.WITHDRAWN
    assert (
        '<div class="notice notice-warn" role="status" data-testid="notice">The bank of 150 was withdrawn '
        "without a deal: nobody bet. Player 1 keeps the bank (the next bank at least 150).</div>"
    ) in html
    # without JavaScript: the table page after the redirect says it once
    second = start(as_croupier, floor, 200)
    done = as_croupier.post(reverse("floor:coup_withdraw", args=[table.pk, second.pk]), {})
    assert done.status_code == 303
    page = as_croupier.get(done["Location"]).content.decode()
    assert "The bank of 200 was withdrawn without a deal: nobody bet. Player 1 keeps the bank" in page
    assert "The bank of 200 was withdrawn" not in as_croupier.get(page_url(table)).content.decode()


def test_a_refused_withdrawal_says_no_such_thing(floor, table, as_croupier) -> None:
    coup = start(as_croupier, floor, 150)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=50)
    before = row_counts()
    response = as_croupier.post(reverse("floor:coup_withdraw", args=[table.pk, coup.pk]), {}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 400
    assert "Bets stand on this bank: it is played, not withdrawn (a pit boss may void the coup)." in html
    assert "was withdrawn" not in html and row_counts() == before


# ------------------------------------------------------- restoring: only the cards still needed
def test_a_restoration_needing_no_card_asks_for_none(floor, table, as_croupier) -> None:
    # the banker holds 7 against a player standing on 6: he must stand, and draws
    coup = play(
        floor, bank=100, bets=[(2, 100)], cards=("3H", "4S", "3C", "3D"),
        player="stand", banker="draw", banker_card="9C", confirm=True,
    )  # fmt: skip
    assert coup.state == Coup.State.AWAITING_CORRECTION
    html = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="restored-outcome"><strong>Banker wins</strong>, 6 to 7<' in html
    assert 'data-testid="restore-cards"' not in html and "Cards dealt from the shoe" not in html
    assert 'data-testid="needs-cards"' not in html and 'data-testid="restore-card-form"' not in html
    assert 'data-testid="submit-restore"' in html


def test_after_a_rejection_the_cards_already_dealt_are_not_asked_for_again(
    floor, table, as_croupier, pit_boss
) -> None:
    coup = play(
        floor, bank=100, bets=[(2, 100)], cards=("TH", "3S", "2C", "2H"),
        player="draw", player_card="6D", banker="stand", confirm=True,
    )  # fmt: skip
    url = reverse("floor:coup_restore", args=[table.pk, coup.pk])
    assert as_croupier.post(url, {"action": "submit", "cards": "4C"}, **HTMX).status_code == 200
    services.correction_reject(actor=pit_boss, coup=coup, reason="check the banker's hand")
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_CORRECTION
    html = as_croupier.get(page_url(table)).content.decode()
    # the 4♣ the rejected restoration took is on the table: entered already, nothing more needed
    assert re.search(r'data-testid="restore-cards"><span class="pcard pcard-mini">4♣</span></p>', html)
    assert 'data-testid="restore-cards-kept"' in html
    assert '<input type="hidden" name="cards" value="4C">' in html
    assert 'data-testid="needs-cards"' not in html and 'data-testid="submit-restore"' in html
    # the croupier takes it out (it was the mistake): the game needs one card again
    undone = as_croupier.post(url, {"action": "undo", "cards": "4C"}, **HTMX).content.decode()
    assert 'data-testid="needs-cards"><strong>1</strong> more card needed' in undone
    assert 'data-testid="restore-cards-kept"' not in undone
    # submitted again with it: the card is not counted out of the shoe twice
    assert as_croupier.post(url, {"action": "submit", "cards": "4C"}, **HTMX).status_code == 200
    assert ShoeCard.objects.filter(coup=coup, card="4C", replaced_by__isnull=True).count() == 1


def test_a_withdrawn_bank_s_figures_are_written_as_the_page_writes_chips(floor, table, as_croupier) -> None:
    coup = start(as_croupier, floor, 1_000_000)
    response = as_croupier.post(
        reverse("floor:coup_withdraw", args=[table.pk, coup.pk]), {"expected_step": coup.step_count}, **HTMX
    )
    assert response.status_code == 200
    assert (
        "The bank of 1,000,000 was withdrawn without a deal: nobody bet. Player 1 keeps the bank (the next "
        "bank at least 1,000,000)."
    ) in response.content.decode()

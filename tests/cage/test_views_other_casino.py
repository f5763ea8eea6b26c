"""The cage's POST screens never open another casino's cage: a cashier of one casino posting a
buy-in, a cash-out or a new player to another casino's cage is refused (403, as every write to
another casino is: tests/security/test_casino_scope.py) before anything of that casino is read,
whether the form is valid or not, with htmx or without; and a player of another casino posted to
his own cage is a form error, never shown. Nothing is written either way."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from cage import services
from compliance.models import CashReport, PlayerIdentification
from tables.models import Casino, Player
from tests.factories import CasinoFactory

from .conftest import counts, key, logged_in, new_player, owes

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
MOVES = ("buy_in", "cash_out")
#: the forms posted: asked (the first submit), confirmed, and invalid ones (no key; no amount)
FORMS: dict[str, dict[str, str]] = {
    "asked": {"amount": "10", "key": "k" * 32},
    "confirmed": {"amount": "10", "key": "k" * 32, "confirm": "1"},
    "no-key": {"amount": "10"},
    "no-amount": {"key": "k" * 32, "confirm": "1"},
}
WHALE_CHIPS = "8,642"  # what Bravo's players hold, as the cage writes chips
DEBTOR_MARKER = "Marker 975"


@pytest.fixture
def bravo(db) -> Casino:
    casino: Casino = CasinoFactory(name="Casino Bravo")
    return casino


@pytest.fixture
def bravo_players(bravo) -> list[Player]:
    """Bravo's players: one with chips, one owing a marker."""
    whale = new_player(casino=bravo, display_name="Bravo Whale")
    services.cage_buy_in(actor=None, casino=bravo, player=whale, amount=8642, key=key())
    debtor = new_player(casino=bravo, display_name="Bravo Debtor")
    owes(bravo, debtor, 975)
    return [whale, debtor]


def written() -> dict[str, int]:
    """The cage's, the ledger's and the audit's rows (conftest.counts) and compliance's."""
    return {
        **counts(),
        "CashReport": CashReport.objects.count(),
        "PlayerIdentification": PlayerIdentification.objects.count(),
    }


def assert_nothing_of(html: str, casino: Casino, players: list[Player]) -> None:
    """``html`` names neither ``casino`` nor its players, nor shows their chips."""
    assert casino.name not in html
    for player in players:
        assert player.display_name not in html
        assert f'data-testid="chips-{player.pk}"' not in html
        assert f'id="player-{player.pk}"' not in html
    assert WHALE_CHIPS not in html and DEBTOR_MARKER not in html


def whose(name: str, dupont: Player, bravo_players: list[Player]) -> Any:
    return {"own": dupont.pk, "bravo's": bravo_players[0].pk, "none": None}[name]


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("player", ["own", "bravo's", "none"])
@pytest.mark.parametrize("move", MOVES)
def test_a_cashier_cannot_post_to_another_casino_s_cage(
    cashier, casino, dupont, bravo, bravo_players, move, player, form, htmx
) -> None:
    """The report's request (``amount=10&player=5``, no key) and every other form posted to
    Bravo's cage by Casino A's cashier: 403 before the form is read, Bravo unseen, nothing written."""
    client = logged_in(cashier)
    data = dict(FORMS[form])
    if (pk := whose(player, dupont, bravo_players)) is not None:
        data["player"] = str(pk)
    before = written()
    response = client.post(reverse(f"cage:{move}", args=[bravo.pk]), data, headers=HTMX if htmx else {})
    assert response.status_code == 403
    assert_nothing_of(response.content.decode(), bravo, bravo_players)
    assert dupont.display_name not in response.content.decode()
    assert written() == before


@pytest.mark.parametrize(
    "form", [{"display_name": ""}, {"display_name": "Newcomer"}], ids=["invalid", "valid"]
)
def test_a_cashier_cannot_register_a_player_at_another_casino_s_cage(
    cashier, bravo, bravo_players, form
) -> None:
    client = logged_in(cashier)
    before = written()
    response = client.post(reverse("cage:player_new", args=[bravo.pk]), form)
    assert response.status_code == 403
    assert_nothing_of(response.content.decode(), bravo, bravo_players)
    assert written() == before


@pytest.mark.parametrize("move", MOVES)
def test_a_casino_that_does_not_exist_is_refused_as_another_casino_s(cashier, move) -> None:
    """No oracle: a casino id that names nothing answers as one that names another casino."""
    client = logged_in(cashier)
    response = client.post(reverse(f"cage:{move}", args=[987654]), {"player": "1", **FORMS["no-key"]})
    assert response.status_code == 403


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("move", MOVES)
def test_another_casino_s_player_posted_to_one_s_own_cage_is_a_form_error(
    cashier, casino, dupont, bravo, bravo_players, move, form, htmx
) -> None:
    """Bravo's player posted to Casino A's cage: refused as a player that does not exist (the
    same answer, so an id of Bravo's is not told apart), never shown, nothing written."""
    client = logged_in(cashier)
    url = reverse(f"cage:{move}", args=[casino.pk])
    headers = HTMX if htmx else {}
    before = written()
    for pk in (*[p.pk for p in bravo_players], 987654):
        response = client.post(url, {**FORMS[form], "player": str(pk)}, headers=headers)
        assert (response.status_code, response.content) == (400, b"Which player?"), pk
        assert_nothing_of(response.content.decode(), bravo, bravo_players)
    assert written() == before


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
@pytest.mark.parametrize("form", ["no-key", "no-amount"])
@pytest.mark.parametrize("move", MOVES)
def test_an_invalid_form_at_one_s_own_cage_shows_only_one_s_own_casino(
    cashier, casino, dupont, bravo, bravo_players, move, form, htmx
) -> None:
    """Casino A's player, an invalid form at Casino A's cage: his row with the error (the page
    is Casino A's), never Bravo's players; nothing written."""
    client = logged_in(cashier)
    before = written()
    response = client.post(
        reverse(f"cage:{move}", args=[casino.pk]),
        {**FORMS[form], "player": str(dupont.pk)},
        headers=HTMX if htmx else {},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert f'data-testid="cage-error-{dupont.pk}"' in html and "M. Dupont" in html
    if not htmx:
        assert f"The cage · {casino.name}" in html
    assert_nothing_of(html, bravo, bravo_players)
    assert written() == before


@pytest.mark.parametrize("move", MOVES)
def test_the_house_is_no_player_of_the_cage(cashier, casino, move) -> None:
    """The casino's house player (the banker of a house bank) is not in the cage's list, nor
    posted to from its forms: as the API, the cage looks up players that are not the house."""
    house = new_player(casino=casino, display_name="The House", house=True)
    client = logged_in(cashier)  # (logging in is an audit event)
    before = written()
    response = client.post(
        reverse(f"cage:{move}", args=[casino.pk]), {**FORMS["no-key"], "player": str(house.pk)}
    )
    assert (response.status_code, response.content) == (400, b"Which player?")
    assert written() == before

"""The cage's screens through Django's test client: the list with chips and markers, a buy-in and
a cash-out confirmed then posted once, refusals shown in the row with nothing written, the new-
player form, the chip history, who may see what; and the chips beside each name on the croupier's
screen."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent
from cage import services
from compliance.models import CashReport, PlayerIdentification
from compliance.services import DocumentIn
from ledger.models import Transaction
from tables.models import Player

from .conftest import counts, key, logged_in, new_player, new_seat, new_session, new_spectator, owes

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def page(casino) -> str:
    return reverse("cage:players", args=[casino.pk])


def form_key(html: str, player, form: str = "buy_in") -> str:
    """The one-time key the page put in the player's buy-in (or cash-out) form."""
    row = html[html.index(f'id="player-{player.pk}"') :]
    action = reverse(f"cage:{form}", args=[player.casino_id])
    block = row[row.index(f'action="{action}"') :]
    found = re.search(r'name="key" value="([0-9a-f]{32})"', block)
    assert found is not None, "no key in the form"
    return found.group(1)


def test_the_list_shows_each_players_chips_and_marker(cashier, casino, dupont) -> None:
    owing = new_player(casino=casino, display_name="Comte Orlov")
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=1500, key=key())
    owes(casino, owing, 40)
    html = logged_in(cashier).get(page(casino)).content.decode()
    assert re.search(rf'data-testid="chips-{dupont.pk}">1,500<', html)  # as every screen writes chips
    assert re.search(rf'data-testid="chips-{owing.pk}">0<', html)
    assert f'data-testid="marker-{owing.pk}"' in html and "Marker 40" in html
    assert f'data-testid="marker-{dupont.pk}"' not in html
    assert 'data-testid="player-new-form"' in html
    assert html.count('name="key"') == 4  # a buy-in and a cash-out form per player, each its own key


def test_the_cage_index_goes_to_the_only_casino(cashier, casino) -> None:
    response = logged_in(cashier).get(reverse("cage:index"))
    assert response.status_code == 302 and response["Location"] == page(casino)


def test_a_buy_in_asks_for_a_confirmation_then_posts_once(cashier, casino, dupont) -> None:
    client = logged_in(cashier)
    once = form_key(client.get(page(casino)).content.decode(), dupont)
    url = reverse("cage:buy_in", args=[casino.pk])
    form = {"player": dupont.pk, "amount": "500", "key": once}
    before = counts()
    asked = client.post(url, form, headers=HTMX)
    html = asked.content.decode()
    assert asked.status_code == 200 and counts() == before  # asked, not written
    assert "Buy-in of <strong>500</strong> chips for M. Dupont?" in html
    assert f'name="key" value="{once}"' in html and 'name="confirm" value="1"' in html
    assert "autofocus" in html  # Enter confirms
    done = client.post(url, {**form, "confirm": "1"}, headers=HTMX).content.decode()
    assert "M. Dupont: bought in 500 chips. Chips now: 500." in done
    assert re.search(rf'data-testid="chips-{dupont.pk}">500<', done)
    assert form_key(done, dupont) != once  # the row's forms carry new keys
    # the double tap: the same confirmation again posts nothing
    after = counts()
    twice = client.post(url, {**form, "confirm": "1"}, headers=HTMX).content.decode()
    assert "Already recorded" in twice and counts() == after
    assert Transaction.objects.filter(kind=Transaction.Kind.BUY_IN).count() == 1


def test_without_javascript_the_confirmation_is_the_page_and_then_a_redirect(cashier, casino, dupont) -> None:
    client = logged_in(cashier)
    url = reverse("cage:buy_in", args=[casino.pk])
    form = {"player": dupont.pk, "amount": "200", "key": key()}
    asked = client.post(url, form)
    assert asked.status_code == 200 and b"Confirm buy-in" in asked.content and b"<html" in asked.content
    done = client.post(url, {**form, "confirm": "1"})
    assert done.status_code == 303 and done["Location"] == f"{page(casino)}#player-{dupont.pk}"
    assert "bought in 200 chips" in client.get(done["Location"]).content.decode()


def test_a_cash_out_above_the_chips_is_refused_in_the_row(cashier, casino, dupont) -> None:
    client = logged_in(cashier)
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=100, key=key())
    before = counts()
    response = client.post(
        reverse("cage:cash_out", args=[casino.pk]),
        {"player": dupont.pk, "amount": "250", "key": key(), "confirm": "1"},
        headers=HTMX,
    )
    assert response.status_code == 400 and counts() == before
    html = response.content.decode()
    assert "M. Dupont has only 100 chips; a cash-out of 250 is refused." in html
    assert 'value="250"' in html  # the amount typed stays in the cash-out field
    ok = client.post(
        reverse("cage:cash_out", args=[casino.pk]),
        {"player": dupont.pk, "amount": "60", "key": key(), "confirm": "1"},
        headers=HTMX,
    )
    assert "cashed out 60 chips. Chips now: 40." in ok.content.decode()


def test_a_cash_out_above_the_chips_is_refused_before_the_confirmation(cashier, casino, dupont) -> None:
    client = logged_in(cashier)
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=100, key=key())
    once = form_key(client.get(page(casino)).content.decode(), dupont, "cash_out")
    url = reverse("cage:cash_out", args=[casino.pk])
    before = counts()
    asked = client.post(url, {"player": dupont.pk, "amount": "250", "key": once}, headers=HTMX)
    html = asked.content.decode()
    assert asked.status_code == 400 and counts() == before
    refusal = "M. Dupont has only 100 chips; a cash-out of 250 is refused."
    assert f'data-testid="cage-error-{dupont.pk}"><p>{refusal}</p>' in html
    assert f'data-testid="confirm-form-{dupont.pk}"' not in html and "Confirm cash-out" not in html
    assert 'value="250"' in html  # the amount typed stays in the cash-out field, to be corrected
    # what he holds is asked for at once, and confirmed
    asked = client.post(url, {"player": dupont.pk, "amount": "100", "key": once}, headers=HTMX)
    assert asked.status_code == 200 and counts() == before
    assert "Cash-out of <strong>100</strong> chips for M. Dupont?" in asked.content.decode()
    # a player who owes a marker is refused at once too, and a buy-in is always asked
    owing = new_player(casino=casino, display_name="Comte Orlov")
    owes(casino, owing, 40)
    before = counts()
    refused = client.post(url, {"player": owing.pk, "amount": "1", "key": key()}, headers=HTMX)
    assert refused.status_code == 400 and counts() == before
    assert "Comte Orlov has only 0 chips; a cash-out of 1 is refused." in refused.content.decode()
    buy_in = {"player": owing.pk, "amount": "50", "key": key()}
    buy = client.post(reverse("cage:buy_in", args=[casino.pk]), buy_in, headers=HTMX)
    assert buy.status_code == 200
    assert "Buy-in of <strong>50</strong> chips for Comte Orlov?" in buy.content.decode()


CASH_OUT_REFUSED = {
    "fr": "Zero Chips n'a que 0 jetons ; un remboursement de 1\xa0500 est refusé.",
    "ru": "Zero Chips: фишек — всего 0; выплата 1\xa0500 отклонена.",
}


@pytest.mark.parametrize("lang", ["fr", "ru"])
@pytest.mark.parametrize("confirm", [False, True], ids=["asked", "confirmed"])
def test_a_cash_out_above_the_chips_is_refused_in_the_page_s_language(
    cashier, casino, lang, confirm
) -> None:
    """The refusal is said in the cage's language, his name as typed and the amount as the page
    writes chips, whether it comes before the confirmation or from the posting itself; the API
    keeps the English sentence (tests/cage/test_api.py)."""
    zero = new_player(casino=casino, display_name="Zero Chips")
    client = logged_in(cashier)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    before = counts()
    form = {"player": zero.pk, "amount": "1500", "key": key(), **({"confirm": "1"} if confirm else {})}
    response = client.post(reverse("cage:cash_out", args=[casino.pk]), form, headers=HTMX)
    assert response.status_code == 400 and counts() == before
    page = unescape(response.content.decode())
    assert f'data-testid="cage-error-{zero.pk}"><p>{CASH_OUT_REFUSED[lang]}</p></div>' in page
    assert "has only" not in page


@pytest.mark.parametrize("amount", ["0", "-3", "lots", "", "99999999999"])
def test_bad_amounts_are_refused_with_nothing_written(cashier, casino, dupont, amount) -> None:
    client = logged_in(cashier)  # (logging in is an audit event)
    before = counts()
    response = client.post(
        reverse("cage:buy_in", args=[casino.pk]),
        {"player": dupont.pk, "amount": amount, "key": key(), "confirm": "1"},
        headers=HTMX,
    )
    assert response.status_code == 400 and counts() == before
    assert f'data-testid="cage-error-{dupont.pk}"' in response.content.decode()


def test_another_casinos_player_and_unknown_players_are_refused(cashier, casino, stranger) -> None:
    """Another casino's player is not looked up: the same form error as an id naming nobody, his
    name never shown (tests/cage/test_views_other_casino.py)."""
    client = logged_in(cashier)
    before = counts()
    url = reverse("cage:buy_in", args=[casino.pk])
    for player in (stranger.pk, 987654, "x", "", "\u0663", 2**63):
        response = client.post(
            url, {"player": player, "amount": "5", "key": key(), "confirm": "1"}, headers=HTMX
        )
        assert (response.status_code, response.content) == (400, b"Which player?"), player
    assert counts() == before


@pytest.mark.parametrize("persona", ["croupier", "pit_boss", "accountant", "outsider"])
def test_only_the_cage_posts_from_the_screen(request, casino, dupont, persona) -> None:
    client = logged_in(request.getfixturevalue(persona))
    before = counts()
    for name in ("buy_in", "cash_out"):
        form = {"player": dupont.pk, "amount": "5", "key": key(), "confirm": "1"}
        assert client.post(reverse(f"cage:{name}", args=[casino.pk]), form).status_code == 403
    form = {"display_name": "Intruder"}
    assert client.post(reverse("cage:player_new", args=[casino.pk]), form).status_code == 403
    assert counts() == before


def test_pit_boss_and_accountant_read_the_cage_without_its_forms(
    pit_boss, accountant, casino, dupont
) -> None:
    for user in (pit_boss, accountant):
        response = logged_in(user).get(page(casino))
        html = response.content.decode()
        assert response.status_code == 200 and f'data-testid="chips-{dupont.pk}"' in html
        assert 'name="key"' not in html and 'data-testid="read-only"' in html
        assert logged_in(user).get(reverse("cage:history", args=[dupont.pk])).status_code == 200


def test_croupiers_and_outsiders_do_not_see_the_cage(croupier, outsider, casino, dupont) -> None:
    for user in (croupier, outsider):
        client = logged_in(user)
        assert client.get(reverse("cage:index")).status_code == 403
        assert client.get(page(casino)).status_code == 403
        assert client.get(reverse("cage:history", args=[dupont.pk])).status_code == 403
    response = Client().get(page(casino))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_the_cage_registers_a_new_player(cashier, casino) -> None:
    client = logged_in(cashier)
    response = client.post(reverse("cage:player_new", args=[casino.pk]), {"display_name": "Mme Leroy"})
    player = Player.objects.get(display_name="Mme Leroy")
    assert response.status_code == 303 and response["Location"].endswith(f"#player-{player.pk}")
    html = client.get(response["Location"]).content.decode()
    assert "Mme Leroy is registered" in html and f'data-testid="buy-in-{player.pk}"' in html
    before = counts()
    refused = client.post(reverse("cage:player_new", args=[casino.pk]), {"display_name": "  "})
    assert refused.status_code == 400 and counts() == before


def test_the_search_finds_a_player(cashier, casino, dupont) -> None:
    new_player(casino=casino, display_name="Comte Orlov")
    html = logged_in(cashier).get(page(casino) + "?q=orlov").content.decode()
    assert "Comte Orlov" in html and "M. Dupont" not in html


def test_the_chip_history_page(cashier, casino, dupont) -> None:
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=500, key=key())
    services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=120, key=key())
    for _ in range(25):
        services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=1, key=key())
    client = logged_in(cashier)
    url = reverse("cage:history", args=[dupont.pk])
    first = client.get(url).content.decode()
    assert 'data-testid="history-chips">405<' in first
    assert "Page 1 of 2" in first and first.count('data-testid="entry-') == 25
    second = client.get(url + "?page=2").content.decode()
    cells = re.findall(r'<td class="num">([^<]*)</td>', second)
    assert cells == ["-120", "380", "+500", "500"]
    assert "Cash-out at the cage" in second


def test_the_row_comes_back_on_cancel(cashier, casino, dupont) -> None:
    url = reverse("cage:player_row", args=[casino.pk, dupont.pk])
    response = logged_in(cashier).get(url, headers=HTMX)
    assert response.status_code == 200 and f'data-testid="buy-in-{dupont.pk}"' in response.content.decode()


# ------------------------------------------------------------------------- the croupier's screen
def test_the_croupiers_screen_shows_each_players_chips(croupier, cashier, table, casino, dupont) -> None:
    session = new_session(table=table)
    new_seat(session=session, player=dupont, number=2)
    standing = new_spectator(session=session)
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=2500, key=key())
    html = logged_in(croupier).get(reverse("floor:table", args=[table.pk])).content.decode()
    assert re.search(r'data-testid="chips-seat-2" title="Chips">2,500<', html)
    assert re.search(rf'data-testid="chips-spectator-{standing.pk}" title="Chips">0<', html)


def test_chips_are_written_in_the_page_s_language(croupier, cashier, table, casino, dupont) -> None:
    """One format per language (core.numbers): the croupier's seats and the cage's list and
    history in French write 12 500 (a no-break space), a marker as the cage says it."""
    session = new_session(table=table)
    new_seat(session=session, player=dupont, number=2)
    owing = new_player(casino=casino, display_name="Comte Orlov")
    new_seat(session=session, player=owing, number=3)
    passport = DocumentIn("passport", "12AB34567")  # above the day's report threshold: identified
    services.cage_buy_in(
        actor=cashier, casino=casino, player=dupont, amount=12500, key=key(), document=passport
    )
    owes(casino, owing, 1040)
    seats = logged_in(croupier)
    seats.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    html = seats.get(reverse("floor:table", args=[table.pk])).content.decode()
    assert re.search(r'data-testid="chips-seat-2" title="Jetons">12\xa0500<', html)
    assert re.search(r'data-testid="chips-seat-3" title="Jetons">0 · marqueur 1\xa0040<', html)
    cage = logged_in(cashier)
    cage.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"
    html = cage.get(page(casino)).content.decode()
    assert re.search(rf'data-testid="chips-{dupont.pk}">12\xa0500<', html)
    assert re.search(rf'data-testid="marker-{owing.pk}" title="[^"]+">Маркер 1\xa0040<', html)
    html = cage.get(reverse("cage:history", args=[dupont.pk])).content.decode()
    assert 'data-testid="history-chips">12\xa0500<' in html
    assert re.findall(r'<td class="num">([^<]*)</td>', html) == ["+12\xa0500", "12\xa0500"]


def test_the_nav_leads_the_cashier_to_the_cage(cashier, croupier) -> None:
    assert b'data-testid="go-cage"' in logged_in(cashier).get("/").content
    assert b'data-testid="nav-cage"' not in logged_in(croupier).get("/").content


# ------------------------------------------------------------------------ cash-transaction compliance
def test_a_buy_in_that_needs_identification_asks_for_the_document_then_confirms(
    cashier, casino, dupont
) -> None:
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=9_500, key=key())
    client = logged_in(cashier)
    url = reverse("cage:buy_in", args=[casino.pk])
    once = key()
    form = {"player": dupont.pk, "amount": "600", "key": once}

    def rows() -> dict[str, int]:
        return {**counts(), "events": AuditEvent.objects.count(), "reports": CashReport.objects.count()}

    before = rows()
    asked = client.post(url, form, headers=HTMX)
    html = asked.content.decode()
    assert asked.status_code == 400 and rows() == before
    assert "M. Dupont must be identified before this buy-in of 600 chips." in html
    assert "Today: cash in 9,500, cash out 0 chips." in html
    assert f'data-testid="document-type-{dupont.pk}"' in html and 'name="document_number"' in html
    assert f'name="key" value="{once}"' in html and 'name="confirm"' not in html
    # the confirmation posts without the document: refused again, nothing written
    refused = client.post(url, {**form, "confirm": "1"}, headers=HTMX)
    assert refused.status_code == 400 and rows() == before
    identified = {**form, "document_type": "passport", "document_number": "12AB34567"}
    confirm = client.post(url, identified, headers=HTMX).content.decode()
    assert "Buy-in of <strong>600</strong> chips for M. Dupont?" in confirm
    assert 'name="document_number" value="12AB34567"' in confirm and rows() == before
    done = client.post(url, {**identified, "confirm": "1"}, headers=HTMX).content.decode()
    assert "M. Dupont: bought in 600 chips. Chips now: 10,100." in done
    assert PlayerIdentification.objects.get(player=dupont).masked == "****4567"
    assert list(CashReport.objects.values_list("direction", "total")) == [("in", 10_100)]


def test_an_identified_player_s_confirmation_shows_his_document_masked_and_the_read_is_audited(
    cashier, casino, dupont
) -> None:
    passport = DocumentIn("passport", "12AB34567")
    services.cage_buy_in(
        actor=cashier, casino=casino, player=dupont, amount=10_001, key=key(), document=passport
    )
    html = (
        logged_in(cashier)
        .post(
            reverse("cage:cash_out", args=[casino.pk]), {"player": dupont.pk, "amount": "10001", "key": key()}
        )
        .content.decode()
    )
    assert "Identified: Passport ****4567" in html and "12AB34567" not in html
    assert "Today: cash in 10,001, cash out 0 chips." in html
    read = AuditEvent.objects.get(action="compliance.identification.read")
    assert (read.actor, read.after) == (cashier, {"player": dupont.pk, "found": True})

"""A refused form on the croupier's screen comes back as he filled it (QA sweep: a refused shoe came
back with its defaults, a refused bet with an empty field). Each control's refusal, through the
test client: the screen's fields hold what was posted, the control refused has the focus; the
other controls keep their defaults."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tables import services
from tables.models import Table
from tests.tables.play import open_floor, row_counts

from .conftest import HTMX
from .test_croupier_screens import page_url, send, start

pytestmark = pytest.mark.django_db


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str, tag: str, **wanted: str) -> list[dict[str, str | None]]:
    """The attributes of every ``tag`` whose attributes include ``wanted`` (``data_testid`` for
    ``data-testid``)."""
    parser = _Tags()
    parser.feed(html)
    want = {k.replace("_", "-"): v for k, v in wanted.items()}
    return [a for t, a in parser.tags if t == tag and all(a.get(k) == v for k, v in want.items())]


def one(html: str, tag: str, **wanted: str) -> dict[str, str | None]:
    found = tags(html, tag, **wanted)
    assert len(found) == 1, (tag, wanted, found)
    return found[0]


def _post(client: Client, url: str, data: dict[str, Any], *, htmx: bool = True) -> tuple[int, str]:
    response = client.post(url, data, **(HTMX if htmx else {}))
    return response.status_code, response.content.decode()


# ------------------------------------------------------------------------------------ the shoe
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-post"])
def test_a_refused_shoe_keeps_the_decks_the_cutter_the_stop_card_and_the_burnt_cards(
    croupier, table, as_croupier, htmx
) -> None:
    floor = open_floor(croupier, table, banker_seat=None)
    services.shoe_close(actor=croupier, shoe=floor.shoe, reason="new cards")
    html = as_croupier.get(page_url(table)).content.decode()
    assert "checked" in one(html, "input", id="decks-6") and "checked" not in one(html, "input", id="decks-8")
    assert one(html, "input", id="stop-card")["value"] == "8"
    assert not [o for o in tags(html, "option") if "selected" in o and o.get("value")]
    cutter = floor.seats[2].player
    before = row_counts()
    data = {"decks": "8", "cut_by": cutter.pk, "stop_card_position": "9", "burnt_cards": "2c"}
    status, html = _post(as_croupier, reverse("floor:shoe_start", args=[table.pk]), data, htmx=htmx)
    assert status == 400 and "burns 3 to 4 cards" in html
    assert row_counts() == before
    assert "checked" in one(html, "input", id="decks-8") and "checked" not in one(html, "input", id="decks-6")
    assert "selected" in one(html, "option", value=str(cutter.pk))
    assert [o["value"] for o in tags(html, "option") if "selected" in o] == [str(cutter.pk)]
    assert one(html, "input", id="stop-card")["value"] == "9"
    assert one(html, "input", id="burnt")["value"] == "2c"


# ------------------------------------------------------------------------------------- the bets
def test_a_refused_bet_keeps_its_amount_in_its_row_focused(floor, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    response = send(as_croupier, coup, kind="bet", punter="seat-2", amount=150)
    html = response.content.decode()
    assert response.status_code == 400 and "only 100 of the bank is left" in html
    refused = one(html, "input", data_testid="amount-seat-2")
    assert (refused.get("value"), "autofocus" in refused) == ("150", True)
    # the first row (seat 4, from the banker's right) takes the focus no more; no other row a value
    for key in ("seat-4", "seat-3"):
        other = one(html, "input", data_testid=f"amount-{key}")
        assert not other.get("value") and "autofocus" not in other
    assert [a for a in tags(html, "input") if "autofocus" in a] == [refused]
    # the next screen, the bet recorded: the fields empty again, the first row focused
    response = send(as_croupier, coup, kind="bet", punter="seat-2", amount=40)
    html = response.content.decode()
    assert response.status_code == 200
    assert not one(html, "input", data_testid="amount-seat-2").get("value")
    assert "autofocus" in one(html, "input", data_testid="amount-seat-4")


def test_a_spectator_s_refused_bet_keeps_its_ticks(croupier, table, as_croupier) -> None:
    floor = open_floor(croupier, table, spectators=1)
    key = f"spectator-{floor.spectators[0].pk}"
    coup = start(as_croupier, floor, 100)
    response = send(as_croupier, coup, kind="bet", punter=key, amount=500, seated_round_over="1")
    html = response.content.decode()
    assert response.status_code == 400
    assert one(html, "input", data_testid=f"amount-{key}")["value"] == "500"
    assert "checked" in one(html, "input", data_testid=f"seated-round-over-{key}")


def test_a_refused_banco_by_several_keeps_the_callers_ticked(floor, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    before = row_counts()
    response = send(as_croupier, coup, kind="banco", callers=["seat-2", "seat-9"])
    html = response.content.decode()
    assert response.status_code == 400 and row_counts() == before
    assert "open" in one(html, "details", **{"class": "banco-multi"})
    ticked = [a["value"] for a in tags(html, "input", name="callers") if "checked" in a]
    assert ticked == ["seat-2"]  # not seat-3, nor seat-4 (whose keys share no prefix trouble)


# ------------------------------------------------------------------------------------ the cards
def test_a_refused_card_keeps_what_was_typed_or_tapped(floor, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    send(as_croupier, coup, kind="bets_closed")
    response = send(as_croupier, coup, kind="card_to_player", card="1x")
    html = response.content.decode()
    assert response.status_code == 400
    typed = one(html, "input", id="card_to_player-typed")
    assert (typed["value"], "autofocus" in typed) == ("1x", True)
    assert "{#" not in html and "#}" not in html  # no template comment shown as text
    response = send(as_croupier, coup, kind="card_to_player", rank="Q")  # the rank, no suit
    html = response.content.decode()
    assert response.status_code == 400
    assert "checked" in one(html, "input", id="card_to_player-rQ")
    assert [a["id"] for a in tags(html, "input", name="rank") if "checked" in a] == ["card_to_player-rQ"]
    # recorded, the next picker is empty
    html = send(as_croupier, coup, kind="card_to_player", card="9h").content.decode()
    assert not one(html, "input", id="card_to_banker-typed").get("value")
    assert not [a for a in tags(html, "input", name="rank") if "checked" in a]


def test_a_flagged_coup_s_refused_card_is_typed_again(floor, as_croupier) -> None:
    from tables.models import Coup

    # a coup flagged (the banker stands where he must draw), revealed: the restoration's picker
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    send(as_croupier, coup, kind="bets_closed")
    for kind, card in (
        ("card_to_player", "th"),
        ("card_to_banker", "3s"),
        ("card_to_player", "2c"),
        ("card_to_banker", "2h"),
    ):
        send(as_croupier, coup, kind=kind, card=card)
    send(as_croupier, coup, kind="player_draw")
    send(as_croupier, coup, kind="card_to_player", rank="6", suit="D")
    send(as_croupier, coup, kind="banker_stand", confirm="1")
    send(as_croupier, coup, kind="reveal")
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.AWAITING_CORRECTION
    url = reverse("floor:coup_restore", args=[floor.table.pk, coup.pk])
    status, html = _post(as_croupier, url, {"action": "add", "cards": "", "card": "zz"})
    assert status == 400
    assert one(html, "input", id="restore-typed")["value"] == "zz"


# ------------------------------------------------------------------------------------- the bank
def test_a_refused_declare_keeps_its_amount(floor, as_croupier) -> None:
    status, html = _post(as_croupier, reverse("floor:coup_start", args=[floor.table.pk]), {"amount": "-5"})
    assert status == 400
    assert one(html, "input", data_testid="bank-amount")["value"] == "-5"


def test_a_refused_first_bank_by_auction_keeps_the_bidder_and_his_bank(croupier, table, as_croupier) -> None:
    table.first_banker_method = Table.FirstBanker.AUCTION
    table.save()
    floor = open_floor(croupier, table, banker_seat=None)
    bidder = floor.seats[3]
    url = reverse("floor:bank_first", args=[table.pk])
    status, html = _post(as_croupier, url, {"seat": bidder.pk, "amount": "0"})
    assert status == 400
    assert [o["value"] for o in tags(html, "option") if "selected" in o] == [str(bidder.pk)]
    assert one(html, "input", id="first-amount")["value"] == "0"


def test_a_refused_share_of_the_bank_keeps_the_spectator_and_the_amount(
    croupier, club_table, as_croupier
) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=2)
    second = floor.spectators[1]
    url = reverse("floor:bank_share", args=[club_table.pk])
    status, html = _post(as_croupier, url, {"spectator": second.pk, "amount": "0"})
    assert status == 400
    assert [o["value"] for o in tags(html, "option") if "selected" in o] == [str(second.pk)]
    assert one(html, "input", id="share-amount")["value"] == "0"


def test_a_step_refused_elsewhere_leaves_the_other_forms_as_they_were(floor, as_croupier) -> None:
    """The bet's refusal fills only its row: the card pickers and the banco's ticks are untouched
    (and a refused card leaves the bets alone)."""
    coup = start(as_croupier, floor, 100)
    html = send(as_croupier, coup, kind="bet", punter="seat-3", amount=900).content.decode()
    assert not [a for a in tags(html, "input", name="callers") if "checked" in a]
    assert "open" not in one(html, "details", **{"class": "banco-multi"})
    typed = [a.get("value") for a in tags(html, "input", name="amount", type="number") if a.get("value")]
    assert typed == ["900"]


# ------------------------------------------------------------------------------- the page's htmx
def test_htmx_settles_no_inline_style(floor, as_croupier) -> None:
    """htmx's default settles ``style``: it copies an element's style attribute onto the swapped
    one, an inline style the Content-Security-Policy (style-src 'self') refuses on every swap."""
    html = as_croupier.get(page_url(floor.table)).content.decode()
    config = json.loads(one(html, "meta", name="htmx-config")["content"] or "{}")
    assert "style" not in config["attributesToSettle"]
    assert "class" in config["attributesToSettle"]
    assert (config["allowEval"], config["allowScriptTags"], config["includeIndicatorStyles"]) == (False,) * 3

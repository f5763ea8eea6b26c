"""A correction rejected after its shoe was closed (RULES.md §9: "a card the correct game needs
but that was not dealt is the next card from the shoe"). A closed shoe's order is on record: the
restoration takes the cards recorded after the coup instead of asking the croupier for cards of
a shoe that is gone; when the record runs out and a new shoe was started, a pit boss voids the
coup. Every path leaves the coup a way forward: settled or void."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from chemin_de_fer.engine.coup import NeedsCards, Restored
from tables import services
from tables.models import Coup, ShoeCard
from tables.selectors import coup_view, restoration_shoe

from .play import Floor, open_floor, play, row_counts, shoe_dealt_down_to

pytestmark = pytest.mark.django_db


def banker_stood_wrongly(floor: Floor, bank: int = 100) -> Coup:
    """The banker stands on 5 against a 6 (he had to draw): the restored game needs one card."""
    return play(
        floor, bank=bank, bets=[(2, bank)], cards=("TH", "3S", "2C", "2H"), player="draw", player_card="6D",
        banker="stand", confirm=True,
    )  # fmt: skip


def new_shoe(floor: Floor) -> None:
    services.shoe_close(actor=floor.croupier, shoe=floor.shoe, reason="end of shoe")
    floor.shoe = services.shoe_start(
        actor=floor.croupier, session=floor.session, decks=6, burnt_cards=["2C", "3C", "4C"]
    )


def test_rejected_after_the_shoe_closed_the_restoration_takes_the_recorded_cards(
    croupier, pit_boss, table
) -> None:
    """RULES.md §9: the card the first correction took (the 4C) came out after the coup, before
    the next coup's cards: it is the next card from the shoe, whoever restores it again."""
    floor = open_floor(croupier, table)
    coup = banker_stood_wrongly(floor)
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])  # restored: banker 9 wins
    play(floor, bank=195, bets=[(3, 195)], cards=("2H", "AS", "3C", "6D"), player="draw", player_card="KH",
         banker="stand")  # fmt: skip
    closed = floor.shoe
    new_shoe(floor)
    services.correction_reject(actor=pit_boss, coup=coup, reason="recount the shoe")
    restoration = coup_view(coup=coup).restoration
    assert isinstance(restoration, Restored) and restoration.extra_cards == ("4C",)
    view = coup_view(coup=coup)
    shoe = restoration_shoe(coup=view.coup, state=view.state)
    assert (shoe.closed, shoe.can_deal) == (True, False)
    assert shoe.recorded == ("4C", "2H", "AS", "3C", "6D", "KH")  # then the next coup's cards

    before = row_counts()
    with pytest.raises(ValidationError, match=r"recorded after this coup \(4C\), not the cards given"):
        services.correction_submit(actor=croupier, coup=coup, cards=["5D"])
    assert row_counts() == before
    cards_before = ShoeCard.objects.count()
    result = services.correction_submit(actor=croupier, coup=coup, cards=[])
    assert result.step.payload["cards"] == ["4C"]
    assert ShoeCard.objects.count() == cards_before  # the 4C is on record already: not dealt twice
    assert ShoeCard.objects.filter(shoe=closed, card="4C", coup=coup).count() == 1
    services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED


def test_with_no_card_on_record_and_a_new_shoe_a_pit_boss_voids_the_coup(croupier, pit_boss, table) -> None:
    """The shoe was ended before the coup was restored and a new one started: the card the
    restored game needs is gone. The croupier is told so (not asked for a card of a closed shoe);
    the pit boss voids the coup: a way forward."""
    floor = open_floor(croupier, table)
    coup = banker_stood_wrongly(floor)
    new_shoe(floor)
    assert coup_view(coup=coup).restoration == NeedsCards(1)
    before = row_counts()
    for cards in ([], ["4C"]):
        with pytest.raises(ValidationError, match=r"a new shoe was started.*A pit boss voids the coup"):
            services.correction_submit(actor=croupier, coup=coup, cards=cards)
    assert row_counts() == before
    services.coup_void(actor=pit_boss, coup=coup, reason="the shoe's cards are gone")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID


def test_a_closed_shoe_still_on_the_table_deals_what_its_record_lacks(croupier, pit_boss, table) -> None:
    """The shoe was closed (say the stop card came out) but no new shoe was started: its undealt
    cards are still at hand, so the croupier deals the card the record lacks."""
    floor = open_floor(croupier, table)
    coup = banker_stood_wrongly(floor)
    services.shoe_close(actor=croupier, shoe=floor.shoe, reason="stop card")
    result = services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    assert result.step.payload["cards"] == ["4C"]
    assert ShoeCard.objects.filter(shoe=floor.shoe, coup=coup, card="4C", role="banker").exists()
    services.correction_reject(actor=pit_boss, coup=coup, reason="check")
    # rejected: the 4C is now on record, so the restoration takes it without asking again
    assert services.correction_submit(actor=croupier, coup=coup, cards=[]).step.payload["cards"] == ["4C"]
    assert ShoeCard.objects.filter(coup=coup, card="4C").count() == 1
    services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED


def test_the_restore_panel_of_a_closed_shoe_says_where_the_cards_come_from(croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    coup = banker_stood_wrongly(floor)
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    new_shoe(floor)
    services.correction_reject(actor=pit_boss, coup=coup, reason="recount")
    client = Client()
    client.force_login(croupier)
    html = client.get(reverse("floor:table", args=[table.pk])).content.decode()
    assert 'data-testid="recorded-cards"' in html and "Shoe 1 is closed" in html
    assert 'data-testid="needs-cards"' not in html and 'data-testid="submit-restore"' in html
    response = client.post(
        reverse("floor:coup_restore", args=[table.pk, coup.pk]), {"cards": "", "action": "submit"}
    )
    assert response.status_code == 303
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL


def test_the_restore_panel_says_when_the_cards_are_gone(croupier, table) -> None:
    floor = open_floor(croupier, table)
    banker_stood_wrongly(floor)
    new_shoe(floor)
    client = Client()
    client.force_login(croupier)
    html = client.get(reverse("floor:table", args=[table.pk])).content.decode()
    assert 'data-testid="cards-gone"' in html and "A pit boss voids the coup" in html
    assert 'data-testid="restore-card-form"' not in html


def test_a_correction_that_brings_out_the_stop_card_ends_the_shoe(croupier, pit_boss, table) -> None:
    """RULES.md §8: the stop card ends the shoe after the current coup. When the card the restored
    game takes from the shoe is the one that brings it out, the coup it restores is the current
    one: the shoe ends with its correction (as it would have at the reveal), and no further coup is
    dealt from it."""
    floor = open_floor(croupier, table, stop_card_position=10)
    # 6 decks = 312 cards: the stop card comes out with card 302; the coup deals cards 297 to 301
    shoe_dealt_down_to(floor, left=16, keep=("TH", "3S", "2C", "2H", "6D", "4C"))
    coup = banker_stood_wrongly(floor)
    floor.shoe.refresh_from_db()
    assert (coup.state, floor.shoe.state, floor.shoe.stop_reached) == ("awaiting_correction", "open", False)

    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])  # card 302
    floor.shoe.refresh_from_db()
    assert (floor.shoe.state, floor.shoe.close_reason, floor.shoe.stop_reached) == (
        "closed",
        "stop card reached",
        True,
    )
    assert not floor.shoe.early_reshuffle
    with pytest.raises(ValidationError, match="Start a shoe first"):
        services.coup_start(actor=croupier, session=floor.session, amount=200)
    # rejected and restored again: the 4C is the closed shoe's record, taken without asking
    services.correction_reject(actor=pit_boss, coup=coup, reason="recount the shoe")
    assert services.correction_submit(actor=croupier, coup=coup, cards=[]).step.payload["cards"] == ["4C"]
    assert ShoeCard.objects.filter(coup=coup, card="4C").count() == 1
    services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED

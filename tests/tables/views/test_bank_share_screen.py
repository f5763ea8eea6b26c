"""Club: a spectator's share of the bank on the croupier's screen."""

from __future__ import annotations

from html import unescape

import pytest
from django.urls import reverse

from ledger import services as ledger
from ledger.models import Account
from ledger.selectors import account_balance
from tables import services
from tables.models import BankShare
from tests.factories import PlayerFactory
from tests.tables.play import open_floor, play, row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def test_a_spectator_puts_up_part_of_the_bank_and_takes_his_share_out(client, croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    spectator = floor.spectators[0]
    client.force_login(croupier)
    page = client.get(reverse("floor:table", args=[club_table.pk])).content.decode()
    assert 'data-testid="share-put-up"' in page
    before = row_counts()
    refused = client.post(reverse("floor:bank_share", args=[club_table.pk]), {"spectator": spectator.pk})
    assert refused.status_code == 400 and "How much of the bank" in refused.content.decode()
    assert row_counts() == before
    put = client.post(
        reverse("floor:bank_share", args=[club_table.pk]), {"spectator": spectator.pk, "amount": 3}
    )
    assert put.status_code in (200, 303)
    assert BankShare.objects.get().contributed == 3
    play(floor, bank=10, bets=[(2, 10)], cards=("2H", "4D", "3C", "5S"), player="stand", banker="natural")
    page = client.get(reverse("floor:table", args=[club_table.pk])).content.decode()
    assert f'data-testid="share-out-{spectator.pk}"' in page
    client.post(reverse("floor:bank_share_out", args=[club_table.pk]), {"spectator": spectator.pk})
    assert BankShare.objects.get().withdrawn == 6  # 20 x 3/10


def test_a_casino_table_shows_no_shares(client, croupier, table) -> None:
    open_floor(croupier, table, seats=(1, 2), spectators=1)
    client.force_login(croupier)
    page = client.get(reverse("floor:table", args=[table.pk])).content.decode()
    assert 'data-testid="bank-shares"' not in page


def test_a_share_above_the_house_limit_is_refused_on_the_screen(client, croupier, club_table) -> None:
    """The QA sweep's repro: Walk-in, 10,000 chips, puts up 99,999,999: refused in a sentence, and
    nothing written."""
    floor = open_floor(croupier, club_table, seats=(1, 2))
    casino = club_table.casino
    casino.house_limit = 5000
    casino.save(update_fields=["house_limit"])
    player = PlayerFactory(casino=casino, display_name="Walk-in")
    ledger.cage_buy_in(casino=casino, player=player, amount=10_000, actor=None, key="walk-in")
    spectator = services.spectator_join(actor=croupier, session=floor.session, player=player)
    client.force_login(croupier)
    before = row_counts()
    refused = client.post(
        reverse("floor:bank_share", args=[club_table.pk]),
        {"spectator": spectator.pk, "amount": 99_999_999},
        **HTMX,
    )
    page = unescape(refused.content.decode())
    assert refused.status_code == 400
    assert (
        "<p>A bank is at most 5,000 chips (the house limit) and the banker puts up part of it: "
        "a share of 99,999,999 is refused.</p>"
    ) in page
    assert row_counts() == before and not BankShare.objects.exists()
    assert account_balance(casino=casino, kind=Account.Kind.PLAYER, player=player, table=None) == 10_000


def test_a_mistyped_share_is_taken_back_on_the_screen_before_the_first_coup(
    client, croupier, club_table
) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    spectator = floor.spectators[0]
    client.force_login(croupier)
    client.post(reverse("floor:bank_share", args=[club_table.pk]), {"spectator": spectator.pk, "amount": 999})
    page = client.get(reverse("floor:table", args=[club_table.pk])).content.decode()
    # the bank has not been played: the share can be taken back (and the form to put one up stays)
    assert f'data-testid="share-out-{spectator.pk}"' in page and 'data-testid="share-put-up"' in page
    client.post(reverse("floor:bank_share_out", args=[club_table.pk]), {"spectator": spectator.pk})
    share = BankShare.objects.get()
    assert (share.contributed, share.withdrawn) == (999, 0)
    page = client.get(reverse("floor:table", args=[club_table.pk])).content.decode()
    assert f'data-testid="share-out-{spectator.pk}"' not in page
    client.post(reverse("floor:bank_share", args=[club_table.pk]), {"spectator": spectator.pk, "amount": 3})
    share.refresh_from_db()
    assert (share.contributed, share.withdrawn) == (3, None)
    play(floor, bank=10, bets=[(2, 10)], cards=("2H", "4D", "3C", "5S"), player="stand", banker="natural")
    kept = account_balance(
        casino=club_table.casino, kind=Account.Kind.PLAYER, player=spectator.player, table=None
    )
    assert kept == 1000 - 3

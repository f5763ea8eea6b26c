"""Club: a spectator's share of the bank on the croupier's screen."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tables.models import BankShare
from tests.tables.play import open_floor, play, row_counts

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

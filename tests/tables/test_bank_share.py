"""Club: a spectator's share of the bank (docs/rules.md §6), through the services and the ledger."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditEvent
from ledger.models import Account
from ledger.selectors import account_balance
from tables import services
from tables.models import BankShare

from .play import held_bank_turn, open_floor, play

pytestmark = pytest.mark.django_db

# banker naturals of 9 made of different cards each time (a club shoe holds one deck per player)
WINS = [("2H", "4D", "3C", "5S"), ("2D", "9H", "3S", "KC"), ("2C", "8C", "3D", "AD")]


def balance(floor, kind: str, player=None) -> int:
    return account_balance(casino=floor.table.casino, kind=kind, player=player, table=None)


def test_the_seed_example_bank_10_with_3_from_a_spectator(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1, chips=1000)
    spectator = floor.spectators[0]
    banker, punter = floor.players[1], floor.players[2]
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=spectator, amount=3)
    bank = 10
    for cards in WINS:  # three wins, fully covered: 10 -> 20 -> 40 -> 80
        play(floor, bank=bank, bets=[(2, bank)], cards=cards, player="stand", banker="natural")
        bank *= 2
    table = floor.table
    assert account_balance(casino=table.casino, kind=Account.Kind.BANK, table=table) == 80
    assert balance(floor, Account.Kind.PLAYER, spectator.player) == 997  # 3 in the bank
    assert balance(floor, Account.Kind.PLAYER, banker) == 993  # 7 in the bank

    share = services.bank_share_withdraw(actor=croupier, session=floor.session, spectator=spectator)
    assert share.withdrawn == 24  # 80 x 3/10
    # its event carries the fields changed, before and after (the share as contributed is its
    # tables.bank.share_contribute event's)
    event = AuditEvent.objects.get(action="tables.bank.share_withdraw", object_id=str(share.pk))
    assert share.withdrawn_at is not None
    when = f"{share.withdrawn_at:%Y-%m-%dT%H:%M:%S.%f}Z"  # UTC, as the trail writes instants
    assert (event.before, event.after) == (
        {"withdrawn": None, "withdrawn_at": None},
        {"withdrawn": 24, "withdrawn_at": when},
    )
    assert account_balance(casino=table.casino, kind=Account.Kind.BANK, table=table) == 56
    assert balance(floor, Account.Kind.PLAYER, spectator.player) == 1021
    assert held_bank_turn(floor).required_minimum == 56  # the banker goes on with 56, or tops it up
    assert balance(floor, Account.Kind.PLAYER, punter) == 1000 - 70
    with pytest.raises(ValidationError, match="no share"):
        services.bank_share_withdraw(actor=croupier, session=floor.session, spectator=spectator)


def test_an_unwithdrawn_share_is_paid_when_the_bank_ends(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1, chips=1000)
    spectator = floor.spectators[0]
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=spectator, amount=4)
    play(floor, bank=10, bets=[(2, 10)], cards=WINS[0], player="stand", banker="natural")  # bank 20
    services.bank_pass(actor=croupier, session=floor.session)
    share = BankShare.objects.get()
    assert share.withdrawn == 8  # 20 x 4/10, before the banker takes the rest back
    assert balance(floor, Account.Kind.PLAYER, spectator.player) == 1004
    assert balance(floor, Account.Kind.PLAYER, floor.players[1]) == 1006  # 12 of the 20


def test_shares_follow_the_rules(croupier, club_table, table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1, chips=1000)
    spectator = floor.spectators[0]
    with pytest.raises(ValidationError, match="positive whole number"):
        services.bank_share_contribute(actor=croupier, session=floor.session, spectator=spectator, amount=0)
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=spectator, amount=10)
    with pytest.raises(ValidationError, match="already has a share"):
        services.bank_share_contribute(actor=croupier, session=floor.session, spectator=spectator, amount=1)
    with pytest.raises(ValidationError, match="not all of it"):  # the banker must put something up
        play(floor, bank=10, bets=[(2, 10)], cards=WINS[0], player="stand", banker="natural")
    play(floor, bank=11, bets=[(2, 11)], cards=WINS[0], player="stand", banker="natural")
    other = open_floor(croupier, table, seats=(1, 2), spectators=1)  # casino: no shared banks
    with pytest.raises(ValidationError, match="does not share the bank"):
        services.bank_share_contribute(
            actor=croupier, session=other.session, spectator=other.spectators[0], amount=3
        )


def test_two_spectators_each_get_their_own_proportion(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=2, chips=1000)
    a, b = floor.spectators
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=a, amount=3)
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=b, amount=2)
    play(floor, bank=10, bets=[(2, 10)], cards=WINS[0], player="stand", banker="natural")  # bank 20
    services.bank_pass(actor=croupier, session=floor.session)
    paid = dict(BankShare.objects.values_list("spectator_id", "withdrawn"))
    assert paid == {a.pk: 6, b.pk: 4}  # 20 x 3/10 and 20 x 2/10
    assert balance(floor, Account.Kind.PLAYER, floor.players[1]) == 1000 - 5 + 10  # his 5 of 10 won 5


def test_a_later_share_counts_from_what_is_left_after_an_earlier_one(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=2, chips=1000)
    a, b = floor.spectators
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=a, amount=3)
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=b, amount=2)
    bank = 10
    for cards in WINS:
        play(floor, bank=bank, bets=[(2, bank)], cards=cards, player="stand", banker="natural")
        bank *= 2
    assert services.bank_share_withdraw(actor=croupier, session=floor.session, spectator=a).withdrawn == 24
    # B owns 2 of the 7 chips left of the first bank: 2/7 of the 56 still in it
    assert services.bank_share_withdraw(actor=croupier, session=floor.session, spectator=b).withdrawn == 16
    assert held_bank_turn(floor).required_minimum == 40

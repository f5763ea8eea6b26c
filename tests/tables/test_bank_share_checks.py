"""Club: a spectator's share of the bank is checked when he puts it up (not more than his own chips
where the rules forbid borrowing; the shares below the house limit where the casino has one), and
a mistyped share is taken back before the bank's first coup, and put up again."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from ledger import services as ledger
from ledger.models import Account, Transaction
from ledger.selectors import account_balance
from tables import services
from tables.models import BankShare, RuleProfile, Spectator
from tests.factories import PlayerFactory

from .play import Floor, open_floor, play, row_counts

pytestmark = pytest.mark.django_db

WIN = ("2H", "4D", "3C", "5S")  # a banker natural


def walk_in(floor: Floor, chips: int = 10_000) -> Spectator:
    """A spectator, Walk-in, who bought ``chips`` at the cage."""
    player = PlayerFactory(casino=floor.table.casino, display_name="Walk-in")
    ledger.cage_buy_in(casino=floor.table.casino, player=player, amount=chips, actor=None, key="walk-in")
    return services.spectator_join(actor=floor.croupier, session=floor.session, player=player)


def wallet(floor: Floor, player) -> int:
    return account_balance(casino=floor.table.casino, kind=Account.Kind.PLAYER, player=player, table=None)


def house_limit(floor: Floor, limit: int | None) -> None:
    casino = floor.table.casino
    casino.house_limit = limit
    casino.save(update_fields=["house_limit"])


def contribute(floor: Floor, spectator: Spectator, amount: int) -> BankShare:
    return services.bank_share_contribute(
        actor=floor.croupier, session=floor.session, spectator=spectator, amount=amount
    )


def test_a_share_at_or_above_the_house_limit_is_refused(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), chips=1000)
    house_limit(floor, 5000)
    spectator = walk_in(floor)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        contribute(floor, spectator, 99_999_999)
    assert refused.value.messages == [
        "A bank is at most 5000 chips (the house limit) and the banker puts up part of it: "
        "a share of 99999999 is refused."
    ]
    with pytest.raises(ValidationError, match="a share of 5000 is refused"):
        contribute(floor, spectator, 5000)  # the banker puts up part of the bank too
    assert row_counts() == before and not BankShare.objects.exists()
    assert wallet(floor, spectator.player) == 10_000
    assert contribute(floor, spectator, 4999).contributed == 4999
    other = walk_in_named(floor, "Second")
    before = row_counts()
    with pytest.raises(ValidationError, match="a share of 1 is refused"):  # 4999 + 1: the whole limit
        contribute(floor, other, 1)
    assert row_counts() == before and BankShare.objects.count() == 1


def walk_in_named(floor: Floor, name: str) -> Spectator:
    player = PlayerFactory(casino=floor.table.casino, display_name=name)
    ledger.cage_buy_in(casino=floor.table.casino, player=player, amount=1000, actor=None, key=f"in:{name}")
    return services.spectator_join(actor=floor.croupier, session=floor.session, player=player)


def test_where_borrowing_is_forbidden_a_share_is_at_most_his_chips(croupier, club_table) -> None:
    RuleProfile.objects.filter(pk=club_table.profile_id).update(borrowing_allowed=False)
    floor = open_floor(croupier, club_table, seats=(1, 2), chips=1000)
    spectator = walk_in(floor)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        contribute(floor, spectator, 99_999_999)
    assert refused.value.messages == ["Walk-in has only 10000 chips: a share of 99999999 is refused."]
    with pytest.raises(ValidationError, match="Walk-in has only 10000 chips: a share of 10001 is refused"):
        contribute(floor, spectator, 10_001)
    assert row_counts() == before and not BankShare.objects.exists()
    assert wallet(floor, spectator.player) == 10_000
    assert contribute(floor, spectator, 10_000).contributed == 10_000


def test_where_he_may_borrow_and_no_house_limit_applies_the_share_is_the_bankers_consent(
    croupier, club_table
) -> None:
    """The club lets players borrow (docs/rules.md §10) and the casino sets no house limit: no
    bound applies when the share is put up (what he cannot pay becomes his marker)."""
    floor = open_floor(croupier, club_table, seats=(1, 2), chips=1000)
    assert club_table.profile.borrowing_allowed and floor.table.casino.house_limit is None
    assert contribute(floor, walk_in(floor), 20_000).contributed == 20_000


def test_a_mistyped_share_is_taken_back_before_the_first_coup_and_put_up_again(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), chips=1000)
    spectator = walk_in(floor)
    banker = floor.players[1]
    contribute(floor, spectator, 99_999_999)  # mistyped: the bank of 100 would be refused
    with pytest.raises(ValidationError, match="not all of it"):
        play(floor, bank=100, bets=[(2, 100)], cards=WIN, player="stand", banker="natural")
    with pytest.raises(ValidationError, match="already has a share"):
        contribute(floor, spectator, 9)
    postings = Transaction.objects.count()
    share = services.bank_share_withdraw(actor=croupier, session=floor.session, spectator=spectator)
    assert share.withdrawn == 0  # nothing had moved
    assert Transaction.objects.count() == postings
    assert wallet(floor, spectator.player) == 10_000 and wallet(floor, banker) == 1000
    again = contribute(floor, spectator, 9)
    assert again.pk == share.pk
    assert (again.contributed, again.withdrawn, again.withdrawn_at) == (9, None, None)
    play(floor, bank=100, bets=[(2, 100)], cards=WIN, player="stand", banker="natural")  # bank 200
    assert wallet(floor, spectator.player) == 10_000 - 9
    assert wallet(floor, banker) == 1000 - 91
    assert wallet(floor, floor.players[2]) == 1000 - 100
    assert account_balance(casino=floor.table.casino, kind=Account.Kind.BANK, table=floor.table) == 200
    # after the bank's first coup he takes his proportion out, and puts up nothing more
    out = services.bank_share_withdraw(actor=croupier, session=floor.session, spectator=spectator)
    assert out.withdrawn == 18  # 200 x 9/100
    with pytest.raises(ValidationError, match="before its first coup"):
        contribute(floor, spectator, 9)

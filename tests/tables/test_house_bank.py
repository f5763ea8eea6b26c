"""The house bank (RULES.md §2): a table the casino banks, the croupier playing the bank hand for
the house with the cage's money, no levy on the house's wins, no rotation while the house holds it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from ledger.models import Account, Transaction
from ledger.selectors import account_balance, transaction_entries
from tables import services
from tables.models import BankTax, BankTurn, Coup, Player
from tables.selectors import coup_betting_order, coup_view, table_floor, table_now

from .play import Floor, K, held_bank_turn, open_floor, play, row_counts, step

pytestmark = pytest.mark.django_db


def house_floor(croupier, table, **kwargs) -> Floor:
    table.house_bank = True
    table.save()
    floor = open_floor(croupier, table, banker_seat=None, **kwargs)
    services.bank_house_take(actor=croupier, session=floor.session)
    return floor


def named(txn: Transaction) -> dict[str, int]:
    """A transaction's entries by account: ``cage``, ``bank``, ``levy``, ``player:<name>``..."""
    out = {}
    for pk, amount in transaction_entries(txn=txn).items():
        account = Account.objects.select_related("player").get(pk=pk)
        who = f":{account.player.display_name}" if account.player else ""
        out[f"{account.kind}{who}"] = amount
    return out


def postings(coup: Coup) -> list[tuple[str, dict[str, int]]]:
    return [(t.kind, named(t)) for t in Transaction.objects.filter(coup=coup).order_by("pk")]


def cage(floor: Floor) -> int:
    return account_balance(casino=floor.table.casino, kind=Account.Kind.CAGE)


def bank(floor: Floor) -> int:
    return account_balance(casino=floor.table.casino, kind=Account.Kind.BANK, table=floor.table)


def house_wins(floor: Floor, amount: int, seat: int = 4) -> Coup:
    """Seat ``seat`` covers the whole bank; player 5 draws a king, the house's 7 stands."""
    return play(
        floor,
        bank=amount,
        bets=[(seat, amount)],
        cards=("2H", "AS", "3C", "6D"),
        player="draw",
        player_card="KH",
        banker="stand",
    )


def house_loses(floor: Floor, amount: int, seat: int = 3) -> Coup:
    """Seat ``seat`` covers the whole bank with a natural 9 against the house's 7."""
    return play(floor, bank=amount, bets=[(seat, amount)], cards=("4H", "AD", "5C", "6S"), player="natural")


def test_the_house_banks_with_the_cage_and_pays_no_levy(croupier, table) -> None:
    """RULES.md §2: the bank is the house's money (from the cage), no levy on the house's own win;
    the house banks from no seat and every seat may bet."""
    floor = house_floor(croupier, table)
    turn = held_bank_turn(floor)
    house = Player.objects.get(casino=table.casino, house=True)
    assert (turn.player, turn.seat, turn.started_how, turn.required_minimum) == (house, None, "house", 1)
    assert house.display_name == "House"
    assert cage(floor) == -4000  # four players bought in for 1000 each

    coup = house_wins(floor, 100)
    assert coup.banker == house and coup.state == Coup.State.SETTLED
    assert postings(coup) == [
        ("bank_fund", {"bank": 100, "cage": -100}),
        ("coup_settlement", {"player:Player 4": -100, "bank": 100}),  # no levy: 5 % would be 5
    ]
    assert not BankTax.objects.filter(coup=coup).exists()
    assert coup.rules["levy"]["rate_bp"] == 0
    assert account_balance(casino=table.casino, kind=Account.Kind.LEVY) == 0
    assert (bank(floor), cage(floor)) == (200, -4100)
    # no player account, no reserve for the house: its money is the cage's
    assert not Account.objects.filter(player=house).exists()


def test_the_house_keeps_the_bank_when_it_loses_and_sets_each_bank_afresh(croupier, table) -> None:
    """RULES.md §2: the bank does not rotate while the house holds it; the house is bound by no
    continuation, so a smaller bank sends the rest back to the cage."""
    floor = house_floor(croupier, table)
    first = house_wins(floor, 100)  # the bank holds 200
    smaller = house_loses(floor, 50)  # the house declares 50: 150 back to the cage, then loses 50
    assert postings(smaller) == [
        ("bank_fund", {"bank": -150, "cage": 150}),
        ("coup_settlement", {"player:Player 3": 50, "bank": -50}),
    ]
    turn = held_bank_turn(floor)
    assert (turn.pk, turn.started_how, turn.required_minimum, turn.ended_at) == (
        first.bank_turn_id,
        "house",
        1,
        None,
    )
    assert table_now(table=table).rotation is None  # nobody is offered the bank
    again = house_wins(floor, 300)
    assert postings(again)[0] == ("bank_fund", {"bank": 300, "cage": -300})
    # the cage: -4000, 100 to the first bank, 150 back, 300 to the third: -4250
    assert (bank(floor), cage(floor)) == (600, -4250)


def test_the_house_limit_sends_the_excess_back_to_the_cage(croupier, table) -> None:
    """RULES.md §2 and §6: what exceeds the house limit is not staked: for the house, back to the cage."""
    table.casino.house_limit = 150
    table.casino.save()
    floor = house_floor(croupier, table)
    coup = house_wins(floor, 100)
    assert postings(coup)[1] == ("coup_settlement", {"player:Player 4": -100, "bank": 50, "cage": 50})
    assert bank(floor) == 150


def test_passing_the_house_bank_returns_it_to_the_cage_and_opens_the_rotation(croupier, table) -> None:
    """RULES.md §2, §7: when the house stops banking, the bank goes back to the cage and the seats
    are offered the bank in turn, each setting his own from the minimum."""
    floor = house_floor(croupier, table)
    house_wins(floor, 100)
    turn = services.bank_pass(actor=croupier, session=floor.session)
    close = Transaction.objects.get(kind=Transaction.Kind.BANK_CLOSE)
    assert named(close) == {"bank": -200, "cage": 200}
    assert (turn.end_reason, bank(floor), cage(floor)) == ("passed", 0, -3900)
    rotation = table_now(table=table).rotation
    assert rotation is not None
    assert (rotation.how, rotation.required_minimum, [s.number for s in rotation.order]) == (
        "rotation",
        1,
        [4, 3, 2, 1],  # from the croupier's place: the casino passes to the right, seat 12 down
    )
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[4], accept=True)
    assert held_bank_turn(floor).seat == floor.seats[4]


def test_at_a_house_bank_every_seat_bets_from_the_croupiers_right(croupier, table) -> None:
    """RULES.md §2, §10: the casino bets from the banker's right; the house deals from the
    croupier's place (between the last seat and seat 1), so seat 4 of 1-4 bets first."""
    floor = house_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    order = coup_betting_order(coup=coup, seats=list(floor.seats.values()))
    assert [s.number for s in order] == [4, 3, 2, 1]
    result = step(floor, coup, K.BET, seat=1, amount=40)
    assert result.state.bets[0].punter == "seat-1"
    assert result.step.payload["order"] == 12  # of 12 seats, seat 1 is the last to bet
    view = coup_view(coup=coup)
    assert view.state.banker == "house"


def test_the_house_bank_is_a_table_setting_off_by_default(croupier, table) -> None:
    """RULES.md §2: a table setting, off by default; refused with nothing written."""
    floor = open_floor(croupier, table, banker_seat=None)
    assert table.house_bank is False
    before = row_counts()
    with pytest.raises(ValidationError, match="house does not bank this table"):
        services.bank_house_take(actor=croupier, session=floor.session)
    assert row_counts() == before
    assert not Player.objects.filter(house=True).exists()


def test_the_house_banks_only_once_nobody_holds_the_bank(croupier, table) -> None:
    table.house_bank = True
    table.save()
    floor = open_floor(croupier, table)  # seat 1 holds the bank by lot
    before = row_counts()
    with pytest.raises(ValidationError, match="Player 1 holds the bank"):
        services.bank_house_take(actor=croupier, session=floor.session)
    assert row_counts() == before
    services.bank_pass(actor=croupier, session=floor.session)
    assert services.bank_house_take(actor=croupier, session=floor.session).started_how == "house"
    before = row_counts()
    with pytest.raises(ValidationError, match="House holds the bank"):
        services.bank_house_take(actor=croupier, session=floor.session)
    assert row_counts() == before


def test_the_house_player_never_sits_stands_or_shares_a_bank(croupier, club_table) -> None:
    """The house is the casino itself: it sits at no seat, and no spectator puts up part of its bank."""
    floor = house_floor(croupier, club_table, seats=(1, 2), spectators=1)
    house = Player.objects.get(house=True)
    before = row_counts()
    with pytest.raises(ValidationError, match="does not sit"):
        services.seat_take(actor=croupier, session=floor.session, player=house, number=5)
    with pytest.raises(ValidationError, match="does not stand"):
        services.spectator_join(actor=croupier, session=floor.session, player=house)
    with pytest.raises(ValidationError, match="nobody puts up part of its bank"):
        services.bank_share_contribute(
            actor=croupier, session=floor.session, spectator=floor.spectators[0], amount=3
        )
    assert row_counts() == before
    assert house not in table_floor(table=club_table).players_available


def test_closing_the_session_returns_the_house_bank_to_the_cage(croupier, table) -> None:
    floor = house_floor(croupier, table)
    house_wins(floor, 100)
    services.table_session_close(actor=croupier, session=floor.session)
    assert BankTurn.objects.get(started_how="house").end_reason == "session_closed"
    assert (bank(floor), cage(floor)) == (0, -3900)


def test_a_flagged_house_coup_is_restored_against_the_cage(croupier, pit_boss, table) -> None:
    """RULES.md §2, §9: a wrongly played house coup settles provisionally, then for good, against
    the bank and the cage, still with no levy."""
    floor = house_floor(croupier, table)
    coup = play(
        floor, bank=100, bets=[(2, 100)], cards=("TH", "3S", "2C", "2H"), player="draw", player_card="6D",
        banker="stand", confirm=True,
    )  # fmt: skip
    assert coup.state == Coup.State.AWAITING_CORRECTION
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])  # restored: the house won 9-8
    services.correction_approve(actor=pit_boss, coup=coup)
    kinds = [(kind, entries) for kind, entries in postings(coup) if kind != "bank_fund"]
    assert kinds == [
        ("coup_provisional", {"player:Player 2": -100, "bank": 100}),
        ("coup_reversal", {"player:Player 2": 100, "bank": -100}),
        ("coup_settlement", {"player:Player 2": -100, "bank": 100}),
    ]
    assert held_bank_turn(floor).started_how == "house" and bank(floor) == 200


def test_a_withdrawn_house_bank_is_set_afresh(croupier, table) -> None:
    """RULES.md §2: the house sets each bank afresh, a withdrawn one too (its minimum stays 1; the
    surplus goes back to the cage), unlike a player's bank (RULES.md §6, tests/tables/test_exits)."""
    floor = house_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=300).coup
    services.coup_bank_withdraw(actor=croupier, coup=coup)
    assert held_bank_turn(floor).required_minimum == 1
    assert services.coup_start(actor=croupier, session=floor.session, amount=100).coup.bank == 100
    assert (bank(floor), cage(floor)) == (100, -4100)

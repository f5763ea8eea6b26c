"""No dead ends (issue 9 §2): borrowing decided by the coup's rules (a marker where players may
borrow, a refusal when the bet is made where they may not), a bank nobody takes withdrawn
(RULES.md §7), and a pit boss's void of any coup not over yet — after each, the table goes on."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from audit.models import AuditEvent
from cage.selectors import player_chips
from chemin_de_fer.engine.machine import Move
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from ledger.models import Account, Transaction
from tables import services
from tables.lifecycle import CoupConflict
from tables.models import BankTurn, Coup, Seat, ShoeCard
from tables.selectors import table_ways_forward
from tables.services import Caller
from tests.tables.play import Floor, open_floor, play, row_counts, step

pytestmark = pytest.mark.django_db


def banker_wins(floor: Floor, *, bank: int, bets: list[tuple[int, int]]) -> Coup:
    """A clean coup the banker wins: player 2+3, draws 9 (4); banker 1+2 draws 5 (8)."""
    return play(
        floor,
        bank=bank,
        bets=bets,
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )


def wallet(floor: Floor, seat: int) -> int:
    return ledger_selectors.account_balance(
        casino=floor.table.casino, kind="player", player=floor.players[seat]
    )


def bank_holds(floor: Floor) -> int:
    return ledger_selectors.account_balance(casino=floor.table.casino, kind="bank", table=floor.table)


def cash_out_all(floor: Floor, seat: int) -> None:
    ledger.cage_cash_out(
        casino=floor.table.casino,
        player=floor.players[seat],
        amount=wallet(floor, seat),
        actor=floor.croupier,
        key=f"out:{floor.players[seat].pk}:{wallet(floor, seat)}",
    )


# ------------------------------------------------------------------------------------ borrowing
def test_a_broke_punter_loses_on_credit_where_the_coups_rules_let_players_borrow(
    croupier, table, home_table
) -> None:
    """Issue 9 §2, measured: at a casino table of a casino that also has a home table, the reveal
    refused to overdraw a punter with no chips ("holds 0 chips and cannot pay 20"). The coup's
    rules (casino profile: borrowing allowed) decide: the loss is his marker (docs/rules.md §2)."""
    floor = open_floor(croupier, table)
    cash_out_all(floor, 2)
    coup = banker_wins(floor, bank=100, bets=[(2, 20)])
    assert coup.state == "settled"
    assert wallet(floor, 2) == -20
    chips = player_chips(player=floor.players[2])
    assert (chips.balance, chips.chips, chips.marker) == (-20, 0, 20)
    [marker] = ledger_selectors.markers(casino=table.casino)
    assert (marker.player_id, marker.owed) == (floor.players[2].pk, 20)
    assert ledger_selectors.trial_balance(casino=table.casino).markers == 20
    settled = Transaction.objects.get(coup=coup, kind="coup_settlement")
    event = AuditEvent.objects.get(action="ledger.transaction.coup_settlement", object_id=str(settled.pk))
    assert event.after is not None
    punter = Account.objects.get(kind="player", player=floor.players[2])
    assert event.after["markers"] == {str(punter.pk): 20}


def test_a_broke_banker_declares_on_credit_where_players_may_borrow(croupier, table, home_table) -> None:
    """The bank declaration is a posting of the coup too: at a casino table the banker's shortfall
    is his marker (his chips go into the bank, his account below zero)."""
    floor = open_floor(croupier, table)
    cash_out_all(floor, 1)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=150).coup
    assert (wallet(floor, 1), bank_holds(floor), coup.state) == (-150, 150, "open")


def test_where_players_may_not_borrow_a_bet_beyond_his_chips_is_refused_when_made(
    croupier, home_table
) -> None:
    """Home profile (no borrowing, docs/rules.md §2): a bet, a banco or a bank the player cannot
    pay is refused when it is made, with nothing written."""
    floor = open_floor(croupier, home_table, chips=100)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    ledger.cage_cash_out(
        casino=home_table.casino, player=floor.players[2], amount=90, actor=croupier, key="out2"
    )
    before = row_counts()
    with pytest.raises(ledger.InsufficientChips) as bet:
        step(floor, coup, Move.BET, seat=2, amount=20)
    assert bet.value.messages == ["Player 2 has only 10 chips; a bet of 20 is refused."]
    with pytest.raises(ledger.InsufficientChips) as banco:
        step(floor, coup, Move.BANCO, callers=(Caller(seat=2),))
    assert banco.value.messages == ["Player 2 has only 10 chips; a bet of 100 is refused."]
    assert row_counts() == before
    step(floor, coup, Move.BET, seat=2, amount=10)  # what he has is accepted
    assert wallet(floor, 2) == 10


def test_where_players_may_not_borrow_a_bank_beyond_his_chips_is_refused_when_declared(
    croupier, home_table
) -> None:
    floor = open_floor(croupier, home_table, chips=100)
    before = row_counts()
    with pytest.raises(ledger.InsufficientChips) as refused:
        services.coup_start(actor=croupier, session=floor.session, amount=101)
    assert refused.value.messages == ["Player 1 has only 100 chips; a bank of 101 is refused."]
    assert (row_counts(), wallet(floor, 1), bank_holds(floor)) == (before, 100, 0)


# ------------------------------------------------------------------------ a bank nobody takes
def test_a_bank_nobody_takes_is_withdrawn_and_the_banker_keeps_it(croupier, table) -> None:
    """RULES.md §7: a declared bank that nobody takes is withdrawn without a coup; the banker keeps
    the bank for the next deal. No deal, no settlement, no levy; the bank's chips stay in it."""
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    result = services.coup_bank_withdraw(actor=croupier, coup=coup, expected_step=1)
    coup.refresh_from_db()
    assert (coup.state, coup.step_count, coup.settled_at) == ("withdrawn", 2, None)
    assert (result.step.kind, result.step.payload) == ("bank_withdrawn", {"bank": 200, "banker": "seat-1"})
    assert (bank_holds(floor), wallet(floor, 1)) == (200, 800)
    assert list(Transaction.objects.filter(coup=coup).values_list("kind", flat=True)) == ["bank_fund"]
    assert AuditEvent.objects.filter(action="tables.coup.bank_withdraw", object_id=str(coup.pk)).count() == 1
    # the same banker goes on: the next coup is still his bank's first (its levy exemption)
    following = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    assert (following.banker_id, following.bank_turn_id) == (coup.banker_id, coup.bank_turn_id)
    assert following.first_coup_of_bank is True
    assert (bank_holds(floor), wallet(floor, 1)) == (200, 800)  # nothing moved twice


def test_a_withdrawn_bank_is_kept_at_least_as_declared(croupier, table) -> None:
    """RULES.md §6-7: the banker keeps the withdrawn bank, whose chips stay in it, and may not take
    chips out of a bank between coups: the next bank's minimum (what the screen says) is the bank
    declared, so the croupier is never refused a bank the screen offered."""
    floor = open_floor(croupier, table)
    turn = BankTurn.objects.get(session=floor.session, ended_at__isnull=True)
    assert turn.required_minimum == 1
    coup = services.coup_start(actor=croupier, session=floor.session, amount=150).coup
    services.coup_bank_withdraw(actor=croupier, coup=coup)
    turn.refresh_from_db()
    assert turn.required_minimum == 150
    continued = AuditEvent.objects.get(action="tables.bank.continue", object_id=str(turn.pk))
    # the field changed, before and after: the rest of the turn is as tables.bank.take wrote it
    assert (continued.before, continued.after) == ({"required_minimum": 1}, {"required_minimum": 150})
    before = row_counts()
    with pytest.raises(ValidationError):
        services.coup_start(actor=croupier, session=floor.session, amount=100)
    assert row_counts() == before
    assert services.coup_start(actor=croupier, session=floor.session, amount=150).coup.bank == 150


def test_after_a_void_of_a_coup_in_play_the_minimum_is_the_bank_as_declared(
    croupier, table, pit_boss
) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=120).coup
    step(floor, coup, Move.BET, seat=2, amount=120)
    services.coup_void(actor=pit_boss, coup=coup, reason="dispute at the table")
    turn = BankTurn.objects.get(pk=coup.bank_turn_id)
    assert (turn.required_minimum, turn.ended_at) == (120, None)
    assert bank_holds(floor) == 120


def test_a_withdrawn_bank_may_be_passed(croupier, table) -> None:
    """RULES.md §7: "...keeps the bank for the next deal or passes it": passing returns its chips."""
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    services.coup_bank_withdraw(actor=croupier, coup=coup)
    turn = services.bank_pass(actor=croupier, session=floor.session)
    assert (turn.end_reason, bank_holds(floor), wallet(floor, 1)) == ("passed", 0, 1000)
    assert "bank_offer_answer" in table_ways_forward(table=table)


def test_a_bank_with_a_bet_standing_is_not_withdrawn(croupier, table, pit_boss) -> None:
    """RULES.md §7 withdraws only a bank nobody took: with a bet standing the coup is played out,
    or a pit boss voids it (cards are dealt only after a bet: the engine closes no empty betting).
    Refusals write nothing."""
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    step(floor, coup, Move.BET, seat=2, amount=50)
    before = row_counts()
    with pytest.raises(ValidationError) as bets:
        services.coup_bank_withdraw(actor=croupier, coup=coup)
    assert bets.value.messages == [
        "Bets stand on this bank: it is played, not withdrawn (a pit boss may void the coup)."
    ]
    with pytest.raises(PermissionDenied):
        services.coup_bank_withdraw(actor=pit_boss, coup=coup)  # the croupier's action
    with pytest.raises(CoupConflict, match="Stale step: the coup is at step 2, not 1"):
        services.coup_bank_withdraw(actor=croupier, coup=coup, expected_step=1)
    assert row_counts() == before
    assert "coup_bank_withdraw" not in table_ways_forward(table=table)


def test_a_finished_coup_has_no_bank_to_withdraw(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = banker_wins(floor, bank=100, bets=[(2, 20)])
    before = row_counts()
    with pytest.raises(CoupConflict, match="This coup is settled: there is no bank to withdraw"):
        services.coup_bank_withdraw(actor=croupier, coup=coup)
    assert row_counts() == before


# ------------------------------------------------------------------- void any unfinished coup
def test_the_measured_dead_end_is_voided_and_the_table_closes(croupier, home_table, pit_boss) -> None:
    """Issue 9 §2, measured: a punter who can no longer pay at the reveal (here, at a home table,
    he cashed his chips out after betting) left a coup that could not be revealed, a punter who
    could not leave, a session that could not close. A pit boss voids the coup in play: the
    stakes are returned (none moved), the bank stays as declared, the cards stay dealt."""
    floor = open_floor(croupier, home_table, chips=100)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=50).coup
    step(floor, coup, Move.BET, seat=2, amount=30)
    step(floor, coup, Move.BETS_CLOSED)
    for kind, card in ((Move.CARD_TO_PLAYER, "2H"), (Move.CARD_TO_BANKER, "9S")):
        step(floor, coup, kind, card=card)
    for kind, card in ((Move.CARD_TO_PLAYER, "3C"), (Move.CARD_TO_BANKER, "TD")):
        step(floor, coup, kind, card=card)
    ledger.cage_cash_out(
        casino=home_table.casino, player=floor.players[2], amount=100, actor=croupier, key="gone"
    )
    step(floor, coup, Move.PLAYER_STAND)
    step(floor, coup, Move.BANKER_NATURAL)
    with pytest.raises(ledger.InsufficientChips, match="holds 0 chips and cannot pay 30"):
        step(floor, coup, Move.REVEAL)
    with pytest.raises(ValidationError, match="A coup is still being played"):
        services.table_session_close(actor=croupier, session=floor.session)
    dealt = ShoeCard.objects.filter(shoe=floor.shoe).count()
    assert table_ways_forward(table=home_table)[:1] == ["coup_void"]

    result = services.coup_void(actor=pit_boss, coup=coup, reason="the punter cannot pay")
    assert isinstance(result, services.StepResult)  # no void limit at this casino: voided at once
    coup.refresh_from_db()
    assert (coup.state, result.step.kind, result.step.payload) == (
        "void",
        "coup_voided",
        {"reason": "the punter cannot pay", "was": "open"},
    )
    assert ShoeCard.objects.filter(shoe=floor.shoe).count() == dealt == 4  # consumed, as dealt
    assert (wallet(floor, 1), bank_holds(floor), wallet(floor, 2)) == (50, 50, 0)
    assert Transaction.objects.filter(coup=coup).count() == 1  # the bank declared, nothing else
    assert "table_session_close" in table_ways_forward(table=home_table)
    services.seat_leave(actor=croupier, seat=floor.seats[2])
    left = AuditEvent.objects.get(action="tables.seat.leave", object_id=str(floor.seats[2].pk))
    seat = Seat.objects.get(pk=floor.seats[2].pk)
    assert seat.left_at is not None
    when = f"{seat.left_at:%Y-%m-%dT%H:%M:%S.%f}Z"  # UTC, as the trail writes instants
    assert (left.before, left.after) == ({"left_at": None}, {"left_at": when})
    services.table_session_close(actor=croupier, session=floor.session)
    assert (wallet(floor, 1), bank_holds(floor)) == (100, 0)  # the bank went back to its banker


def test_after_a_void_the_banker_goes_on_with_the_bank_as_declared(croupier, table, pit_boss) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    step(floor, coup, Move.BET, seat=2, amount=120)
    services.coup_void(actor=pit_boss, coup=coup, reason="dispute at the table")
    following = banker_wins(floor, bank=200, bets=[(3, 100)])
    assert (following.state, following.bank_turn_id, following.first_coup_of_bank) == (
        "settled",
        coup.bank_turn_id,
        True,
    )
    assert (wallet(floor, 2), wallet(floor, 3)) == (1000, 900)


def test_a_restored_coup_awaiting_approval_is_voided_and_its_provisional_settlement_reversed(
    croupier, table, pit_boss
) -> None:
    """Any coup not over (issue 9 §2), RULES.md §9's restored coup included: the provisional
    settlement is reversed, the banker's continuation back to what it was when he declared."""
    floor = open_floor(croupier, table)
    turn = BankTurn.objects.get(session=floor.session, ended_at__isnull=True)
    flagged = play(
        floor,
        bank=400,
        bets=[(2, 240), (3, 160)],
        cards=("TH", "3S", "2C", "2H"),
        player="draw",
        player_card="6D",
        banker="stand",
        confirm=True,
    )
    before = {n: wallet(floor, n) for n in (1, 2, 3)}, bank_holds(floor)
    services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
    turn.refresh_from_db()
    provisional = {n: wallet(floor, n) for n in (1, 2, 3)}, bank_holds(floor), turn.required_minimum
    services.coup_void(actor=pit_boss, coup=flagged, reason="the restoration cannot be agreed")
    flagged.refresh_from_db()
    turn.refresh_from_db()
    assert flagged.state == "void"
    assert ({n: wallet(floor, n) for n in (1, 2, 3)}, bank_holds(floor)) == before
    assert before == ({1: 600, 2: 1000, 3: 1000}, 400)
    # restored, the banker won: 400 covered, levy 20, so he had to go on with at least 780
    assert provisional == ({1: 600, 2: 760, 3: 840}, 780, 780)
    # back to the bank he declared, which the bank still holds (not the 1 of his first bank: the
    # bank could not be lowered to it, RULES.md §6)
    assert turn.required_minimum == 400 and turn.ended_at is None
    kinds = list(Transaction.objects.filter(coup=flagged).values_list("kind", flat=True))
    assert kinds == ["bank_fund", "coup_provisional", "coup_reversal"]


def test_a_void_is_refused_without_a_reason_by_a_croupier_or_on_a_finished_coup(
    croupier, table, pit_boss
) -> None:
    floor = open_floor(croupier, table)
    settled = banker_wins(floor, bank=100, bets=[(2, 20)])
    coup = services.coup_start(actor=croupier, session=floor.session, amount=settled.bank + 19).coup
    before = row_counts()
    with pytest.raises(ValidationError) as blank:
        services.coup_void(actor=pit_boss, coup=coup, reason="  ")
    assert blank.value.message_dict == {"reason": ["Say why the coup is voided."]}
    with pytest.raises(PermissionDenied):
        services.coup_void(actor=croupier, coup=coup, reason="mine")
    with pytest.raises(CoupConflict) as final:
        services.coup_void(actor=pit_boss, coup=settled, reason="too late")
    assert final.value.message == (
        "This coup is settled: only a coup not over yet (being played, or awaiting its correction or "
        "its approval) is voided."
    )
    assert row_counts() == before


# ------------------------------------------------------------------------------ ways forward
def test_the_ways_forward_of_a_table(croupier, table, pit_boss) -> None:
    assert table_ways_forward(table=table) == ["table_session_open"]
    floor = open_floor(croupier, table)
    assert table_ways_forward(table=table) == [
        "table_session_close",
        "session_pause_start",
        "seat_leave",
        "seat_take",
        "shoe_close",
        "bank_pass",
        "coup_start",
    ]
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    assert table_ways_forward(table=table) == [
        "coup_void",
        "coup_step:bet",
        "coup_step:banco",
        "coup_bank_withdraw",
        "seat_leave",
        "seat_take",
    ]
    services.coup_bank_withdraw(actor=croupier, coup=coup)
    assert "coup_start" in table_ways_forward(table=table)
    with transaction.atomic():
        services.table_session_close(actor=croupier, session=floor.session)
    assert table_ways_forward(table=table) == ["table_session_open"]

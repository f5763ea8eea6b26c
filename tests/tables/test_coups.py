"""The coup workflow through the services: steps checked by the engine, settlement, refusals."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from audit.models import AuditEvent
from audit.selectors import audit_bound_rows
from chemin_de_fer.engine.coup import Code, NeedsCards
from tables import services
from tables.models import BankTax, Bet, Coup, CoupStep, Seat, SessionPause, Shoe, ShoeAlarm, ShoeCard
from tables.selectors import coup_view, table_now
from tables.services import Caller, ConfirmationRequired, CoupConflict, StepRequest

from .play import (
    K,
    bank_turn,
    held_bank_turn,
    open_floor,
    play,
    row_counts,
    seat_number,
    shoe_dealt_down_to,
    step,
)

pytestmark = pytest.mark.django_db


def banker_wins(floor, bank: int) -> Coup:
    """A clean coup: seat 2 covers the whole bank, player 5 draws a king, banker 7 stands."""
    return play(
        floor,
        bank=bank,
        bets=[(2, bank)],
        cards=("2H", "AS", "3C", "6D"),
        player="draw",
        player_card="KH",
        banker="stand",
    )


def test_a_clean_casino_coup_is_settled_with_its_levy(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = play(
        floor,
        bank=200,
        bets=[(2, 120), (3, 50), (4, 30)],
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )
    assert (coup.state, coup.flagged, coup.step_count) == (Coup.State.SETTLED, False, 14)
    assert [s.kind for s in coup.steps.order_by("index")] == [
        "bank_declared", "bet", "bet", "bet", "bets_closed", "card_to_player", "card_to_banker",
        "card_to_player", "card_to_banker", "player_draw", "card_to_player", "banker_draw",
        "card_to_banker", "reveal",
    ]  # fmt: skip
    verdict = coup.steps.get(kind="reveal").payload["verdict"]
    assert (verdict["outcome"], verdict["player_total"], verdict["banker_total"]) == ("banker", 4, 8)
    assert verdict["settlement"]["tax"] == 10
    tax = BankTax.objects.get(coup=coup)
    assert (tax.basis, tax.amount) == (200, 10)
    assert held_bank_turn(floor).required_minimum == 390  # 200 + 200 - 10: the mandatory continuation
    cards = list(ShoeCard.objects.filter(coup=coup).order_by("position").values_list("card", "role"))
    assert cards == [
        ("2H", "player"), ("AS", "banker"), ("3C", "player"),
        ("2D", "banker"), ("9H", "player"), ("5S", "banker"),
    ]  # fmt: skip
    first_card = ShoeCard.objects.filter(shoe=floor.shoe).first()
    assert first_card is not None and first_card.role == "burn"


def test_every_step_is_audited_in_the_same_transaction(croupier, table) -> None:
    floor = open_floor(croupier, table)
    before = AuditEvent.objects.filter(action="tables.coup.step").count()
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    step(floor, coup, K.BET, seat=2, amount=100)
    events = AuditEvent.objects.filter(action="tables.coup.step").order_by("seq")
    assert events.count() == before + 1
    last = events.last()
    assert last is not None
    # the event names the step; what the step holds is its row, bound by digest, not a copy
    assert (last.object_id, last.after) == (str(coup.pk), {"index": 2, "kind": "bet"})
    row = CoupStep.objects.get(coup=coup, index=2)
    shown = audit_bound_rows([last], tables={"tables_coupstep"})[last.pk]
    bet = {"order": 11, "amount": 100, "punter": "seat-2", "spectator": False}
    assert row.payload == bet
    assert [(b.table, b.pk, b.values and b.values["payload"], b.values and b.values["violations"], b.as_bound)
            for b in shown] == [("tables_coupstep", row.pk, bet, [], True)]  # fmt: skip
    assert AuditEvent.objects.filter(action="tables.coup.start", object_id=str(coup.pk)).count() == 1


def test_a_step_against_the_rules_needs_confirmation_and_nothing_is_written(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    step(floor, coup, K.BET, seat=2, amount=100)
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in (
        (K.CARD_TO_PLAYER, "TH"),
        (K.CARD_TO_BANKER, "3S"),
        (K.CARD_TO_PLAYER, "2C"),
        (K.CARD_TO_BANKER, "2H"),
    ):
        step(floor, coup, kind, card=card)
    step(floor, coup, K.PLAYER_DRAW)
    step(floor, coup, K.CARD_TO_PLAYER, card="6D")
    before = row_counts()
    with pytest.raises(ConfirmationRequired) as caught:
        step(floor, coup, K.BANKER_STAND)  # 5 against a 6: he must draw
    assert caught.value.violation.code is Code.BANKER_SHOULD_DRAW
    assert row_counts() == before
    coup.refresh_from_db()
    assert (coup.step_count, coup.flagged) == (9, False)
    result = step(floor, coup, K.BANKER_STAND, confirm=True)
    assert result.violation is not None and result.violation.code is Code.BANKER_SHOULD_DRAW
    assert result.step.violations == ["BANKER_SHOULD_DRAW"]
    coup.refresh_from_db()
    assert coup.flagged
    # the confirmed violation is the step row's, which the event binds: the event only names it
    event = AuditEvent.objects.filter(action="tables.coup.step").latest("seq")
    assert event.after == {"index": 10, "kind": "banker_stand"}
    shown = audit_bound_rows([event], tables={"tables_coupstep"})[event.pk]
    assert [(b.pk, b.values and b.values["violations"], b.as_bound) for b in shown] == [
        (result.step.pk, ["BANKER_SHOULD_DRAW"], True)
    ]


def test_flagged_coup_is_restored_then_approved_by_another_person(croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    coup = play(
        floor,
        bank=100,
        bets=[(2, 60), (3, 40)],
        cards=("TH", "3S", "2C", "2H"),
        player="draw",
        player_card="6D",
        banker="stand",
        confirm=True,
    )
    assert coup.state == Coup.State.AWAITING_CORRECTION
    view = coup_view(coup=coup)
    assert isinstance(view.restoration, NeedsCards)
    assert view.restoration.needs_cards == 1  # the banker's missing card
    with pytest.raises(ValidationError, match="needs 1 more card"):
        services.correction_submit(actor=croupier, coup=coup, cards=[])
    with pytest.raises(ValidationError, match="takes 1 card"):
        services.correction_submit(actor=croupier, coup=coup, cards=["4C", "9D"])
    result = services.correction_submit(actor=croupier, coup=coup, cards=["4c"])
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL
    correction = result.step
    assert correction.corrects is not None
    assert correction.corrects.kind == "banker_stand" and correction.corrects.violations == [
        "BANKER_SHOULD_DRAW"
    ]
    assert correction.payload["restored"]["banker_cards"] == ["3S", "2H", "4C"]
    assert correction.payload["restored"]["outcome"] == "banker"
    assert ShoeCard.objects.filter(coup=coup, card="4C", role="banker").exists()

    # the croupier cannot approve; nor can the pit boss approve a correction he submitted himself
    with pytest.raises(PermissionDenied):
        services.correction_approve(actor=croupier, coup=coup)
    approved = services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert (coup.state, approved.step.kind, approved.step.corrects_id) == (
        Coup.State.SETTLED,
        "correction_approved",
        correction.pk,
    )
    assert BankTax.objects.get(coup=coup).amount == 5
    # the original steps are untouched: the wrong one is still there, still flagged
    assert coup.steps.get(kind="banker_stand").violations == ["BANKER_SHOULD_DRAW"]


def test_rejected_correction_goes_back_to_the_croupier(croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    coup = play(
        floor, bank=100, bets=[(2, 100)], cards=("4D", "3H", "3C", "TD"), player="draw", player_card="2S",
        banker="draw", banker_card="6H", confirm=True,
    )  # fmt: skip
    services.correction_submit(actor=croupier, coup=coup, cards=[])
    with pytest.raises(ValidationError):
        services.correction_reject(actor=pit_boss, coup=coup, reason="  ")
    services.correction_reject(actor=pit_boss, coup=coup, reason="wrong card entered")
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_CORRECTION
    kinds = list(coup.steps.order_by("index").values_list("kind", flat=True))
    assert kinds[-2:] == ["correction", "correction_rejected"]
    services.correction_submit(actor=croupier, coup=coup, cards=[])
    services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED


def test_stale_step_and_finished_coup_are_conflicts(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    step(floor, coup, K.BET, seat=2, amount=50)
    before = row_counts()
    with pytest.raises(CoupConflict, match="Stale step: the coup is at step 2, not 1"):
        services.coup_step_record(
            actor=croupier, coup=coup, request=StepRequest(kind=K.BET, seat=3, amount=10), expected_step=1
        )
    assert row_counts() == before


def test_another_tables_croupier_is_refused_and_nothing_changes(croupier, other_croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    before = row_counts()
    with pytest.raises(PermissionDenied):
        services.coup_step_record(
            actor=other_croupier,
            coup=coup,
            request=StepRequest(kind=K.BET, seat=2, amount=10),
            expected_step=1,
        )
    with pytest.raises(PermissionDenied):
        services.coup_start(actor=other_croupier, session=floor.session, amount=100)
    assert row_counts() == before


@pytest.mark.parametrize(
    ("request_fields", "message"),
    [
        ({"kind": K.BET, "seat": 2, "amount": 101}, "only 100 of the bank is left"),
        ({"kind": K.BET, "seat": 9, "amount": 10}, "Nobody sits at seat 9"),
        ({"kind": K.BET, "seat": 1, "amount": 10}, "cannot bet against their own bank"),
        ({"kind": K.BET, "seat": 2, "amount": 0}, "positive whole number"),
        ({"kind": K.CARD_TO_PLAYER, "card": "9H"}, "card_to_player is not possible now"),
        ({"kind": K.BETS_CLOSED}, "bets_closed is not possible now"),
    ],
)
def test_illegal_steps_are_refused_with_nothing_written(croupier, table, request_fields, message) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    before = row_counts()
    with pytest.raises(ValidationError, match=message):
        services.coup_step_record(
            actor=croupier, coup=coup, request=StepRequest(**request_fields), expected_step=1
        )
    assert row_counts() == before


def test_the_bank_must_reach_the_mandatory_minimum(croupier, table) -> None:
    floor = open_floor(croupier, table)
    banker_wins(floor, 100)
    assert held_bank_turn(floor).required_minimum == 195
    with pytest.raises(ValidationError, match="at least 195"):
        services.coup_start(actor=croupier, session=floor.session, amount=150)


def test_banco_withdraws_the_other_bets(croupier, table) -> None:
    floor = open_floor(croupier, table, spectators=1)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    step(floor, coup, K.BET, seat=2, amount=30)
    spec = floor.spectators[0]
    step(floor, coup, K.BANCO, callers=(Caller(spectator=spec.pk), Caller(seat=3)))
    bets = list(
        Bet.objects.filter(coup=coup)
        .order_by("betting_order")
        .values_list("seat__number", "amount", "banco", "withdrawn")
    )
    assert bets == [(2, 30, False, True), (3, 100, True, False)]


def test_bank_lost_goes_round_in_rotation_refusals_skipped(croupier, table) -> None:
    floor = open_floor(croupier, table, seats=(1, 2, 3, 4))
    # casino profile: the bank passes to the banker's right, i.e. down the seat numbers: 4, 3, 2
    play(floor, bank=100, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural")
    assert bank_turn(floor) is None
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[4], accept=False)
    with pytest.raises(ValidationError, match="goes to seat 3"):
        services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[2], accept=True)
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[3], accept=True)
    turn = held_bank_turn(floor)
    assert (seat_number(turn.seat), turn.started_how, turn.required_minimum) == (3, "rotation", 1)


def test_a_passed_bank_taker_sets_his_own_bank_at_the_casino(croupier, table) -> None:
    """RULES.md §7 (seed 000 a): at casino and classic tables the first player who accepts a passed
    bank sets his own bank, anything from the profile minimum up to the house limit; he is not
    bound by the passer's continuation (195 here)."""
    table.casino.house_limit = 5000
    table.casino.save()
    floor = open_floor(croupier, table)
    banker_wins(floor, 100)
    assert held_bank_turn(floor).required_minimum == 195
    services.bank_pass(actor=croupier, session=floor.session)
    rotation = table_now(table=table).rotation
    assert rotation is not None
    assert (rotation.how, rotation.required_minimum, rotation.terms.maximum, rotation.auction) == (
        "passed",
        1,
        5000,
        None,  # this table does not auction a passed bank
    )
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[4], accept=True)
    turn = held_bank_turn(floor)
    assert (turn.started_how, turn.required_minimum, seat_number(turn.seat)) == ("passed", 1, 4)
    before = row_counts()
    with pytest.raises(ValidationError, match="may not exceed the house limit of 5000"):
        services.coup_start(actor=croupier, session=floor.session, amount=5001)
    assert row_counts() == before
    coup = services.coup_start(actor=croupier, session=floor.session, amount=20).coup
    assert (coup.bank, coup.first_coup_of_bank) == (20, True)


def test_a_passed_bank_taker_sets_his_own_bank_at_the_classic_table(croupier, classic_table) -> None:
    """RULES.md §7 (seed 000 a): the classic profile too; it passes the bank to the left."""
    floor = open_floor(croupier, classic_table)
    banker_wins(floor, 100)  # no levy at the classic table: he must go on with at least 200
    assert held_bank_turn(floor).required_minimum == 200
    services.bank_pass(actor=croupier, session=floor.session)
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[2], accept=True)
    turn = held_bank_turn(floor)
    assert (turn.started_how, turn.required_minimum, seat_number(turn.seat)) == ("passed", 1, 2)
    assert services.coup_start(actor=croupier, session=floor.session, amount=1).coup.bank == 1


def test_a_passed_club_bank_goes_to_the_left_neighbour_who_sets_his_own(croupier, club_table) -> None:
    """RULES.md §7: in the club the passed bank goes to the banker's left neighbour (seat 2 for
    the banker at seat 1), who sets his own bank from the profile minimum."""
    floor = open_floor(croupier, club_table, seats=(1, 2, 3))
    coup = services.coup_start(actor=croupier, session=floor.session, amount=10).coup
    step(floor, coup, K.BET, seat=2, amount=10)
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in ((K.CARD_TO_PLAYER, "2H"), (K.CARD_TO_BANKER, "AS"), (K.CARD_TO_PLAYER, "3C")):
        step(floor, coup, kind, card=card)
    step(floor, coup, K.CARD_TO_BANKER, card="6D")
    step(floor, coup, K.PLAYER_DRAW)
    step(floor, coup, K.CARD_TO_PLAYER, card="KH")
    step(floor, coup, K.BANKER_STAND)
    step(floor, coup, K.REVEAL)  # banker 7 beats player 5: he must go on with at least 20
    assert held_bank_turn(floor).required_minimum == 20
    services.bank_pass(actor=croupier, session=floor.session)
    rotation = table_now(table=club_table).rotation
    assert rotation is not None and rotation.offer_to == floor.seats[2]
    assert rotation.required_minimum == 1
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[2], accept=True)
    turn = held_bank_turn(floor)
    assert (turn.started_how, turn.required_minimum, seat_number(turn.seat)) == ("passed", 1, 2)


def test_a_passed_home_bank_is_offered_at_least_at_the_continuation(croupier, home_table) -> None:
    """RULES.md §7 (seed 003): at home the passed bank is offered in turn at at least the
    mandatory continuation; below it the first coup is refused, nothing written."""
    floor = open_floor(croupier, home_table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=10).coup
    step(floor, coup, K.BET, seat=4, amount=10)  # the home profile bets from the banker's right
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in ((K.CARD_TO_PLAYER, "2H"), (K.CARD_TO_BANKER, "AS"), (K.CARD_TO_PLAYER, "3C")):
        step(floor, coup, kind, card=card)
    step(floor, coup, K.CARD_TO_BANKER, card="6D")
    step(floor, coup, K.PLAYER_DRAW)
    step(floor, coup, K.CARD_TO_PLAYER, card="KH")
    step(floor, coup, K.BANKER_STAND)
    step(floor, coup, K.REVEAL)  # the banker wins 10: at home he goes on with at least 2 x 10
    assert held_bank_turn(floor).required_minimum == 20
    services.bank_pass(actor=croupier, session=floor.session)
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[4], accept=True)
    turn = held_bank_turn(floor)
    assert (turn.started_how, turn.required_minimum) == ("passed", 20)
    before = row_counts()
    with pytest.raises(ValidationError, match="at least 20"):
        services.coup_start(actor=croupier, session=floor.session, amount=19)
    assert row_counts() == before
    assert services.coup_start(actor=croupier, session=floor.session, amount=20).coup.first_coup_of_bank


def test_a_passed_bank_by_auction_goes_at_the_bank_just_played(croupier, table) -> None:
    """RULES.md §7 (seed 000 b): where the table holds an informal auction of a passed bank, the
    bank goes to whoever puts up a bank equal to the one just played (100 here, not the 195 the
    passer would have had to go on with); any other amount is refused, nothing written."""
    table.passed_bank_auction = True
    table.save()
    floor = open_floor(croupier, table)
    banker_wins(floor, 100)
    services.bank_pass(actor=croupier, session=floor.session)
    rotation = table_now(table=table).rotation
    assert rotation is not None and rotation.auction is not None
    assert (rotation.auction.minimum, rotation.auction.maximum, rotation.required_minimum) == (100, 100, 1)
    before = row_counts()
    for amount in (99, 101, 195):
        with pytest.raises(ValidationError) as refused:
            services.bank_auction_award(
                actor=croupier, session=floor.session, seat=floor.seats[3], amount=amount
            )
        assert refused.value.message_dict == {
            "amount": ["The bank goes to whoever puts up 100, the bank just played."]
        }
    assert row_counts() == before
    turn = services.bank_auction_award(actor=croupier, session=floor.session, seat=floor.seats[3], amount=100)
    assert (turn.started_how, turn.required_minimum, seat_number(turn.seat)) == ("auction", 100, 3)


def test_a_table_without_the_auction_setting_refuses_one(croupier, table) -> None:
    """RULES.md §7: the informal auction is a table setting, off by default."""
    floor = open_floor(croupier, table)
    banker_wins(floor, 100)
    services.bank_pass(actor=croupier, session=floor.session)
    before = row_counts()
    with pytest.raises(ValidationError, match="offered in turn: it is not auctioned"):
        services.bank_auction_award(actor=croupier, session=floor.session, seat=floor.seats[3], amount=100)
    assert row_counts() == before


def test_impossible_card_raises_the_shoe_alarm(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2))  # club: one deck per seated player
    assert floor.shoe.decks == 2
    coup = services.coup_start(actor=croupier, session=floor.session, amount=10).coup
    step(floor, coup, K.BET, seat=2, amount=10)
    step(floor, coup, K.BETS_CLOSED)
    step(floor, coup, K.CARD_TO_PLAYER, card="AS")
    step(floor, coup, K.CARD_TO_BANKER, card="AS")
    assert not ShoeAlarm.objects.exists()
    step(floor, coup, K.CARD_TO_PLAYER, card="AS")  # a third ace of spades from two decks
    alarm = ShoeAlarm.objects.get()
    assert (alarm.kind, alarm.card, alarm.coup_id) == ("impossible_card", "AS", coup.pk)
    assert alarm.detail == "AS seen 3 times; a 2-deck shoe holds 2"
    coup.refresh_from_db()
    floor.shoe.refresh_from_db()
    assert coup.alarm and floor.shoe.alarm


def test_stop_card_ends_the_shoe_after_the_coup(croupier, table) -> None:
    """RULES.md §8: reaching the stop card (here 10 cards from the bottom) ends the shoe after the
    current coup; the shoe was dealt far enough not to count as an early reshuffle."""
    floor = open_floor(croupier, table, stop_card_position=10)
    assert floor.shoe.stop_card_position == 10
    # 6 decks = 312 cards: the stop card lies after card 302; the coming coup deals 5 cards
    shoe_dealt_down_to(floor, left=15, keep=("2H", "AS", "3C", "6D", "KH"))
    banker_wins(floor, 100)  # cards 298 to 302: the stop card comes out with the last of them
    floor.shoe.refresh_from_db()
    assert (floor.shoe.state, floor.shoe.close_reason, floor.shoe.stop_reached) == (
        "closed",
        "stop card reached",
        True,
    )
    assert not floor.shoe.early_reshuffle  # 302 of 312 dealt: more than 5/6
    assert not ShoeAlarm.objects.filter(shoe=floor.shoe, kind="early_reshuffle").exists()
    with pytest.raises(ValidationError, match="Start a shoe first"):
        services.coup_start(actor=croupier, session=floor.session, amount=200)
    shoe = services.shoe_start(
        actor=croupier, session=floor.session, decks=8, burnt_cards=["2C", "3D", "4H", "5S"]
    )
    assert (shoe.number, shoe.state) == (2, Shoe.State.OPEN)


@pytest.mark.parametrize("from_bottom", [7, 8, 9, 10])
def test_a_stop_card_7_to_10_cards_from_the_bottom_is_accepted(croupier, table, from_bottom) -> None:
    """RULES.md §8: the stop card is placed 7 to 10 cards from the bottom of the shoe."""
    session = services.table_session_open(actor=croupier, table=table)
    shoe = services.shoe_start(
        actor=croupier,
        session=session,
        decks=6,
        burnt_cards=["2C", "3C", "4C"],
        stop_card_position=from_bottom,
    )
    assert shoe.stop_card_position == from_bottom


@pytest.mark.parametrize("from_bottom", [1, 3, 6, 11, 100, 311])
def test_a_stop_card_outside_7_to_10_from_the_bottom_is_refused(croupier, table, from_bottom) -> None:
    """RULES.md §8: 3 and 100 used to be accepted; anything outside 7..10 is refused, nothing written."""
    session = services.table_session_open(actor=croupier, table=table)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        services.shoe_start(
            actor=croupier,
            session=session,
            decks=6,
            burnt_cards=["2C", "3C", "4C"],
            stop_card_position=from_bottom,
        )
    assert refused.value.message_dict == {
        "stop_card_position": [
            "The stop card goes 7 to 10 cards from the bottom of the shoe "
            f"(in this 312-card shoe: after card 302 to 305), not {from_bottom}."
        ]
    }
    assert row_counts() == before


def test_shoe_follows_the_profile(croupier, table) -> None:
    session = services.table_session_open(actor=croupier, table=table)
    with pytest.raises(ValidationError, match="plays 6 or 8 decks"):
        services.shoe_start(actor=croupier, session=session, decks=4, burnt_cards=["2C", "3C", "4C"])
    with pytest.raises(ValidationError, match="burns 3 to 4 cards"):
        services.shoe_start(actor=croupier, session=session, decks=6, burnt_cards=[])
    with pytest.raises(ValidationError, match="bad card"):
        services.shoe_start(actor=croupier, session=session, decks=6, burnt_cards=["2C", "3C", "1X"])


def test_a_late_correction_leaves_the_bank_in_play_alone(croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    first = play(
        floor, bank=100, bets=[(2, 100)], cards=("TH", "3S", "2C", "2H"), player="draw", player_card="6D",
        banker="stand", confirm=True,
    )  # fmt: skip
    services.correction_submit(actor=croupier, coup=first, cards=["4C"])  # restored: the banker won
    assert held_bank_turn(floor).required_minimum == 195
    banker_wins(floor, 200)
    turn = held_bank_turn(floor)
    assert turn.required_minimum == 390
    services.correction_reject(actor=pit_boss, coup=first, reason="the card was the 5D")
    services.correction_submit(actor=croupier, coup=first, cards=["5D"])  # now the player wins
    after = bank_turn(floor)
    assert after is not None and after.pk == turn.pk and after.required_minimum == 390


def test_a_punter_cannot_stake_the_same_chips_at_two_home_tables(croupier, home_table) -> None:
    from tests.factories import CroupierAssignmentFactory, TableFactory, builtin_profile

    second = TableFactory(casino=home_table.casino, profile=builtin_profile("home"))
    CroupierAssignmentFactory(user=croupier, table=second)
    one = open_floor(croupier, home_table, seats=(1, 2, 3), chips=100)
    two = open_floor(croupier, second, seats=(1, 3, 4), chips=100)
    player = one.players[2]
    services.seat_leave(actor=croupier, seat=two.seats[3])
    # a player sits at one table at a time: the floor refuses him a second seat, naming the first
    with pytest.raises(ValidationError, match=f"{player.display_name} is seated at {home_table.name}: "):
        services.seat_take(actor=croupier, session=two.session, player=player, number=2)
    # a seat at both from before that rule (or an imported history's): his chips still count once
    Seat.objects.create(session=two.session, player=player, number=2, joined_at=timezone.now())
    coup = services.coup_start(actor=croupier, session=one.session, amount=100).coup
    step(one, coup, K.BET, seat=2, amount=100)  # all his 100 chips at the first table
    other = services.coup_start(actor=croupier, session=two.session, amount=50).coup
    with pytest.raises(ValidationError, match="a bet of 10 besides the 100 already staked is refused"):
        step(two, other, K.BET, seat=2, amount=10)


def test_the_first_in_betting_order_plays_on_equal_stakes(croupier, club_table) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2, 3))
    coup = services.coup_start(actor=croupier, session=floor.session, amount=10).coup
    step(floor, coup, K.BET, seat=3, amount=5)  # entered first, but seat 2 bets first (club: from the left)
    step(floor, coup, K.BET, seat=2, amount=5)
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in (
        (K.CARD_TO_PLAYER, "2H"),
        (K.CARD_TO_BANKER, "4D"),
        (K.CARD_TO_PLAYER, "3C"),
        (K.CARD_TO_BANKER, "3S"),
    ):
        step(floor, coup, kind, card=card)
    step(floor, coup, K.PLAYER_STAND)  # his option on 5
    step(floor, coup, K.BANKER_STAND)  # club: free on 7
    result = step(floor, coup, K.REVEAL)
    assert result.verdict is not None and result.verdict.settlement is not None
    assert result.verdict.settlement.punters == {"seat-2": -10, "seat-3": 0}  # seat 2 answers for both


def test_a_farther_player_taking_a_passed_bank_leaves_the_first_neighbour_his_turn(croupier, table) -> None:
    floor = open_floor(croupier, table)
    banker_wins(floor, 100)
    services.bank_pass(actor=croupier, session=floor.session)
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[4], accept=False)
    services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[3], accept=True)
    turn = held_bank_turn(floor)
    assert (seat_number(turn.seat), seat_number(turn.rotation_from)) == (3, 1)


def test_the_first_banker_is_chosen_the_table_s_way(croupier, table) -> None:
    table.casino.house_limit = 500
    table.casino.save()
    floor = open_floor(croupier, table, banker_seat=None)
    with pytest.raises(ValidationError, match="chosen by lot"):
        services.bank_offer_answer(actor=croupier, session=floor.session, seat=floor.seats[1], accept=True)
    table.first_banker_method = "auction"
    table.save()
    with pytest.raises(ValidationError, match="house limit of 500"):
        services.bank_first_assign(actor=croupier, session=floor.session, seat=floor.seats[1], amount=600)


def test_closing_the_session_closes_the_shoe_like_any_other(croupier, table) -> None:
    floor = open_floor(croupier, table)
    services.table_session_close(actor=croupier, session=floor.session)
    floor.shoe.refresh_from_db()
    assert (floor.shoe.state, floor.shoe.close_reason, floor.shoe.early_reshuffle) == (
        "closed",
        "session closed",
        True,
    )
    assert ShoeAlarm.objects.filter(shoe=floor.shoe, kind="early_reshuffle").count() == 1
    assert AuditEvent.objects.filter(action="tables.shoe.close", object_id=str(floor.shoe.pk)).count() == 1


# ---------------------------------------------------------------- a banco suivi, on the floor
def test_a_banco_suivi_is_the_last_coups_loser_and_nobody_elses(croupier, home_table) -> None:
    """The engine judges the claim (chemin_de_fer.engine.order.suivi_refusal) on who called banco
    on the session's previous coup and how it ended; a refused claim writes nothing."""
    floor = open_floor(croupier, home_table, seats=(1, 2, 3))
    # seat 2 calls banco and loses it: the banker shows a natural 9 (WINS of test_bank_share)
    play(
        floor,
        bank=10,
        banco=[Caller(seat=2)],
        cards=("2D", "9H", "3S", "KC"),
        player="stand",
        banker="natural",
    )
    coup = services.coup_start(actor=croupier, session=floor.session, amount=20).coup
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        step(floor, coup, K.BANCO, callers=(Caller(seat=3, suivi=True),))
    assert refused.value.message_dict == {"callers": ["Player 3 did not lose a banco on the previous coup."]}
    assert row_counts() == before
    # the loser's suivi is taken; seat 2 is the last to bet from the banker's seat 1 (12 seats)
    result = step(floor, coup, K.BANCO, callers=(Caller(seat=2, suivi=True),))
    assert list(Bet.objects.filter(coup=coup).values_list("seat__number", "banco", "banco_suivi")) == [
        (2, True, True)
    ]
    assert result.step.payload["callers"] == [
        {"punter": "seat-2", "spectator": False, "suivi": True, "order": 11}
    ]


def test_a_start_refused_for_several_reasons_gives_the_first_of_them(croupier, table) -> None:
    """A start's refusals in their order: no shoe, nobody banking, a coup still in play (the first
    of the session's, by shoe and number), a pause, the series. A paused table whose coup is still
    in play is told about the coup, and nothing is written."""
    floor = open_floor(croupier, table)
    in_play = banker_wins(floor, 100)
    assert in_play.number == 1
    second = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    # a pause over a coup in play (the pause's own check would refuse it: the database allows it)
    SessionPause.objects.create(session=floor.session, started_at=timezone.now(), started_by=croupier)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        services.coup_start(actor=croupier, session=floor.session, amount=100)
    assert refused.value.messages == [f"First finish coup {second.number} of shoe 1."]
    assert row_counts() == before
    # a recorded history is held up by a coup in play all the same, before the pause
    with pytest.raises(ValidationError) as refused:
        services.coup_start(actor=croupier, session=floor.session, amount=100, history=True)
    assert refused.value.messages == [f"First finish coup {second.number} of shoe 1."]
    assert row_counts() == before

"""The croupier's typo amended before the reveal (tables.services.amends; docs/table-workflow.md,
"Amending a typo"): a new step supersedes the wrong one, the original is kept, the replay, the
checks, the shoe and the money follow the amended value. RULES.md §3 (the coup as played) and §8
(the shoe's cards)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from audit.models import AuditEvent
from chemin_de_fer.engine.coup import Code
from chemin_de_fer.engine.interchange import record_to_dict
from ledger import services as ledger
from ledger.models import Account
from ledger.selectors import account_balance
from tables import services
from tables.engine_bridge import exported_record, game_rows
from tables.models import Bet, Coup, ShoeAlarm, ShoeCard
from tables.selectors import coup_view, table_now
from tables.services import Amendment, ConfirmationRequired, CoupConflict
from tables.services.shoes import live_cards

from .play import K, open_floor, row_counts, step

pytestmark = pytest.mark.django_db


def amend(floor, coup: Coup, index: int, *, reason: str = "typo", confirm: bool = False, **fields):
    coup.refresh_from_db()
    return services.step_amend(
        actor=floor.croupier,
        coup=coup,
        index=index,
        amendment=Amendment(**fields),
        reason=reason,
        expected_step=coup.step_count,
        confirm=confirm,
    )


def start(floor, bank: int = 200) -> Coup:
    return services.coup_start(actor=floor.croupier, session=floor.session, amount=bank).coup


def deal(floor, coup: Coup, cards: tuple[str, str, str, str]) -> None:
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in zip((K.CARD_TO_PLAYER, K.CARD_TO_BANKER) * 2, cards, strict=True):
        step(floor, coup, kind, card=card)


def chips(floor, seat: int) -> int:
    return account_balance(casino=floor.table.casino, kind=Account.Kind.PLAYER, player=floor.players[seat])


# ------------------------------------------------------------------------------------------ a bet
def test_a_mistyped_bet_is_superseded_and_the_coup_settles_on_the_amended_amount(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    typo = step(floor, coup, K.BET, seat=2, amount=15).step  # meant 150
    result = amend(floor, coup, typo.index, amount=150, reason="typed 15 for 150")
    assert (result.step.kind, result.step.supersedes_id) == ("amend", typo.pk)
    assert result.step.payload == {
        "kind": "bet",
        "punter": "seat-2",
        "amount": 150,
        "spectator": False,
        "order": result.step.payload["order"],
        "step": typo.index,
        "reason": "typed 15 for 150",
        "was": typo.payload,
    }
    assert (result.state.covered, result.state.uncovered) == (150, 50)
    # the original is kept, untouched; the replay plays the amendment in its place
    typo.refresh_from_db()
    assert typo.payload["amount"] == 15
    rows = list(coup.steps.order_by("index"))
    assert [r.index for r in game_rows(rows)] == [1, result.step.index]
    old, new = Bet.objects.filter(coup=coup).order_by("betting_order")
    assert (old.amount, old.withdrawn, new.amount, new.withdrawn, new.replaces_id) == (
        15,
        True,
        150,
        False,
        old.pk,
    )
    after = AuditEvent.objects.filter(action="tables.coup.amend").get().after
    assert after is not None
    assert after["was"]["amount"] == 15 and after["now"]["amount"] == 150
    assert after["reason"] == "typed 15 for 150" and after["supersedes"] == typo.index
    # seat 2 loses the amended 150 at the reveal, not the 15 typed
    before = chips(floor, 2)
    deal(floor, coup, ("2H", "AS", "3C", "6D"))
    step(floor, coup, K.PLAYER_DRAW)
    step(floor, coup, K.CARD_TO_PLAYER, card="KH")
    step(floor, coup, K.BANKER_STAND)
    revealed = step(floor, coup, K.REVEAL)
    assert revealed.verdict is not None and revealed.verdict.settlement is not None
    assert revealed.verdict.settlement.covered == 150
    assert chips(floor, 2) == before - 150


def test_a_bet_can_be_amended_to_another_punter(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    typo = step(floor, coup, K.BET, seat=2, amount=100).step
    result = amend(floor, coup, typo.index, seat=3)
    assert [(b.punter, b.amount) for b in result.state.bets] == [("seat-3", 100)]
    live = Bet.objects.get(coup=coup, withdrawn=False)
    assert (live.seat, live.amount) == (floor.seats[3], 100)


def test_an_amendment_can_itself_be_amended_but_not_the_step_it_superseded(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    typo = step(floor, coup, K.BET, seat=2, amount=15).step
    first = amend(floor, coup, typo.index, amount=105).step
    with pytest.raises(
        ValidationError, match=f"already amended by step {first.index}: amend step {first.index}"
    ):
        amend(floor, coup, typo.index, amount=150)
    second = amend(floor, coup, first.index, amount=150)
    assert second.state.covered == 150
    assert Bet.objects.filter(coup=coup, withdrawn=False).get().amount == 150
    assert Bet.objects.filter(coup=coup).count() == 3


# ------------------------------------------------------------------------------------------ a card
def test_a_mistyped_card_goes_back_to_the_shoe_and_the_real_one_is_taken(croupier, table) -> None:
    """RULES.md §8: the shoe counts the card really dealt, at the same position."""
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    step(floor, coup, K.BET, seat=2, amount=200)
    deal(floor, coup, ("5H", "AS", "3C", "6D"))  # the player's first card was the 6H
    dealt = table_now(table=table).cards_dealt
    typo = coup.steps.get(kind="card_to_player", payload__card="5H")
    mistyped = ShoeCard.objects.get(coup=coup, card="5H")
    result = amend(floor, coup, typo.index, card="6h", reason="read 5 for 6")
    assert result.state.player_cards == ("6H", "3C")
    assert result.step.payload == {
        "kind": "card_to_player", "card": "6H", "step": typo.index, "reason": "read 5 for 6",
        "was": {"card": "5H"},
    }  # fmt: skip
    real = ShoeCard.objects.get(replaces=mistyped)
    assert (real.card, real.position, real.role, real.coup_id) == ("6H", mistyped.position, "player", coup.pk)
    assert table_now(table=table).cards_dealt == dealt  # one card out, not two
    assert not live_cards(floor.shoe).filter(card="5H").exists()
    assert ShoeCard.objects.filter(card="5H", shoe=floor.shoe).count() == 1  # kept, replaced
    # the player's 9 stands as played: the tableau now asks for a stand, not the 8 typed
    assert coup_view(coup=coup).requirement is None  # player holds 9: a natural


def test_an_amended_card_that_is_impossible_raises_the_alarm_and_a_typo_alarm_stays(
    croupier, club_table
) -> None:
    """RULES.md §1: a card seen more often than the shoe holds is a game-protection alarm; an
    amendment never erases one (the typo's stays on record), the real card raises its own."""
    floor = open_floor(croupier, club_table, seats=(1, 2))  # one deck per seated player: 2 decks
    coup = start(floor, 20)
    step(floor, coup, K.BET, seat=2, amount=20)
    deal(floor, coup, ("AS", "AS", "AS", "2D"))  # a third AS in two decks: the typo's alarm
    assert ShoeAlarm.objects.filter(kind="impossible_card", card="AS").count() == 1
    third = coup.steps.filter(kind="card_to_player").order_by("index").last()
    assert third is not None
    amend(floor, coup, third.index, card="2C")
    assert live_cards(floor.shoe).filter(card="AS").count() == 2
    assert ShoeAlarm.objects.filter(kind="impossible_card").count() == 1  # kept
    banker_second = coup.steps.get(kind="card_to_banker", payload__card="2D")
    amend(floor, coup, banker_second.index, card="AS")  # now really a third AS
    assert ShoeAlarm.objects.filter(kind="impossible_card", card="AS").count() == 2


# ------------------------------------------------------------------------------------------ refusals
def test_no_amendment_after_the_reveal(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    bet = step(floor, coup, K.BET, seat=2, amount=200).step
    deal(floor, coup, ("2H", "AS", "3C", "6D"))
    step(floor, coup, K.PLAYER_DRAW)
    step(floor, coup, K.CARD_TO_PLAYER, card="KH")
    step(floor, coup, K.BANKER_STAND)
    step(floor, coup, K.REVEAL)
    before = row_counts()
    with pytest.raises(CoupConflict, match="pit boss's correction"):
        amend(floor, coup, bet.index, amount=150)
    assert row_counts() == before


@pytest.mark.parametrize(
    ("index", "fields", "reason", "message"),
    [
        pytest.param(2, {"amount": 150}, "  ", "Say why the step is amended", id="no-reason"),
        pytest.param(99, {"amount": 150}, "typo", "has no step 99", id="unknown-step"),
        pytest.param(1, {"amount": 150}, "typo", "Only a bet or a dealt card can be amended", id="bank"),
        pytest.param(3, {"amount": 150}, "typo", "Only a bet or a dealt card can be amended", id="close"),
        pytest.param(2, {"amount": 100}, "typo", "nothing to amend", id="same-value"),
        pytest.param(2, {"amount": 250}, "typo", "only 200 of the bank is left to cover", id="above-bank"),
        pytest.param(2, {"card": "5H"}, "typo", "amended with its amount", id="card-for-a-bet"),
        pytest.param(2, {"seat": 1}, "typo", "cannot bet against their own bank", id="banker-bets"),
        pytest.param(2, {"seat": 7}, "typo", "Nobody sits at seat 7", id="empty-seat"),
        pytest.param(4, {"amount": 5}, "typo", "amended with the card only", id="amount-for-a-card"),
    ],
)
def test_refused_amendments_write_nothing(croupier, table, index, fields, reason, message) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    step(floor, coup, K.BET, seat=2, amount=100)
    step(floor, coup, K.BETS_CLOSED)
    step(floor, coup, K.CARD_TO_PLAYER, card="2H")
    before = row_counts()
    bets = list(Bet.objects.values())
    with pytest.raises(ValidationError, match=message):
        amend(floor, coup, index, reason=reason, **fields)
    assert row_counts() == before and list(Bet.objects.values()) == bets


def test_another_tables_croupier_cannot_amend(croupier, other_croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    bet = step(floor, coup, K.BET, seat=2, amount=100).step
    before = row_counts()
    with pytest.raises(PermissionDenied):
        services.step_amend(
            actor=other_croupier, coup=coup, index=bet.index, amendment=Amendment(amount=150), reason="typo"
        )
    assert row_counts() == before


def test_an_amendment_that_makes_the_bets_exceed_the_bank_is_refused_naming_the_later_bet(
    croupier, table
) -> None:
    """RULES.md §2: the covered stake is never more than the bank."""
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    first = step(floor, coup, K.BET, seat=2, amount=100).step
    second = step(floor, coup, K.BET, seat=3, amount=100).step
    before, bets = row_counts(), list(Bet.objects.values())
    with pytest.raises(ValidationError, match=f"step {second.index} .*Amend step {second.index} first"):
        amend(floor, coup, first.index, amount=150)
    assert row_counts() == before and list(Bet.objects.values()) == bets
    amend(floor, coup, second.index, amount=50)  # in that order it fits
    assert amend(floor, coup, first.index, amount=150).state.covered == 200


def test_a_stale_view_is_a_conflict(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    bet = step(floor, coup, K.BET, seat=2, amount=100).step
    with pytest.raises(CoupConflict, match="Stale step"):
        services.step_amend(
            actor=croupier,
            coup=coup,
            index=bet.index,
            amendment=Amendment(amount=150),
            reason="t",
            expected_step=1,
        )


def test_a_bet_the_player_cannot_afford_is_refused_without_counting_the_typo(croupier, home_table) -> None:
    """Where borrowing is not allowed a bet is covered by the player's own chips (the typo's
    stake does not count against him twice)."""
    floor = open_floor(croupier, home_table, seats=(1, 2, 3), chips=100)
    banker = floor.players[1]
    ledger.cage_buy_in(casino=home_table.casino, player=banker, amount=200, actor=croupier, key="more")
    coup = start(floor, 300)
    bet = step(floor, coup, K.BET, seat=2, amount=10).step
    assert amend(floor, coup, bet.index, amount=100).state.covered == 100  # all his chips: fine
    again = coup.steps.get(kind="amend")
    with pytest.raises(ValidationError, match="refused"):
        amend(floor, coup, again.index, amount=150)


# ------------------------------------------------------------------------------------------ the rules
def test_an_amended_card_that_makes_a_later_step_break_the_rules_needs_confirmation(croupier, table) -> None:
    """RULES.md §4: the player's stand on 6 was right; with the real 4 he had to draw."""
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    step(floor, coup, K.BET, seat=2, amount=200)
    deal(floor, coup, ("3H", "KS", "3C", "7D"))  # player 6
    step(floor, coup, K.PLAYER_STAND)
    second = coup.steps.filter(kind="card_to_player").order_by("index").last()
    assert second is not None
    before = row_counts()
    with pytest.raises(ConfirmationRequired) as refused:
        amend(floor, coup, second.index, card="AC")  # player 4: he had to draw
    assert refused.value.violation.code is Code.PLAYER_SHOULD_DRAW
    assert row_counts() == before
    result = amend(floor, coup, second.index, card="AC", confirm=True)
    coup.refresh_from_db()
    assert result.step.violations == ["PLAYER_SHOULD_DRAW"] and coup.flagged


def test_an_amendment_that_clears_the_only_violation_unflags_the_coup(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    step(floor, coup, K.BET, seat=2, amount=200)
    deal(floor, coup, ("3H", "KS", "AC", "7D"))  # typed AC: player 4, his stand looks wrong
    step(floor, coup, K.PLAYER_STAND, confirm=True)
    coup.refresh_from_db()
    assert coup.flagged
    second = coup.steps.filter(kind="card_to_player").order_by("index").last()
    assert second is not None
    amend(floor, coup, second.index, card="3C")  # it was the 3C: player 6 stands, rightly
    coup.refresh_from_db()
    assert not coup.flagged
    step(floor, coup, K.BANKER_STAND)
    step(floor, coup, K.REVEAL)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED  # nothing to restore


def test_an_amendment_that_makes_a_later_step_impossible_is_refused(croupier, table) -> None:
    """RULES.md §3: a natural is shown at once; no third card. With an 8 on two cards the recorded
    draw and third card could still be recorded (as violations), but a natural shown without one
    could not."""
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    step(floor, coup, K.BET, seat=2, amount=200)
    deal(floor, coup, ("4H", "KS", "4C", "7D"))  # player 8
    step(floor, coup, K.PLAYER_NATURAL)
    second = coup.steps.filter(kind="card_to_player").order_by("index").last()
    assert second is not None
    before = row_counts()
    with pytest.raises(ValidationError, match="step 8 \\(player shows a natural\\) would be impossible"):
        amend(floor, coup, second.index, card="3C")
    assert row_counts() == before


# -------------------------------------------------------------------------------- the record shown
def test_the_record_is_the_game_as_played_after_amendments(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    bet = step(floor, coup, K.BET, seat=2, amount=20).step
    amend(floor, coup, bet.index, amount=200)
    deal(floor, coup, ("2H", "AS", "3C", "6D"))
    step(floor, coup, K.PLAYER_DRAW)
    third = step(floor, coup, K.CARD_TO_PLAYER, card="KH").step
    amend(floor, coup, third.index, card="QH")
    step(floor, coup, K.BANKER_STAND)
    reveal = step(floor, coup, K.REVEAL)
    view = coup_view(coup=coup)
    record = record_to_dict(exported_record(view.coup, view.steps, view.state))
    assert [(b["punter"], b["amount"]) for b in record["bets"]] == [("seat-2", 200)]
    assert record["player"]["cards"] == ["2H", "3C", "QH"]
    assert reveal.step.payload["verdict"]["settlement"]["covered"] == 200


def test_shoe_cards_are_append_only_in_the_database() -> None:
    """A card seen coming out of the shoe is history: an amendment adds a row, the database
    refuses an UPDATE or a DELETE (the append-only triggers of tables_shoecard)."""
    from django.db import IntegrityError, connection, transaction

    from audit.db_triggers import triggers_present
    from tests.factories import ShoeCardFactory

    assert triggers_present(connection, "tables_shoecard")
    card = ShoeCardFactory(card="5H")
    with pytest.raises(IntegrityError, match="append-only: UPDATE refused"), transaction.atomic():
        ShoeCard.objects.filter(pk=card.pk).update(card="6H")
    with pytest.raises(IntegrityError, match="append-only: DELETE refused"), transaction.atomic():
        ShoeCard.objects.filter(pk=card.pk).delete()
    assert ShoeCard.objects.get(pk=card.pk).card == "5H"


def test_the_pit_boss_review_shows_the_typo_struck_through(croupier, pit_boss, table) -> None:
    from django.test import Client
    from django.urls import reverse

    floor = open_floor(croupier, table)
    coup = start(floor, 200)
    typo = step(floor, coup, K.BET, seat=2, amount=20).step
    amendment = amend(floor, coup, typo.index, amount=200, reason="typed 20 for 200").step
    deal(floor, coup, ("2H", "AS", "3C", "6D"))
    step(floor, coup, K.PLAYER_DRAW)
    step(floor, coup, K.CARD_TO_PLAYER, card="KH")
    step(floor, coup, K.BANKER_STAND)
    step(floor, coup, K.REVEAL)
    client = Client()
    client.force_login(pit_boss)
    html = client.get(reverse("review:coup", args=[coup.pk])).content.decode()
    assert "<del>Bet</del>" in html
    assert f'<a href="#step-{amendment.index}">amended at step {amendment.index}</a>' in html
    assert "seat 2 · Player 2 bets 20 → 200 (step 2; reason: typed 20 for 200)" in html

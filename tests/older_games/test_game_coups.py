"""The older games through the shared services: start, steps, settlement postings, voiding."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditEvent
from ledger.models import Account, Transaction
from ledger.selectors import player_available
from ledger.services import cage_buy_in
from older_games import services as svc
from tables.lifecycle import CoupConflict
from tables.models import GameCoup, GameStep

pytestmark = pytest.mark.django_db


def _chips(table, players):
    return [player_available(casino=table.casino, player=p) for p in players]


def test_macao_coup_settles_three_units_for_a_nine(game_table, croupier):
    table, session, players = game_table("macao", players=3)
    a, b, c = players
    started = svc.game_coup_start(actor=croupier, session=session)
    coup = started.coup
    assert coup.seating["banker"] == svc.player_key(a)
    assert coup.seating["punters"] == [svc.player_key(b), svc.player_key(c)]
    # deal: b, c, then the banker
    for card in ("9H", "8S", "5D"):
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": card})
    for _ in range(2):  # b and c stand
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"})
    result = svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"}, expected_steps=5)
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.SETTLED
    assert coup.outcome == "punters"
    assert result.step.index == 6
    # b's 9 is paid 3 units, c's 8 two units: the banker pays 50
    assert _chips(table, players) == [950, 1030, 1020]
    txn = Transaction.objects.get(game_coup=coup)
    assert txn.kind == Transaction.Kind.GAME_SETTLEMENT
    assert sum(txn.entries.values_list("amount", flat=True)) == 0
    actions = list(
        AuditEvent.objects.filter(action__startswith="tables.game_coup")
        .order_by("seq")
        .values_list("action", flat=True)
    )
    assert actions == ["tables.game_coup.start", *["tables.game_coup.step"] * 6, "tables.game_coup.settle"]


def test_an_illegal_step_is_refused_and_nothing_written(game_table, croupier):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(ValidationError, match="Every player gets a first card"):
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"})
    with pytest.raises(ValidationError, match="is not a card"):
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "1X"})
    coup.refresh_from_db()
    assert coup.step_count == 0
    assert GameStep.objects.filter(coup=coup).count() == 0


def test_a_stale_view_is_a_conflict(game_table, croupier):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "2H"})
    with pytest.raises(CoupConflict):
        svc.game_step_record(
            actor=croupier, coup=coup, payload={"kind": "deal", "card": "3H"}, expected_steps=0
        )
    assert GameStep.objects.filter(coup=coup).count() == 1


def test_landsknecht_needs_fund_dues_then_settles_with_the_fund(game_table, croupier):
    table, session, players = game_table("landsknecht", players=2)
    with pytest.raises(ValidationError, match="fund dues"):
        svc.game_coup_start(actor=croupier, session=session)
    svc.game_fund_collect(actor=croupier, session=session)
    assert svc.fund_balance(table) == 20
    assert _chips(table, players) == [990, 990]
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert coup.seating["fund"] == 20
    _a, b = players
    for payload in (
        {"kind": "stake", "amount": 50},
        {"kind": "cover", "player": svc.player_key(b), "amount": 30},
        {"kind": "close"},  # the fund answers for 20
        {"kind": "card", "card": "5H"},
        {"kind": "card", "card": "KS"},
        {"kind": "card", "card": "5D"},  # the banker's rank again: he wins
        {"kind": "decide", "decision": "take"},
    ):
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.SETTLED and coup.outcome == "banker"
    assert _chips(table, players) == [1040, 960]
    assert svc.fund_balance(table) == 0
    # the next coup: the bank passes to b, who opens after a take with the pot of 100
    nxt = svc.seating_proposed(session)
    assert (nxt.banker, nxt.opening, nxt.previous) == (svc.player_key(b), "after-take", 100)


def test_old_baccarat_pooled_tie_goes_through_the_pool(game_table, croupier):
    table, session, players = game_table(
        "old-baccarat", players=3, settings={"min_stake": 10, "tie_rule": "pool"}
    )
    a, b, c = players
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    kb, kc = svc.player_key(b), svc.player_key(c)
    steps = [
        {"kind": "stake", "player": kb, "amount": 20},
        {"kind": "stake", "player": kc, "amount": 10},
        {"kind": "cut", "player": kb},
        # deal order: b, c, banker, then c, b, banker
        *({"kind": "card", "card": card} for card in ("3H", "2H", "4H", "2S", "3S", "3D")),
    ]
    for payload in steps:
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    # b 6, c 4, banker 7: nobody has a natural; the buying order is c (right), b, then the banker
    for payload in (
        {"kind": "stand", "player": kc},
        {"kind": "stand", "player": kb},
        {"kind": "draw", "player": svc.player_key(a)},
        {"kind": "card", "card": "9D"},  # the banker: 4+3+9 = 16 -> 6, ties b, beats c
    ):
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.SETTLED
    kinds = sorted(Transaction.objects.filter(game_coup=coup).values_list("kind", flat=True))
    assert kinds == ["game_settlement", "pool_in", "pool_out"]
    pool = Account.objects.get(kind=Account.Kind.POOL, table=table)
    assert pool.balance == 0
    # b's 20 and the banker's 20 are pooled and shared by two: 20 each; c loses 10 to the banker
    assert _chips(table, players) == [1010, 1000, 990]


def test_a_stake_nobody_can_pay_is_refused(game_table, croupier):
    table, session, players = game_table("old-baccarat", players=2, chips=0)
    # nobody holds a chip: no coup starts (leaving them out, nobody would be left to play)
    with pytest.raises(ValidationError) as refused:
        svc.game_coup_start(actor=croupier, session=session)
    assert refused.value.messages == [
        "Too few of the seated players hold chips to play a coup (a banker and a punter): "
        "a buy-in at the cage comes first."
    ]
    assert not GameCoup.objects.exists()
    # each holds 5: both play, and a stake above what the punter holds is refused when it is laid
    for p in players:
        cage_buy_in(casino=table.casino, player=p, amount=5, actor=croupier, key=f"five:{p.pk}")
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(ValidationError, match="holds 5 chips and could lose 10"):
        svc.game_step_record(
            actor=croupier,
            coup=coup,
            payload={"kind": "stake", "player": svc.player_key(players[1]), "amount": 10},
        )
    assert GameStep.objects.count() == 0


def test_void_needs_a_reason_and_frees_the_table(game_table, croupier, pit_boss):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(CoupConflict):
        svc.game_coup_start(actor=croupier, session=session)
    with pytest.raises(ValidationError):
        svc.game_coup_void(actor=pit_boss, coup=coup, reason="  ")
    svc.game_coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.VOID and coup.void_reason == "misdeal"
    again = svc.game_coup_start(actor=croupier, session=session).coup
    assert again.number == 2


def test_the_view_lists_next_steps_with_names(game_table, croupier):
    from older_games.selectors import game_coup_view, game_table_view

    _table, session, players = game_table("macao", players=2)
    before = game_table_view(session)
    assert before.open_coup is None and before.blocked == ""
    assert before.proposed_banker == svc.player_key(players[0])
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    view = game_coup_view(coup)
    assert [s["kind"] for s in view.next_steps] == ["deal"]
    assert view.next_steps[0]["player_name"] == players[1].display_name
    assert len(view.next_steps[0]["cards"]) == 52
    assert view.exposure == {svc.player_key(players[1]): 30, svc.player_key(players[0]): 30}


def test_a_mistyped_card_is_taken_back_and_the_record_stays_append_only(game_table, croupier):
    from older_games.selectors import game_coup_view

    table, session, players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(ValidationError, match="no step to take back"):
        svc.game_step_undo(actor=croupier, coup=coup)
    svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "9H"})
    svc.game_step_undo(actor=croupier, coup=coup, expected_steps=1, reason="it was the 9 of spades")
    for payload in (
        {"kind": "deal", "card": "9S"},
        {"kind": "deal", "card": "2D"},
        {"kind": "stand"},
        {"kind": "stand"},
    ):
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == ("settled", 6)
    assert coup.record["deal"] == ["9S", "2D"]
    view = game_coup_view(coup)
    assert [s["undone"] for s in view.steps] == [True, True, False, False, False, False]
    assert view.steps[1]["payload"] == {
        "kind": "undo",
        "of": {"kind": "deal", "card": "9H"},
        "reason": "it was the 9 of spades",
    }
    assert view.can_undo is False
    with pytest.raises(CoupConflict):
        svc.game_step_undo(actor=croupier, coup=coup)
    assert _chips(table, players) == [970, 1030]


def test_a_player_in_the_coup_being_played_does_not_leave(game_table, croupier):
    from tables import services
    from tables.models import Seat

    _table, session, players = game_table("macao", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    seat = Seat.objects.get(session=session, player=players[1])
    with pytest.raises(ValidationError, match="finish or void it first"):
        services.seat_leave(actor=croupier, seat=seat)
    assert Seat.objects.get(pk=seat.pk).left_at is None
    svc.game_coup_void(actor=croupier, coup=coup, reason="player called away")
    services.seat_leave(actor=croupier, seat=seat)
    assert Seat.objects.get(pk=seat.pk).left_at is not None
    # the next coup is played by those still seated
    nxt = svc.game_coup_start(actor=croupier, session=session).coup
    assert svc.player_key(players[1]) not in [nxt.seating["banker"], *nxt.seating["punters"]]

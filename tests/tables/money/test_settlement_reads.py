"""tables/money/settlement.py, its reads: the coup postings' hot-path queries written in SQL read
exactly what their ORM forms did (compared here with the ORM)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from audit.snapshot import model_snapshot
from ledger.models import Transaction
from tables import models as m
from tables.money import banks
from tables.money import settlement as coup_money
from tables.money import settlement as hot_sql
from tables.money.floor import coup_punters
from tests.factories import PlayerFactory
from tests.ledger.builders import rig

pytestmark = pytest.mark.django_db


def test_the_coup_context_is_the_orm_coup_with_its_relations_in_one_query(django_assert_num_queries) -> None:
    r = rig("casino", players=2, chips=100)
    banker = r.players[0]
    coup = r.coup(banker, 50)
    with django_assert_num_queries(1):
        context = coup_money._coup_context(coup)
        table = context.shoe.table
        read = (
            context.pk,
            context.number,
            context.bank,
            context.bank_turn_id,
            context.banker.pk,
            context.banker.casino_id,
            str(context.banker),
            table.pk,
            table.name,
            table.profile_id,
            table.casino.pk,
            table.casino.name,
            table.casino.house_limit,
        )
    orm = m.Coup.objects.select_related("shoe__table__casino", "banker").get(pk=coup.pk)
    assert read == (
        orm.pk,
        orm.number,
        orm.bank,
        orm.bank_turn_id,
        banker.pk,
        r.casino.pk,
        banker.display_name,
        r.table.pk,
        r.table.name,
        r.table.profile_id,
        r.casino.pk,
        r.casino.name,
        r.casino.house_limit,
    )
    assert context.get_deferred_fields() >= {"rules_snapshot_id", "state", "created_at"}
    assert context.state == "settled"  # a field not read is loaded on access, as after only()


def test_the_coup_context_tells_whether_the_bank_is_still_in_play() -> None:
    r = rig("casino", players=2, chips=100)
    banker = r.players[0]
    first = r.coup(banker, 50)
    assert coup_money._bank_still_in_play(coup_money._coup_context(first))
    second = r.coup(banker, 50)  # a later coup of the same bank turn started
    assert not coup_money._bank_still_in_play(coup_money._coup_context(first))
    assert coup_money._bank_still_in_play(coup_money._coup_context(second))
    r.end_turn()
    context = coup_money._coup_context(second)
    assert (context.turn_ended, context.later_coup_started) == (True, False)
    assert not coup_money._bank_still_in_play(context)
    with pytest.raises(m.Coup.DoesNotExist):
        hot_sql.coup_context(second.pk + 1000)


def prior(key: str, coup_id: int) -> list[Transaction]:
    """The prior postings a settlement under ``key`` reads with its coup."""
    return hot_sql.coup_settle_reads(coup_id, key)[1]


def test_a_settlements_reads_are_one_statement_with_the_coup_in_its_context(
    django_assert_num_queries,
) -> None:
    r = rig("casino", players=2, chips=100)
    coup = r.coup(r.players[0], 50)
    banks.bank_fund(coup=coup, amount=50, actor=r.actor, key="b", borrowing=r.borrowing)
    alone = hot_sql.coup_context(coup.pk)
    with django_assert_num_queries(1):
        context, found = hot_sql.coup_settle_reads(coup.pk, "b")
    assert found == [Transaction.objects.get(idempotency_key="b")]
    assert (context.pk, context.number, context.bank, context.banker.pk, context.shoe.table.casino.pk) == (
        alone.pk,
        alone.number,
        alone.bank,
        alone.banker.pk,
        alone.shoe.table.casino.pk,
    )
    assert (context.turn_ended, context.later_coup_started) == (alone.turn_ended, alone.later_coup_started)
    # no prior posting: the coup alone (a row of NULLs for the postings, not a posting)
    assert hot_sql.coup_settle_reads(coup.pk, "nothing")[1] == []
    with pytest.raises(m.Coup.DoesNotExist):
        hot_sql.coup_settle_reads(coup.pk + 1000, "b")


def test_the_prior_read_finds_the_key_and_the_standing_settlements_only() -> None:
    r = rig("home", players=2, chips=100)
    banker, p1 = r.players
    coup = r.coup(banker, 20, state="awaiting_approval")
    banks.bank_fund(coup=coup, amount=20, actor=r.actor, key="b", borrowing=r.borrowing)
    assert prior("k", coup.pk) == []
    provisional = coup_money.coup_settle(
        coup=coup,
        settlement=r.settlement("banker", 20, [(p1, 5)]),
        punters=r.punters(),
        uncovered_to_reserve=r.profile.uncovered_to_reserve,
        house_limit=None,
        actor=r.actor,
        key="k",
        provisional=True,
        borrowing=r.borrowing,
    )
    assert prior("other", coup.pk) == [provisional]
    assert prior("b", coup.pk) == [  # the key, whatever its kind
        Transaction.objects.get(idempotency_key="b"),
        provisional,
    ]
    reversal = coup_money.coup_provisional_reverse(
        coup=coup, actor=r.actor, key="rejected", borrowing=r.borrowing
    )
    assert prior("other", coup.pk) == []  # reversed: no longer standing
    assert prior("rejected", coup.pk) == [reversal]


def test_the_punters_read_with_the_coup_are_the_orm_bets_punters(django_assert_num_queries) -> None:
    """A reveal's settlement reads its coup's punters with the coup (coup_settle_reads_punters, one
    statement): the map tables.money.floor.coup_punters makes of the ORM's bets, seated and
    standing, a withdrawn bet's too, each player with every field."""
    r = rig("casino", players=3, chips=100)
    banker, seated, other = r.players
    standing = PlayerFactory(casino=r.casino, display_name="Standing", membership_number="M-7")
    spectator = m.Spectator.objects.create(session=r.session, player=standing, joined_at=timezone.now())
    coup = r.coup(banker, 90, state="open")
    banks.bank_fund(coup=coup, amount=90, actor=r.actor, key="b", borrowing=r.borrowing)
    bets = [
        (r.seats[seated.pk], None, 30, False),
        (None, spectator, 20, False),
        (r.seats[other.pk], None, 10, True),
    ]
    for order, (seat, watcher, amount, withdrawn) in enumerate(bets, start=1):
        m.Bet.objects.create(
            coup=coup, seat=seat, spectator=watcher, amount=amount, betting_order=order, withdrawn=withdrawn
        )
    with django_assert_num_queries(1):
        context, found, punters = hot_sql.coup_settle_reads_punters(coup.pk, "b")
        read = {key: model_snapshot(player, with_m2m=False) for key, player in punters.items()}
    assert read == {key: model_snapshot(player) for key, player in coup_punters(coup).items()}
    assert read == {
        "seat-2": model_snapshot(seated),
        f"spectator-{spectator.pk}": model_snapshot(standing),
        "seat-3": model_snapshot(other),
    }
    funded = Transaction.objects.get(idempotency_key="b")
    assert (context.pk, context.banker.pk, found) == (coup.pk, banker.pk, [funded])
    # a coup nobody bet on: no punters (SQL's empty aggregate)
    assert hot_sql.coup_settle_reads_punters(r.coup(banker, 40, state="open").pk, "none")[1:] == ([], {})
    with pytest.raises(m.Coup.DoesNotExist):
        hot_sql.coup_settle_reads_punters(coup.pk + 1000, "b")

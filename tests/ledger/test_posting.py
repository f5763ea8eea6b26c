"""transaction_post: the one posting service every other builds on."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from audit.models import AuditEvent
from ledger import services as ledger
from ledger.models import Account, Entry, Transaction
from tests.ledger.builders import rig

pytestmark = pytest.mark.django_db


def accounts(slug: str = "home"):
    r = rig(slug, players=2, chips=50)
    a, b = r.players
    acc = {
        name: Account.objects.get(casino=r.casino, kind="player", player=p)
        for name, p in (("a", a), ("b", b))
    }
    return r, acc["a"], acc["b"]


def test_a_balanced_posting_moves_balances_and_is_audited() -> None:
    r, a, b = accounts()
    txn = ledger.transaction_post(
        casino=r.casino,
        kind="hourly_fee",
        entries=[(a, -20), (b, 20)],
        idempotency_key="k1",
        actor=r.actor,
        memo="m",
    )
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.balance, b.balance) == (30, 70)
    assert sorted(txn.entries.values_list("amount", flat=True)) == [-20, 20]
    event = AuditEvent.objects.get(action="ledger.transaction.hourly_fee")
    assert event.after is not None
    assert (event.object_id, event.after["memo"], event.after["balances_after"]) == (
        str(txn.pk),
        "m",
        {str(a.pk): 30, str(b.pk): 70},
    )


def test_entries_on_one_account_are_added_up_and_zeros_left_out() -> None:
    r, a, b = accounts()
    txn = ledger.transaction_post(
        casino=r.casino,
        kind="hourly_fee",
        entries=[(a, -5), (a, -5), (b, 10), (a, 0)],
        idempotency_key="k",
        actor=None,
    )
    assert sorted(Entry.objects.filter(transaction=txn).values_list("amount", flat=True)) == [-10, 10]
    empty = ledger.transaction_post(
        casino=r.casino, kind="hourly_fee", entries=[(a, 5), (a, -5)], idempotency_key="k0", actor=None
    )
    assert empty.entries.count() == 0


@pytest.mark.parametrize("entries", [[(0, -5), (1, 4)], [(0, 2.5), (1, -2.5)], [(0, True), (1, -1)]])
def test_unbalanced_or_fractional_postings_are_refused(entries) -> None:
    r, a, b = accounts()
    pairs = [((a, b)[i], amount) for i, amount in entries]
    with pytest.raises(ledger.UnbalancedTransaction):
        ledger.transaction_post(
            casino=r.casino, kind="hourly_fee", entries=pairs, idempotency_key="x", actor=None
        )
    assert not Transaction.objects.filter(idempotency_key="x").exists()


def test_same_key_posts_once_and_other_entries_under_it_are_a_conflict() -> None:
    r, a, b = accounts()
    first = ledger.transaction_post(
        casino=r.casino, kind="hourly_fee", entries=[(a, -1), (b, 1)], idempotency_key="same", actor=None
    )
    events = AuditEvent.objects.count()
    again = ledger.transaction_post(
        casino=r.casino, kind="hourly_fee", entries=[(b, 1), (a, -1)], idempotency_key="same", actor=None
    )
    assert again == first and AuditEvent.objects.count() == events
    a.refresh_from_db()
    assert a.balance == 49
    with pytest.raises(ledger.IdempotencyConflict):
        ledger.transaction_post(
            casino=r.casino, kind="hourly_fee", entries=[(a, -2), (b, 2)], idempotency_key="same", actor=None
        )
    with pytest.raises(ledger.IdempotencyConflict):
        ledger.transaction_post(
            casino=r.casino, kind="card_money", entries=[(a, -1), (b, 1)], idempotency_key="same", actor=None
        )


def test_a_balance_may_not_go_negative_without_overdraft() -> None:
    r, a, b = accounts("home")
    assert not a.overdraft_allowed
    with pytest.raises(ledger.InsufficientChips, match="holds 50 chips and cannot pay 51"):
        ledger.transaction_post(
            casino=r.casino, kind="hourly_fee", entries=[(a, -51), (b, 51)], idempotency_key="x", actor=None
        )
    r2, c, d = accounts("casino")
    assert c.overdraft_allowed
    ledger.transaction_post(
        casino=r2.casino, kind="hourly_fee", entries=[(c, -80), (d, 80)], idempotency_key="y", actor=None
    )
    c.refresh_from_db()
    assert c.balance == -30


def test_the_database_refuses_a_negative_balance_the_service_would_not_catch() -> None:
    _, a, _ = accounts("home")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=a.pk).update(balance=-1)


def test_accounts_of_another_casino_are_refused() -> None:
    r, a, _ = accounts()
    _, c, _ = accounts()
    with pytest.raises(ledger.UnbalancedTransaction, match="another casino"):
        ledger.transaction_post(
            casino=r.casino, kind="hourly_fee", entries=[(a, -1), (c, 1)], idempotency_key="x", actor=None
        )


def test_one_account_per_owner_and_kind() -> None:
    r, a, _ = accounts()
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(
            casino=r.casino, kind="player", player=a.player, name="dup", opened_at=a.opened_at
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(casino=r.casino, kind="cage", name="cage 2", opened_at=a.opened_at)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(casino=r.casino, kind="bank", player=a.player, name="x", opened_at=a.opened_at)


def test_cage_buy_in_and_cash_out() -> None:
    r, a, _ = accounts("home")
    with pytest.raises(ledger.InsufficientChips, match="has only 50 chips; a cash-out of 60 is refused"):
        ledger.cage_cash_out(casino=r.casino, player=a.player, amount=60, actor=None, key="c1")
    ledger.cage_cash_out(casino=r.casino, player=a.player, amount=50, actor=None, key="c2")
    ledger.cage_cash_out(casino=r.casino, player=a.player, amount=50, actor=None, key="c2")  # replay
    a.refresh_from_db()
    cage = Account.objects.get(casino=r.casino, kind="cage")
    assert (a.balance, cage.balance) == (0, -50)
    with pytest.raises(ValidationError, match="positive whole number"):
        ledger.cage_buy_in(casino=r.casino, player=a.player, amount=0, actor=None, key="b0")


def test_account_names_and_overdraft_flag() -> None:
    r = rig("casino", players=1, chips=10)
    (p,) = r.players
    names = dict(Account.objects.filter(casino=r.casino).values_list("kind", "name"))
    assert names == {"cage": f"cage: {r.casino.name}", "player": f"player: P1 (#{p.pk})"}
    assert connection.vendor in ("postgresql", "sqlite")

"""transaction_post: the one posting service every other builds on."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from audit.models import AuditEvent
from ledger import services as ledger
from ledger import sql as hot_sql
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


def test_a_player_account_goes_below_zero_only_where_the_posting_allows_it() -> None:
    """Issue 9 §2 (docs/ledger.md, Markers): the account carries no overdraft flag; the poster says,
    per posting, whether a player may owe the house (the game decides from the coup's rules)."""
    r, a, b = accounts("casino")  # a casino whose table lets players borrow: no matter, per posting
    with pytest.raises(ledger.InsufficientChips, match="holds 50 chips and cannot pay 51"):
        ledger.transaction_post(
            casino=r.casino, kind="hourly_fee", entries=[(a, -51), (b, 51)], idempotency_key="x", actor=None
        )
    a.refresh_from_db()
    assert (a.balance, Transaction.objects.filter(idempotency_key="x").exists()) == (50, False)
    txn = ledger.transaction_post(
        casino=r.casino,
        kind="hourly_fee",
        entries=[(a, -80), (b, 80)],
        idempotency_key="y",
        actor=None,
        allow_overdraft=True,
    )
    a.refresh_from_db()
    assert a.balance == -30
    event = AuditEvent.objects.get(action="ledger.transaction.hourly_fee", object_id=str(txn.pk))
    assert event.after is not None
    assert event.after["markers"] == {str(a.pk): 30}


def test_an_overdraft_is_for_player_accounts_only() -> None:
    r, a, _ = accounts("casino")
    levy = Account.objects.create(casino=r.casino, kind="levy", name="levy", opened_at=a.opened_at)
    with pytest.raises(ledger.InsufficientChips, match="holds 0 chips and cannot pay 5"):
        ledger.transaction_post(
            casino=r.casino,
            kind="hourly_fee",
            entries=[(levy, -5), (a, 5)],
            idempotency_key="z",
            actor=None,
            allow_overdraft=True,
        )
    levy.refresh_from_db()
    assert levy.balance == 0


def test_a_debit_is_checked_before_posting_in_the_callers_words() -> None:
    """account_debit_check: what an account holds covers the debit, or the account may go below
    zero (a player where the posting allows it, the cage always); else the caller's refusal."""
    r, a, _ = accounts()
    ledger.account_debit_check(a, 50, allow_overdraft=False, refusal="never said")
    ledger.account_debit_check(a, 51, allow_overdraft=True, refusal="never said")
    with pytest.raises(ledger.InsufficientChips) as refused:
        ledger.account_debit_check(a, 51, allow_overdraft=False, refusal="Anna has only 50 chips.")
    assert refused.value.messages == ["Anna has only 50 chips."]
    cage = Account.objects.get(casino=r.casino, kind="cage")
    ledger.account_debit_check(cage, cage.balance + 5, allow_overdraft=False, refusal="never said")
    levy = Account.objects.create(casino=r.casino, kind="levy", name="levy", opened_at=a.opened_at)
    with pytest.raises(ledger.InsufficientChips, match="the levy holds nothing"):
        ledger.account_debit_check(levy, 5, allow_overdraft=True, refusal="the levy holds nothing")


def _entries_forged(r, entries: list[tuple[Account, int]]) -> None:
    """Entries written past the services (the checks at COMMIT never run: the test rolls back)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_transaction (casino_id, kind, memo, idempotency_key) "
            "VALUES (%s, 'hourly_fee', '', %s) RETURNING id",
            [r.casino.pk, f"forged:{entries[0][0].pk}:{entries[0][1]}"],
        )
        (txn_id,) = cursor.fetchone()
    hot_sql.entries_post([(txn_id, account.pk, amount) for account, amount in entries])


def test_the_database_refuses_a_negative_balance_the_service_would_not_catch() -> None:
    r, a, _ = accounts("home")
    for kind in ("reserve", "bank", "levy", "fee", "card_money"):
        owner = {"player": a.player} if kind == "reserve" else {}
        if kind == "bank":
            owner = {"table": r.table}
        account = Account.objects.create(
            casino=r.casino, kind=kind, name=kind, opened_at=a.opened_at, **owner
        )
        with pytest.raises(IntegrityError), transaction.atomic():
            _entries_forged(r, [(account, -1), (a, 1)])
        account.refresh_from_db()
        assert account.balance == 0
    # a player's account may hold a marker (below zero): the services decide when, per posting
    before = a.balance
    _entries_forged(r, [(a, -(before + 1)), (Account.objects.get(casino=r.casino, kind="cage"), before + 1)])
    a.refresh_from_db()
    assert a.balance == -1


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


def test_account_names() -> None:
    r = rig("casino", players=1, chips=10)
    (p,) = r.players
    names = dict(Account.objects.filter(casino=r.casino).values_list("kind", "name"))
    assert names == {"cage": f"cage: {r.casino.name}", "player": f"player: P1 (#{p.pk})"}
    assert connection.vendor in ("postgresql", "sqlite")

"""The cage's services: exact double-entry balances, one posting per key, audited in the same
transaction, and every refusal writes nothing."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import override_settings

from audit.models import AuditEvent
from audit.selectors import audit_chains_verify
from cage import selectors, services
from ledger.models import Account, Transaction
from ledger.selectors import account_balance, chips_by_player, ledger_drift, trial_balance
from ledger.services import IdempotencyConflict, InsufficientChips

from .conftest import counts, key, new_player, owes

pytestmark = pytest.mark.django_db


def chips(casino, player) -> int:
    return account_balance(casino=casino, kind=Account.Kind.PLAYER, player=player)


def cage(casino) -> int:
    return account_balance(casino=casino, kind=Account.Kind.CAGE)


def test_a_buy_in_and_a_cash_out_move_exactly_the_chips(cashier, casino, dupont) -> None:
    first = services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=500, key=key())
    assert (first.balance, first.replayed, first.kind) == (500, False, Transaction.Kind.BUY_IN)
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=300, key=key())
    out = services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=650, key=key())
    assert out.balance == 150 == chips(casino, dupont)
    assert cage(casino) == -150  # the counterpart of the chips still in circulation
    assert dict(out.transaction.entries.values_list("account__kind", "amount")) == {
        "player": -650,
        "cage": 650,
    }
    assert out.transaction.actor == cashier
    assert trial_balance(casino=casino).balanced and ledger_drift(casino=casino) == []


def test_every_posting_is_audited_with_its_actor_in_the_same_transaction(cashier, casino, dupont) -> None:
    receipt = services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=500, key=key())
    event = AuditEvent.objects.get(action="ledger.transaction.buy_in")
    assert (event.actor, event.object_id) == (cashier, str(receipt.transaction.pk))
    assert event.after is not None
    assert {e["amount"] for e in event.after["entries"]} == {500, -500}
    services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=200, key=key())
    assert AuditEvent.objects.filter(action="ledger.transaction.cash_out", actor=cashier).count() == 1
    assert all(report.ok for report in audit_chains_verify())  # every chain


def test_the_same_key_posts_once(cashier, casino, dupont) -> None:
    once = key()
    first = services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=500, key=once)
    before = counts()
    again = services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=500, key=once)
    assert (again.transaction.pk, again.replayed, again.balance) == (first.transaction.pk, True, 500)
    assert counts() == before  # nothing written, not even an audit event
    # a cash-out under the same form key is another posting (the kind is in the ledger key)
    out = services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=100, key=once)
    assert (out.replayed, out.balance) == (False, 400)


def test_two_cashiers_may_use_the_same_key(cashier, superuser, casino, dupont) -> None:
    same = key()
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=100, key=same)
    receipt = services.cage_buy_in(actor=superuser, casino=casino, player=dupont, amount=100, key=same)
    assert (receipt.replayed, receipt.balance) == (False, 200)


@pytest.mark.parametrize("change", ["amount", "player"])
def test_a_key_reused_for_another_posting_is_refused(cashier, casino, dupont, change) -> None:
    once = key()
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=500, key=once)
    other = new_player(casino=casino) if change == "player" else dupont
    amount = 600 if change == "amount" else 500
    before = counts()
    with pytest.raises(IdempotencyConflict, match="already used"):
        services.cage_buy_in(actor=cashier, casino=casino, player=other, amount=amount, key=once)
    assert counts() == before


@pytest.mark.parametrize("amount", [0, -5, 10_000_001, 10**30, "100", 1.5, True, None])
@pytest.mark.parametrize("post", [services.cage_buy_in, services.cage_cash_out])
def test_amounts_that_are_not_sane_whole_chips_are_refused(cashier, casino, dupont, amount, post) -> None:
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=1000, key=key())
    before = counts()
    with pytest.raises(ValidationError) as refused:
        post(actor=cashier, casino=casino, player=dupont, amount=amount, key=key())
    assert "amount" in refused.value.message_dict
    assert counts() == before and chips(casino, dupont) == 1000


@override_settings(CAGE_MAX_AMOUNT=50)
def test_the_largest_amount_is_a_setting(cashier, casino, dupont) -> None:
    assert (
        services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=50, key=key()).balance == 50
    )
    with pytest.raises(ValidationError, match="at most 50 chips"):
        services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=51, key=key())


def test_a_cash_out_above_the_balance_is_refused(cashier, casino, dupont) -> None:
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=300, key=key())
    before = counts()
    with pytest.raises(InsufficientChips, match="has only 300 chips"):
        services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=301, key=key())
    assert counts() == before and chips(casino, dupont) == 300


def test_the_check_before_the_confirmation_refuses_what_the_posting_would(
    cashier, casino, dupont, stranger, croupier
) -> None:
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=300, key=key())
    before = counts()
    check = services.cage_move_check
    with pytest.raises(InsufficientChips) as refused:
        check(actor=cashier, casino=casino, player=dupont, kind=services.CASH_OUT, amount=301)
    assert refused.value.messages == ["M. Dupont has only 300 chips; a cash-out of 301 is refused."]
    # allowed: the answer is compliance's plan, today's totals before the move (cash in 300 so far)
    out = check(actor=cashier, casino=casino, player=dupont, kind=services.CASH_OUT, amount=300)
    assert (out.day_total_before, out.duties.day_total_after, out.duties.identification) == (0, 300, False)
    more = check(actor=cashier, casino=casino, player=dupont, kind=services.BUY_IN, amount=9_700)
    assert (more.day_total_before, more.duties.day_total_after) == (300, 10_000)
    assert more.duties.identification is False
    with pytest.raises(ValidationError, match="is not a player of"):
        check(actor=cashier, casino=casino, player=stranger, kind=services.BUY_IN, amount=1)
    with pytest.raises(PermissionDenied):
        check(actor=croupier, casino=casino, player=dupont, kind=services.CASH_OUT, amount=1)
    assert counts() == before and chips(casino, dupont) == 300  # a check writes nothing


def test_a_cash_out_before_any_chips_opens_no_account(cashier, casino, dupont) -> None:
    before = counts()
    with pytest.raises(InsufficientChips, match="has only 0 chips"):
        services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=1, key=key())
    assert counts() == before


def test_a_player_who_owes_a_marker_cashes_nothing_out(cashier, casino, dupont) -> None:
    owes(casino, dupont, 250)
    assert selectors.player_chips(player=dupont).marker == 250
    before = counts()
    with pytest.raises(InsufficientChips):
        services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=10, key=key())
    assert counts() == before
    # buying in pays the marker back first: the balance is what the ledger holds
    assert (
        services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=400, key=key()).balance
        == 150
    )


def test_another_casinos_player_is_refused(cashier, casino, stranger) -> None:
    before = counts()
    for post in (services.cage_buy_in, services.cage_cash_out):
        with pytest.raises(ValidationError, match="is not a player of"):
            post(actor=cashier, casino=casino, player=stranger, amount=100, key=key())
    assert counts() == before


@pytest.mark.parametrize("bad", ["", " ", "x" * 65, "caf\u00e9"])
def test_a_missing_or_malformed_key_is_refused(cashier, casino, dupont, bad) -> None:
    before = counts()
    with pytest.raises(ValidationError):
        services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=100, key=bad)
    assert counts() == before


@pytest.mark.parametrize("persona", ["croupier", "pit_boss", "accountant", "outsider"])
def test_only_the_cage_posts(request, casino, dupont, persona) -> None:
    actor = request.getfixturevalue(persona)
    before = counts()
    for post in (services.cage_buy_in, services.cage_cash_out):
        with pytest.raises(PermissionDenied):
            post(actor=actor, casino=casino, player=dupont, amount=100, key=key())
    with pytest.raises(PermissionDenied):
        services.cage_player_register(actor=actor, casino=casino, display_name="Nobody")
    assert counts() == before


def test_a_superuser_may_post(superuser, casino, dupont) -> None:
    assert (
        services.cage_buy_in(actor=superuser, casino=casino, player=dupont, amount=7, key=key()).balance == 7
    )


def test_the_cage_registers_players_audited(cashier, casino) -> None:
    player = services.cage_player_register(
        actor=cashier, casino=casino, display_name="  Mme Leroy ", membership_number="M-2"
    )
    assert (player.display_name, player.casino) == ("Mme Leroy", casino)
    assert AuditEvent.objects.filter(action="tables.player.create", actor=cashier).count() == 1
    before = counts()
    with pytest.raises(ValidationError):  # the membership number is taken in this casino
        services.cage_player_register(
            actor=cashier, casino=casino, display_name="Other", membership_number="M-2"
        )
    assert counts() == before


# ------------------------------------------------------------------------------------- selectors
def test_player_balances_reads_many_players_in_one_query(
    cashier, casino, dupont, django_assert_num_queries
) -> None:
    other, never = new_player(casino=casino), new_player(casino=casino)
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=500, key=key())
    services.cage_buy_in(actor=cashier, casino=casino, player=other, amount=20, key=key())
    owes(casino, other, 70)
    with django_assert_num_queries(1):
        balances = chips_by_player(players=[dupont, other, never])
    assert balances == {dupont.pk: 500, other.pk: -50, never.pk: 0}
    with django_assert_num_queries(0):
        assert chips_by_player(players=[]) == {}


def test_player_chips_marker_and_the_history_with_its_running_balance(cashier, casino, dupont) -> None:
    for amount in (500, 200):
        services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=amount, key=key())
    services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=650, key=key())
    owes(casino, dupont, 80)
    chips_ = selectors.player_chips(player=dupont)
    assert (chips_.balance, chips_.chips, chips_.marker) == (-30, 0, 30)
    history = selectors.player_history(player=dupont)
    rows = [(e.transaction.kind, e.amount, e.balance_after) for e in history]
    assert rows == [
        ("hourly_fee", -80, -30),
        ("cash_out", -650, 50),
        ("buy_in", 200, 700),
        ("buy_in", 500, 500),
    ]
    # a page of the history still carries the balance over the whole account
    assert [e.balance_after for e in history[1:3]] == [50, 700]


def test_cage_players_search_by_name_or_membership_number(casino, dupont, stranger) -> None:
    new_player(casino=casino, display_name="Comte Orlov", membership_number="M-1003")
    assert [p.display_name for p in selectors.cage_players(casino=casino)] == ["Comte Orlov", "M. Dupont"]
    assert list(selectors.cage_players(casino=casino, search="dupo")) == [dupont]
    assert [p.display_name for p in selectors.cage_players(casino=casino, search="m-1003")] == ["Comte Orlov"]
    assert list(selectors.cage_players(casino=casino, search="Elsewhere")) == []

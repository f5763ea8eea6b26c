"""Issue 10, item 2: ``verify_books`` detects and names what a database superuser can change behind
the application's back. Each attack runs with the triggers bypassed
(``session_replication_role = replica``, a superuser's power), so the test does not depend on the
append-only triggers the hardening adds: even past them, the books say what was changed."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from audit.models import AuditEvent
from ledger.models import Account, Entry, Transaction
from tables.engine_bridge import coup_record_id
from tables.models import BankTax, Coup
from tables.money.books import books_verify
from tests.audit.rows import books_line, bound_by, row_changed, row_unbound
from tests.review.history import History

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def as_superuser(sql: str, params: list | None = None) -> None:
    """Run ``sql`` with every trigger off, as a superuser may (after the checks the history's own
    postings deferred to COMMIT have run: the test's transaction never commits)."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("SET session_replication_role = replica")
        try:
            cursor.execute(sql, params)
        finally:
            cursor.execute("SET session_replication_role = DEFAULT")


def differences() -> list[str]:
    report = books_verify()
    assert (report.coups, report.transactions, report.accounts) == (3, 12, 8)
    return [str(d) for d in report.differences]


def subject(coup: Coup) -> str:
    return f"coup {coup.pk} ({coup_record_id(coup)})"


def account(coup: Coup, seat: int) -> Account:
    return Account.objects.get(kind="player", player=coup.shoe.session.seats.get(number=seat).player)


def test_the_books_are_clean_before_any_attack(history: History) -> None:
    assert differences() == []


def test_a_levy_zeroed_is_named(history: History) -> None:
    """The engine's levy and the row's own audit event both disagree with the zeroed rows."""
    taxes = sorted(BankTax.objects.values_list("pk", flat=True))
    as_superuser("UPDATE tables_banktax SET amount = 0")
    assert differences() == [
        f"{subject(history.clean)} [levy]: engine levy 10 on covered 200; BankTax 0 on covered 200",
        f"{subject(history.flagged)} [levy]: engine levy 20 on covered 400; BankTax 0 on covered 400",
        *(books_line(row_changed("tables_banktax", pk, "amount")) for pk in taxes),
    ]
    out = io.StringIO()
    with pytest.raises(CommandError) as info:
        call_command("verify_books", stdout=out)
    assert info.value.returncode == 1
    printed = out.getvalue().splitlines()
    assert printed[:4] == [f"DIFFERENCE {d}" for d in differences()]
    assert printed[4:7] == ["coups checked: 3", "transactions checked: 12", "accounts checked: 8"]


def test_two_entries_and_two_balances_changed_together_are_named(history: History) -> None:
    """A coup's settlement rewritten consistently (it still sums to zero, the balances still match
    their entries): seat 2 is charged 100 instead of 120, seat 3 70 instead of 50."""
    coup = history.clean
    txn = Transaction.objects.get(coup=coup, kind="coup_settlement")
    seat2 = account(coup, 2)
    seat3 = account(coup, 3)
    before = dict(Entry.objects.filter(transaction=txn).values_list("account_id", "amount"))
    assert before[seat2.pk] == -120
    as_superuser(
        "UPDATE ledger_entry SET amount = amount + 20 WHERE transaction_id = %s AND account_id = %s",
        [txn.pk, seat2.pk],
    )
    as_superuser(
        "UPDATE ledger_entry SET amount = amount - 20 WHERE transaction_id = %s AND account_id = %s",
        [txn.pk, seat3.pk],
    )
    as_superuser("UPDATE ledger_account SET balance = balance + 20 WHERE id = %s", [seat2.pk])
    as_superuser("UPDATE ledger_account SET balance = balance - 20 WHERE id = %s", [seat3.pk])
    names = dict(Account.objects.values_list("id", "name"))

    def listed(entries: dict[int, int]) -> str:
        return ", ".join(f"{names[pk]} {a:+d}" for pk, a in sorted(entries.items()))

    after = {**before, seat2.pk: -100, seat3.pk: -70}
    gaps = [f"{seat2.name}: engine -120, ledger -100", f"{seat3.name}: engine -50, ledger -70"]
    edited = sorted(
        Entry.objects.filter(transaction=txn, account__in=[seat2, seat3]).values_list("pk", flat=True)
    )
    assert differences() == [
        f"transaction {txn.pk} (coup_settlement {txn.idempotency_key}) [audit]: "
        f"audit entries [{listed(before)}], ledger entries [{listed(after)}] (event seq "
        f"{audit_seq(txn)})",
        f"{subject(coup)} [settlement]: final settlement (coup as played) #{txn.pk}: {'; '.join(gaps)}",
        *(books_line(row_changed("ledger_entry", pk, "amount")) for pk in edited),
    ]


def audit_seq(txn: Transaction) -> int:
    return AuditEvent.objects.get(object_type="ledger.transaction", object_id=str(txn.pk)).seq


def test_a_buy_in_rewritten_with_its_balances_is_named_by_its_audit_event(history: History) -> None:
    """No coup names a buy-in: only its audit event says what it was."""
    txn = Transaction.objects.filter(kind="buy_in").order_by("pk").first()
    assert txn is not None
    seq = audit_seq(txn)
    entries = dict(Entry.objects.filter(transaction=txn).values_list("account_id", "amount"))
    as_superuser("UPDATE ledger_entry SET amount = amount * 2 WHERE transaction_id = %s", [txn.pk])
    for pk, amount in entries.items():
        as_superuser("UPDATE ledger_account SET balance = balance + %s WHERE id = %s", [amount, pk])
    names = dict(Account.objects.values_list("id", "name"))
    was = ", ".join(f"{names[pk]} {a:+d}" for pk, a in sorted(entries.items()))
    now = ", ".join(f"{names[pk]} {2 * a:+d}" for pk, a in sorted(entries.items()))
    rows = sorted(Entry.objects.filter(transaction=txn).values_list("pk", flat=True))
    assert differences() == [
        f"transaction {txn.pk} (buy_in {txn.idempotency_key}) [audit]: "
        f"audit entries [{was}], ledger entries [{now}] (event seq {seq})",
        *(books_line(row_changed("ledger_entry", pk, "amount")) for pk in rows),
    ]


def test_a_posting_whose_audit_event_is_gone_is_named(history: History) -> None:
    """The posting is no longer recorded, and its rows no longer bound."""
    txn = Transaction.objects.get(coup=history.natural, kind="coup_settlement")
    assert bound_by("ledger_transaction", txn.pk).object_id == str(txn.pk)
    as_superuser(
        "DELETE FROM audit_auditevent WHERE object_type = 'ledger.transaction' AND object_id = %s",
        [str(txn.pk)],
    )
    entries = dict(Entry.objects.filter(transaction=txn).values_list("account_id", "amount"))
    listed = ", ".join(f"account {pk} {a:+d}" for pk, a in sorted(entries.items()))
    rows = sorted(Entry.objects.filter(transaction=txn).values_list("pk", flat=True))
    assert differences() == [
        f"transaction {txn.pk} (coup_settlement {txn.idempotency_key}) [audit]: "
        f"no audit event records this posting (entries: {listed})",
        *(books_line(row_unbound("ledger_entry", pk)) for pk in rows),
        books_line(row_unbound("ledger_transaction", txn.pk)),
    ]


def test_a_balance_that_is_not_the_sum_of_its_entries_is_named(history: History) -> None:
    seat3 = account(history.clean, 3)
    as_superuser("UPDATE ledger_account SET balance = balance + 5 WHERE id = %s", [seat3.pk])
    total = sum(Entry.objects.filter(account=seat3).values_list("amount", flat=True))
    assert differences() == [
        f"account {seat3.pk} {seat3.name} [balance]: "
        f"balance {total + 5} but its entries sum to {total} (off by +5)"
    ]


def test_a_settlement_erased_with_its_audit_event_and_balances_is_named(history: History) -> None:
    """Entries, transaction, audit event gone and the balances put back: the ledger and the trail
    agree with each other, but not with the coup's recorded steps."""
    assert history.natural is not None
    txn = Transaction.objects.get(coup=history.natural, kind="coup_settlement")
    for pk, amount in Entry.objects.filter(transaction=txn).values_list("account_id", "amount"):
        as_superuser("UPDATE ledger_account SET balance = balance - %s WHERE id = %s", [amount, pk])
    as_superuser("DELETE FROM ledger_entry WHERE transaction_id = %s", [txn.pk])
    as_superuser("DELETE FROM ledger_transaction WHERE id = %s", [txn.pk])
    as_superuser(
        "DELETE FROM audit_auditevent WHERE object_type = 'ledger.transaction' AND object_id = %s",
        [str(txn.pk)],
    )
    report = books_verify()
    assert (report.coups, report.transactions) == (3, 11)
    assert [str(d) for d in report.differences] == [
        f"{subject(history.natural)} [settlement]: "
        "the coup is settled but the ledger has no settlement for it"
    ]

"""verify_books, the game's half (tables/money/books.py): every coup re-derived by the rules engine
against the ledger's postings and its levy, on histories played through the real services: clean
coups, a correction approved, rejected, voided, the house bank, club card money, hourly fees.
Tampering with rows the database protects: tests/security/test_books_tamper.py."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from ledger.books import BooksReport, Difference
from ledger.models import Account, BooksVerification, Transaction
from ledger.services.books import books_verification_start
from tables import services
from tables.models import BankTax, Coup, FeeHour
from tables.money.books import books_verify
from tables.tasks import bill_due_hourly_fees, books_verify_task
from tests.review.history import History, play_flagged
from tests.tables.money.test_fees import _session
from tests.tables.play import open_floor, play
from tests.tables.test_house_bank import house_floor, house_loses, house_wins

pytestmark = pytest.mark.django_db


def counts(report: BooksReport) -> tuple[int, int, int, list[str]]:
    return report.coups, report.transactions, report.accounts, [str(d) for d in report.differences]


def test_a_clean_history_verifies_with_exact_counts(history: History) -> None:
    """Three settled coups (one restored and approved): 4 buy-ins, 3 bank declarations, 3 final
    settlements, a provisional and its reversal = 12 postings; 4 players, bank, reserve, levy,
    cage = 8 accounts."""
    assert counts(books_verify()) == (3, 12, 8, [])


def test_the_command_says_ok_and_exits_0(history: History) -> None:
    out = io.StringIO()
    call_command("verify_books", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["coups checked: 3", "transactions checked: 12", "accounts checked: 8"]
    assert lines[-1] == "books OK"


def test_a_correction_awaiting_rejected_resubmitted_and_voided_verifies(
    awaiting: History, croupier, pit_boss
) -> None:
    coup = awaiting.flagged
    assert counts(books_verify())[3] == []  # the provisional settlement stands alone
    services.correction_reject(actor=pit_boss, coup=coup, reason="recount")
    assert counts(books_verify())[3] == []  # reversed
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    report = books_verify()
    assert (report.coups, report.differences) == (2, [])  # a second provisional, standing
    services.coup_void(actor=pit_boss, coup=coup, reason="the pit boss voids it")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID
    kinds = list(Transaction.objects.filter(coup=coup).order_by("pk").values_list("kind", flat=True))
    assert kinds == ["bank_fund", "coup_provisional", "coup_reversal", "coup_provisional", "coup_reversal"]
    assert counts(books_verify())[3] == []


def test_house_bank_coups_verify(croupier, table) -> None:
    floor = house_floor(croupier, table)
    house_wins(floor, 100)
    house_loses(floor, 200)
    assert counts(books_verify())[::3] == (2, [])


def test_club_card_money_and_spectators_verify(croupier, club_table) -> None:
    club_table.casino.card_money_amount = 10
    club_table.casino.save()
    floor = open_floor(croupier, club_table, spectators=1)
    assert Transaction.objects.filter(kind="card_money").count() == 4  # one per seated player
    play(
        floor,
        bank=200,
        bets=[(2, 120), (3, 50)],
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )
    report = books_verify()
    assert (report.coups, report.differences) == (1, [])


def test_hourly_fees_verify() -> None:
    _session(hourly_fee_amount=60, hourly_fee_basis="per_player_hour")
    assert bill_due_hourly_fees() == 3
    assert FeeHour.objects.count() == 3
    report = books_verify()
    assert (report.transactions, report.differences) == (3 + 7, [])  # 3 buy-ins, 7 fees


def test_a_fee_posting_without_its_session_link_is_named(croupier, table) -> None:
    """A fee posted straight through the ledger, as before tables.FeePosting: the reports could not
    place it, so the books say so."""
    from ledger import services as ledger_services
    from ledger.selectors import clock_hour_floor

    floor = open_floor(croupier, table, seats=(1,))
    player, casino = floor.players[1], table.casino
    hour = clock_hour_floor(floor.session.opened_at)
    specs = [ledger_services.account_spec("fee"), ledger_services.account_spec("player", player)]
    accounts = ledger_services.accounts_lock(
        casino=casino, specs=specs, actor=None, players={player.pk: player}
    )
    key = f"hourly_fee:session:{floor.session.pk}:player:{player.pk}:{hour:%Y-%m-%dT%H:%M:%SZ}"
    fee, wallet = (accounts[spec].pk for spec in specs)
    txn = ledger_services.postings_write(
        casino=casino,
        actor=None,
        postings=[ledger_services.Posting("hourly_fee", key, {wallet: -30, fee: 30})],
        accounts=ledger_services.accounts_by_pk(accounts),
    )[0]
    report = books_verify()
    assert [str(d) for d in report.differences] == [
        str(Difference(f"transaction {txn.pk} ({key})", "fee", "no FeePosting ties it to its session"))
    ]


def test_a_levy_the_engine_does_not_know_is_named(awaiting: History) -> None:
    """A BankTax on the coup awaiting approval (its levy is due only once approved), written
    behind the services' back: the engine knows no such levy, and no audit event binds the row."""
    tax = BankTax.objects.create(coup=awaiting.flagged, basis=400, amount=20)
    coup = awaiting.flagged
    report = books_verify()
    assert report.differences == [
        Difference(
            f"coup {coup.pk} (T{coup.shoe.table_id}-session{coup.shoe.session_id}-shoe{coup.shoe.number}"
            f"-coup{coup.number})",
            "levy",
            "engine no levy; BankTax 20 on covered 400",
        ),
        Difference(
            f"tables_banktax row {tax.pk}",
            "audit row",
            "no audit event binds this row (written outside the application)",
        ),
    ]
    out = io.StringIO()
    with pytest.raises(CommandError) as info:
        call_command("verify_books", stdout=out)
    assert info.value.returncode == 1
    assert str(info.value) == "books DIFFER: 2 difference(s)"
    assert out.getvalue().splitlines()[:2] == [f"DIFFERENCE {d}" for d in report.differences]


def test_a_flagged_coup_awaiting_correction_has_nothing_to_verify(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)
    assert coup.state == Coup.State.AWAITING_CORRECTION
    assert counts(books_verify())[::3] == (1, [])


# ------------------------------------------------------------------------------ the nightly run
def test_the_nightly_task_stores_the_result(history: History) -> None:
    result = books_verify_task.delay().get()  # eager in tests: runs here, now
    run = BooksVerification.objects.get()
    assert result == {
        "skipped": False,
        "ok": True,
        "coups": 3,
        "transactions": 12,
        "accounts": 8,
        "differences": 0,
        "verification": run.pk,
    }
    assert (run.status, run.coups_checked, run.transactions_checked, run.accounts_checked) == ("ok", 3, 12, 8)
    assert (run.requested_by, run.difference_count, run.differences) == (None, 0, [])
    # the newest two events (by id: given at the append), whatever their chains
    assert list(AuditEvent.objects.order_by("-id").values_list("action", flat=True)[:2]) == [
        "ledger.booksverification.finish",
        "ledger.booksverification.start",
    ]
    assert settings.CELERY_BEAT_SCHEDULE["books-verify"] == {"task": "books.verify", "schedule": 24 * 60 * 60}


def test_the_task_stores_the_differences(awaiting: History) -> None:
    BankTax.objects.create(coup=awaiting.flagged, basis=400, amount=20)
    books_verify_task.delay()
    run = BooksVerification.objects.get()
    assert (run.status, run.difference_count) == ("differences", 2)
    assert [d["check"] for d in run.differences] == ["levy", "audit row"]
    assert run.differences[0]["detail"] == "engine no levy; BankTax 20 on covered 400"
    assert run.differences[1]["detail"] == "no audit event binds this row (written outside the application)"


def test_a_run_under_way_is_not_started_twice(history: History) -> None:
    running = books_verification_start()
    assert running is not None
    assert books_verify_task.delay().get() == {"skipped": True}
    assert books_verification_start() is None
    assert BooksVerification.objects.get() == running
    with pytest.raises(CommandError, match="already running"):
        call_command("verify_books", "--record", stdout=io.StringIO())


def test_a_run_whose_worker_died_is_abandoned_by_the_next(history: History) -> None:
    stale = books_verification_start(now=timezone.now() - dt.timedelta(hours=7))
    assert stale is not None
    out = io.StringIO()
    call_command("verify_books", "--record", stdout=out)
    stale.refresh_from_db()
    assert stale.status == "abandoned" and stale.finished_at is not None
    fresh = BooksVerification.objects.exclude(pk=stale.pk).get()
    assert (fresh.status, fresh.coups_checked) == ("ok", 3)


def test_markers_verify(croupier, table) -> None:
    """Players who bought no chips play on credit (the casino profile lets them borrow): their
    player accounts go below zero (markers) and the books still verify."""
    floor = open_floor(croupier, table, chips=0)
    play(
        floor,
        bank=200,
        bets=[(2, 120), (3, 50), (4, 30)],
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )
    markers = Account.objects.filter(kind="player", balance__lt=0).order_by("balance")
    assert list(markers.values_list("balance", flat=True)) == [-200, -120, -50, -30]
    assert counts(books_verify())[::3] == (1, [])


def test_the_admin_lists_the_runs_read_only(admin_client, history: History) -> None:
    books_verify_task.delay()
    response = admin_client.get(reverse("admin:ledger_booksverification_changelist"), {"q": "x"})
    assert response.status_code == 200
    run = BooksVerification.objects.get()
    response = admin_client.get(reverse("admin:ledger_booksverification_change", args=[run.pk]))
    assert response.status_code == 200 and b'name="_save"' not in response.content

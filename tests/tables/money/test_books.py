"""verify_books, the game's half (tables/money/books.py): every coup re-derived by the rules engine
against the ledger's postings and its levy, on histories played through the real services: clean
coups, a correction approved, rejected, voided, the house bank, club card money, hourly fees.
Tampering with rows the database protects: tests/security/test_books_tamper.py."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ledger.books import BooksReport, Difference
from ledger.models import Transaction
from tables import services
from tables.models import BankTax, Coup, FeeHour
from tables.money.books import books_verify
from tables.tasks import bill_due_hourly_fees
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


def test_a_levy_the_engine_does_not_know_is_named(awaiting: History) -> None:
    """A BankTax on the coup awaiting approval (its levy is due only once approved)."""
    BankTax.objects.create(coup=awaiting.flagged, basis=400, amount=20)
    coup = awaiting.flagged
    report = books_verify()
    assert report.differences == [
        Difference(
            f"coup {coup.pk} (T{coup.shoe.table_id}-shoe{coup.shoe.number}-coup{coup.number})",
            "levy",
            "engine no levy; BankTax 20 on covered 400",
        )
    ]
    out = io.StringIO()
    with pytest.raises(CommandError) as info:
        call_command("verify_books", stdout=out)
    assert info.value.returncode == 1
    assert str(info.value) == "books DIFFER: 1 difference(s)"
    assert out.getvalue().splitlines()[0] == f"DIFFERENCE {report.differences[0]}"


def test_a_flagged_coup_awaiting_correction_has_nothing_to_verify(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)
    assert coup.state == Coup.State.AWAITING_CORRECTION
    assert counts(books_verify())[::3] == (1, [])

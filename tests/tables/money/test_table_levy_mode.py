"""A table's own levy mode (Table.levy_mode, empty = its casino's): every reader asks the table's
effective mode — the coup's levy terms (tables.engine_bridge.levy_terms), the hours billed
(tables.money.fees), the billing at closing (tables.money.floor) — and the reports follow it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.db.models import Sum
from django.utils import timezone

from ledger.models import Account, Transaction
from ledger.selectors import account_balance
from tables import services
from tables.models import BankTax, Casino, Table, TableSession
from tables.money import fees as money_fees
from tests.factories import CroupierAssignmentFactory, TableFactory, builtin_profile
from tests.tables.play import open_floor, play

pytestmark = pytest.mark.django_db


def _casino(**settings: object) -> Casino:
    defaults: dict[str, object] = {"levy_mode": "percentage", "levy_rate_bp": 500, "hourly_fee_amount": 20}
    return Casino.objects.create(name="Mixed", **{**defaults, **settings})


def _table(croupier: User, casino: Casino, name: str, levy_mode: str = "") -> Table:
    table = TableFactory(casino=casino, name=name, profile=builtin_profile("casino"), levy_mode=levy_mode)
    CroupierAssignmentFactory(user=croupier, table=table)
    return table


def _banker_win(croupier: User, table: Table) -> int:
    """One coup the banker wins with 200 covered; the levy recorded (BankTax), 0 for none."""
    floor = open_floor(croupier, table)
    play(floor, bank=200, bets=[(2, 200)], cards=("2H", "AS", "3C", "2D"), player="draw",
         player_card="9H", banker="draw", banker_card="5S")  # fmt: skip
    services.table_session_close(actor=croupier, session=floor.session)
    return int(BankTax.objects.filter(coup__shoe__table=table).aggregate(s=Sum("amount"))["s"] or 0)


def test_the_effective_mode_is_the_tables_else_the_casinos(croupier) -> None:
    casino = _casino()
    own, default = _table(croupier, casino, "Hourly", "hourly_fee"), _table(croupier, casino, "Plain")
    assert (own.effective_levy_mode, default.effective_levy_mode) == ("hourly_fee", "percentage")
    assert list(Table.objects.filter(Table.levy_mode_is("hourly_fee")).values_list("name", flat=True)) == [
        "Hourly"
    ]
    casino.levy_mode, casino.levy_rate_bp = "hourly_fee", 0
    casino.save()
    default.refresh_from_db()
    assert default.effective_levy_mode == "hourly_fee"
    assert sorted(Table.objects.filter(Table.levy_mode_is("hourly_fee")).values_list("name", flat=True)) == [
        "Hourly",
        "Plain",
    ]


def test_an_hourly_fee_table_of_a_percentage_casino_levies_no_coup(croupier) -> None:
    casino = _casino()
    hourly = _table(croupier, casino, "Hourly", "hourly_fee")
    levied = _table(croupier, casino, "Levied")
    assert _banker_win(croupier, levied) == 10  # 5 % of 200
    assert _banker_win(croupier, hourly) == 0
    coup = hourly.shoes.get().coups.get()
    assert coup.rules["levy"]["rate_bp"] == 0  # the terms the coup was started under
    assert account_balance(casino=casino, kind=Account.Kind.LEVY) == 10


def test_a_percentage_table_of_an_hourly_casino_is_levied_and_not_billed(croupier) -> None:
    casino = _casino(levy_mode="hourly_fee", levy_rate_bp=500)
    levied = _table(croupier, casino, "Levied", "percentage")
    assert _banker_win(croupier, levied) == 10
    assert not Transaction.objects.filter(kind=Transaction.Kind.HOURLY_FEE).exists()
    assert money_fees.hourly_fee_hours_due(now=timezone.now() + dt.timedelta(hours=3)) == []


def test_closing_an_hourly_fee_table_of_a_percentage_casino_bills_its_hours(
    croupier, django_capture_on_commit_callbacks
) -> None:
    casino = _casino()
    hourly = _table(croupier, casino, "Hourly", "hourly_fee")
    plain = _table(croupier, casino, "Plain")
    opened = timezone.now() - dt.timedelta(hours=2)
    sessions = {}
    for table in (hourly, plain):
        floor = open_floor(croupier, table, seats=(1,), banker_seat=None)
        TableSession.objects.filter(pk=floor.session.pk).update(opened_at=opened)
        floor.seats[1].joined_at = opened
        floor.seats[1].save(update_fields=["joined_at"])
        sessions[table.name] = floor.session
    # beat's run finds the hourly table's finished hours only (two of them, the third not over)
    due = money_fees.hourly_fee_hours_due()
    assert {session_id for session_id, _hour in due} == {sessions["Hourly"].pk} and len(due) == 2
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("Hourly", "Plain"):
            services.table_session_close(actor=croupier, session=sessions[name], reason="night over")
    # parts of three clock hours, every started one billed: 3 x 20 chips, the plain table nothing
    fees = Transaction.objects.filter(kind=Transaction.Kind.HOURLY_FEE)
    assert fees.count() == 3 and account_balance(casino=casino, kind=Account.Kind.FEE) == 60
    assert {f.fee_posting.session_id for f in fees} == {sessions["Hourly"].pk}

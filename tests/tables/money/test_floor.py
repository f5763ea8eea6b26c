"""Money the floor causes outside coups: club card money at the seat, hourly fees at closing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from core.models import OutboxMessage
from ledger.models import Account, Transaction
from ledger.selectors import account_balance
from tables import services
from tables.models import Casino, SessionPause
from tests.factories import CroupierAssignmentFactory, PlayerFactory, TableFactory, builtin_profile

pytestmark = pytest.mark.django_db


def test_club_card_money_is_charged_once_per_player_per_session(croupier, club_table) -> None:
    casino = club_table.casino
    casino.card_money_amount = 5
    casino.save()
    session = services.table_session_open(actor=croupier, table=club_table)
    player = PlayerFactory(casino=casino)
    seat = services.seat_take(actor=croupier, session=session, player=player, number=3)
    services.seat_leave(actor=croupier, seat=seat)
    services.seat_take(actor=croupier, session=session, player=player, number=4)  # back again
    assert account_balance(casino=casino, kind=Account.Kind.CARD_MONEY) == 5
    assert Transaction.objects.filter(kind="card_money").count() == 1


def test_a_casino_table_charges_no_card_money(croupier, table) -> None:
    session = services.table_session_open(actor=croupier, table=table)
    services.seat_take(actor=croupier, session=session, player=PlayerFactory(casino=table.casino), number=1)
    assert not Transaction.objects.filter(kind="card_money").exists()


def test_closing_an_hourly_fee_session_bills_its_hours(croupier, django_capture_on_commit_callbacks) -> None:
    casino = Casino.objects.create(
        name="Hourly", levy_mode=Casino.LevyMode.HOURLY_FEE, levy_rate_bp=0, hourly_fee_amount=30
    )
    table = TableFactory(casino=casino, profile=builtin_profile("casino"))
    CroupierAssignmentFactory(user=croupier, table=table)
    opened = timezone.now() - dt.timedelta(hours=2)
    session = services.table_session_open(actor=croupier, table=table, at=opened)
    player = PlayerFactory(casino=casino)
    seat = services.seat_take(actor=croupier, session=session, player=player, number=2)
    seat.joined_at = opened
    seat.save(update_fields=["joined_at"])
    with django_capture_on_commit_callbacks(execute=True) as enqueued:
        services.table_session_close(actor=croupier, session=session, reason="night over")
    # billing is sent once the close has committed: one outbox message per clock hour, each sent
    assert len(enqueued) == 3
    assert OutboxMessage.objects.filter(task="ledger.bill_hourly_fees", sent_at__isnull=False).count() == 3
    # the session spans parts of three clock hours; the player sat through all of them, unpaused:
    # every started hour is billed (the casino's default billing), 30 chips each
    hours = Transaction.objects.filter(kind="hourly_fee").count()
    assert hours == 3
    assert account_balance(casino=casino, kind=Account.Kind.FEE) == 90
    assert not SessionPause.objects.exists()

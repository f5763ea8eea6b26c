"""Hourly fees billed per session-hour and club card money (tables/money/fees.py). The pure
calculation: tests/ledger/test_fees.py."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from audit.services import audit_record
from ledger import selectors
from ledger import services as ledger
from ledger.models import Account, Transaction
from tables import models as m
from tables.models import FeeHour
from tables.money import fees as money_fees
from tables.tasks import bill_due_hourly_fees
from tests.factories import PlayerFactory, TableFactory, UserFactory, builtin_profile
from tests.ledger.builders import casino_for, rig

UTC = dt.UTC


def at(hh: int, mm: int = 0) -> dt.datetime:
    return dt.datetime(2025, 1, 10, hh, mm, tzinfo=UTC)


# ------------------------------------------------------------------------------------- billing


def _session(**casino_settings):
    """Seed of the fee tests: 20:10-22:40, paused 21:20-21:50; A all along, B 20:45-21:30 and
    22:05-22:40, C 21:55-22:00 (times in UTC, the test TIME_ZONE)."""
    casino = casino_for("casino", levy_mode="hourly_fee", levy_rate_bp=0, **casino_settings)
    table = TableFactory(casino=casino, profile=builtin_profile("casino"))
    user = UserFactory()
    session = m.TableSession.objects.create(
        table=table, opened_at=at(20, 10), opened_by=user, closed_at=at(22, 40), closed_by=user
    )
    players = {name: PlayerFactory(casino=casino, display_name=name) for name in "ABC"}
    seats = [
        m.Seat.objects.create(
            session=session, player=players[name], number=number, joined_at=joined, left_at=left
        )
        for number, (name, joined, left) in enumerate(
            [
                ("A", at(20, 10), at(22, 40)),
                ("B", at(20, 45), at(21, 30)),
                ("B", at(22, 5), at(22, 40)),
                ("C", at(21, 55), at(22)),
            ],
            start=1,
        )
    ]
    # a past night seeded as rows: its places bound as an upgrade binds the rows it finds (tables
    # 0036), so that the books' check of the bound rows has nothing to say of them
    audit_record(actor=None, action="audit.rows.baseline", after={"table": "tables_seat"}, rows=seats)
    m.SessionPause.objects.create(
        session=session, started_at=at(21, 20), ended_at=at(21, 50), started_by=user, ended_by=user
    )
    for p in players.values():
        ledger.cage_buy_in(casino=casino, player=p, amount=1000, actor=user, key=f"buyin:{p.pk}")
    return casino, session, players


def _charged(casino, players) -> dict[str, int]:
    return {
        name: 1000 - selectors.account_balance(casino=casino, kind="player", player=p)
        for name, p in players.items()
    }


@pytest.mark.django_db
def test_per_player_started_hours_billed_twice_charge_once() -> None:
    casino, session, players = _session(hourly_fee_amount=60, hourly_fee_basis="per_player_hour")
    assert bill_due_hourly_fees() == 3
    assert bill_due_hourly_fees() == 0  # every hour is marked billed
    for hour in (20, 21, 22):  # and billing an hour again by hand charges nothing
        assert money_fees.hourly_fees_bill(session=session, hour_start=at(hour)).already_billed
    # A started all three hours, B three (20:45, 21:00-21:20, 22:05), C one (21:55): 60 each
    assert _charged(casino, players) == {"A": 180, "B": 180, "C": 60}
    assert selectors.account_balance(casino=casino, kind="fee") == 420
    assert Transaction.objects.filter(kind="hourly_fee").count() == 7
    assert FeeHour.objects.filter(session=session).count() == 3


@pytest.mark.django_db
def test_per_player_pro_rata_billed_twice_charge_once() -> None:
    casino, _, players = _session(
        hourly_fee_amount=100, hourly_fee_basis="per_player_hour", hourly_fee_billing="pro_rata", chip_unit=5
    )
    bill_due_hourly_fees()
    bill_due_hourly_fees()
    # 100 x minutes/60, down to 5 chips: A 50'->80, 30'->50, 40'->65; B 15'->25, 20'->30, 35'->55; C 5'->5
    assert _charged(casino, players) == {"A": 195, "B": 110, "C": 5}
    assert selectors.account_balance(casino=casino, kind="fee") == 310


@pytest.mark.django_db
def test_per_table_hour_is_shared_by_seated_time() -> None:
    casino, _, players = _session(hourly_fee_amount=90, hourly_fee_basis="per_table_hour")
    bill_due_hourly_fees()
    bill_due_hourly_fees()
    # 90 a started table-hour, shared by seated time: 20h 50'/15' -> 69/21; 21h 30'/20'/5' -> 49/33/8;
    # 22h 40'/35' -> 48/42
    assert _charged(casino, players) == {"A": 166, "B": 96, "C": 8}
    assert Transaction.objects.filter(kind="hourly_fee").count() == 3  # one per table-hour


@pytest.mark.django_db
def test_only_finished_hours_of_an_open_session_are_due() -> None:
    opened = at(20, 10)
    r = rig(
        "casino",
        players=1,
        chips=10,
        opened_at=opened,
        levy_mode="hourly_fee",
        levy_rate_bp=0,
        hourly_fee_amount=5,
    )
    assert money_fees.hourly_fee_hours_due(now=at(20, 59)) == []
    assert [h for _, h in money_fees.hourly_fee_hours_due(now=at(22, 1))] == [at(20), at(21)]
    with pytest.raises(ValidationError, match="not over yet"):
        money_fees.hourly_fees_bill(session=r.session, hour_start=at(22), now=at(22, 1))
    with pytest.raises(ValidationError, match="not over yet, or the session was not open"):
        money_fees.hourly_fees_bill(session=r.session, hour_start=at(19), now=at(22, 1))
    with pytest.raises(ValidationError, match="not the start of a clock hour"):
        money_fees.hourly_fees_bill(session=r.session, hour_start=at(21, 7), now=at(22, 1))
    assert money_fees.hourly_fees_bill(session=r.session, hour_start=at(21), now=at(22, 1)).total == 5


@pytest.mark.django_db
def test_a_player_who_cannot_pay_is_left_for_the_next_run() -> None:
    casino, session, players = _session(hourly_fee_amount=60)
    # the table's rules when the fee is billed decide (a fee belongs to no coup): no borrowing
    m.Table.objects.filter(pk=session.table_id).update(profile=builtin_profile("home"))
    broke = PlayerFactory(casino=casino, display_name="D")
    m.Seat.objects.create(session=session, player=broke, number=9, joined_at=at(20, 10), left_at=at(20, 40))
    bill = money_fees.hourly_fees_bill(session=session, hour_start=at(20))
    assert bill.failures == {broke.pk: "D has only 0 chips; an hourly fee of 60 is refused."}
    assert not FeeHour.objects.filter(session=session, hour_start=at(20)).exists()
    ledger.cage_buy_in(casino=casino, player=broke, amount=100, actor=None, key="d")
    again = money_fees.hourly_fees_bill(session=session, hour_start=at(20))
    assert again.failures == {} and FeeHour.objects.filter(session=session, hour_start=at(20)).exists()
    assert _charged(casino, players)["A"] == 60  # charged once across both runs
    assert selectors.account_balance(casino=casino, kind="player", player=broke) == 40


@pytest.mark.django_db
def test_hourly_fees_only_where_the_casino_charges_them() -> None:
    r = rig("casino", players=1)
    with pytest.raises(ValidationError, match="does not charge hourly fees"):
        money_fees.hourly_fees_bill(
            session=r.session, hour_start=selectors.clock_hour_floor(r.session.opened_at)
        )


@pytest.mark.django_db
def test_card_money_once_per_seated_player_per_session() -> None:
    r = rig("club", players=2, chips=100, card_money_amount=10)
    p1, p2 = r.players
    first = money_fees.card_money_charge(session=r.session, player=p1, actor=r.actor)
    again = money_fees.card_money_charge(session=r.session, player=p1, actor=r.actor)
    money_fees.card_money_charge(session=r.session, player=p2, actor=r.actor)
    assert first == again
    assert selectors.account_balance(casino=r.casino, kind="card_money") == 20
    assert selectors.account_balance(casino=r.casino, kind="player", player=p1) == 90
    stranger = PlayerFactory(casino=r.casino)
    with pytest.raises(ValidationError, match="has not sat"):
        money_fees.card_money_charge(session=r.session, player=stranger, actor=r.actor)
    casino_table = rig("casino", players=1)
    with pytest.raises(ValidationError, match="does not charge card money"):
        money_fees.card_money_charge(session=casino_table.session, player=casino_table.players[0], actor=None)
    assert Account.objects.filter(kind="card_money").count() == 1


@pytest.mark.django_db
def test_closing_a_session_enqueues_its_due_hours_on_commit(django_capture_on_commit_callbacks) -> None:
    casino, session, players = _session(hourly_fee_amount=60)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        money_fees.hourly_fees_enqueue_due(session=session)
        assert Transaction.objects.filter(kind="hourly_fee").count() == 0  # nothing before COMMIT
    assert len(callbacks) == 3  # one outbox message per hour, sent after the COMMIT
    assert _charged(casino, players) == {"A": 180, "B": 180, "C": 60}

"""The database itself refuses bad rows: one test per constraint, each checking nothing changed.

Rows are written with ``objects.create``/``update`` (no ``full_clean``) so that only the database
stands between the bad value and the table.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import DataError, IntegrityError, transaction
from django.db.models import Model
from django.utils import timezone

from tables import models as m
from tests import factories as f

pytestmark = pytest.mark.django_db

HOUR = dt.timedelta(hours=1)


def assert_insert_refused(
    model: type[Model], create: Callable[[], Any], errors: tuple[type[Exception], ...] = (IntegrityError,)
) -> None:
    before = model._default_manager.count()
    with pytest.raises(errors), transaction.atomic():
        create()
    assert model._default_manager.count() == before


def assert_update_refused(obj: Model, **changes: Any) -> None:
    model = type(obj)
    stored = model._default_manager.filter(pk=obj.pk).values(*changes).get()
    with pytest.raises(IntegrityError), transaction.atomic():
        model._default_manager.filter(pk=obj.pk).update(**changes)
    assert model._default_manager.filter(pk=obj.pk).values(*changes).get() == stored


# ------------------------------------------------------------------------------------------ Casino
@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"chip_unit": 0}, id="chip-unit-zero"),
        pytest.param({"house_limit": 0}, id="house-limit-zero"),
        pytest.param({"levy_mode": "tithe"}, id="unknown-levy-mode"),
        pytest.param({"levy_rate_bp": 10_001}, id="rate-above-100-percent"),
        pytest.param({"levy_mode": "percentage", "levy_rate_bp": 0}, id="percentage-without-rate"),
        pytest.param({"levy_mode": "hourly_fee", "hourly_fee_amount": 0}, id="hourly-fee-without-amount"),
        pytest.param({"levy_rounding": "up"}, id="unknown-rounding"),
        pytest.param({"hourly_fee_basis": "per_seat"}, id="unknown-fee-basis"),
        pytest.param({"hourly_fee_billing": "per_minute"}, id="unknown-fee-billing"),
    ],
)
def test_casino_refuses(changes: dict[str, Any]) -> None:
    assert_update_refused(f.CasinoFactory(), **changes)


def test_casino_accepts_no_levy_with_zero_rate_and_no_house_limit() -> None:
    casino = m.Casino.objects.create(name="Plain", levy_mode="none", levy_rate_bp=0, house_limit=None)
    assert (casino.levy_mode, casino.levy_rate_bp, casino.house_limit) == ("none", 0, None)


# ------------------------------------------------------------------------------------- RuleProfile
@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"tax_rate_bp": 10_001}, id="rate-above-100-percent"),
        pytest.param({"levy_mode": "percentage", "tax_rate_bp": 0}, id="percentage-without-rate"),
        pytest.param({"burn_cards_min": 5, "burn_cards_max": 4}, id="burn-min-above-max"),
        pytest.param({"seats_min": 13, "seats_max": 12}, id="seats-min-above-max"),
        pytest.param({"seats_min": 0}, id="no-seat"),
        pytest.param({"min_bank": 0}, id="min-bank-zero"),
        pytest.param({"min_bet": 0}, id="min-bet-zero"),
        pytest.param({"decks_allowed": [], "decks_per_seated_player": False}, id="no-deck-count"),
        pytest.param({"series_coups": 0}, id="series-of-zero-coups"),
        pytest.param({"betting_from": "north"}, id="unknown-side"),
        pytest.param({"natural_tie": "banker_wins"}, id="unknown-natural-tie"),
        pytest.param({"player_tableau": "vegas"}, id="unknown-player-tableau"),
        pytest.param({"levy_mode": "tithe"}, id="unknown-levy-mode"),
        pytest.param({"levy_rounding": "up"}, id="unknown-rounding"),
    ],
)
def test_rule_profile_refuses(changes: dict[str, Any]) -> None:
    assert_update_refused(f.builtin_profile("classic"), **changes)


def test_rule_profile_slug_is_unique() -> None:
    assert_insert_refused(
        m.RuleProfile, lambda: m.RuleProfile.objects.create(slug="casino", name="Copy", decks_allowed=[6])
    )


# ------------------------------------------------------------------------------------------- Table
def test_table_seat_count_is_9_or_12() -> None:
    table = f.TableFactory(seat_count=9)
    assert_update_refused(table, seat_count=10)


def test_table_name_is_unique_per_casino() -> None:
    table = f.TableFactory(name="Salon Privé")
    assert_insert_refused(m.Table, lambda: f.TableFactory(casino=table.casino, name="Salon Privé"))
    assert f.TableFactory(name="Salon Privé").casino != table.casino  # another casino may reuse it


def test_table_levy_mode_is_empty_or_a_casinos_levy_mode() -> None:
    table = f.TableFactory()
    assert_update_refused(table, levy_mode="tithe")
    for mode in ("hourly_fee", "percentage", "none", ""):  # empty: the casino's
        m.Table.objects.filter(pk=table.pk).update(levy_mode=mode)
        assert m.Table.objects.get(pk=table.pk).levy_mode == mode


@pytest.mark.parametrize("field,value", [("state", "ajar"), ("first_banker_method", "duel")])
def test_table_refuses_unknown_choice(field: str, value: str) -> None:
    assert_update_refused(f.TableFactory(), **{field: value})


# ------------------------------------------------------------------------------ sessions and pauses
def test_two_open_sessions_per_table_are_refused() -> None:
    session = f.TableSessionFactory()
    assert_insert_refused(m.TableSession, lambda: f.TableSessionFactory(table=session.table))


def test_a_new_session_may_open_once_the_previous_closed() -> None:
    session = f.TableSessionFactory(opened_at=timezone.now() - HOUR)
    m.TableSession.objects.filter(pk=session.pk).update(closed_at=timezone.now(), closed_by=session.opened_by)
    assert f.TableSessionFactory(table=session.table).closed_at is None


def test_session_cannot_close_before_it_opens() -> None:
    session = f.TableSessionFactory()
    assert_update_refused(session, closed_at=session.opened_at, closed_by=session.opened_by)


def test_closed_session_records_who_closed_it() -> None:
    session = f.TableSessionFactory(opened_at=timezone.now() - HOUR)
    assert_update_refused(session, closed_at=timezone.now())


def test_pause_cannot_end_before_it_starts() -> None:
    pause = f.SessionPauseFactory()
    assert_update_refused(pause, ended_at=pause.started_at - HOUR, ended_by=pause.started_by)


def test_two_running_pauses_per_session_are_refused() -> None:
    pause = f.SessionPauseFactory()
    assert_insert_refused(m.SessionPause, lambda: f.SessionPauseFactory(session=pause.session))


def test_shift_must_end_after_it_starts() -> None:
    assignment = f.CroupierAssignmentFactory()
    assert_update_refused(assignment, shift_end=assignment.shift_start)


# ------------------------------------------------------------------------------------------ people
def test_membership_number_is_unique_per_casino_when_set() -> None:
    player = f.PlayerFactory(membership_number="M-1")
    assert_insert_refused(m.Player, lambda: f.PlayerFactory(casino=player.casino, membership_number="M-1"))
    # Blank numbers never collide, and another casino may use the same number.
    f.PlayerFactory.create_batch(2, casino=player.casino, membership_number="")
    f.PlayerFactory(membership_number="M-1")
    assert m.Player.objects.filter(membership_number="M-1").count() == 2


def test_player_needs_a_display_name() -> None:
    assert_update_refused(f.PlayerFactory(), display_name="")


def test_two_players_in_one_seat_are_refused() -> None:
    seat = f.SeatFactory(number=4)
    assert_insert_refused(m.Seat, lambda: f.SeatFactory(session=seat.session, number=4))


def test_a_seat_is_free_again_once_its_player_left() -> None:
    seat = f.SeatFactory(number=4, joined_at=timezone.now() - HOUR)
    m.Seat.objects.filter(pk=seat.pk).update(left_at=timezone.now())
    assert f.SeatFactory(session=seat.session, number=4).left_at is None


def test_a_player_holds_one_current_seat_per_session() -> None:
    seat = f.SeatFactory(number=1)
    assert_insert_refused(m.Seat, lambda: f.SeatFactory(session=seat.session, player=seat.player, number=2))


def test_seat_numbers_start_at_one() -> None:
    assert_update_refused(f.SeatFactory(number=3), number=0)


def test_seat_left_before_joining_is_refused() -> None:
    seat = f.SeatFactory()
    assert_update_refused(seat, left_at=seat.joined_at)


def test_spectator_left_before_joining_is_refused() -> None:
    spectator = f.SpectatorFactory()
    assert_update_refused(spectator, left_at=spectator.joined_at - HOUR)


def test_a_player_is_one_current_spectator_per_session() -> None:
    spectator = f.SpectatorFactory()
    assert_insert_refused(
        m.Spectator, lambda: f.SpectatorFactory(session=spectator.session, player=spectator.player)
    )


# -------------------------------------------------------------------------------------------- shoe
def test_two_open_shoes_per_table_are_refused() -> None:
    shoe = f.ShoeFactory()
    assert_insert_refused(m.Shoe, lambda: f.ShoeFactory(session=shoe.session, number=shoe.number + 1))


def test_shoe_number_is_unique_per_session() -> None:
    shoe = f.ShoeFactory(number=1)
    m.Shoe.objects.filter(pk=shoe.pk).update(state="closed", closed_at=timezone.now() + HOUR)
    assert_insert_refused(m.Shoe, lambda: f.ShoeFactory(session=shoe.session, number=1))


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"decks": 0}, id="no-deck"),
        pytest.param({"number": 0}, id="number-zero"),
        pytest.param({"state": "lost"}, id="unknown-state"),
        pytest.param({"state": "closed"}, id="closed-without-time"),
        pytest.param({"closed_at_offset": -HOUR, "state": "closed"}, id="closed-before-shuffle"),
        pytest.param({"cut_card_position": 0}, id="cut-position-zero"),
        pytest.param({"stop_card_position": 0}, id="stop-position-zero"),
    ],
)
def test_shoe_refuses(changes: dict[str, Any]) -> None:
    shoe = f.ShoeFactory()
    if "closed_at_offset" in changes:
        changes["closed_at"] = shoe.shuffled_at + changes.pop("closed_at_offset")
    assert_update_refused(shoe, **changes)


@pytest.mark.parametrize("code", ["1S", "as", "10H", "XX", "AZ", "", "A"])
def test_bad_card_code_is_refused(code: str) -> None:
    shoe = f.ShoeFactory()
    # Too long for CharField(2) is refused by PostgreSQL as a DataError before the check runs.
    errors = (IntegrityError, DataError) if len(code) > 2 else (IntegrityError,)
    assert_insert_refused(m.ShoeCard, lambda: f.ShoeCardFactory(shoe=shoe, card=code), errors)


def test_all_52_card_codes_are_accepted() -> None:
    from core.cards import ALL_CARDS

    shoe = f.ShoeFactory()
    m.ShoeCard.objects.bulk_create(
        m.ShoeCard(shoe=shoe, position=i, card=code, role="burn", seen_at=timezone.now())
        for i, code in enumerate(ALL_CARDS, start=1)
    )
    assert m.ShoeCard.objects.filter(shoe=shoe).count() == 52


def test_card_position_is_unique_per_shoe() -> None:
    card = f.ShoeCardFactory(position=7)
    assert_insert_refused(m.ShoeCard, lambda: f.ShoeCardFactory(shoe=card.shoe, position=7, card="KD"))


def test_dealt_card_belongs_to_a_coup() -> None:
    assert_update_refused(f.ShoeCardFactory(role="burn"), role="player")


def test_unknown_card_role_is_refused() -> None:
    assert_update_refused(f.ShoeCardFactory(), role="joker")


# -------------------------------------------------------------------------------------------- coup
@pytest.mark.parametrize("bank", [0, -100])
def test_non_positive_bank_is_refused(bank: int) -> None:
    assert_update_refused(f.CoupFactory(bank=200), bank=bank)


def test_coup_number_is_unique_per_shoe() -> None:
    coup = f.CoupFactory(number=1)
    assert_insert_refused(m.Coup, lambda: f.CoupFactory(shoe=coup.shoe, number=1))


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"number": 0}, id="number-zero"),
        pytest.param({"step_count": -1}, id="negative-step-count"),
        pytest.param({"state": "lost"}, id="unknown-state"),
        pytest.param({"state": "settled"}, id="settled-without-time"),
        pytest.param({"state": "betting", "settled_at": timezone.now()}, id="settle-time-while-betting"),
    ],
)
def test_coup_refuses(changes: dict[str, Any]) -> None:
    assert_update_refused(f.CoupFactory(), **changes)


# --------------------------------------------------------------------------------------------- bet
@pytest.mark.parametrize("amount", [0, -5])
def test_non_positive_bet_is_refused(amount: int) -> None:
    assert_update_refused(f.BetFactory(amount=50), amount=amount)


def test_bet_with_both_seat_and_spectator_is_refused() -> None:
    coup = f.CoupFactory()
    seat = f.SeatFactory(session=coup.shoe.session)
    spectator = f.SpectatorFactory(session=coup.shoe.session)
    assert_insert_refused(m.Bet, lambda: f.BetFactory(coup=coup, seat=seat, spectator=spectator))


def test_bet_with_neither_seat_nor_spectator_is_refused() -> None:
    coup = f.CoupFactory()
    assert_insert_refused(m.Bet, lambda: f.BetFactory(coup=coup, seat=None, spectator=None))


def test_betting_order_is_unique_per_coup() -> None:
    bet = f.BetFactory(betting_order=1)
    assert_insert_refused(m.Bet, lambda: f.BetFactory(coup=bet.coup, betting_order=1))


def test_betting_order_starts_at_one() -> None:
    assert_update_refused(f.BetFactory(), betting_order=0)


def test_banco_suivi_must_be_a_banco() -> None:
    assert_update_refused(f.BetFactory(), banco=False, banco_suivi=True)


# ---------------------------------------------------------------------------------------- CoupStep
def test_step_index_is_unique_per_coup() -> None:
    step = f.CoupStepFactory(index=1)
    assert_insert_refused(m.CoupStep, lambda: f.CoupStepFactory(coup=step.coup, index=1))


def test_step_index_starts_at_one() -> None:
    assert_insert_refused(m.CoupStep, lambda: f.CoupStepFactory(index=0))


def test_idempotency_key_is_unique_per_coup() -> None:
    step = f.CoupStepFactory(index=1, idempotency_key="tablet-3:0001")
    assert_insert_refused(
        m.CoupStep, lambda: f.CoupStepFactory(coup=step.coup, index=2, idempotency_key="tablet-3:0001")
    )
    # Blank keys never collide.
    f.CoupStepFactory(coup=step.coup, index=3)
    f.CoupStepFactory(coup=step.coup, index=4)
    assert step.coup.steps.count() == 3


def test_only_a_correction_step_points_at_a_corrected_step() -> None:
    step = f.CoupStepFactory(index=1)
    assert_insert_refused(
        m.CoupStep, lambda: f.CoupStepFactory(coup=step.coup, index=2, kind="bet", corrects=step)
    )
    correction = f.CoupStepFactory(coup=step.coup, index=2, kind="correction", corrects=step)
    assert correction.corrects == step


def test_unknown_step_kind_is_refused() -> None:
    assert_insert_refused(m.CoupStep, lambda: f.CoupStepFactory(kind="shuffle_up_and_deal"))


# ---------------------------------------------------------------------------------------- BankTax
@pytest.mark.parametrize(
    "basis,amount",
    [
        pytest.param(0, 0, id="basis-zero"),
        pytest.param(100, 101, id="tax-above-basis"),
        pytest.param(100, -1, id="negative-tax"),
    ],
)
def test_bank_tax_refuses(basis: int, amount: int) -> None:
    coup = f.CoupFactory()
    assert_insert_refused(m.BankTax, lambda: m.BankTax.objects.create(coup=coup, basis=basis, amount=amount))


def test_one_tax_per_coup() -> None:
    tax = f.BankTaxFactory()
    assert_insert_refused(m.BankTax, lambda: m.BankTax.objects.create(coup=tax.coup, basis=100, amount=5))

"""The thresholds' edges, in pure arithmetic: one chip below, at and above each."""

from __future__ import annotations

import pytest

from compliance.rules import Thresholds, move_duties

US = Thresholds(log=3_000, report=10_000, identification=None, chip_value_cents=100)
EU = Thresholds(log=None, report=None, identification=2_000, chip_value_cents=100)


@pytest.mark.parametrize(("amount", "logged"), [(2_999, False), (3_000, False), (3_001, True)])
def test_a_move_above_the_log_threshold_is_logged(amount: int, logged: bool) -> None:
    duties = move_duties(thresholds=US, day_total_before=0, amount=amount)
    assert (duties.log, duties.report, duties.identification) == (logged, False, False)
    assert duties.value_cents == amount * 100


@pytest.mark.parametrize(
    ("before", "amount", "reported"),
    [(7_000, 2_999, False), (7_000, 3_000, False), (7_000, 3_001, True), (10_000, 1, True)],
)
def test_a_day_total_above_the_report_threshold_reports_and_needs_identification(
    before: int, amount: int, reported: bool
) -> None:
    duties = move_duties(thresholds=US, day_total_before=before, amount=amount)
    assert (duties.report, duties.identification, duties.day_total_after) == (
        reported,
        reported,
        before + amount,
    )


@pytest.mark.parametrize(("amount", "needed"), [(1_999, False), (2_000, True), (2_001, True)])
def test_the_eu_practice_identifies_at_two_thousand_or_more(amount: int, needed: bool) -> None:
    duties = move_duties(thresholds=EU, day_total_before=50_000, amount=amount)
    assert (duties.log, duties.report, duties.identification) == (False, False, needed)


@pytest.mark.parametrize(("amount", "logged"), [(599, False), (600, False), (601, True)])
def test_thresholds_are_currency_and_chips_are_worth_the_chip_value(amount: int, logged: bool) -> None:
    five = Thresholds(log=3_000, report=None, identification=None, chip_value_cents=500)  # a 5.00 chip
    duties = move_duties(thresholds=five, day_total_before=0, amount=amount)
    assert (duties.log, duties.value_cents) == (logged, amount * 500)

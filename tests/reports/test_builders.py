"""The header every tabular report shares (reports.builders.report_facts) and the one of a report
of instants (reports.builders.timed_report): the scope's facts first, the kind's own, the time zone
the instants are shown in, and when it was written, last."""

from __future__ import annotations

import datetime as dt

import pytest

from reports.builders import Scope, report_facts, timed_report
from reports.model import Column, Line

pytestmark = [pytest.mark.django_db]


def _scope(table) -> Scope:
    return Scope(start=dt.date(2026, 3, 1), end=dt.date(2026, 3, 2), casino=table.casino)


def test_a_report_s_facts_are_its_scope_s_then_its_own_then_when_written(table) -> None:
    scope = _scope(table)
    facts = report_facts(scope, ("Levy rate", "500 basis points"), ("Month to date", "from the 1st"))
    covered = scope.facts()
    assert facts[: len(covered)] == covered
    assert facts[len(covered) : -1] == [("Levy rate", "500 basis points"), ("Month to date", "from the 1st")]
    assert facts[-1][0] == "Generated" and facts[-1][1].endswith(" UTC")


def test_a_report_of_instants_says_their_time_zone_and_is_laid_out_in_landscape(table) -> None:
    scope = _scope(table)
    columns = (Column("at", "At"),)
    lines = iter([Line(("x",))])
    report = timed_report(
        scope, title="Shifts", facts=[("Own", "fact")], columns=columns, lines=lines, notes=["a note"]
    )
    covered = scope.facts()
    assert report.facts[: len(covered) + 2] == [
        *covered,
        ("Own", "fact"),
        ("Times", f"local time, {scope.calendar.time_zone}"),
    ]
    assert report.facts[-1][0] == "Generated" and len(report.facts) == len(covered) + 3
    assert (report.title, report.columns, report.lines) == ("Shifts", columns, lines)
    assert report.notes == ["a note"] and report.landscape is True

"""core.widgets: the date input every back-office form shares writes ISO 8601 in every language,
bounds the browser's picker, and its field refuses a day off the supported calendar."""

from __future__ import annotations

import datetime as dt

import pytest
from django import forms
from django.utils import translation

from core.widgets import FIRST_DAY, LAST_DAY, DayField, IsoDateInput


class OneDay(forms.Form):
    day = DayField(label="Day", required=False)


@pytest.mark.parametrize("language", ["en", "fr", "ru"])
def test_the_input_writes_iso_in_every_language(language) -> None:
    with translation.override(language):
        html = IsoDateInput().render("day", dt.date(2026, 12, 1))
        bound = str(OneDay(initial={"day": dt.date(2026, 1, 31)})["day"])
    assert html == '<input type="date" name="day" value="2026-12-01" min="1900-01-01" max="9998-12-31">'
    assert bound == (
        '<input type="date" name="day" value="2026-01-31" min="1900-01-01" max="9998-12-31" id="id_day">'
    )


def test_django_s_own_date_input_did_not() -> None:
    """Why: the plain DateInput writes the page's format, which <input type="date"> refuses."""
    plain = forms.DateInput(attrs={"type": "date"})
    with translation.override("fr"):
        assert 'value="01/12/2026"' in plain.render("d", dt.date(2026, 12, 1))
    with translation.override("ru"):
        assert 'value="01.12.2026"' in plain.render("d", dt.date(2026, 12, 1))


@pytest.mark.parametrize("language", ["en", "fr", "ru"])
def test_the_field_reads_iso_in_every_language(language) -> None:
    with translation.override(language):
        form = OneDay({"day": "2026-12-01"})
        assert form.is_valid(), form.errors
    assert form.cleaned_data["day"] == dt.date(2026, 12, 1)


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("1900-01-01", None),
        ("9998-12-31", None),
        ("1899-12-31", ["Enter a date from 1900-01-01 to 9998-12-31."]),
        ("9999-01-01", ["Enter a date from 1900-01-01 to 9998-12-31."]),
        ("0001-01-01", ["Enter a date from 1900-01-01 to 9998-12-31."]),
        ("9999-12-31", ["Enter a date from 1900-01-01 to 9998-12-31."]),
        ("2026-02-30", ["Enter a valid date."]),
    ],
)
def test_the_field_accepts_the_supported_days_only(value, errors) -> None:
    form = OneDay({"day": value})
    assert form.is_valid() is (errors is None)
    assert form.errors.get("day") == errors
    assert (FIRST_DAY.isoformat(), LAST_DAY.isoformat()) == ("1900-01-01", "9998-12-31")

"""The date a person picks on a screen: one ``<input type="date">`` for every form, and the days
the product accepts.

A browser's date input takes and gives its value as ISO 8601 (``2026-12-01``) whatever the page's
language, and shows it in the reader's own format; Django's ``DateInput`` writes its value in the
active language's format (``01/12/2026`` in French, ``01.12.2026`` in Russian), which the browser
refuses: the field came up blank and the next "Show" sent ``?start=&end=``. ``IsoDateInput`` always
writes ISO (the field still reads ISO in every language: Django adds it to each one's input formats).

``FIRST_DAY`` to ``LAST_DAY`` are the days a form or the API accepts (``day_supported``): the ends
of Python's calendar (year 1, 9999-12-31) have no day before or after them, and a period's bounds
(its start less a week, the day after its end) would fall off it; nothing is played there.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

#: the first and the last day a form or the API accepts
FIRST_DAY = dt.date(1900, 1, 1)
LAST_DAY = dt.date(9998, 12, 31)
#: what a date outside them is told (a field error; the API answers it in English)
OUT_OF_RANGE = _("Enter a date from %(first)s to %(last)s.")
ISO_DATE = "%Y-%m-%d"


def day_supported(value: dt.date) -> None:
    """A field's validator: refuse a day before ``FIRST_DAY`` or after ``LAST_DAY``."""
    if not FIRST_DAY <= value <= LAST_DAY:
        raise ValidationError(
            OUT_OF_RANGE,
            code="date_out_of_range",
            params={"first": FIRST_DAY.isoformat(), "last": LAST_DAY.isoformat()},
        )


class IsoDateInput(forms.DateInput):
    """``<input type="date">`` whose value is ISO 8601 in every language, bounded by the days the
    forms accept (``min``/``max``: the browser's picker offers no other)."""

    input_type = "date"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        bounds = {"min": FIRST_DAY.isoformat(), "max": LAST_DAY.isoformat()}
        super().__init__(attrs={**bounds, **(attrs or {})}, format=ISO_DATE)


class DayField(forms.DateField):
    """A day picked on a screen: the ISO date input, refused outside ``FIRST_DAY``..``LAST_DAY``."""

    widget = IsoDateInput
    default_validators = [day_supported]

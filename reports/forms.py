"""Parsing the reports page's form: which report, for which gaming days, casino and table."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from reports.kinds import KINDS, ReportRequest
from reports.schedules import MONTH_TO_DATE, YEAR_TO_DATE, YESTERDAY, preset_period
from tables.gaming_day import casino_calendar
from tables.models import Casino, Table

CUSTOM = "custom"
PRESET_CHOICES = [
    (YESTERDAY, _("Yesterday (last gaming day)")),
    (MONTH_TO_DATE, _("Month to date")),
    (YEAR_TO_DATE, _("Year to date")),
    (CUSTOM, _("From … to …")),
]


def _kinds() -> list[tuple[str, str]]:
    # called when the form renders, in the screen's language (the titles are in core.screen_words)
    return [(slug, gettext(info.title)) for slug, info in KINDS.items()]


def _formats() -> list[tuple[str, str]]:
    seen = dict.fromkeys(fmt for info in KINDS.values() for fmt in info.formats)
    return [(fmt, fmt.upper()) for fmt in seen]


class ReportRunForm(forms.Form):
    kind = forms.ChoiceField(label=_("Report"), choices=_kinds)
    preset = forms.ChoiceField(label=_("Period"), choices=PRESET_CHOICES, initial=YESTERDAY)
    start = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    casino = forms.ModelChoiceField(
        label=_("Casino"),
        queryset=Casino.objects.order_by("name"),
        required=False,
        empty_label=_("All casinos"),
    )
    table = forms.ModelChoiceField(
        label=_("Table"),
        queryset=Table.objects.select_related("casino").order_by("casino__name", "name"),
        required=False,
        empty_label=_("All tables"),
    )
    fmt = forms.ChoiceField(label=_("Format"), choices=_formats)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # forms.Form.clean returns cleaned_data
        if self.errors:
            return data
        if data["preset"] == CUSTOM:
            if not data.get("start") or not data.get("end"):
                raise forms.ValidationError(_("Give the first and the last gaming day."))
        else:
            # the casino's gaming days (its cut-off and time zone); across casinos, UTC days
            data["start"], data["end"] = preset_period(
                data["preset"], casino_calendar(data.get("casino")), timezone.now()
            )
        return data

    @property
    def report_request(self) -> ReportRequest:
        data = self.cleaned_data
        casino: Casino | None = data.get("casino")
        table: Table | None = data.get("table")
        start: dt.date = data["start"]
        end: dt.date = data["end"]
        return ReportRequest(
            kind=data["kind"],
            fmt=data["fmt"],
            start=start,
            end=end,
            casino_id=casino.pk if casino is not None else None,
            table_id=table.pk if table is not None else None,
        )

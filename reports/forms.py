"""Parsing the reports page's form (which report, for which gaming days, casino and table), and
the old immediate downloads' posts, now each a request for the equivalent run."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.widgets import DayField
from reports.kinds import KINDS, ReportRequest
from reports.schedules import MONTH_TO_DATE, TODAY, YEAR_TO_DATE, YESTERDAY, preset_period
from review.forms import CasinoChoices, PeriodForm
from tables.gaming_day import casino_calendar
from tables.models import Casino, Table

CUSTOM = "custom"
PRESET_CHOICES = [
    (TODAY, _("Today (the gaming day being played)")),
    (YESTERDAY, _("Yesterday (last gaming day)")),
    (MONTH_TO_DATE, _("Month to date")),
    (YEAR_TO_DATE, _("Year to date")),
    (CUSTOM, _("From … to …")),
]


def _kinds() -> list[tuple[str, str]]:
    # called when the form renders, in the screen's language (the titles are in core.screen_words)
    # the exporters' kinds: compliance asks for its own from its page (review/compliance.html)
    return [(slug, gettext(info.title)) for slug, info in KINDS.items() if info.audience == "export"]


def _formats() -> list[tuple[str, str]]:
    seen = dict.fromkeys(fmt for info in KINDS.values() for fmt in info.formats)
    return [(fmt, fmt.upper()) for fmt in seen]


def _request(kind: str, fmt: str, data: dict[str, Any]) -> ReportRequest:
    """The run a valid form asks for: its period, and its casino and table (the chosen rows, or
    None) by id. Both forms' ``report_request``: the page's and an old download's."""
    start: dt.date = data["start"]
    end: dt.date = data["end"]
    casino: Casino | None = data.get("casino")
    table: Table | None = data.get("table")
    return ReportRequest(
        kind=kind,
        fmt=fmt,
        start=start,
        end=end,
        casino_id=casino.pk if casino is not None else None,
        table_id=table.pk if table is not None else None,
    )


class ReportRunForm(CasinoChoices, forms.Form):
    """``casinos``: the reader's (None: every casino); ``every_casino`` False: he does not read
    every casino, chooses one of his and is not offered "All casinos" (reports.services refuses it).
    ``works``: the casinos he works for (None: not known, or every one), to choose his casino first."""

    scoped_fields = {"casino": "pk", "table": "casino"}

    def __init__(
        self,
        *args: Any,
        casinos: frozenset[int] | None = None,
        every_casino: bool = True,
        kinds: list[str] | None = None,
        works: frozenset[int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, casinos=casinos, **kwargs)
        if kinds is not None:  # the kinds the reader may take (reports.services.may_take)
            self.fields["kind"].choices = [  # type: ignore[attr-defined]  # a ChoiceField
                (slug, gettext(KINDS[slug].title)) for slug in kinds
            ]
        if not every_casino:
            self.fields["casino"].empty_label = None  # type: ignore[attr-defined]  # a ModelChoiceField
        if not self.is_bound:
            self.fields["casino"].initial = self._own_casino(works)

    def _own_casino(self, works: frozenset[int] | None) -> int | None:
        """The casino the form starts with: the only one the reader sees (a one-casino club's
        accountant reads "every casino", which is that one), else the only one he works for; None
        ("All casinos") otherwise. Most reports are of one casino (levy, fees, house win, ...):
        "All casinos" first would have them refused on the first "Generate"."""
        offered = list(self.scoped_choices("casino").values_list("pk", flat=True)[:2])
        if len(offered) == 1:
            return offered[0]
        if works is not None and len(works) == 1:
            (own,) = works
            if self.scoped_choices("casino").filter(pk=own).exists():
                return own
        return None

    kind = forms.ChoiceField(label=_("Report"), choices=_kinds)
    preset = forms.ChoiceField(label=_("Period"), choices=PRESET_CHOICES, initial=TODAY)
    start = DayField(label=_("From"), required=False)
    end = DayField(label=_("To"), required=False)
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
        return _request(data["kind"], data["fmt"], data)


#: the old immediate downloads (POST /review/exports/<kind>/, kept for bookmarks and scripts): the
#: run each now asks for, in the format the download had
EXPORT_KINDS: dict[str, tuple[str, str]] = {
    "percentage-tax": ("levy", "csv"),
    "fees": ("fees", "csv"),
    "audit-trail": ("audit-trail", "jsonl"),
    "coup-records": ("coup-records", "jsonl"),
}


class ExportRunForm(PeriodForm):
    """What an old immediate download posted (from, to, table; the last seven days by default),
    plus the casino for a per-casino report asked for without a table: the equivalent run. Its
    casino is the table's, or the one posted; the table counts only for a report by table (the
    audit trail's download ignored it, and so does its run)."""

    casino = forms.ModelChoiceField(label=_("Casino"), queryset=Casino.objects.all(), required=False)
    scoped_fields = {"table": "casino", "casino": "pk"}

    def __init__(self, *args: Any, export: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kind, self.fmt = EXPORT_KINDS[export]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        info = KINDS[self.kind]
        table: Table | None = data.get("table") if info.by_table else None
        casino: Casino | None = data.get("casino") or (table.casino if table is not None else None)
        if casino is None and info.needs_casino:
            raise forms.ValidationError(
                _("The %(kind)s report is for one casino: send the table or the casino (its id) it is for."),
                # the report as the page names it (its title, in the reader's language), not its slug
                params={"kind": _(info.title)},
            )
        data["table"], data["casino"] = table, casino
        return data

    @property
    def report_request(self) -> ReportRequest:
        return _request(self.kind, self.fmt, self.cleaned_data)

    def error_text(self) -> str:
        """The errors as plain text, for a script: "field: message" a line."""
        lines = [str(m) for m in self.non_field_errors()]
        for name, errors in self.errors.items():
            if name != NON_FIELD_ERRORS:
                lines += [f"{name}: {m}" for m in errors]
        return "\n".join(lines) + "\n"

"""Parsing the back office's input: a period and a table (dashboard, exports), a rejection's reason."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from django import forms
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.widgets import FIRST_DAY, DayField
from review.models import AlertKind
from tables.gaming_day import Period
from tables.models import Casino, Table
from tables.permissions import in_casinos

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

#: the dashboard's default period: the last seven days, today included
DEFAULT_DAYS = 7
#: the longest period a page or an export covers (a regulator's year and a day of slack)
MAX_DAYS = 367


class CasinoChoices:
    """A form whose choices of casinos and tables are those of the reader's casinos: ``casinos``
    (``CasinoScope.casino_ids``; None: every casino) narrows each field of ``scoped_fields``
    (field name → the path from its choices to their casino). Another casino's table or casino
    is then not a valid choice, as it is not shown."""

    scoped_fields: dict[str, str] = {}

    def __init__(self, *args: Any, casinos: frozenset[int] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # the form's, next in the MRO
        for name, path in self.scoped_fields.items():
            field = self.fields[name]  # type: ignore[attr-defined]  # the form's
            assert isinstance(field, forms.ModelChoiceField) and field.queryset is not None
            field.queryset = in_casinos(field.queryset, casinos, path)

    def scoped_choices(self, name: str) -> QuerySet[Any]:
        """The choices field ``name`` offers, once narrowed to the reader's casinos."""
        field = self.fields[name]  # type: ignore[attr-defined]  # the form's
        assert isinstance(field, forms.ModelChoiceField) and field.queryset is not None
        return field.queryset


def period_clean(data: dict[str, Any], *, today: dt.date) -> dict[str, Any]:
    """A period's ``start`` and ``end`` in ``data``, cleaned: the last DEFAULT_DAYS days to
    ``today`` when none is asked for, refused when it starts after it ends or covers more than
    MAX_DAYS days (the dashboard's and the charts' period, a player's rating). Its fields are
    ``core.widgets.DayField``s: each day is one the product supports (a week before the first of
    them is not asked for: the default period then starts on it)."""
    end = data.get("end") or today
    start = data.get("start") or max(FIRST_DAY, end - dt.timedelta(days=DEFAULT_DAYS - 1))
    if start > end:
        raise forms.ValidationError(_("The period starts after it ends."))
    if (end - start).days + 1 > MAX_DAYS:
        raise forms.ValidationError(_("A period covers at most %(days)s days.") % {"days": MAX_DAYS})
    data["start"], data["end"] = start, end
    return data


class PeriodForm(CasinoChoices, forms.Form):
    scoped_fields = {"table": "casino"}

    start = DayField(label=_("From"), required=False)
    end = DayField(label=_("To"), required=False)
    table = forms.ModelChoiceField(
        label=_("Table"),
        queryset=Table.objects.select_related("casino").order_by("casino__name", "name"),
        required=False,
        empty_label=_("All tables"),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # forms.Form.clean returns cleaned_data
        return period_clean(data, today=timezone.localdate())

    @property
    def period(self) -> Period:
        return Period(start=self.cleaned_data["start"], end=self.cleaned_data["end"])

    @property
    def selected_table(self) -> Table | None:
        return self.cleaned_data.get("table")


class RatingForm(forms.Form):
    """A player's rating period (docs/review.md, "A player's rating"): gaming days of his casino,
    the last seven to ``today`` when none is asked for."""

    start = DayField(label=_("From"), required=False)
    end = DayField(label=_("To"), required=False)

    def __init__(self, *args: Any, today: dt.date, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.today = today

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # forms.Form.clean returns cleaned_data
        return period_clean(data, today=self.today)


def _said_why(label: StrOrPromise, placeholder: StrOrPromise, missing: StrOrPromise) -> forms.CharField:
    """A pit boss's required one-line word on what he decides (why a correction is rejected, what
    was done about an alert): at most 500 characters, ``missing`` said when it is left empty."""
    return forms.CharField(
        label=label,
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": placeholder}),
        error_messages={"required": missing},
    )


class RejectForm(forms.Form):
    reason = _said_why(
        _("Reason"), _("Why the correction is wrong"), _("Say why the correction is rejected.")
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("Say why the correction is rejected."))
        return reason


class ComplianceDayForm(forms.Form):
    """The gaming day compliance's page shows (today's when none is given)."""

    day = DayField(label=_("Gaming day"), required=False)


class AcknowledgeForm(forms.Form):
    note = _said_why(_("Note"), _("What was done about it"), _("Say what was done about the alert."))


class AlertFilterForm(CasinoChoices, forms.Form):
    scoped_fields = {"casino": "pk"}

    kind = forms.ChoiceField(
        label=_("Kind"), required=False, choices=[("", _("All kinds")), *AlertKind.choices]
    )
    casino = forms.ModelChoiceField(
        label=_("Casino"),
        queryset=Casino.objects.order_by("name"),
        required=False,
        empty_label=_("All casinos"),
    )


class ChartsForm(CasinoChoices, forms.Form):
    scoped_fields = {"casino": "pk"}

    casino = forms.ModelChoiceField(
        label=_("Casino"), queryset=Casino.objects.order_by("name", "pk"), required=False, empty_label=None
    )
    days = forms.IntegerField(label=_("Gaming days"), min_value=1, max_value=92, required=False, initial=14)

"""Input parsing for the cage's screens: POST data to the values a service takes. No rules here:
whether an amount is allowed or covered is the services' (and the ledger's) to say."""

from __future__ import annotations

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from compliance.models import DocumentType
from compliance.services import DOCUMENT_NUMBER_MAX


def one_time_key() -> str:
    """A new key for a form: a double submit of the same form then posts once."""
    return uuid.uuid4().hex


class CageMoveForm(forms.Form):
    """A buy-in or a cash-out: who, how many chips, the form's one-time key, and whether the
    cashier has confirmed (the first submit only asks him to)."""

    player = forms.IntegerField(min_value=1)
    amount = forms.IntegerField(
        min_value=1,
        error_messages={"required": _("Enter a number of chips."), "invalid": _("A whole number.")},
    )
    key = forms.CharField(max_length=64)
    confirm = forms.BooleanField(required=False)
    # the player's identity document, asked for when the move needs him identified (compliance)
    document_type = forms.ChoiceField(
        choices=[("", "—"), *DocumentType.choices], required=False, label=_("Identity document")
    )
    document_number = forms.CharField(
        max_length=DOCUMENT_NUMBER_MAX, required=False, label=_("Document number")
    )


class PlayerNewForm(forms.Form):
    display_name = forms.CharField(max_length=80, label=_("Name"))
    membership_number = forms.CharField(max_length=40, required=False, label=_("Membership number"))

"""Input parsing for the croupier's screens: POST data to the values a service takes.

No rules here: whether a bet fits the bank, a card exists or a seat is taken is the services' and
the engine's to say (their ValidationError messages are shown next to the control).
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext_noop

from chemin_de_fer.engine.machine import Move
from chemin_de_fer.engine.punters import PunterKind, parse_punter_key
from core.api.inputs import MAX_CHIPS
from core.cards import RANKS, SUITS
from tables.services import Amendment, Caller, StepRequest

_RANK_CHOICES = [(r, r) for r in RANKS]
_SUIT_CHOICES = [(s, s) for s in SUITS]

# English, as the API says them too; marked for the catalogue: the croupier's screen translates
# them when it shows them (docs/i18n.md)
AT_LEAST_ONE_CHIP = gettext_noop("At least 1 chip.")
#: the most chips a form takes, as the API (``MAX_CHIPS``, the database's ``integer``): a bank of 23
#: digits typed on the tablet is a sentence, not a 500 (SQLite cannot even bind it)
AT_MOST_CHIPS = gettext_noop("At most 2,147,483,647 chips.")
HOW_MUCH_BANK = gettext_noop("How much is the bank?")
#: the step the screen showed, when it is no step a coup can have (as the withdrawal says it)
STEP_UNKNOWN = gettext_noop("The screen did not say which step it showed: reload it.")


def chips_field(*, required: bool = False, when_missing: str | None = None) -> forms.IntegerField:
    """A number of chips a form takes: from 1 to ``MAX_CHIPS``, each bound said in a sentence
    (``when_missing``: what a required one asks when left empty)."""
    messages = {"min_value": AT_LEAST_ONE_CHIP, "max_value": AT_MOST_CHIPS}
    if when_missing is not None:
        messages["required"] = when_missing
    return forms.IntegerField(required=required, min_value=1, max_value=MAX_CHIPS, error_messages=messages)


def _punter(key: str) -> tuple[int | None, int | None]:
    """``(seat, None)`` or ``(None, spectator)`` for a punter key (``seat-3``, ``spectator-7``)."""
    try:
        kind, number = parse_punter_key(key)
    except ValueError as exc:
        raise forms.ValidationError(str(exc)) from None
    return (number, None) if kind is PunterKind.SEAT else (None, number)


def step_shown_field() -> forms.IntegerField:
    """The step count the screen showed (a stale screen's step is a conflict): a coup's counter
    is an ``integer`` too, and a number that is none is the one sentence that says so."""
    return forms.IntegerField(
        min_value=0,
        max_value=MAX_CHIPS,
        error_messages={key: STEP_UNKNOWN for key in ("required", "invalid", "min_value", "max_value")},
    )


class KeysField(forms.Field):
    """Several values of one name (``callers=seat-3&callers=spectator-7``), as strings."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[str]:
        return [str(v) for v in value or [] if str(v)]


class CardField(forms.Form):
    """A card typed (``9h``, ``td``, ``10d``) or tapped on the picker (rank, then suit)."""

    card = forms.CharField(required=False, max_length=4, strip=True)
    rank = forms.ChoiceField(required=False, choices=_RANK_CHOICES)
    suit = forms.ChoiceField(required=False, choices=_SUIT_CHOICES)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # forms.Form.clean returns cleaned_data
        if data.get("suit") and not data.get("rank") and not data.get("card"):
            self.add_error("card", gettext_noop("Tap the rank first, then the suit."))
        return data

    def card_text(self) -> str:
        """What was entered, as typed; the service reads it into a card code (or says why not)."""
        data = self.cleaned_data
        if data.get("card"):
            return data["card"]
        if data.get("rank") and data.get("suit"):
            return data["rank"] + data["suit"]
        return ""


class StepForm(CardField):
    """One step of the coup."""

    kind = forms.ChoiceField(choices=[(k.value, k.value) for k in Move if k != Move.BANK_DECLARED])
    expected_step = step_shown_field()
    confirm = forms.BooleanField(required=False)
    amount = chips_field()
    punter = forms.CharField(required=False, max_length=40)
    callers = KeysField(required=False)  # "seat-N" / "spectator-N": the service checks who is there
    suivi = forms.CharField(required=False, max_length=40)
    # a spectator's bet: every seated punter has had his turn; the banker consents (the club)
    seated_round_over = forms.BooleanField(required=False)
    consent = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("kind")
        if kind == Move.BET:
            if not data.get("punter"):
                self.add_error("punter", gettext_noop("Who bets?"))
            if data.get("amount") is None and "amount" not in self.errors:
                self.add_error("amount", gettext_noop("How much?"))
        if kind == Move.BANCO and not data.get("callers") and not data.get("punter"):
            self.add_error("callers", gettext_noop("Who called banco?"))
        return data

    def step_request(self) -> StepRequest:
        data = self.cleaned_data
        kind = Move(data["kind"])
        if kind is Move.BET:
            try:
                seat, spectator = _punter(data["punter"])
            except forms.ValidationError as exc:
                raise forms.ValidationError({"punter": exc.messages}) from None
            return StepRequest(
                kind=kind,
                amount=data["amount"],
                seat=seat,
                spectator=spectator,
                seated_round_over=bool(data.get("seated_round_over")),
                consent=bool(data.get("consent")),
            )
        if kind is Move.BANCO:
            named = [*data.get("callers", []), *([data["punter"]] if data.get("punter") else [])]
            keys = list(dict.fromkeys(named))
            if data.get("suivi") and data["suivi"] not in keys:
                keys.append(data["suivi"])
            callers = []
            for key in keys:
                try:
                    seat, spectator = _punter(key)
                except forms.ValidationError as exc:
                    raise forms.ValidationError({"callers": exc.messages}) from None
                callers.append(Caller(seat=seat, spectator=spectator, suivi=key == data.get("suivi")))
            return StepRequest(kind=kind, callers=tuple(callers))
        if kind in (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER):
            return StepRequest(kind=kind, card=self.card_text())
        return StepRequest(kind=kind)


class AmendForm(forms.Form):
    """A mistyped bet or card amended before the reveal: the bet's amount and who made it, or the
    card (typed), and why. The service says whether it may be amended."""

    expected_step = step_shown_field()
    confirm = forms.BooleanField(required=False)
    amount = chips_field()
    punter = forms.CharField(required=False, max_length=40)
    card = forms.CharField(required=False, max_length=4, strip=True)
    reason = forms.CharField(required=False, max_length=200, strip=True)

    def amendment(self) -> Amendment:
        data = self.cleaned_data
        seat = spectator = None
        if data.get("punter"):
            try:
                seat, spectator = _punter(data["punter"])
            except forms.ValidationError as exc:
                raise forms.ValidationError({"punter": exc.messages}) from None
        if data.get("card"):
            return Amendment(card=data["card"])
        return Amendment(amount=data.get("amount"), seat=seat, spectator=spectator)


class BankForm(forms.Form):
    amount = chips_field(required=True, when_missing=HOW_MUCH_BANK)


class SpectatorForm(forms.Form):
    """A player joins: an existing player of the casino, or a new one by display name."""

    player = forms.IntegerField(required=False)
    new_name = forms.CharField(required=False, max_length=80, strip=True)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # forms.Form.clean returns cleaned_data
        if not data.get("player") and not data.get("new_name"):
            self.add_error("player", gettext_noop("Pick a player or type a new player's name."))
        return data


class SeatForm(SpectatorForm):
    """A player sits down: an existing player of the casino, or a new one by display name."""

    number = forms.IntegerField(min_value=1, error_messages={"required": gettext_noop("Which seat?")})
    field_order = ["number", "player", "new_name"]


class ShoeForm(forms.Form):
    decks = forms.IntegerField(min_value=1, error_messages={"required": gettext_noop("How many decks?")})
    cut_by = forms.IntegerField(required=False)
    cut_card_position = forms.IntegerField(required=False, min_value=1)
    stop_card_position = forms.IntegerField(required=False, min_value=1)
    burnt_cards = forms.CharField(required=False, max_length=200)

    def burnt(self) -> list[str]:
        """The burnt cards as typed, separated by spaces or commas."""
        return [c for c in re.split(r"[\s,;]+", self.cleaned_data.get("burnt_cards") or "") if c]


class SeatChoiceForm(forms.Form):
    """A seat (by its row id) and, for an auction, the bank he puts up."""

    seat = forms.IntegerField(error_messages={"required": gettext_noop("Which player?")})
    amount = chips_field()
    answer = forms.ChoiceField(required=False, choices=[("accept", "accept"), ("refuse", "refuse")])


class BankShareForm(forms.Form):
    """Club: a spectator (by his row id) and, when he puts up part of a new bank, how much."""

    spectator = forms.IntegerField(error_messages={"required": gettext_noop("Which spectator?")})
    amount = chips_field()


class RestoreForm(CardField):
    """The cards dealt from the shoe to complete the restored game, one added at a time."""

    cards = forms.CharField(required=False, max_length=200)
    action = forms.ChoiceField(
        choices=[("add", "add"), ("undo", "undo"), ("preview", "preview"), ("submit", "submit")],
        required=False,
    )

    def card_list(self) -> list[str]:
        return [c for c in (self.cleaned_data.get("cards") or "").split() if c]

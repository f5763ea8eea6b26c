"""What a request to the REST API may carry: the input serializers.

No business logic here: inputs are checked for shape only (types, ranges, which keys a step kind
takes); whether a step, a bet or a card is allowed is the services' and the engine's business.
"""

from __future__ import annotations

from typing import Any

from chemin_de_fer.engine.machine import Move

# the kit's generic inputs, here too so the floor's serializers read as one vocabulary
from core.api.inputs import (
    MAX_CHIPS,
    MAX_ID,
    BoundedListField,
    EmptyIn,
    FlagField,
    IdField,
    ReasonIn,
    StrictSerializer,
    TextChoiceField,
    TextField,
    WholeNumberField,
    chips,
    optional_number,
    step_fields_check,
)
from tables.models import Player

__all__ = ["MAX_CHIPS", "MAX_ID", "EmptyIn", "ReasonIn", "StrictSerializer", "WholeNumberField", "chips"]


class PlayerCreateIn(StrictSerializer):
    display_name = TextField(max_length=80)
    membership_number = TextField(max_length=40, required=False, allow_blank=True, default="")


class SeatTakeIn(StrictSerializer):
    player = IdField(queryset=Player.objects.all())
    number = WholeNumberField(min_value=1, max_value=12)


class SpectatorJoinIn(StrictSerializer):
    player = IdField(queryset=Player.objects.all())


class ShoeStartIn(StrictSerializer):
    decks = WholeNumberField(min_value=1, max_value=52)
    burnt_cards = BoundedListField(child=TextField(max_length=8), required=False, default=list, max_length=10)
    cut_by = IdField(queryset=Player.objects.all(), required=False, allow_null=True, default=None)
    cut_card_position = optional_number(min_value=1, max_value=None)
    stop_card_position = optional_number(min_value=1, max_value=None)


class SeatIn(StrictSerializer):
    seat = WholeNumberField(min_value=1, max_value=12, help_text="the seat number (1-12)")


class BankFirstIn(SeatIn):
    amount = chips(required=False, allow_null=True, default=None, help_text="auction only: the winning bid")


class BankOfferIn(SeatIn):
    accept = FlagField()


class BankAuctionIn(SeatIn):
    amount = chips()


class BankShareIn(StrictSerializer):
    spectator = WholeNumberField(
        min_value=1, max_value=MAX_ID, help_text="the spectator (id) putting up part of the bank"
    )
    amount = chips(help_text="the spectator's part of the new bank")


class BankShareOutIn(StrictSerializer):
    spectator = WholeNumberField(
        min_value=1, max_value=MAX_ID, help_text="the spectator (id) taking their share out"
    )


class CoupStartIn(StrictSerializer):
    bank = chips(help_text="the bank the banker declares (the coup's first step)")


#: the most callers one banco may name: the twelve seats and a crowd of spectators round them
MAX_CALLERS = 100


class CallerIn(StrictSerializer):
    seat = optional_number(min_value=1, max_value=12)
    spectator = optional_number(min_value=1, max_value=MAX_ID)
    suivi = FlagField(required=False, default=False)


#: the keys each step kind takes besides ``step``, ``kind`` and ``confirm``
STEP_FIELDS: dict[str, frozenset[str]] = {
    Move.BET: frozenset({"amount", "seat", "spectator", "seated_round_over", "consent"}),
    Move.BANCO: frozenset({"callers"}),
    Move.CARD_TO_PLAYER: frozenset({"card"}),
    Move.CARD_TO_BANKER: frozenset({"card"}),
}
STEP_KINDS = [k.value for k in Move if k is not Move.BANK_DECLARED]
_OPTIONAL_STEP_FIELDS = ("amount", "seat", "spectator", "card", "callers", "seated_round_over", "consent")


class StepIn(StrictSerializer):
    step = WholeNumberField(
        min_value=0, max_value=MAX_ID, help_text="the coup's step count as the client last saw it"
    )
    kind = TextChoiceField(choices=STEP_KINDS)
    amount = chips(required=False, help_text="bet")
    seat = WholeNumberField(min_value=1, max_value=12, required=False, help_text="bet: the seat betting")
    spectator = WholeNumberField(
        min_value=1, max_value=MAX_ID, required=False, help_text="bet: the spectator (id) betting"
    )
    card = TextField(max_length=8, required=False, help_text="card_to_*: e.g. 9H, TD, 10d")
    # more callers than people can stand round a table is not a banco but a flood: refused by the
    # list's length before any caller is read (DRF's ListSerializer checks max_length first; a
    # many=True serializer, so that each StepIn binds its own callers: StrictSerializer's prototypes)
    callers = CallerIn(  # type: ignore[call-arg]  # many=True takes ListSerializer's max_length
        many=True, required=False, max_length=MAX_CALLERS, help_text="banco: everybody who called it"
    )
    seated_round_over = FlagField(
        required=False,
        help_text="a spectator's bet: every seated punter has had a turn (those who did not bet pass)",
    )
    consent = FlagField(
        required=False, help_text="a spectator's bet where the profile asks for it: the banker consents"
    )
    confirm = FlagField(
        required=False, default=False, help_text="record a step that breaks the rules (it happened)"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        step_fields_check(
            attrs, optional=_OPTIONAL_STEP_FIELDS, allowed=STEP_FIELDS.get(attrs["kind"], frozenset())
        )
        return attrs


class AmendIn(StrictSerializer):
    """A mistyped bet or card, amended before the reveal: give what changes (a bet: ``amount``
    and/or ``seat``/``spectator``; a card: ``card``) and why."""

    step = optional_number(
        min_value=0,
        max_value=MAX_ID,
        help_text="the coup's step count as the client last saw it (409 if stale)",
    )
    amount = chips(required=False, allow_null=True, default=None, help_text="bet: the amount really bet")
    seat = optional_number(min_value=1, max_value=12, help_text="bet: who really bet")
    spectator = optional_number(
        min_value=1, max_value=MAX_ID, help_text="bet: the spectator (id) who really bet"
    )
    card = TextField(
        max_length=8, required=False, allow_null=True, default=None, help_text="card: the card really dealt"
    )
    reason = TextField(max_length=200, help_text="why the step is amended (required)")
    confirm = FlagField(
        required=False, default=False, help_text="a later step now breaks the rules: it happened"
    )


class CorrectionIn(StrictSerializer):
    cards = BoundedListField(
        child=TextField(max_length=8),
        required=False,
        default=list,
        max_length=6,
        help_text="the cards dealt from the shoe to complete the restored game, in order",
    )


class RejectIn(StrictSerializer):
    reason = TextField(max_length=500)


class BankWithdrawIn(StrictSerializer):
    step = WholeNumberField(
        min_value=0,
        max_value=MAX_ID,
        required=False,
        help_text="the coup's step count as the client last saw it (409 if stale)",
    )

"""What a request to the REST API may carry: the input serializers.

No business logic here: inputs are checked for shape only (types, ranges, which keys a step kind
takes); whether a step, a bet or a card is allowed is the services' and the engine's business.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from tables.models import Player
from tables.rules.cards import CardError, parse_card
from tables.rules.machine import Move

#: the largest number of chips a request may name (PostgreSQL ``integer``)
MAX_CHIPS = 2_147_483_647
#: the largest id a request may name (``BigAutoField``)
MAX_ID = 2**63 - 1


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know, so a misspelt field is an error, never silently dropped."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class WholeNumberField(serializers.IntegerField):
    """A JSON integer: ``"10"``, ``10.0`` and ``true`` are refused rather than converted."""

    default_error_messages = {"invalid": "A whole number is required."}

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


def chips(**kwargs: Any) -> WholeNumberField:
    return WholeNumberField(min_value=1, max_value=MAX_CHIPS, **kwargs)


class EmptyIn(StrictSerializer):
    """No body (or ``{}``)."""


class ReasonIn(StrictSerializer):
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class PlayerCreateIn(StrictSerializer):
    display_name = serializers.CharField(max_length=80)
    membership_number = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")


class SeatTakeIn(StrictSerializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    number = WholeNumberField(min_value=1, max_value=12)


class SpectatorJoinIn(StrictSerializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())


class ShoeStartIn(StrictSerializer):
    decks = WholeNumberField(min_value=1, max_value=52)
    burnt_cards = serializers.ListField(
        child=serializers.CharField(max_length=8), required=False, default=list, max_length=10
    )
    cut_by = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), required=False, allow_null=True, default=None
    )
    cut_card_position = WholeNumberField(min_value=1, required=False, allow_null=True, default=None)
    stop_card_position = WholeNumberField(min_value=1, required=False, allow_null=True, default=None)


class SeatIn(StrictSerializer):
    seat = WholeNumberField(min_value=1, max_value=12, help_text="the seat number (1-12)")


class BankFirstIn(SeatIn):
    amount = chips(required=False, allow_null=True, default=None, help_text="auction only: the winning bid")


class BankOfferIn(SeatIn):
    accept = serializers.BooleanField()


class BankAuctionIn(SeatIn):
    amount = chips()


class BankShareIn(StrictSerializer):
    spectator = WholeNumberField(min_value=1, help_text="the spectator (id) putting up part of the bank")
    amount = chips(help_text="the spectator's part of the new bank")


class BankShareOutIn(StrictSerializer):
    spectator = WholeNumberField(min_value=1, help_text="the spectator (id) taking their share out")


class CoupStartIn(StrictSerializer):
    bank = chips(help_text="the bank the banker declares (the coup's first step)")


class CallerIn(StrictSerializer):
    seat = WholeNumberField(min_value=1, max_value=12, required=False, allow_null=True, default=None)
    spectator = WholeNumberField(min_value=1, max_value=MAX_ID, required=False, allow_null=True, default=None)
    suivi = serializers.BooleanField(required=False, default=False)


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
    kind = serializers.ChoiceField(choices=STEP_KINDS)
    amount = chips(required=False, help_text="bet")
    seat = WholeNumberField(min_value=1, max_value=12, required=False, help_text="bet: the seat betting")
    spectator = WholeNumberField(
        min_value=1, max_value=MAX_ID, required=False, help_text="bet: the spectator (id) betting"
    )
    card = serializers.CharField(max_length=8, required=False, help_text="card_to_*: e.g. 9H, TD, 10d")
    callers = CallerIn(many=True, required=False, help_text="banco: everybody who called it")
    seated_round_over = serializers.BooleanField(
        required=False,
        help_text="a spectator's bet: every seated punter has had a turn (those who did not bet pass)",
    )
    consent = serializers.BooleanField(
        required=False, help_text="a spectator's bet where the profile asks for it: the banker consents"
    )
    confirm = serializers.BooleanField(
        required=False, default=False, help_text="record a step that breaks the rules (it happened)"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        allowed = STEP_FIELDS.get(attrs["kind"], frozenset())
        extra = [name for name in _OPTIONAL_STEP_FIELDS if name in attrs and name not in allowed]
        if extra:
            raise serializers.ValidationError(
                {name: [f"A {attrs['kind']} step does not take this field."] for name in extra}
            )
        return attrs


class AmendIn(StrictSerializer):
    """A mistyped bet or card, amended before the reveal: give what changes (a bet: ``amount``
    and/or ``seat``/``spectator``; a card: ``card``) and why."""

    step = WholeNumberField(
        min_value=0,
        max_value=MAX_ID,
        required=False,
        allow_null=True,
        default=None,
        help_text="the coup's step count as the client last saw it (409 if stale)",
    )
    amount = chips(required=False, allow_null=True, default=None, help_text="bet: the amount really bet")
    seat = WholeNumberField(
        min_value=1,
        max_value=12,
        required=False,
        allow_null=True,
        default=None,
        help_text="bet: who really bet",
    )
    spectator = WholeNumberField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        allow_null=True,
        default=None,
        help_text="bet: the spectator (id) who really bet",
    )
    card = serializers.CharField(
        max_length=8, required=False, allow_null=True, default=None, help_text="card: the card really dealt"
    )
    reason = serializers.CharField(max_length=200, help_text="why the step is amended (required)")
    confirm = serializers.BooleanField(
        required=False, default=False, help_text="a later step now breaks the rules: it happened"
    )


class CorrectionIn(StrictSerializer):
    cards = serializers.ListField(
        child=serializers.CharField(max_length=8),
        required=False,
        default=list,
        max_length=6,
        help_text="the cards dealt from the shoe to complete the restored game, in order",
    )


class RejectIn(StrictSerializer):
    reason = serializers.CharField(max_length=500)


class BankWithdrawIn(StrictSerializer):
    step = WholeNumberField(
        min_value=0,
        max_value=MAX_ID,
        required=False,
        help_text="the coup's step count as the client last saw it (409 if stale)",
    )


# ------------------------------------------------------------- the older games (tables.services.game_coups)
class TextField(serializers.CharField):
    """A JSON string: ``9`` and ``true`` are refused rather than turned into ``"9"``/``"True"``."""

    default_error_messages = {"invalid": "A string is required."}

    def to_internal_value(self, data: Any) -> str:
        if type(data) is not str:
            self.fail("invalid")
        return str(super().to_internal_value(data))


#: the keys each game's step kinds take besides ``kind`` (docs/games/, tables.rules.game_play): the
#: shape of a step, so a key the game would ignore is refused instead of being stored with the step
GAME_STEP_FIELDS: dict[str, dict[str, frozenset[str]]] = {
    "macao": {
        "deal": frozenset({"card"}),
        "draw": frozenset({"card"}),
        "discard": frozenset({"card"}),
        "stand": frozenset(),
    },
    "landsknecht": {
        "stake": frozenset({"amount"}),
        "cover": frozenset({"player", "amount"}),
        "consent": frozenset({"player"}),
        "close": frozenset(),
        "card": frozenset({"card"}),
        "decide": frozenset({"decision"}),
    },
    "old-baccarat": {
        "stake": frozenset({"player", "amount"}),
        "cut": frozenset({"player"}),
        "card": frozenset({"card"}),
        "draw": frozenset({"player"}),
        "stand": frozenset({"player"}),
        "permit": frozenset({"player"}),
        "leave": frozenset({"player"}),
    },
}
GAME_STEP_KINDS = sorted({kind for kinds in GAME_STEP_FIELDS.values() for kind in kinds})
_GAME_STEP_OPTIONAL = ("player", "card", "amount", "decision")


class CardField(TextField):
    """A card as people type it (``9h``, ``td``, ``10D``), read into its code (``9H``, ``TD``)."""

    def to_internal_value(self, data: Any) -> str:
        try:
            return parse_card(super().to_internal_value(data))
        except CardError as exc:
            raise serializers.ValidationError(str(exc)) from None


class PlayerIdField(serializers.PrimaryKeyRelatedField):
    """A player named by his id, a JSON integer (``1.5``, ``"1"`` and ``true`` are no ids)."""

    def to_internal_value(self, data: Any) -> Any:
        if type(data) is not int:
            self.fail("incorrect_type", data_type=type(data).__name__)
        if not 1 <= data <= MAX_ID:
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


class GameCoupStartIn(StrictSerializer):
    banker = PlayerIdField(
        queryset=Player.objects.all(),
        required=False,
        allow_null=True,
        default=None,
        help_text="a seated player (id) to bank instead of the one the game sends the bank to",
    )


class GameStepIn(StrictSerializer):
    """A step of a Macao, Landsknecht or old baccarat coup (docs/games/): ``kind`` and the keys
    that kind takes in the coup's game (a ``next_steps`` option's ``step`` plus what it says to
    ``choose``); whether the step is legal now is the game machine's to say."""

    expected_steps = WholeNumberField(
        min_value=0,
        max_value=MAX_ID,
        help_text="the coup's step_count as the client last saw it (409 if stale)",
    )
    kind = serializers.ChoiceField(choices=GAME_STEP_KINDS)
    player = TextField(max_length=40, required=False, help_text="the player's key, e.g. player-12")
    card = CardField(max_length=8, required=False, help_text="e.g. 9H, TD, 10d")
    amount = chips(required=False, help_text="stake or cover")
    decision = serializers.ChoiceField(
        choices=["take", "again"], required=False, help_text="Landsknecht: the winning banker's decision"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        allowed = GAME_STEP_FIELDS.get(self.context.get("game", ""), {}).get(attrs["kind"])
        if allowed is not None:  # a kind the game does not know: its machine says so
            extra = [name for name in _GAME_STEP_OPTIONAL if name in attrs and name not in allowed]
            if extra:
                raise serializers.ValidationError(
                    {name: [f"A {attrs['kind']} step does not take this field."] for name in extra}
                )
        return attrs


class GameUndoIn(StrictSerializer):
    expected_steps = WholeNumberField(
        min_value=0,
        max_value=MAX_ID,
        help_text="the coup's step_count as the client last saw it (409 if stale)",
    )
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, help_text="optional")


class GameVoidIn(StrictSerializer):
    reason = serializers.CharField(max_length=300, help_text="why the coup is void (required)")


class GameCoupsQueryIn(serializers.Serializer):
    """The query of the game coups' list (``page`` is the paginator's)."""

    table = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text="a table's id")
    session = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="a session's id"
    )

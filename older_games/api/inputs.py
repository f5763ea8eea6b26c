"""What the older games' API reads (docs/api.md, "The older games"): strict, so a key the game
would ignore is refused instead of being stored with the step."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.api.inputs import (
    MAX_ID,
    IdField,
    StrictSerializer,
    TextChoiceField,
    TextField,
    WholeNumberField,
    chips,
    step_fields_check,
)
from core.cards import CardError, parse_card
from tables.models import Player

# ------------------------------------------------------------- the older games (older_games.services)
#: the keys each game's step kinds take besides ``kind`` (docs/games/, older_games.engine.game_play): the
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
    """A card as people type it (``9h``, ``td``, ``10D``), read into its code (``9H``, ``TD``);
    TextField has refused it by its length first, so what a refusal quotes is a few characters."""

    def to_internal_value(self, data: Any) -> str:
        try:
            return parse_card(super().to_internal_value(data))
        except CardError as exc:
            raise serializers.ValidationError(str(exc)) from None


class GameCoupStartIn(StrictSerializer):
    banker = IdField(
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
    kind = TextChoiceField(choices=GAME_STEP_KINDS)
    player = TextField(max_length=40, required=False, help_text="the player's key, e.g. player-12")
    card = CardField(max_length=8, required=False, help_text="e.g. 9H, TD, 10d")
    amount = chips(required=False, help_text="stake or cover")
    decision = TextChoiceField(
        choices=["take", "again"], required=False, help_text="Landsknecht: the winning banker's decision"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        allowed = GAME_STEP_FIELDS.get(self.context.get("game", ""), {}).get(attrs["kind"])
        if allowed is not None:  # a kind the game does not know: its machine says so
            step_fields_check(attrs, optional=_GAME_STEP_OPTIONAL, allowed=allowed)
        return attrs


class GameUndoIn(StrictSerializer):
    expected_steps = WholeNumberField(
        min_value=0,
        max_value=MAX_ID,
        help_text="the coup's step_count as the client last saw it (409 if stale)",
    )
    reason = TextField(max_length=200, required=False, allow_blank=True, help_text="optional")


class GameVoidIn(StrictSerializer):
    reason = TextField(max_length=300, help_text="why the coup is void (required)")


class GameCoupsQueryIn(serializers.Serializer):
    """The query of the game coups' list (``page`` is the paginator's)."""

    table = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text="a table's id")
    session = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="a session's id"
    )

"""The REST API's shapes: what a request may carry (input) and what a response holds (output).

No business logic here: inputs are checked for shape only (types, ranges, which keys a step kind
takes); whether a step, a bet or a card is allowed is the services' and the engine's business.
Outputs are built from the selectors' read models by the ``*_data`` functions, then rendered by
the output serializers (which also document them in the OpenAPI schema).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rest_framework import serializers

from tables.models import CoupStep, Player
from tables.rules.coup import CoupRecord, NeedsCards, Restored, Violation
from tables.rules.interchange import restored_to_dict
from tables.rules.machine import Move
from tables.selectors import CoupView

#: the largest number of chips a request may name (PostgreSQL ``integer``)
MAX_CHIPS = 2_147_483_647
#: the largest id a request may name (``BigAutoField``)
MAX_ID = 2**63 - 1
#: decimal places of the advice's expectations (rounded half-even from the exact fraction)
EV_PLACES = 8


# ============================================================================================ input
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
    amount = chips(help_text="his part of the new bank")


class BankShareOutIn(StrictSerializer):
    spectator = WholeNumberField(min_value=1, help_text="the spectator (id) taking his share out")


class CoupStartIn(StrictSerializer):
    bank = chips(help_text="the bank the banker declares (the coup's first step)")


class CallerIn(StrictSerializer):
    seat = WholeNumberField(min_value=1, max_value=12, required=False, allow_null=True, default=None)
    spectator = WholeNumberField(min_value=1, max_value=MAX_ID, required=False, allow_null=True, default=None)
    suivi = serializers.BooleanField(required=False, default=False)


#: the keys each step kind takes besides ``step``, ``kind`` and ``confirm``
STEP_FIELDS: dict[str, frozenset[str]] = {
    Move.BET: frozenset({"amount", "seat", "spectator"}),
    Move.BANCO: frozenset({"callers"}),
    Move.CARD_TO_PLAYER: frozenset({"card"}),
    Move.CARD_TO_BANKER: frozenset({"card"}),
}
STEP_KINDS = [k.value for k in Move if k is not Move.BANK_DECLARED]
_OPTIONAL_STEP_FIELDS = ("amount", "seat", "spectator", "card", "callers")


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


# =========================================================================================== output
class ErrorOut(serializers.Serializer):
    detail = serializers.CharField()


class ConflictOut(ErrorOut):
    current_step = serializers.IntegerField(allow_null=True)


class ViolationOut(serializers.Serializer):
    code = serializers.CharField()
    side = serializers.CharField(help_text="player, banker or punters")
    detail = serializers.CharField(allow_blank=True)


class UnprocessableOut(ErrorOut):
    code = serializers.ChoiceField(choices=["confirmation_required", "idempotency_key_reused"])
    violation = ViolationOut(required=False, help_text="confirmation_required: what the step breaks")


class PlayerOut(serializers.Serializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()
    membership_number = serializers.CharField(allow_blank=True)


class SeatOut(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    player = PlayerOut()
    joined_at = serializers.DateTimeField()


class SpectatorOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="the id a bet or banco names")
    player = PlayerOut()
    joined_at = serializers.DateTimeField()


class SessionOut(serializers.Serializer):
    id = serializers.IntegerField()
    opened_at = serializers.DateTimeField()
    opened_by = serializers.CharField()
    paused = serializers.BooleanField()
    paused_since = serializers.DateTimeField(allow_null=True)


class AlarmOut(serializers.Serializer):
    kind = serializers.CharField()
    card = serializers.CharField(allow_blank=True)
    detail = serializers.CharField()
    coup = serializers.IntegerField(allow_null=True)
    raised_at = serializers.DateTimeField()


class ShoeOut(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    decks = serializers.IntegerField()
    cards_dealt = serializers.IntegerField(help_text="every card seen, burnt cards included")
    cards_left = serializers.IntegerField()
    stop_card_position = serializers.IntegerField(allow_null=True)
    stop_reached = serializers.BooleanField()
    alarm = serializers.BooleanField()
    alarms = AlarmOut(many=True)


class BankTurnOut(serializers.Serializer):
    id = serializers.IntegerField()
    player = PlayerOut()
    seat = serializers.IntegerField()
    started_how = serializers.CharField()
    started_at = serializers.DateTimeField()
    required_minimum = serializers.IntegerField(help_text="the smallest bank he may declare next")


class BankRotationOut(serializers.Serializer):
    how = serializers.CharField(help_text="acceptance, rotation or passed")
    required_minimum = serializers.IntegerField()
    order = serializers.ListField(child=serializers.IntegerField(), help_text="seat numbers in rotation")
    candidates = serializers.ListField(child=serializers.IntegerField(), help_text="not refused yet")
    offer_to = serializers.IntegerField(allow_null=True, help_text="the seat that answers now")


class TableSummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    casino = serializers.CharField()
    profile = serializers.CharField()
    seat_count = serializers.IntegerField()
    state = serializers.CharField()
    first_banker_method = serializers.CharField()


class TableOut(TableSummaryOut):
    session = SessionOut(allow_null=True)
    seats = SeatOut(many=True)
    spectators = SpectatorOut(many=True)
    shoe = ShoeOut(allow_null=True)
    bank = BankTurnOut(allow_null=True, help_text="who holds the bank")
    bank_rotation = BankRotationOut(allow_null=True, help_text="while nobody holds the bank")
    current_coup = serializers.IntegerField(allow_null=True, help_text="open or awaiting correction")
    last_coup = serializers.IntegerField(allow_null=True)


class BetOut(serializers.Serializer):
    punter = serializers.CharField(help_text="seat-N or spectator-ID")
    amount = serializers.IntegerField()
    spectator = serializers.BooleanField()


class NextStepOut(serializers.Serializer):
    kind = serializers.CharField()
    violation = ViolationOut(allow_null=True, help_text="what recording it would break (confirm needed)")


class RequirementOut(serializers.Serializer):
    side = serializers.ChoiceField(choices=["player", "banker"])
    requirement = serializers.ChoiceField(choices=["draw", "stand", "option"])


class AdviceOut(serializers.Serializer):
    chooser = serializers.CharField()
    choice = serializers.CharField(help_text="draw or stand")
    ev_draw = serializers.CharField(help_text=f"decimal string, {EV_PLACES} places, per unit staked")
    ev_stand = serializers.CharField(help_text=f"decimal string, {EV_PLACES} places, per unit staked")
    basis = serializers.CharField(help_text="shoe or infinite")
    assumption = serializers.CharField()


class StepViolationOut(ViolationOut):
    step = serializers.IntegerField()


class SettlementOut(serializers.Serializer):
    covered = serializers.IntegerField()
    uncovered = serializers.IntegerField()
    tax = serializers.IntegerField()
    banker_net = serializers.IntegerField()
    punters = serializers.DictField(child=serializers.IntegerField())
    next_bank_min = serializers.IntegerField(allow_null=True)


class RestorationOut(serializers.Serializer):
    """Either the restored coup or ``needs_cards`` (how many more cards the shoe must supply)."""

    player_cards = serializers.ListField(child=serializers.CharField(), required=False)
    banker_cards = serializers.ListField(child=serializers.CharField(), required=False)
    player_total = serializers.IntegerField(required=False)
    banker_total = serializers.IntegerField(required=False)
    outcome = serializers.CharField(required=False)
    void_cards = serializers.ListField(child=serializers.CharField(), required=False)
    needs_cards = serializers.IntegerField(required=False)


class VerdictOut(serializers.Serializer):
    id = serializers.CharField(allow_null=True)
    player_total = serializers.IntegerField()
    banker_total = serializers.IntegerField()
    outcome = serializers.CharField()
    violations = ViolationOut(many=True)
    settlement = SettlementOut(allow_null=True)
    restored = RestorationOut(allow_null=True)


class StepOut(serializers.Serializer):
    index = serializers.IntegerField()
    kind = serializers.CharField()
    payload = serializers.JSONField()
    violations = serializers.ListField(child=serializers.CharField())
    corrects = serializers.IntegerField(allow_null=True, help_text="index of the step it corrects")
    actor = serializers.CharField()
    created_at = serializers.DateTimeField()


class CardsOut(serializers.Serializer):
    player = serializers.ListField(child=serializers.CharField())
    banker = serializers.ListField(child=serializers.CharField())


class ActionsOut(serializers.Serializer):
    player = serializers.CharField(allow_null=True)
    banker = serializers.CharField(allow_null=True)


class CoupOut(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    shoe = serializers.IntegerField()
    shoe_number = serializers.IntegerField()
    number = serializers.IntegerField()
    state = serializers.CharField(help_text="open, awaiting_correction, awaiting_approval, settled")
    phase = serializers.CharField(help_text="the engine's phase: betting, dealing, player_to_act, ...")
    step_count = serializers.IntegerField(help_text="send it back as `step` with the next step")
    bank = serializers.IntegerField()
    banker = serializers.IntegerField(help_text="player id")
    banker_seat = serializers.IntegerField()
    first_coup_of_bank = serializers.BooleanField()
    flagged = serializers.BooleanField()
    alarm = serializers.BooleanField()
    covered = serializers.IntegerField()
    uncovered = serializers.IntegerField()
    banco = serializers.BooleanField()
    bets = BetOut(many=True, help_text="the live bets, in betting order")
    cards = CardsOut()
    actions = ActionsOut()
    requirement = RequirementOut(allow_null=True, help_text="what the tableau requires of who acts now")
    next_steps = NextStepOut(many=True)
    advice = AdviceOut(allow_null=True, help_text="the engine's advice at an option point")
    violations = StepViolationOut(many=True)
    verdict = VerdictOut(allow_null=True, help_text="as recorded at the reveal")
    restoration = RestorationOut(allow_null=True, help_text="while the coup awaits its correction")
    correction = StepOut(allow_null=True, help_text="the latest correction submitted")
    steps = StepOut(many=True)
    created_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)


class StepResultOut(serializers.Serializer):
    step = StepOut(help_text="the step just recorded")
    coup = CoupOut(help_text="the coup after it")


class PendingCorrectionOut(serializers.Serializer):
    coup = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    shoe_number = serializers.IntegerField()
    coup_number = serializers.IntegerField()
    bank = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    correction = StepOut(allow_null=True)


class HandOut(serializers.Serializer):
    cards = serializers.ListField(child=serializers.CharField())
    action = serializers.CharField()


class RecordBetOut(BetOut):
    pass


class CoupRecordOut(serializers.Serializer):
    """docs/coup-record.md: what ``manage.py validate_coups`` reads."""

    id = serializers.CharField()
    profile = serializers.CharField()
    bank = serializers.IntegerField()
    bets = RecordBetOut(many=True)
    banco = serializers.BooleanField()
    first_coup_of_bank = serializers.BooleanField()
    player = HandOut()
    banker = HandOut()
    shoe_next = serializers.ListField(child=serializers.CharField())
    house_limit = serializers.IntegerField(allow_null=True)
    chip_unit = serializers.IntegerField()
    active_punter = serializers.CharField(allow_null=True)


# ============================================================================ read models → data
def violation_data(v: Violation) -> dict[str, str]:
    return {"code": v.code.value, "side": v.side, "detail": v.detail}


def decimal_string(value: Fraction, places: int = EV_PLACES) -> str:
    """An exact fraction as a decimal string, rounded half-even at ``places`` (no float on the way)."""
    scaled = round(value * 10**places)  # Fraction.__round__: exact, half-even
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def step_data(step: CoupStep, index_of: Mapping[int, int] | None = None) -> dict[str, Any]:
    corrects = None
    if step.corrects_id is not None:
        corrects = (index_of or {}).get(step.corrects_id)
        if corrects is None:
            corrects = step.corrects.index
    return {
        "index": step.index,
        "kind": step.kind,
        "payload": step.payload,
        "violations": list(step.violations),
        "corrects": corrects,
        "actor": step.actor.get_username(),
        "created_at": step.created_at,
    }


def restoration_data(restoration: Restored | NeedsCards | None) -> dict[str, Any] | None:
    return restored_to_dict(restoration)


def coup_data(view: CoupView) -> dict[str, Any]:
    coup, state = view.coup, view.state
    index_of = {s.pk: s.index for s in view.steps}
    advice = view.advice
    return {
        "id": coup.pk,
        "table": coup.shoe.table_id,
        "shoe": coup.shoe_id,
        "shoe_number": coup.shoe.number,
        "number": coup.number,
        "state": coup.state,
        "phase": state.phase.value,
        "step_count": coup.step_count,
        "bank": coup.bank,
        "banker": coup.banker_id,
        "banker_seat": coup.bank_turn.seat.number,
        "first_coup_of_bank": coup.first_coup_of_bank,
        "flagged": coup.flagged,
        "alarm": coup.alarm,
        "covered": state.covered,
        "uncovered": state.uncovered,
        "banco": state.banco,
        "bets": [{"punter": b.punter, "amount": b.amount, "spectator": b.spectator} for b in state.bets],
        "cards": {"player": list(state.player_cards), "banker": list(state.banker_cards)},
        "actions": {
            "player": state.player_action.value if state.player_action else None,
            "banker": state.banker_action.value if state.banker_action else None,
        },
        "requirement": (
            {"side": view.requirement[0], "requirement": view.requirement[1].value}
            if view.requirement
            else None
        ),
        "next_steps": [
            {"kind": n.kind.value, "violation": violation_data(n.violation) if n.violation else None}
            for n in view.next_steps
        ],
        "advice": (
            {
                "chooser": advice.chooser,
                "choice": advice.choice.value,
                "ev_draw": decimal_string(advice.ev_draw),
                "ev_stand": decimal_string(advice.ev_stand),
                "basis": advice.basis,
                "assumption": advice.assumption,
            }
            if advice
            else None
        ),
        "violations": [{"step": n, **violation_data(v)} for n, v in state.violations],
        "verdict": view.verdict,
        "restoration": restoration_data(view.restoration),
        "correction": step_data(view.correction, index_of) if view.correction else None,
        "steps": [step_data(s, index_of) for s in view.steps],
        "created_at": coup.created_at,
        "settled_at": coup.settled_at,
    }


def coup_record_data(record: CoupRecord) -> dict[str, Any]:
    """A ``CoupRecord`` as the interchange format's JSON object (docs/coup-record.md)."""
    return {
        "id": record.id,
        "profile": record.profile,
        "bank": record.bank,
        "bets": [{"punter": b.punter, "amount": b.amount, "spectator": b.spectator} for b in record.bets],
        "banco": record.banco,
        "first_coup_of_bank": record.first_coup_of_bank,
        "player": {"cards": list(record.player.cards), "action": record.player.action.value},
        "banker": {"cards": list(record.banker.cards), "action": record.banker.action.value},
        "shoe_next": list(record.shoe_next),
        "house_limit": record.house_limit,
        "chip_unit": record.chip_unit,
        "active_punter": record.active_punter,
    }

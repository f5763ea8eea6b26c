"""What a response of the REST API holds: the output serializers.

Responses are built by the ``*_data`` functions of tables.api.read_models; these serializers
document them in the OpenAPI schema (their class names are the schema's component names), and a
test checks that every answer renders through its serializer unchanged.
"""

from __future__ import annotations

from rest_framework import serializers

#: decimal places of the advice's expectations (rounded half-even from the exact fraction)
EV_PLACES = 8


from core.api.outputs import ConflictOut, ErrorOut, UnprocessableOut, ViolationOut  # noqa: E402

__all__ = ["ConflictOut", "ErrorOut", "UnprocessableOut", "ViolationOut"]


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
    player = PlayerOut(help_text="the house player (display name House) when the house banks")
    seat = serializers.IntegerField(allow_null=True, help_text="null when the house banks")
    house = serializers.BooleanField(help_text="the house banks: the croupier plays its bank hand")
    started_how = serializers.CharField(
        help_text="lot, auction, acceptance, rotation, passed, new_bank, house"
    )
    started_at = serializers.DateTimeField()
    required_minimum = serializers.IntegerField(help_text="the smallest bank the banker may declare next")


class BankRotationOut(serializers.Serializer):
    how = serializers.CharField(help_text="acceptance, rotation or passed")
    required_minimum = serializers.IntegerField(help_text="the smallest bank the taker in turn may put up")
    maximum = serializers.IntegerField(allow_null=True, help_text="the largest: the house limit (null: none)")
    auction_bank = serializers.IntegerField(
        allow_null=True,
        help_text="a passed bank at a table that auctions it: the one bank it takes (the bank just played)",
    )
    order = serializers.ListField(child=serializers.IntegerField(), help_text="seat numbers in rotation")
    candidates = serializers.ListField(child=serializers.IntegerField(), help_text="not refused yet")
    offer_to = serializers.IntegerField(allow_null=True, help_text="the seat that answers now")


class TableSummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField(
        help_text="chemin-de-fer, or an older game (macao, landsknecht, old-baccarat: tables/{id}/game/)"
    )
    casino = serializers.CharField()
    profile = serializers.CharField()
    seat_count = serializers.IntegerField()
    state = serializers.CharField()
    first_banker_method = serializers.CharField()
    house_bank = serializers.BooleanField(help_text="the house may bank this table")
    passed_bank_auction = serializers.BooleanField(help_text="a passed bank may go by informal auction")


class TableOut(TableSummaryOut):
    game_settings = serializers.JSONField(help_text="the older game's house settings (docs/games/)")
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
    supersedes = serializers.IntegerField(
        allow_null=True, help_text="an amend step: index of the mistyped step it replaces"
    )
    superseded_by = serializers.IntegerField(
        allow_null=True, help_text="index of the amend step that replaced this one (it no longer counts)"
    )
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
    state = serializers.CharField(
        help_text="open, awaiting_correction, awaiting_approval, settled, void, withdrawn"
    )
    phase = serializers.CharField(help_text="the engine's phase: betting, dealing, player_to_act, ...")
    step_count = serializers.IntegerField(help_text="send it back as `step` with the next step")
    bank = serializers.IntegerField()
    banker = serializers.IntegerField(help_text="player id (the house player when the house banks)")
    banker_seat = serializers.IntegerField(allow_null=True, help_text="null when the house banks")
    house_bank = serializers.BooleanField(help_text="the house banks this coup")
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


class VoidRequestOut(serializers.Serializer):
    """A void waiting for (or decided by) a second pit boss (docs/api.md, "Voids above the limit")."""

    id = serializers.IntegerField()
    state = serializers.ChoiceField(choices=["pending", "approved", "refused", "lapsed"])
    casino = serializers.IntegerField()
    coup = serializers.IntegerField(allow_null=True, help_text="a chemin de fer coup")
    game_coup = serializers.IntegerField(allow_null=True, help_text="an older game's coup")
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    coup_number = serializers.IntegerField()
    stakes = serializers.IntegerField(help_text="chips at stake in the coup when the void was asked")
    limit = serializers.IntegerField(help_text="the casino's limit for one pit boss then")
    reason = serializers.CharField()
    requested_by = serializers.CharField()
    requested_at = serializers.DateTimeField()
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField(allow_blank=True)
    detail = serializers.CharField(help_text="what happens next, in a sentence")


class HandOut(serializers.Serializer):
    cards = serializers.ListField(child=serializers.CharField())
    action = serializers.CharField()


class RecordBetOut(serializers.Serializer):
    punter = serializers.CharField(help_text="seat-N or spectator-ID")
    amount = serializers.IntegerField()
    spectator = serializers.BooleanField(required=False, help_text="present (true) only on a spectator's bet")


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
    # optional keys are written only when they differ from the format's default
    house_limit = serializers.IntegerField(required=False, help_text="absent: no house limit")
    chip_unit = serializers.IntegerField(required=False, help_text="absent: 1")
    active_punter = serializers.CharField(required=False, help_text="absent: not checked")
    banco_suivi = serializers.BooleanField(
        required=False, help_text="present (true) only when the banco caller claimed the suivi"
    )

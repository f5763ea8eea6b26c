"""What the older games' API answers, for the schema (docs/api.md, "The older games")."""

from __future__ import annotations

from rest_framework import serializers


# ------------------------------------------------------------- the older games (older_games.selectors)
class PartyOut(serializers.Serializer):
    key = serializers.CharField(help_text="how steps and records name the party: player-<id>, fund, pool")
    player = serializers.IntegerField(allow_null=True, help_text="the player's id (null: the fund, the pool)")
    name = serializers.CharField()


class SeatedOut(PartyOut):
    seat = serializers.IntegerField()


class GameStepTemplateOut(serializers.Serializer):
    kind = serializers.CharField()
    player = serializers.CharField(required=False, help_text="where the step names its player")


class GameNextStepOut(serializers.Serializer):
    """A kind of step legal now (older_games.engine.game_play.Option): send ``step`` with one value
    added for each name in ``choose`` (``card`` from ``cards``, ``amount`` from ``amounts`` or
    any in ``min_amount``..``max_amount``, ``decision`` from ``choices``) and ``expected_steps``.
    ``min_amount`` null: only the listed ``amounts``; ``max_amount`` null: no upper bound."""

    kind = serializers.CharField()
    step = GameStepTemplateOut(help_text="the step's fixed keys: kind, and player where it takes one")
    choose = serializers.ListField(child=serializers.CharField(), help_text="card, amount, decision")
    player = serializers.CharField(required=False, help_text="who makes the step or receives the card")
    player_name = serializers.CharField(required=False)
    cards = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="the cards the shoe can still hold"
    )
    amounts = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="the usual amounts"
    )
    min_amount = serializers.IntegerField(
        required=False, allow_null=True, help_text="null: only the amounts listed"
    )
    max_amount = serializers.IntegerField(required=False, allow_null=True, help_text="null: no upper bound")
    choices = serializers.ListField(child=serializers.CharField(), required=False)
    newcomer = serializers.BooleanField(
        required=False,
        help_text="old baccarat: the player has no part in the coup yet (seated since it began, or "
        "without a stake before the cut): a stake before the cut, or the banker's permission after it",
    )


class GameStepOut(serializers.Serializer):
    index = serializers.IntegerField()
    payload = serializers.JSONField()
    actor = serializers.CharField()
    created_at = serializers.DateTimeField()
    undone = serializers.BooleanField(help_text="taken back by a later undo step (or an undo step itself)")


class PostingEntryOut(serializers.Serializer):
    account = serializers.IntegerField()
    kind = serializers.CharField(help_text="player, fund or pool")
    party = serializers.CharField(help_text="player-<id>, fund or pool")
    amount = serializers.IntegerField(help_text="chips into the account (+) or out of it (-)")


class PostingOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField(help_text="game_settlement, pool_in or pool_out")
    memo = serializers.CharField(allow_blank=True)
    entries = PostingEntryOut(many=True)


class GameCoupSummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    session = serializers.IntegerField()
    number = serializers.IntegerField()
    game = serializers.CharField()
    state = serializers.CharField(help_text="open, settled or void")
    outcome = serializers.CharField(allow_blank=True, help_text="banker, punters, split, ... once settled")
    banker = PartyOut()
    step_count = serializers.IntegerField(help_text="send it back as `expected_steps` with the next step")
    created_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class GameCoupOut(GameCoupSummaryOut):
    title = serializers.CharField()
    house_settings = serializers.JSONField()
    punters = PartyOut(many=True, help_text="from the banker's left")
    names = serializers.DictField(child=serializers.CharField(), help_text="key -> name")
    hands = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    cards = serializers.ListField(child=serializers.CharField(), help_text="every card seen, in order")
    exposure = serializers.DictField(
        child=serializers.IntegerField(), help_text="what each player could still lose, by key ({} once over)"
    )
    next_steps = GameNextStepOut(many=True, help_text="empty once the coup is over")
    steps = GameStepOut(many=True)
    can_undo = serializers.BooleanField(help_text="the last step still in effect may be taken back")
    net = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True, help_text="once settled: each party's net, by key"
    )
    postings = PostingOut(many=True, help_text="once settled: the ledger's transactions")
    record = serializers.JSONField(allow_null=True, help_text="once settled: the coup record")
    void_reason = serializers.CharField(allow_blank=True)


class FundShareOut(PartyOut):
    amount = serializers.IntegerField(help_text="chips given back to this payer")


class GameTableOut(serializers.Serializer):
    table = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    title = serializers.CharField()
    game_settings = serializers.JSONField()
    session = serializers.IntegerField(allow_null=True)
    seats = SeatedOut(many=True)
    proposed_banker = PartyOut(allow_null=True, help_text="who banks the next coup (null: blocked)")
    proposed_punters = PartyOut(many=True)
    blocked = serializers.CharField(allow_blank=True, help_text="why no coup can start now ('' if one can)")
    unpaid_dues = PartyOut(many=True, help_text="Landsknecht: seated players who have not paid the fund")
    fund = serializers.IntegerField(allow_null=True, help_text="Landsknecht: the reserve fund's chips")
    fund_return = FundShareOut(
        many=True, help_text="Landsknecht: what closing the session gives back of the fund, payer by payer"
    )
    open_coup = serializers.IntegerField(allow_null=True)
    recent = GameCoupSummaryOut(many=True, help_text="the latest coups, newest first")

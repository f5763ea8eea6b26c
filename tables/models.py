"""Tables, sessions, shoes and coups: data and the database constraints that guard it.

Every invariant that one row (or one table, through a partial unique index) can express lives
here as a constraint, so no code path, admin or raw SQL included, can store a bad row. Rules that
span tables (a seat number within the table's seat count, a shoe's table matching its session's)
are enforced by tables.services. Chips are integers everywhere.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy

from chemin_de_fer.engine import profiles as engine
from chemin_de_fer.engine.machine import Move
from core.model_kit import (
    check_constraint,
    set_once_unique,
    set_only_index,
    staff_reference,
    unique_constraint,
)
from tables.games import wing_for
from tables.gaming_day import validate_time_zone
from tables.perms import COUP_PERMISSIONS
from tables.profile_columns import ENGINE_ENUM_FIELDS, profile_from_columns

if TYPE_CHECKING:
    from chemin_de_fer.engine.judge import Rules

CARD_CODE_REGEX = r"^[A2-9TJQK][SHDC]$"


def _choices(enum: type[StrEnum]) -> list[tuple[str, str]]:
    return [(m.value, m.value.replace("_", " ")) for m in enum]


def _one_of(field: str, choices: Any) -> Q:
    values = [value for value, _label in (choices.choices if hasattr(choices, "choices") else choices)]
    return Q(**{f"{field}__in": values})


def _empty_or(field: str, lookup: str, value: Any) -> Q:
    """``field`` empty, or else ``field__<lookup> value``: an optional limit, or an end that is not
    there yet (still open) or comes after its start."""
    return Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__{lookup}": value})


def _both_or_neither(first: str, second: str) -> Q:
    """``first`` and ``second`` are set together (a closing and who closed, an amount and when)."""
    return Q(**{f"{first}__isnull": True, f"{second}__isnull": True}) | Q(
        **{f"{first}__isnull": False, f"{second}__isnull": False}
    )


def _exactly_one(first: str, second: str) -> Q:
    """One of ``first`` and ``second`` is set, not both and not neither."""
    return Q(**{f"{first}__isnull": False, f"{second}__isnull": True}) | Q(
        **{f"{first}__isnull": True, f"{second}__isnull": False}
    )


def _end_reason(reasons: Any) -> Q:
    """A row that ended (``ended_at``) says why, with one of ``reasons``; a running one says nothing."""
    ended = Q(ended_at__isnull=False) & _one_of("end_reason", reasons)
    return Q(ended_at__isnull=True, end_reason="") | ended


# --------------------------------------------------------------------------------------------- casino


class CasinoLevyMode(models.TextChoices):
    PERCENTAGE = "percentage"
    HOURLY_FEE = "hourly_fee", "hourly fee"
    NONE = "none"


class CasinoRounding(models.TextChoices):
    DOWN = "down"
    NEAREST = "nearest"


class HourlyFeeBasis(models.TextChoices):
    PER_PLAYER_HOUR = "per_player_hour", "per player-hour"
    PER_TABLE_HOUR = "per_table_hour", "per table-hour"


class HourlyFeeBilling(models.TextChoices):
    STARTED_HOUR = "started_hour", "every started hour"
    PRO_RATA = "pro_rata", "pro rata"


class Casino(models.Model):
    LevyMode = CasinoLevyMode
    Rounding = CasinoRounding
    FeeBasis = HourlyFeeBasis
    FeeBilling = HourlyFeeBilling

    name = models.CharField(max_length=120, unique=True)
    currency_label = models.CharField(max_length=20, default="chips")
    chip_unit = models.PositiveIntegerField(default=1, help_text="smallest chip; taxes round to it")
    house_limit = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="largest bank staked; empty = none"
    )
    levy_mode = models.CharField(max_length=20, choices=LevyMode.choices, default=LevyMode.PERCENTAGE)
    levy_rate_bp = models.PositiveIntegerField(default=500, help_text="basis points: 500 = 5 %")
    levy_rounding = models.CharField(max_length=10, choices=Rounding.choices, default=Rounding.DOWN)
    hourly_fee_amount = models.PositiveIntegerField(default=0)
    hourly_fee_basis = models.CharField(
        max_length=20, choices=FeeBasis.choices, default=FeeBasis.PER_PLAYER_HOUR
    )
    hourly_fee_billing = models.CharField(
        max_length=20, choices=FeeBilling.choices, default=FeeBilling.STARTED_HOUR
    )
    card_money_amount = models.PositiveIntegerField(default=0)
    # Separation of duties for voids (issue 20): above this many chips at stake in a coup, a pit
    # boss's void waits for a second pit boss (tables.services.voids); empty: one pit boss voids.
    void_second_approval_above = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="a void of a coup with more chips at stake waits for a second pit boss; empty = never",
    )
    # The gaming day: a night's play belongs to the day it started, so the day ends at the cut-off
    # (06:00 by default) in the casino's own time zone, not at midnight UTC (tables/gaming_day.py).
    gaming_day_cutoff = models.TimeField(default=dt.time(6, 0), help_text="local time the gaming day ends")
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        validators=[validate_time_zone],
        help_text="IANA name, e.g. Europe/Paris",
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            check_constraint(
                Q(chip_unit__gt=0), "casino_chip_unit_positive", "The chip unit must be positive."
            ),
            check_constraint(
                _empty_or("house_limit", "gt", 0),
                "casino_house_limit_positive",
                "The house limit must be positive (or empty for none).",
            ),
            check_constraint(
                _one_of("levy_mode", CasinoLevyMode), "casino_levy_mode_valid", "Unknown levy mode."
            ),
            check_constraint(
                Q(levy_rate_bp__gte=0) & Q(levy_rate_bp__lte=10_000),
                "casino_levy_rate_range",
                "The levy rate is between 0 and 10000 basis points.",
            ),
            check_constraint(
                ~Q(levy_mode="percentage") | Q(levy_rate_bp__gt=0),
                "casino_percentage_needs_rate",
                "A percentage levy needs a rate above zero.",
            ),
            check_constraint(
                ~Q(levy_mode="hourly_fee") | Q(hourly_fee_amount__gt=0),
                "casino_hourly_fee_needs_amount",
                "An hourly-fee levy needs a fee above zero.",
            ),
            check_constraint(
                _one_of("levy_rounding", CasinoRounding), "casino_levy_rounding_valid", "Unknown rounding."
            ),
            check_constraint(
                _one_of("hourly_fee_basis", HourlyFeeBasis), "casino_fee_basis_valid", "Unknown fee basis."
            ),
            check_constraint(
                _one_of("hourly_fee_billing", HourlyFeeBilling),
                "casino_fee_billing_valid",
                "Unknown fee billing.",
            ),
            check_constraint(
                Q(hourly_fee_amount__gte=0), "casino_hourly_fee_nonneg", "The hourly fee cannot be negative."
            ),
            check_constraint(
                Q(card_money_amount__gte=0), "casino_card_money_nonneg", "Card money cannot be negative."
            ),
        ]

    def __str__(self) -> str:
        return self.name


class CasinoStaff(models.Model):
    """A member of staff works for a casino: he reads and acts there, nowhere else (issue 20).

    A croupier's shift, a pit boss's approval, a cashier's buy-in and an accountant's report are
    all scoped by these rows (tables.permissions.casino_scope); a superuser and the group-wide
    auditor role see every casino without one. Granted and withdrawn by the services
    (tables.services.setup.casino_staff_grant / casino_staff_withdraw), each audited."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="casino_posts", db_index=False
    )
    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="staff")
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["casino__name", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["user", "casino"], name="casinostaff_user_casino_unique"),
        ]
        verbose_name = "casino staff member"

    def __str__(self) -> str:
        return f"{self.user} works for {self.casino}"


# --------------------------------------------------------------------------------------- rule profile


class RuleProfile(models.Model):
    """A house-rule profile: exactly the fields of ``chemin_de_fer.engine.profiles.Profile``, as columns.

    Built-in profiles (casino is NULL) come from the engine's BUILTIN by data migration; a casino
    derives its own (``derived_from``) rather than editing a built-in.
    """

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=120)
    casino = models.ForeignKey(
        Casino, null=True, blank=True, on_delete=models.PROTECT, related_name="rule_profiles"
    )
    derived_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="derived_profiles"
    )
    # --- the shoe
    decks_allowed = models.JSONField(default=list, blank=True, help_text="list of deck counts, e.g. [6, 8]")
    decks_per_seated_player = models.BooleanField(default=False)
    burn_cards_min = models.PositiveSmallIntegerField(default=0)
    burn_cards_max = models.PositiveSmallIntegerField(default=0)
    # --- the table
    seats_min = models.PositiveSmallIntegerField(default=2)
    seats_max = models.PositiveSmallIntegerField(default=12)
    betting_from = models.CharField(
        max_length=10, choices=_choices(engine.Side), default=engine.Side.RIGHT.value
    )
    bank_passes_to = models.CharField(
        max_length=10, choices=_choices(engine.Side), default=engine.Side.RIGHT.value
    )
    passed_bank = models.CharField(
        max_length=20,
        choices=_choices(engine.PassedBank),
        default=engine.PassedBank.OWN_BANK.value,
        help_text="what the taker of a passed bank puts up: his own bank, or the continuation (home)",
    )
    spectators_bet = models.BooleanField(default=False)
    spectator_needs_consent = models.BooleanField(default=False)
    spectators_share_bank = models.BooleanField(default=False)
    banco_suivi = models.BooleanField(default=False)
    seated_bettor_always_plays = models.BooleanField(default=False)
    # --- drawing rules
    player_tableau = models.CharField(
        max_length=20, choices=_choices(engine.PlayerTableau), default=engine.PlayerTableau.STANDARD.value
    )
    banker_option_3_vs_9 = models.BooleanField(default=True)
    banker_option_5_vs_4 = models.BooleanField(default=False)
    banker_free_5_to_7 = models.BooleanField(default=False)
    banco_free_play = models.BooleanField(default=False)
    natural_tie = models.CharField(
        max_length=20, choices=_choices(engine.NaturalTie), default=engine.NaturalTie.HIGHER_WINS.value
    )
    # --- money
    levy_mode = models.CharField(
        max_length=20, choices=_choices(engine.LevyMode), default=engine.LevyMode.NONE.value
    )
    tax_rate_bp = models.PositiveIntegerField(default=0, help_text="basis points of the covered stake")
    levy_rounding = models.CharField(
        max_length=10, choices=_choices(engine.Rounding), default=engine.Rounding.DOWN.value
    )
    first_coup_exempt = models.BooleanField(default=False)
    uncovered_to_reserve = models.BooleanField(default=False)
    option_stand_reimburses = models.BooleanField(default=False)
    borrowing_allowed = models.BooleanField(default=True)
    min_bank = models.PositiveIntegerField(default=1)
    min_bet = models.PositiveIntegerField(default=1)
    # --- series (home)
    series_coups = models.PositiveIntegerField(null=True, blank=True)
    series_start_chips = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["slug"]
        constraints = [
            check_constraint(~Q(slug=""), "ruleprofile_slug_set", "A profile needs a slug."),
            check_constraint(
                Q(tax_rate_bp__gte=0) & Q(tax_rate_bp__lte=10_000),
                "ruleprofile_tax_rate_range",
                "The tax rate is between 0 and 10000 basis points.",
            ),
            check_constraint(
                ~Q(levy_mode=engine.LevyMode.PERCENTAGE.value) | Q(tax_rate_bp__gt=0),
                "ruleprofile_percentage_needs_rate",
                "A percentage levy needs a rate above zero.",
            ),
            check_constraint(
                Q(burn_cards_min__lte=F("burn_cards_max")),
                "ruleprofile_burn_range",
                "The minimum of burnt cards exceeds the maximum.",
            ),
            check_constraint(
                Q(seats_min__gte=1), "ruleprofile_seats_min_positive", "A table has at least one seat."
            ),
            check_constraint(
                Q(seats_min__lte=F("seats_max")),
                "ruleprofile_seats_range",
                "The minimum of seats exceeds the maximum.",
            ),
            check_constraint(
                Q(min_bank__gte=1) & Q(min_bet__gte=1),
                "ruleprofile_minimums_positive",
                "Minimum bank and bet are at least one chip.",
            ),
            check_constraint(
                Q(decks_per_seated_player=True) | ~Q(decks_allowed=[]),
                "ruleprofile_decks_known",
                "A profile needs its deck counts (or one deck per seated player).",
            ),
            check_constraint(
                _empty_or("series_coups", "gte", 1),
                "ruleprofile_series_coups_positive",
                "A series has at least one coup.",
            ),
            check_constraint(
                _empty_or("series_start_chips", "gte", 1),
                "ruleprofile_series_chips_positive",
                "A series starts with at least one chip.",
            ),
            *[
                check_constraint(
                    _one_of(name, _choices(enum)),
                    f"ruleprofile_{name}_valid",
                    f"Unknown {name.replace('_', ' ')}.",
                )
                for name, enum in ENGINE_ENUM_FIELDS.items()
            ],
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"

    @property
    def is_builtin(self) -> bool:
        return self.casino_id is None

    def as_engine(self) -> engine.Profile:
        """The engine's frozen Profile with this row's settings (its __post_init__ validates); the
        mapping both ways is ``tables.profile_columns``'s."""
        return profile_from_columns(self)

    def clean(self) -> None:
        # Shape checks the DB cannot express (a JSON list of positive ints) plus the engine's own
        # validation, so the admin shows the same message the engine would raise.
        decks = self.decks_allowed
        if not isinstance(decks, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in decks
        ):
            raise ValidationError({"decks_allowed": "A list of positive whole deck counts, e.g. [6, 8]."})
        try:
            self.as_engine()
        except (ValueError, TypeError) as exc:
            raise ValidationError(str(exc)) from exc


# ------------------------------------------------------------------------------------ table & session


class TableState(models.TextChoices):
    OPEN = "open"
    CLOSED = "closed"


class FirstBankerMethod(models.TextChoices):
    LOT = "lot", "by lot"
    AUCTION = "auction", "by auction"
    ACCEPTANCE = "acceptance", "by acceptance in turn"


class GameType(models.TextChoices):
    """The game dealt at a table (docs/games/): chemin de fer, or one of its older relatives,
    played through the shared game-coup services (older_games.services)."""

    CHEMIN_DE_FER = "chemin-de-fer", "Chemin de fer"
    MACAO = "macao", "Macao"
    LANDSKNECHT = "landsknecht", "Landsknecht"
    OLD_BACCARAT = "old-baccarat", "Old baccarat"


#: the games played through the shared game-coup services rather than chemin de fer's own
OLDER_GAMES = (GameType.MACAO, GameType.LANDSKNECHT, GameType.OLD_BACCARAT)


class Table(models.Model):
    State = TableState
    FirstBanker = FirstBankerMethod
    Game = GameType
    LevyMode = CasinoLevyMode

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="tables", db_index=False)
    name = models.CharField(max_length=60)
    profile = models.ForeignKey(RuleProfile, on_delete=models.PROTECT, related_name="tables")
    seat_count = models.PositiveSmallIntegerField(default=12)
    state = models.CharField(max_length=10, choices=State.choices, default=State.CLOSED)
    first_banker_method = models.CharField(
        max_length=12, choices=FirstBanker.choices, default=FirstBanker.LOT
    )
    passed_bank_auction = models.BooleanField(
        default=False,
        help_text="a passed bank may go by informal auction to whoever puts up the bank just played",
    )
    house_bank = models.BooleanField(
        default=False,
        help_text="the casino banks this table: the croupier plays the bank hand with the house's money",
    )
    game = models.CharField(max_length=20, choices=GameType.choices, default=GameType.CHEMIN_DE_FER)
    # the older games' house settings (older_games.engine.game_play reads and checks them); chemin de
    # fer's rules are its profile's
    game_settings = models.JSONField(default=dict, blank=True)
    # How this table is charged: a percentage of the banker's wins, an hourly fee or neither; empty
    # is the casino's mode. The rate, the fee and its basis stay the casino's (Table.clean checks it
    # sets what the mode needs); read it through ``effective_levy_mode`` (or, in SQL,
    # ``levy_mode_is``), never the casino's alone.
    levy_mode = models.CharField(
        max_length=20,
        choices=CasinoLevyMode.choices,
        blank=True,
        default="",
        help_text="percentage tax or hourly fee for this table; empty = the casino's levy mode",
    )

    class Meta:
        ordering = ["casino", "name"]
        constraints = [
            unique_constraint(
                ["casino", "name"],
                "table_name_unique_per_casino",
                "This casino already has a table with this name.",
            ),
            check_constraint(
                Q(seat_count__in=[9, 12]), "table_seat_count_9_or_12", "A table has 9 or 12 seats."
            ),
            check_constraint(_one_of("state", TableState), "table_state_valid", "Unknown table state."),
            check_constraint(
                _one_of("first_banker_method", FirstBankerMethod),
                "table_first_banker_valid",
                "Unknown first-banker method.",
            ),
            check_constraint(_one_of("game", GameType), "table_game_valid", "Unknown game."),
            check_constraint(
                Q(levy_mode="") | _one_of("levy_mode", CasinoLevyMode),
                "table_levy_mode_valid",
                "Unknown levy mode (empty: the casino's).",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.casino} / {self.name}"

    @property
    def effective_levy_mode(self) -> str:
        """How the table is charged now: its own levy mode, else its casino's."""
        return self.levy_mode or self.casino.levy_mode

    @staticmethod
    def levy_mode_is(mode: str, prefix: str = "") -> Q:
        """The tables (``prefix``: the path to them, e.g. ``"table__"``) whose effective levy mode
        is ``mode``, as a query condition: their own, or, empty, their casino's."""
        return Q(**{f"{prefix}levy_mode": mode}) | Q(
            **{f"{prefix}levy_mode": "", f"{prefix}casino__levy_mode": mode}
        )

    def clean(self) -> None:
        # a mode of its own needs what the casino's settings give it: a rate, or a fee
        if self.levy_mode and self.casino_id is not None:
            casino = self.casino
            if self.levy_mode == CasinoLevyMode.PERCENTAGE and casino.levy_rate_bp == 0:
                raise ValidationError(
                    {"levy_mode": f"{casino} sets no levy rate: a percentage levy needs one."}
                )
            if self.levy_mode == CasinoLevyMode.HOURLY_FEE and casino.hourly_fee_amount == 0:
                raise ValidationError(
                    {"levy_mode": f"{casino} sets no hourly fee: an hourly-fee table needs one."}
                )
        # a game's settings are read by its engine: a setting it refuses is refused here (the
        # admin's form and table_create both call full_clean), not at the table's first coup
        refusal = wing_for(self.game).table_settings_refusal(self.game, self.game_settings or {})
        if refusal is not None:
            raise ValidationError({"game_settings": refusal})


class TableSession(models.Model):
    """One opening of a table, from open to close; what hourly fees and shoes belong to."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="sessions")
    opened_at = models.DateTimeField()
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = staff_reference()
    close_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            unique_constraint(
                ["table"],
                "session_one_open_per_table",
                "This table already has an open session.",
                condition=Q(closed_at__isnull=True),
            ),
            check_constraint(
                _empty_or("closed_at", "gt", F("opened_at")),
                "session_closes_after_opening",
                "A session closes after it opens.",
            ),
            check_constraint(
                _both_or_neither("closed_at", "closed_by"),
                "session_closed_by_whom",
                "A closed session records who closed it (and only a closed one).",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} session {self.opened_at:%Y-%m-%d %H:%M}"


class SessionPause(models.Model):
    """A stretch of a session when play stopped: the clock hourly fees subtract."""

    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="pauses")
    started_at = models.DateTimeField()
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = staff_reference()

    class Meta:
        ordering = ["started_at"]
        constraints = [
            check_constraint(
                _empty_or("ended_at", "gt", F("started_at")),
                "pause_ends_after_start",
                "A pause ends after it starts.",
            ),
            unique_constraint(
                ["session"],
                "pause_one_running_per_session",
                "This session is already paused.",
                condition=Q(ended_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"pause of {self.session} at {self.started_at:%H:%M}"


class FeeHour(models.Model):
    """Marks one clock hour of one session as completely billed (hourly fees). Append-only
    (migration 0009's triggers).

    The ledger's postings are idempotent by key; this game-side marker only spares the beat task
    from re-examining hours that are done (tables/money/fees.py)."""

    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True

    session = models.ForeignKey(
        TableSession, on_delete=models.PROTECT, related_name="fee_hours", db_index=False
    )
    hour_start = models.DateTimeField()
    billed_at = models.DateTimeField()
    total = models.BigIntegerField(help_text="chips charged for this hour")

    class Meta:
        ordering = ["session", "hour_start"]
        constraints = [
            unique_constraint(
                ["session", "hour_start"], "feehour_once_per_session_hour", "This hour is already billed."
            ),
            check_constraint(Q(total__gte=0), "feehour_total_not_negative", "A fee cannot be negative."),
        ]

    def __str__(self) -> str:
        return f"fees of {self.session} at {self.hour_start:%Y-%m-%d %H:%M}"


class FeePostingKind(models.TextChoices):
    HOURLY_FEE = "hourly_fee", "hourly fee"
    CARD_MONEY = "card_money", "card money"


class FeePosting(models.Model):
    """Ties a ledger transaction of an hourly fee or of card money to the session (and, for an
    hourly fee, the clock hour) it charges. Written in the same database transaction as the posting
    (tables/money/fees.py); append-only (migration 0019's triggers).

    The ledger imports nothing of the floor, so the link lives here, on the floor's side: reports
    read the session and hour from it instead of parsing the posting's idempotency key."""

    Kind = FeePostingKind

    transaction = models.OneToOneField(
        "ledger.Transaction", on_delete=models.PROTECT, related_name="fee_posting"
    )
    session = models.ForeignKey(
        TableSession, on_delete=models.PROTECT, related_name="fee_postings", db_index=False
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    hour_start = models.DateTimeField(null=True, blank=True, help_text="the clock hour billed (hourly fees)")

    class Meta:
        ordering = ["transaction"]
        constraints = [
            check_constraint(_one_of("kind", FeePostingKind), "feeposting_kind_valid", "Unknown fee kind."),
            check_constraint(
                Q(kind=FeePostingKind.HOURLY_FEE, hour_start__isnull=False)
                | Q(kind=FeePostingKind.CARD_MONEY, hour_start__isnull=True),
                "feeposting_hour_matches_kind",
                "An hourly fee names the hour it bills; card money none.",
            ),
        ]
        indexes = [models.Index(fields=["session", "hour_start"], name="feeposting_session_hour_idx")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.session} (transaction {self.transaction_id})"


class CroupierAssignment(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments", db_index=False
    )
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="assignments", db_index=False)
    shift_start = models.DateTimeField()
    shift_end = models.DateTimeField()

    class Meta:
        ordering = ["-shift_start"]
        constraints = [
            check_constraint(
                Q(shift_end__gt=F("shift_start")),
                "assignment_shift_ends_after_start",
                "A shift ends after it starts.",
            )
        ]
        indexes = [
            models.Index(fields=["user", "shift_start", "shift_end"], name="assignment_user_shift_idx"),
            # the house-win report finds the croupier on shift at a table at an instant
            models.Index(fields=["table", "shift_start"], name="assignment_table_shift_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.table} {self.shift_start:%Y-%m-%d %H:%M}-{self.shift_end:%H:%M}"


# --------------------------------------------------------------------------------------------- people


class Player(models.Model):
    """A punter or banker as the table knows him: a display name, no more personal data."""

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="players")
    display_name = models.CharField(max_length=80)
    membership_number = models.CharField(max_length=40, blank=True, default="")
    # the casino itself, as the banker of a house bank (docs/rules.md §2): one per casino, made by
    # tables.services.banks; it never sits, bets or holds chips of its own (its money is the cage's)
    house = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["display_name"]
        constraints = [
            check_constraint(
                ~Q(display_name=""), "player_display_name_set", "A player needs a display name."
            ),
            unique_constraint(
                ["casino"],
                "player_one_house_per_casino",
                "This casino already has its house player.",
                condition=Q(house=True),
            ),
            unique_constraint(
                ["casino", "membership_number"],
                "player_membership_unique_per_casino",
                # shown as Django raises it on the cage's new-player form: lazy, so said in the
                # screen's language when the form checks it (English under /api/, docs/i18n.md)
                cast(str, gettext_lazy("This membership number is already used in this casino.")),
                condition=~Q(membership_number=""),
            ),
        ]

    def __str__(self) -> str:
        return self.display_name


class Seat(models.Model):
    """A player sitting at a seat for part of a session (a new row each time he sits down)."""

    #: bound to the audit events that write it (audit.rows): the bets of a seat pay from its player
    AUDIT_BOUND = True

    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    number = models.PositiveSmallIntegerField()
    joined_at = models.DateTimeField()
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "number", "joined_at"]
        constraints = [
            # The upper bound is the table's seat_count, in another table: checked by the service.
            check_constraint(Q(number__gte=1), "seat_number_positive", "Seats are numbered from 1."),
            check_constraint(
                _empty_or("left_at", "gt", F("joined_at")),
                "seat_left_after_joining",
                "A player leaves after he sits down.",
            ),
            unique_constraint(
                ["session", "number"],
                "seat_one_player_per_seat",
                "This seat is already occupied.",
                condition=Q(left_at__isnull=True),
            ),
            unique_constraint(
                ["session", "player"],
                "seat_one_current_seat_per_player",
                "This player is already seated at this session.",
                condition=Q(left_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number}: {self.player}"


class Spectator(models.Model):
    """A standing player who may bet where the profile allows."""

    #: bound to the audit events that write it (audit.rows): a spectator's bets pay from his player
    AUDIT_BOUND = True

    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="spectators")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="spectating")
    joined_at = models.DateTimeField()
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "joined_at"]
        constraints = [
            check_constraint(
                _empty_or("left_at", "gt", F("joined_at")),
                "spectator_left_after_joining",
                "A spectator leaves after he arrives.",
            ),
            unique_constraint(
                ["session", "player"],
                "spectator_once_per_session",
                "This player is already a spectator at this session.",
                condition=Q(left_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"spectator {self.player}"


# ----------------------------------------------------------------------------------------------- shoe


class ShoeState(models.TextChoices):
    OPEN = "open"
    CLOSED = "closed"


class Shoe(models.Model):
    State = ShoeState
    #: bound to the audit events that write it (audit.rows): its table and session say whose bank
    #: and whose seats its coups settle with, its decks and stop card what its cards may be
    AUDIT_BOUND = True

    #: a shoe of n decks holds 52 n cards: what it can deal, and what is left of it
    CARDS_PER_DECK = 52

    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="shoes", db_index=False)
    # Denormalised from session.table so "one open shoe per table" is a plain partial unique index;
    # services set it from the session and never change it.
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    number = models.PositiveIntegerField()
    decks = models.PositiveSmallIntegerField()
    shuffled_at = models.DateTimeField()
    cut_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    cut_card_position = models.PositiveIntegerField(null=True, blank=True)
    stop_card_position = models.PositiveIntegerField(
        null=True, blank=True, help_text="cards under the stop card, counted from the bottom (7-10)"
    )
    burnt_cards = models.JSONField(default=list, blank=True, help_text='card codes, e.g. ["KD", "4C"]')
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    closed_at = models.DateTimeField(null=True, blank=True)
    close_reason = models.CharField(max_length=200, blank=True)
    alarm = models.BooleanField(default=False, help_text="a card was seen more often than the shoe holds")
    stop_reached = models.BooleanField(default=False, help_text="the stop card came out: last coup")
    early_reshuffle = models.BooleanField(
        default=False, help_text="closed before 5/6 of it was dealt (flagged for the pit boss)"
    )
    # a shoe that carries an imported history (import_coups): its burn cards and where it was
    # reshuffled are unknown, so those two checks are not made
    imported = models.BooleanField(default=False)

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            unique_constraint(
                ["table"],
                "shoe_one_open_per_table",
                "This table already has an open shoe.",
                condition=Q(state="open"),
            ),
            unique_constraint(
                ["session", "number"],
                "shoe_number_unique_per_session",
                "This session already has a shoe with this number.",
            ),
            check_constraint(Q(number__gte=1), "shoe_number_positive", "Shoes are numbered from 1."),
            check_constraint(Q(decks__gt=0), "shoe_decks_positive", "A shoe holds at least one deck."),
            check_constraint(_one_of("state", ShoeState), "shoe_state_valid", "Unknown shoe state."),
            check_constraint(
                Q(state="open", closed_at__isnull=True) | Q(state="closed", closed_at__isnull=False),
                "shoe_closed_at_matches_state",
                "A closed shoe has a closing time, an open one has none.",
            ),
            check_constraint(
                _empty_or("closed_at", "gt", F("shuffled_at")),
                "shoe_closes_after_shuffle",
                "A shoe closes after it was shuffled.",
            ),
            check_constraint(
                _empty_or("cut_card_position", "gte", 1),
                "shoe_cut_position_positive",
                "Card positions start at 1.",
            ),
            check_constraint(
                _empty_or("stop_card_position", "gte", 1),
                "shoe_stop_position_positive",
                "Card positions start at 1.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} shoe {self.number}"

    @staticmethod
    def size_of(decks: int) -> int:
        """The cards a shoe of ``decks`` decks holds."""
        return Shoe.CARDS_PER_DECK * decks

    @property
    def size(self) -> int:
        return self.size_of(self.decks)

    def cards_left(self, dealt: int) -> int:
        """The cards still in the shoe once ``dealt`` came out of it (burnt ones included)."""
        return self.size - dealt


class CoupState(models.TextChoices):
    OPEN = "open"  # steps are being recorded
    AWAITING_CORRECTION = "awaiting_correction", "awaiting correction"  # revealed, flagged, not restored
    AWAITING_APPROVAL = "awaiting_approval", "awaiting approval"  # restored, settlement provisional
    SETTLED = "settled"
    VOID = "void"
    WITHDRAWN = "withdrawn", "bank withdrawn"  # nobody bet: no deal, no settlement (RULES.md §7)


#: a coup the table cannot move on from: being played, or flagged and not restored yet
UNFINISHED_COUP_STATES = (CoupState.OPEN, CoupState.AWAITING_CORRECTION)
#: a coup not over for good: unfinished, or restored and awaiting a pit boss (each may be voided)
VOIDABLE_COUP_STATES = (*UNFINISHED_COUP_STATES, CoupState.AWAITING_APPROVAL)
#: a coup that ended without being played out: no settlement, no levy, the bank as declared
UNPLAYED_COUP_STATES = (CoupState.VOID, CoupState.WITHDRAWN)


def rules_digest(content: dict[str, Any]) -> str:
    """A rules snapshot's key: lowercase hex SHA-256 of its canonical JSON (keys sorted, no
    whitespace, UTF-8)."""
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


#: snapshots read so far, by digest: a snapshot never changes (append-only, and its key is its
#: content's hash), so what was read once holds for the life of the process
_SNAPSHOTS: dict[str, dict[str, Any]] = {}


class RulesSnapshot(models.Model):
    """The rules coups are played and judged under (engine profile, levy terms, house limit), kept
    once however many coups are played under them: content-addressed (its key is the SHA-256 of
    its canonical JSON, ``rules_digest``) and append-only (its triggers; written by
    ``tables.services.rules_snapshots.rules_snapshot_keep``). A coup references it
    (``Coup.rules_snapshot``) and reads it as ``Coup.rules``."""

    digest = models.CharField(max_length=64, primary_key=True, help_text="SHA-256 of the canonical JSON, hex")
    content = models.JSONField()

    class Meta:
        constraints = [
            check_constraint(
                Q(digest__regex=r"^[0-9a-f]{64}$"), "rulessnapshot_digest_hex", "A digest is 64 hex digits."
            ),
        ]

    def __str__(self) -> str:
        return self.digest[:12]

    @staticmethod
    def content_of(digest: str) -> dict[str, Any]:
        """The snapshot's content (read once a process; to read, not to change)."""
        content = _SNAPSHOTS.get(digest)
        if content is None:
            content = RulesSnapshot.objects.values_list("content", flat=True).get(digest=digest)
            if rules_digest(content) != digest:  # a row changed behind the triggers: never cached
                return content
            _SNAPSHOTS[digest] = content
        return content

    @staticmethod
    def content_known(digest: str, content: dict[str, Any]) -> None:
        """Remember ``content`` as ``digest``'s (its ``rules_digest``) without reading it back: a
        digest names one content whether or not the row that holds it is committed. Kept as the
        database would give it back (JSON types, a copy the caller cannot change); copied only the
        first time."""
        if digest not in _SNAPSHOTS:
            _SNAPSHOTS[digest] = json.loads(json.dumps(content))


class Coup(models.Model):
    State = CoupState
    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True
    #: the digest reads the rules snapshot's content under the column name ``rules`` (the coup's
    #: copy of it before tables 0031): a coup's binding covers the rules it references, and the
    #: coups bound before the snapshots were shared keep their digests (audit.rows.RowReader)
    AUDIT_ROW_READS = {"rules_snapshot_id": ("rules", "rules_snapshot__content")}

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="coups", db_index=False)
    number = models.PositiveIntegerField()
    banker = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="banks")
    bank = models.PositiveBigIntegerField()
    state = models.CharField(max_length=20, choices=State.choices, default=State.OPEN)
    bank_turn = models.ForeignKey("BankTurn", on_delete=models.PROTECT, related_name="coups")
    # The rules the coup is played and judged under, fixed at its start (engine profile, levy
    # terms, house limit): replaying it later gives the same verdict even if the table's profile
    # or the casino's levy has changed since. Shared by every coup played under the same rules.
    rules_snapshot = models.ForeignKey(
        RulesSnapshot, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    first_coup_of_bank = models.BooleanField(default=False)
    flagged = models.BooleanField(default=False, help_text="played wrongly: restored only after approval")
    alarm = models.BooleanField(default=False, help_text="a card was seen more often than the shoe holds")
    step_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)
    # Not a field: the compiled rules, once tables.engine_bridge.coup_rules has memoised them.
    _engine_rules: Rules

    class Meta:
        ordering = ["shoe", "number"]
        permissions = [*COUP_PERMISSIONS]
        constraints = [
            unique_constraint(
                ["shoe", "number"],
                "coup_number_unique_per_shoe",
                "This shoe already has a coup with this number.",
            ),
            check_constraint(Q(number__gte=1), "coup_number_positive", "Coups are numbered from 1."),
            check_constraint(Q(bank__gt=0), "coup_bank_positive", "The bank must be at least one chip."),
            check_constraint(
                Q(step_count__gte=0), "coup_step_count_nonneg", "The step count cannot be negative."
            ),
            check_constraint(_one_of("state", CoupState), "coup_state_valid", "Unknown coup state."),
            check_constraint(
                Q(state="settled", settled_at__isnull=False)
                | (~Q(state="settled") & Q(settled_at__isnull=True)),
                "coup_settled_at_matches_state",
                "A settled coup has a settlement time, any other has none.",
            ),
            check_constraint(
                _empty_or("settled_at", "gte", F("created_at")),
                "coup_settled_after_created",
                "A coup is settled after it was created.",
            ),
        ]
        indexes = [
            # "the latest coup" of a session or a bank turn, and "coups since" an instant: newest
            # first without reading a session's whole history (docs/scaling.md)
            models.Index(fields=["created_at", "id"], name="coup_created_idx"),
            # the few coups not settled (in play, flagged, awaiting a pit boss) among a million
            models.Index(
                fields=["state", "shoe"],
                condition=Q(state__in=["open", "awaiting_correction", "awaiting_approval"]),
                name="coup_unsettled_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.shoe} coup {self.number}"

    @property
    def rules(self) -> dict[str, Any]:
        """The rules snapshot's content (``RulesSnapshot.content_of``: to read, not to change)."""
        return RulesSnapshot.content_of(self.rules_snapshot_id)


class CardRole(models.TextChoices):
    BURN = "burn"
    PLAYER = "player"
    BANKER = "banker"
    VOID = "void"


class ShoeCard(models.Model):
    """A card seen coming out of the shoe, in shoe order."""

    Role = CardRole
    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="cards")
    position = models.PositiveIntegerField()
    card = models.CharField(max_length=2, help_text="rank A23456789TJQK + suit SHDC, e.g. TD")
    coup = models.ForeignKey(Coup, null=True, blank=True, on_delete=models.PROTECT, related_name="cards")
    role = models.CharField(max_length=10, choices=Role.choices)
    seen_at = models.DateTimeField()
    # A card the croupier mistyped and amended before the reveal (tables.services.amends): the row
    # stays, and a new row at the same position, pointing at it, says which card it really was.
    # The shoe counts only the rows nothing replaces ("live" cards).
    replaces = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="replaced_by", db_index=False
    )

    class Meta:
        ordering = ["shoe", "position"]
        constraints = [
            set_once_unique("replaces", "shoecard_replaced_once", "This card is already amended."),
            unique_constraint(
                ["shoe", "position"],
                "shoecard_position_unique_per_shoe",
                "This shoe already has a card at this position.",
                condition=Q(replaces__isnull=True),
            ),
            check_constraint(
                ~Q(replaces=F("id")), "shoecard_not_self_replacing", "A card cannot replace itself."
            ),
            check_constraint(Q(position__gte=1), "shoecard_position_positive", "Card positions start at 1."),
            check_constraint(
                Q(card__regex=CARD_CODE_REGEX),
                "shoecard_card_code_valid",
                "Not a card code (e.g. AS, TD, 9H).",
            ),
            check_constraint(_one_of("role", CardRole), "shoecard_role_valid", "Unknown card role."),
            check_constraint(
                Q(role="burn") | Q(coup__isnull=False),
                "shoecard_dealt_card_has_coup",
                "A dealt or void card belongs to a coup.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.card} @{self.position}"


class Bet(models.Model):
    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True
    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="bets", db_index=False)
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="bets")
    # nearly every bet is a seated player's: indexed where set only (Meta)
    spectator = models.ForeignKey(
        Spectator, null=True, blank=True, on_delete=models.PROTECT, related_name="bets", db_index=False
    )
    amount = models.PositiveBigIntegerField()
    banco = models.BooleanField(default=False)
    banco_suivi = models.BooleanField(default=False)
    betting_order = models.PositiveIntegerField()
    withdrawn = models.BooleanField(default=False)
    # A bet the croupier mistyped and amended before the reveal (tables.services.amends): the row
    # is withdrawn and the amended bet is a new row pointing at it.
    replaces = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="replaced_by", db_index=False
    )

    class Meta:
        ordering = ["coup", "betting_order"]
        indexes = [set_only_index("spectator", "bet_spectator_set_idx")]
        constraints = [
            set_once_unique("replaces", "bet_replaced_once", "This bet is already amended."),
            check_constraint(
                _exactly_one("seat", "spectator"),
                "bet_seat_xor_spectator",
                "A bet is made either from a seat or by a spectator, not both and not neither.",
            ),
            check_constraint(Q(amount__gt=0), "bet_amount_positive", "A bet is at least one chip."),
            check_constraint(Q(betting_order__gte=1), "bet_order_positive", "Betting order starts at 1."),
            check_constraint(
                Q(banco=True) | Q(banco_suivi=False),
                "bet_banco_suivi_is_banco",
                "A banco suivi is a banco.",
            ),
            unique_constraint(
                ["coup", "betting_order"],
                "bet_order_unique_per_coup",
                "This coup already has a bet at this place in the betting order.",
            ),
        ]

    def __str__(self) -> str:
        return f"bet {self.amount} on {self.coup}"


class StepKind(models.TextChoices):
    """Every kind of ``CoupStep``: the game's steps, whose values belong to the engine
    (``chemin_de_fer.engine.machine.Move``; the check below keeps the two in step), plus the correction
    workflow's own. The labels are the screens' and the admin's."""

    BANK_DECLARED = Move.BANK_DECLARED.value, "bank declared"
    BET = Move.BET.value, "Bet"
    BANCO = Move.BANCO.value, "Banco"
    BETS_CLOSED = Move.BETS_CLOSED.value, "no more bets"
    CARD_TO_PLAYER = Move.CARD_TO_PLAYER.value, "card to the player"
    CARD_TO_BANKER = Move.CARD_TO_BANKER.value, "card to the banker"
    PLAYER_NATURAL = Move.PLAYER_NATURAL.value, "player shows a natural"
    PLAYER_DRAW = Move.PLAYER_DRAW.value, "player draws"
    PLAYER_STAND = Move.PLAYER_STAND.value, "player stands"
    BANKER_NATURAL = Move.BANKER_NATURAL.value, "banker shows a natural"
    BANKER_DRAW = Move.BANKER_DRAW.value, "banker draws"
    BANKER_STAND = Move.BANKER_STAND.value, "banker stands"
    REVEAL = Move.REVEAL.value, "hands shown"
    CORRECTION = "correction", "game restored"
    CORRECTION_APPROVED = "correction_approved", "correction approved"
    CORRECTION_REJECTED = "correction_rejected", "correction rejected"
    COUP_VOIDED = "coup_voided", "coup voided by a pit boss"
    AMEND = "amend", "typo amended"
    BANK_WITHDRAWN = "bank_withdrawn", "bank withdrawn: nobody bet"


#: the workflow's own steps (corrections, a void, a bank withdrawn, an amendment): everything else is a
#: step of the game, replayed through the engine (an amendment is replayed in place of the step it
#: supersedes: tables.engine_bridge.game_rows)
CORRECTION_KINDS = frozenset(
    {
        StepKind.CORRECTION,
        StepKind.CORRECTION_APPROVED,
        StepKind.CORRECTION_REJECTED,
        StepKind.COUP_VOIDED,
        StepKind.AMEND,
        StepKind.BANK_WITHDRAWN,
    }
)
#: the game steps a croupier may amend before the reveal (docs/table-workflow.md, "Amending a typo")
AMENDABLE_KINDS = frozenset({StepKind.BET, StepKind.CARD_TO_PLAYER, StepKind.CARD_TO_BANKER})

# A game step the engine knows but the model does not (or the other way round) would be refused
# by the database or replayed as nothing: fail at import instead.
if {(k.name, k.value) for k in StepKind if k not in CORRECTION_KINDS} != {(m.name, m.value) for m in Move}:
    raise ImportError("tables.models.StepKind's game steps differ from chemin_de_fer.engine.machine.Move")


class CoupStep(models.Model):
    """One recorded step of a coup. Append-only (DB triggers): a mistake is fixed by a correction
    step pointing at the step it corrects, never by editing history."""

    Kind = StepKind
    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="steps", db_index=False)
    index = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=Kind.choices)
    payload = models.JSONField(default=dict, blank=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    violations = models.JSONField(
        default=list, blank=True, help_text="rule-violation codes found at this step"
    )
    # nearly every step corrects nothing: indexed where set only (Meta)
    corrects = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections", db_index=False
    )
    # an ``amend`` step: the mistyped step it replaces in the replay (kept, shown struck through)
    supersedes = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by", db_index=False
    )
    idempotency_key = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["coup", "index"]
        indexes = [set_only_index("corrects", "coupstep_corrects_set_idx")]
        constraints = [
            set_once_unique("supersedes", "coupstep_superseded_once", "This step is already amended."),
            unique_constraint(
                ["coup", "index"],
                "coupstep_index_unique_per_coup",
                "This coup already has a step with this index.",
            ),
            check_constraint(Q(index__gte=1), "coupstep_index_positive", "Steps are numbered from 1."),
            check_constraint(_one_of("kind", StepKind), "coupstep_kind_valid", "Unknown step kind."),
            check_constraint(
                ~Q(corrects=F("id")), "coupstep_not_self_correcting", "A step cannot correct itself."
            ),
            check_constraint(
                Q(kind__in=sorted(k.value for k in CORRECTION_KINDS)) | Q(corrects__isnull=True),
                "coupstep_only_corrections_correct",
                "Only a correction step points at a corrected step.",
            ),
            check_constraint(
                Q(kind=StepKind.AMEND.value, supersedes__isnull=False, corrects__isnull=True)
                | (~Q(kind=StepKind.AMEND.value) & Q(supersedes__isnull=True)),
                "coupstep_amend_supersedes",
                "An amendment, and only an amendment, supersedes a step.",
            ),
            check_constraint(
                ~Q(supersedes=F("id")), "coupstep_not_self_superseding", "A step cannot supersede itself."
            ),
            unique_constraint(
                ["coup", "idempotency_key"],
                "coupstep_idempotency_key_unique",
                "This step was already recorded (same idempotency key).",
                condition=~Q(idempotency_key=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.coup} step {self.index} ({self.kind})"


class BankTax(models.Model):
    """The percentage tax levied on one banker win."""

    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True

    coup = models.OneToOneField(Coup, on_delete=models.PROTECT, related_name="tax")
    basis = models.PositiveBigIntegerField(help_text="the covered stake the banker won")
    amount = models.PositiveBigIntegerField()

    class Meta:
        verbose_name_plural = "bank taxes"
        constraints = [
            check_constraint(Q(basis__gt=0), "banktax_basis_positive", "The tax basis must be positive."),
            check_constraint(Q(amount__gte=0), "banktax_amount_nonneg", "A tax cannot be negative."),
            check_constraint(
                Q(amount__lte=F("basis")), "banktax_amount_within_basis", "A tax cannot exceed its basis."
            ),
        ]

    def __str__(self) -> str:
        return f"tax {self.amount} on {self.coup}"


class ImportedRecord(models.Model):
    """The coup record (docs/coup-record.md) an imported coup came from, by its ``id``: a table
    imports a record id once, so importing the same history again imports nothing twice
    (import_coups skips the ids it finds here)."""

    #: how long a record id may be (longer ones are refused by the importer)
    ID_MAX_LENGTH = 200

    coup = models.OneToOneField(Coup, on_delete=models.PROTECT, related_name="imported_record")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+", db_index=False)
    record_id = models.CharField(max_length=ID_MAX_LENGTH)
    imported_at = models.DateTimeField()

    class Meta:
        constraints = [
            unique_constraint(
                ["table", "record_id"],
                "importedrecord_once_per_table",
                "This table has already imported a record with this id.",
            ),
            check_constraint(~Q(record_id=""), "importedrecord_id_set", "An imported record has an id."),
        ]

    def __str__(self) -> str:
        return f"record {self.record_id} → {self.coup}"


# ------------------------------------------------------------------------------------ bank & alarms


class BankTurnStart(models.TextChoices):
    LOT = "lot", "by lot"
    AUCTION = "auction", "by auction"
    ACCEPTANCE = "acceptance", "by acceptance in turn"
    ROTATION = "rotation", "in rotation after a lost bank"
    PASSED = "passed", "passed by the previous banker"
    NEW_BANK = "new_bank", "new bank from the minimum"
    IMPORTED = "imported", "from an imported history"
    HOUSE = "house", "the house banks"


class BankTurnEnd(models.TextChoices):
    LOST = "lost"
    PASSED = "passed"
    LEFT = "left", "banker left the table"
    SESSION_CLOSED = "session_closed", "session closed"
    SERIES_ENDED = "series_ended", "the series ended"


class BankTurn(models.Model):
    """One player's holding of the bank, from taking it to losing or passing it.

    ``required_minimum`` is the smallest bank he may declare next: the profile minimum (or the
    auction amount) at the start, then the mandatory continuation after each win or stand-off.

    A house bank (``started_how`` house, docs/rules.md §2) is held by the casino's house player
    from no seat: the croupier plays its hand, and the bank does not rotate while the house holds it.
    """

    #: bound to the audit events that write it (audit.rows): its player is the coup's banker, its
    #: minimum the smallest bank he may declare
    AUDIT_BOUND = True

    Start = BankTurnStart
    End = BankTurnEnd

    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="bank_turns")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="bank_turns")
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="bank_turns")
    started_at = models.DateTimeField()
    started_how = models.CharField(max_length=12, choices=Start.choices)
    required_minimum = models.PositiveBigIntegerField()
    # where the bank's rotation counts from when this bank ends: his own seat, except when he took
    # a passed bank out of turn, where the passer's first neighbour keeps his ordinary turn
    rotation_from = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=End.choices, blank=True)

    class Meta:
        ordering = ["session", "started_at"]
        constraints = [
            unique_constraint(
                ["session"],
                "bankturn_one_open_per_session",
                "This table already has a banker.",
                condition=Q(ended_at__isnull=True),
            ),
            check_constraint(
                Q(required_minimum__gte=1), "bankturn_minimum_positive", "A bank is at least one chip."
            ),
            check_constraint(_one_of("started_how", BankTurnStart), "bankturn_start_valid", "Unknown start."),
            check_constraint(
                Q(started_how="house", seat__isnull=True, rotation_from__isnull=True)
                | (~Q(started_how="house") & Q(seat__isnull=False, rotation_from__isnull=False)),
                "bankturn_house_has_no_seat",
                "The house banks from no seat; a player banks from his seat.",
            ),
            check_constraint(
                _end_reason(BankTurnEnd),
                "bankturn_end_consistent",
                "An ended bank has an end reason, an open one has none.",
            ),
            check_constraint(
                _empty_or("ended_at", "gte", F("started_at")),
                "bankturn_ends_after_start",
                "A bank ends after it starts.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} banks at {self.session}"


class BankShare(models.Model):
    """A club spectator's part of a bank (docs/rules.md §6): put up with the banker's consent before the
    bank's first coup (the chips move when that bank is declared), and his proportional share of
    the bank taken out before a later deal, or paid out when the bank ends."""

    #: bound to the audit events that write it (audit.rows): what the spectator put up and took out
    AUDIT_BOUND = True

    turn = models.ForeignKey(BankTurn, on_delete=models.PROTECT, related_name="shares", db_index=False)
    spectator = models.ForeignKey(Spectator, on_delete=models.PROTECT, related_name="bank_shares")
    contributed = models.PositiveBigIntegerField()
    contributed_at = models.DateTimeField()
    withdrawn = models.PositiveBigIntegerField(null=True, blank=True, help_text="chips he took out")
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["turn", "contributed_at"]
        constraints = [
            unique_constraint(
                ["turn", "spectator"],
                "bankshare_once_per_bank",
                "This spectator already has a share of this bank.",
            ),
            check_constraint(
                Q(contributed__gte=1), "bankshare_contributed_positive", "A share is at least one chip."
            ),
            check_constraint(
                _both_or_neither("withdrawn", "withdrawn_at"),
                "bankshare_withdrawal_consistent",
                "A share taken out says how much and when.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.spectator} has {self.contributed} in {self.turn}"


class BankOffer(models.Model):
    """The bank offered to a seated player after it was lost or passed, and his answer."""

    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="bank_offers")
    after_turn = models.ForeignKey(
        BankTurn, null=True, blank=True, on_delete=models.PROTECT, related_name="offers_after"
    )
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="bank_offers")
    required_minimum = models.PositiveBigIntegerField()
    accepted = models.BooleanField()
    answered_at = models.DateTimeField()
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["session", "answered_at"]
        constraints = [
            check_constraint(
                Q(required_minimum__gte=1), "bankoffer_minimum_positive", "A bank is at least one chip."
            ),
        ]

    def __str__(self) -> str:
        return f"bank offered to {self.seat}: {'accepted' if self.accepted else 'refused'}"


# ------------------------------------------------------------------------------------ home series


class SeriesEndReason(models.TextChoices):
    COMPLETED = "completed", "all coups played"
    NO_BANK = "no_bank", "nobody can open a bank"
    NO_BETS = "no_bets", "nobody bets against the bank"
    ABANDONED = "abandoned", "abandoned"


class Series(models.Model):
    """A home series (docs/rules.md §10): a fixed number of coups from equal starting chips."""

    EndReason = SeriesEndReason

    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="series")
    coups_planned = models.PositiveIntegerField(default=12)
    start_chips = models.PositiveIntegerField(default=100)
    min_bank = models.PositiveIntegerField(default=2)
    min_bet = models.PositiveIntegerField(default=1)
    started_at = models.DateTimeField()
    started_by = staff_reference()
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=12, choices=EndReason.choices, blank=True, default="")

    class Meta:
        ordering = ["-started_at"]
        verbose_name_plural = "series"
        constraints = [
            check_constraint(
                Q(coups_planned__gte=1), "series_coups_positive", "A series has at least one coup."
            ),
            check_constraint(
                Q(start_chips__gte=1), "series_chips_positive", "A series starts with at least one chip."
            ),
            check_constraint(
                Q(min_bank__gte=1) & Q(min_bet__gte=1),
                "series_minimums_positive",
                "Minimum bank and bet are at least one chip.",
            ),
            check_constraint(
                _end_reason(SeriesEndReason),
                "series_end_consistent",
                "An ended series has an end reason, a running one has none.",
            ),
            check_constraint(
                _empty_or("ended_at", "gte", F("started_at")),
                "series_ends_after_start",
                "A series ends after it starts.",
            ),
            unique_constraint(
                ["session"],
                "series_one_running_per_session",
                "This session already has a series running.",
                condition=Q(ended_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"series at {self.session}"


class SeriesEntrant(models.Model):
    """A player in a series, with what he held before his buy-in (standings count from there)."""

    series = models.ForeignKey(Series, on_delete=models.PROTECT, related_name="entrants", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="series_entries")
    chips_before = models.BigIntegerField(help_text="player + reserve balance before the buy-in")
    joined_at = models.DateTimeField()

    class Meta:
        ordering = ["series", "joined_at", "id"]
        constraints = [
            unique_constraint(
                ["series", "player"], "seriesentrant_once_per_series", "This player is already in the series."
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.series}"


class ShoeAlarmKind(models.TextChoices):
    IMPOSSIBLE_CARD = "impossible_card", "impossible card"
    EARLY_RESHUFFLE = "early_reshuffle", "reshuffled before 5/6 dealt"


class ShoeAlarm(models.Model):
    """Game protection: a card seen more often than the shoe holds, or a shoe closed too early."""

    Kind = ShoeAlarmKind

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="alarms")
    coup = models.ForeignKey(Coup, null=True, blank=True, on_delete=models.PROTECT, related_name="alarms")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    card = models.CharField(max_length=2, blank=True)
    detail = models.CharField(max_length=200)
    raised_at = models.DateTimeField()

    class Meta:
        ordering = ["-raised_at"]
        constraints = [
            check_constraint(_one_of("kind", ShoeAlarmKind), "shoealarm_kind_valid", "Unknown alarm kind."),
            check_constraint(
                ~Q(kind="impossible_card") | Q(card__regex=CARD_CODE_REGEX),
                "shoealarm_card_named",
                "An impossible-card alarm names the card.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on {self.shoe}"


# --------------------------------------------------------------------------------------- rollups


class TableDay(models.Model):
    """One table's figures for one gaming day (tables/gaming_day.py): what the pit's dashboard and
    accounting's reports sum instead of scanning a year of coups (docs/scaling.md, "Rollups").

    Derived data: recomputed from the coups, bets, taxes and alarms (which stay the record) for
    every table-day the audit trail says was touched (``tables.services.rollups``), so it can be
    rebuilt from scratch at any time and checked against them (``manage.py rollups --check``).
    Days are the days coups were settled in (a correction approved on a later day counts then, as
    the levy export counts it); flagged coups and croupiers' steps count on the day the coup began.
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="days", db_index=False)
    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="+", db_index=False)
    gaming_day = models.DateField()
    coups = models.PositiveIntegerField(default=0, help_text="coups settled")
    banker_wins = models.PositiveIntegerField(default=0)
    covered = models.PositiveBigIntegerField(default=0, help_text="covered stakes of the coups settled")
    levy = models.PositiveBigIntegerField(default=0)
    expected_levy_micro = models.PositiveBigIntegerField(
        default=0, help_text="the odds engine's expected levy on those stakes, in millionths of a chip"
    )
    flagged = models.PositiveIntegerField(default=0, help_text="coups begun that day and played wrongly")
    alarms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["gaming_day", "table"]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day"], name="tableday_unique"),
            check_constraint(
                Q(banker_wins__lte=F("coups")), "tableday_wins_within_coups", "More wins than coups."
            ),
            check_constraint(
                Q(levy__lte=F("covered")), "tableday_levy_within_covered", "More levy than stakes."
            ),
        ]
        indexes = [models.Index(fields=["casino", "gaming_day"], name="tableday_casino_day_idx")]

    def __str__(self) -> str:
        return f"{self.table} on {self.gaming_day}"


class CroupierDay(models.Model):
    """One person's game steps at one table on one gaming day (the dashboard's error rates)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+", db_index=False)
    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="+", db_index=False)
    gaming_day = models.DateField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    coups = models.PositiveIntegerField(default=0, help_text="coups he recorded a game step of")
    steps = models.PositiveIntegerField(default=0)
    wrong_steps = models.PositiveIntegerField(default=0, help_text="steps confirmed against the rules")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day", "user"], name="croupierday_unique"),
            check_constraint(
                Q(wrong_steps__lte=F("steps")), "croupierday_wrong_within_steps", "More wrong than steps."
            ),
        ]
        indexes = [models.Index(fields=["casino", "gaming_day"], name="croupierday_casino_day_idx")]

    def __str__(self) -> str:
        return f"user {self.user_id} at {self.table_id} on {self.gaming_day}"


class RollupMark(models.Model):
    """How far along the audit trail the rollups have been brought (one row): the next refresh
    reads the events after ``audit_seq`` to learn which table-days changed."""

    # the global audit chain's position; a casino's chain's in chain_seqs ({"<casino id>": seq}):
    # each chain numbers its own events (docs/audit.md, "Chains")
    audit_seq = models.PositiveBigIntegerField(default=0)
    chain_seqs = models.JSONField(default=dict, blank=True)
    refreshed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"rollups up to audit seq {self.audit_seq}"


# ------------------------------------------------------------------------------- the older games


class GameCoupState(models.TextChoices):
    OPEN = "open"  # steps are being recorded
    SETTLED = "settled"
    VOID = "void"  # abandoned before its end: nothing settled


class GameCoup(models.Model):
    """One coup of Macao, Landsknecht or old baccarat (docs/games/). Its steps (``GameStep``) are
    replayed through the game's live machine (older_games.engine.game_play); the game, its house
    settings and the seating are copied at the start, so the coup replays the same later whatever
    the table's settings become."""

    State = GameCoupState
    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="game_coups", db_index=False)
    session = models.ForeignKey(TableSession, on_delete=models.PROTECT, related_name="game_coups")
    number = models.PositiveIntegerField(help_text="per table, from 1")
    game = models.CharField(max_length=20, choices=GameType.choices)
    house_settings = models.JSONField(help_text="the house settings the coup is played under")
    seating = models.JSONField(help_text="banker, punters from his left, and Landsknecht's fund and opening")
    banker = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="game_banks")
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    step_count = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=20, blank=True, default="")
    record = models.JSONField(null=True, blank=True, help_text="the coup record, once the coup is over")
    void_reason = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            unique_constraint(
                ["table", "number"],
                "gamecoup_number_unique_per_table",
                "This table already has a coup with this number.",
            ),
            unique_constraint(
                ["table"],
                "gamecoup_one_open_per_table",
                "A coup is already being played at this table.",
                condition=Q(state="open"),
            ),
            check_constraint(Q(number__gte=1), "gamecoup_number_positive", "Coups are numbered from 1."),
            check_constraint(_one_of("state", GameCoupState), "gamecoup_state_valid", "Unknown coup state."),
            check_constraint(
                Q(game__in=[g.value for g in OLDER_GAMES]),
                "gamecoup_game_valid",
                "Not a game of this kind of coup.",
            ),
            check_constraint(
                Q(state="open", ended_at__isnull=True) | (~Q(state="open") & Q(ended_at__isnull=False)),
                "gamecoup_ended_at_matches_state",
                "A coup in play has no end time, a finished one has one.",
            ),
            check_constraint(
                Q(state="settled", record__isnull=False) | ~Q(state="settled"),
                "gamecoup_settled_has_record",
                "A settled coup keeps its record.",
            ),
            check_constraint(
                Q(state="void") & ~Q(void_reason="") | ~Q(state="void"),
                "gamecoup_void_has_reason",
                "A void coup says why.",
            ),
        ]
        indexes = [models.Index(fields=["created_at", "id"], name="gamecoup_created_idx")]

    def __str__(self) -> str:
        return f"{self.table} {self.get_game_display()} coup {self.number}"


class GameStep(models.Model):
    """One recorded step of a game coup: the JSON the croupier entered (docs/games/). Append-only
    (DB triggers): a coup played wrongly is voided by a pit boss, never edited."""

    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True

    coup = models.ForeignKey(GameCoup, on_delete=models.PROTECT, related_name="steps", db_index=False)
    index = models.PositiveIntegerField()
    payload = models.JSONField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    idempotency_key = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["coup", "index"]
        constraints = [
            unique_constraint(
                ["coup", "index"],
                "gamestep_index_unique_per_coup",
                "This coup already has a step with this index.",
            ),
            check_constraint(Q(index__gte=1), "gamestep_index_positive", "Steps are numbered from 1."),
            unique_constraint(
                ["coup", "idempotency_key"],
                "gamestep_idempotency_key_unique",
                "This step was already recorded (same idempotency key).",
                condition=~Q(idempotency_key=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.coup} step {self.index}"


# ------------------------------------------------------------------------------------- void requests


class VoidRequestState(models.TextChoices):
    PENDING = "pending", "awaiting a second pit boss"
    APPROVED = "approved"
    REFUSED = "refused"
    LAPSED = "lapsed", "lapsed: the coup ended first"


class VoidRequest(models.Model):
    """A void that waits for a second pit boss: the coup (chemin de fer's, or an older game's) had
    more chips at stake than its casino's ``void_second_approval_above`` (issue 20, separation of
    duties). The coup plays on meanwhile; another pit boss, who neither asked for the void nor
    recorded a step of the coup, approves it (the coup is voided then, by him) or refuses it. A
    request whose coup ended first lapses. Written by tables.services.voids only, each change
    audited; the database keeps the decision's shape (below)."""

    State = VoidRequestState

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="void_requests")
    coup = models.ForeignKey(
        Coup, null=True, blank=True, on_delete=models.PROTECT, related_name="void_requests"
    )
    game_coup = models.ForeignKey(
        GameCoup, null=True, blank=True, on_delete=models.PROTECT, related_name="void_requests"
    )
    stakes = models.PositiveBigIntegerField(
        help_text="the chips at stake in the coup when the void was asked"
    )
    limit = models.PositiveBigIntegerField(help_text="the casino's limit then")
    reason = models.CharField(max_length=300)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    decided_by = staff_reference()
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True, default="", help_text="why it was refused")

    class Meta:
        ordering = ["requested_at", "id"]
        constraints = [
            check_constraint(
                _exactly_one("coup", "game_coup"),
                "voidrequest_one_coup",
                "A void request names one coup.",
            ),
            check_constraint(
                _one_of("state", VoidRequestState), "voidrequest_state_valid", "Unknown void request state."
            ),
            check_constraint(~Q(reason=""), "voidrequest_has_reason", "A void says why."),
            check_constraint(
                Q(stakes__gt=F("limit")), "voidrequest_above_limit", "Only a void above the limit waits."
            ),
            check_constraint(
                Q(state="pending", decided_at__isnull=True, decided_by__isnull=True)
                | (~Q(state="pending") & Q(decided_at__isnull=False)),
                "voidrequest_decided_matches_state",
                "A pending request is undecided, any other has its decision time.",
            ),
            check_constraint(
                ~Q(state__in=["approved", "refused"]) | Q(decided_by__isnull=False),
                "voidrequest_decision_has_pit_boss",
                "An approval or a refusal names the pit boss who made it.",
            ),
            check_constraint(
                Q(decided_by__isnull=True) | ~Q(decided_by=F("requested_by")),
                "voidrequest_second_pit_boss",
                "The pit boss who asked for a void does not decide it.",
            ),
            unique_constraint(
                ["coup"],
                "voidrequest_one_pending_per_coup",
                "A void of this coup already waits for a second pit boss.",
                condition=Q(state="pending"),
            ),
            unique_constraint(
                ["game_coup"],
                "voidrequest_one_pending_per_game_coup",
                "A void of this coup already waits for a second pit boss.",
                condition=Q(state="pending"),
            ),
        ]
        indexes = [
            models.Index(
                fields=["casino", "state"], condition=Q(state="pending"), name="voidrequest_pending_idx"
            )
        ]

    def __str__(self) -> str:
        return f"void of {self.coup or self.game_coup} ({self.state})"

"""Cash-transaction compliance's records (docs/compliance.md).

``CashPolicy`` is a one-to-one of ``tables.Casino`` kept here, not columns of ``Casino``: the floor
never needs it, and the cage (above) asks compliance, never the other way round. A casino without
a row follows the US preset with a chip worth one unit of the currency (``policy_for``).

The records are append-only where they are history (an identification is recorded once per
player, a log entry once per transaction); a report follows the day's total while it is open and
is frozen once filed (cash after it opens a supplementary report), each change bound to its audit
event like its opening.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from core.model_kit import check_constraint, staff_reference, unique_constraint


class Preset(models.TextChoices):
    US_TITLE31 = "us_title31", _("US Title 31")
    EU_AMLD = "eu_amld", _("EU anti-money-laundering")
    CUSTOM = "custom", _("Custom")


#: each preset's thresholds, in whole units of the currency: (log above, report above, identify at)
PRESET_THRESHOLDS: dict[str, tuple[int | None, int | None, int | None]] = {
    # a multiple-transaction-log entry for each cash transaction above 3,000; a currency-transaction
    # report when one direction's day total exceeds 10,000 (identification needed for it)
    Preset.US_TITLE31: (3_000, 10_000, None),
    # the player identified before any transaction of 2,000 or more
    Preset.EU_AMLD: (None, None, 2_000),
}


class Direction(models.TextChoices):
    IN = "in", _("cash in")
    OUT = "out", _("cash out")


def _preset_condition(preset: str) -> Q:
    log, report, identify = PRESET_THRESHOLDS[preset]
    return Q(
        preset=preset,
        **{
            f"{name}__isnull" if value is None else name: True if value is None else value
            for name, value in (
                ("log_threshold", log),
                ("report_threshold", report),
                ("identification_threshold", identify),
            )
        },
    )


class CashPolicy(models.Model):
    """A casino's thresholds (whole units of ``currency``; empty: that duty does not apply) and the
    value of one chip, in hundredths of the currency."""

    casino = models.OneToOneField("tables.Casino", on_delete=models.CASCADE, related_name="cash_policy")
    preset = models.CharField(max_length=20, choices=Preset.choices, default=Preset.US_TITLE31)
    log_threshold = models.PositiveBigIntegerField(
        null=True, blank=True, default=3_000, help_text=_("a cash transaction above this is logged")
    )
    report_threshold = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        default=10_000,
        help_text=_("a day's cash in, or cash out, above this opens a report and needs identification"),
    )
    identification_threshold = models.PositiveBigIntegerField(
        null=True, blank=True, help_text=_("a cash transaction of this or more needs identification")
    )
    currency = models.CharField(max_length=3, default="EUR", help_text=_("ISO 4217 code, e.g. EUR"))
    chip_value_cents = models.PositiveIntegerField(
        default=100, help_text=_("the value of one chip, in hundredths of the currency")
    )

    class Meta:
        verbose_name = _("cash policy")
        verbose_name_plural = _("cash policies")
        constraints = [
            check_constraint(
                _preset_condition(Preset.US_TITLE31)
                | _preset_condition(Preset.EU_AMLD)
                | Q(preset=Preset.CUSTOM),
                "cashpolicy_preset_thresholds",
                "A preset's thresholds are the preset's; choose custom to set others.",
            ),
            check_constraint(
                Q(chip_value_cents__gte=1), "cashpolicy_chip_value_positive", "A chip is worth something."
            ),
            check_constraint(
                (Q(log_threshold__isnull=True) | Q(log_threshold__gte=1))
                & (Q(report_threshold__isnull=True) | Q(report_threshold__gte=1))
                & (Q(identification_threshold__isnull=True) | Q(identification_threshold__gte=1)),
                "cashpolicy_thresholds_positive",
                "A threshold is at least 1.",
            ),
        ]

    def __str__(self) -> str:
        return f"cash policy of casino {self.casino_id} ({self.preset})"


class DocumentType(models.TextChoices):
    PASSPORT = "passport", _("Passport")
    NATIONAL_ID = "national_id", _("National identity card")
    DRIVING_LICENCE = "driving_licence", _("Driving licence")
    RESIDENCE_PERMIT = "residence_permit", _("Residence permit")


class PlayerIdentification(models.Model):
    """The document a player was identified with: recorded once per player (append-only), shown
    masked (``masked``); reading it in full is audited (compliance.services.identification_read)."""

    AUDIT_BOUND = True

    player = models.OneToOneField("tables.Player", on_delete=models.PROTECT, related_name="identification")
    document_type = models.CharField(max_length=20, choices=DocumentType.choices)
    document_number = models.CharField(max_length=40)
    recorded_at = models.DateTimeField(db_default=Now())
    recorded_by = staff_reference()

    class Meta:
        constraints = [
            check_constraint(
                Q(document_type__in=DocumentType.values),
                "playeridentification_type_valid",
                "Unknown document type.",
            ),
            check_constraint(
                ~Q(document_number=""), "playeridentification_number_given", "A document has a number."
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_document_type_display()} {self.masked}"

    @property
    def masked(self) -> str:
        """The number as the screens show it: its last four characters only."""
        return mask(self.document_number)


def mask(number: str) -> str:
    """``****1234``: never more than the last four characters (all masked when it has four or fewer)."""
    shown = number[-4:] if len(number) > 4 else ""
    return "****" + shown


class CashLogEntry(models.Model):
    """One cash transaction above the log threshold (append-only): who, which way, how many chips
    (and what they are worth), when, the cashier, the table if any, the ledger's transaction."""

    AUDIT_BOUND = True

    casino = models.ForeignKey("tables.Casino", on_delete=models.PROTECT, related_name="+", db_index=False)
    player = models.ForeignKey("tables.Player", on_delete=models.PROTECT, related_name="cash_log")
    direction = models.CharField(max_length=3, choices=Direction.choices)
    amount = models.PositiveBigIntegerField(help_text=_("chips"))
    value_cents = models.PositiveBigIntegerField(help_text=_("what the chips are worth, in hundredths"))
    gaming_day = models.DateField()
    logged_at = models.DateTimeField(db_default=Now())
    cashier = staff_reference()
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    transaction = models.OneToOneField("ledger.Transaction", on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-logged_at", "-pk"]
        constraints = [
            check_constraint(
                Q(amount__gte=1), "cashlogentry_amount_positive", "A logged transaction moves chips."
            ),
            check_constraint(Q(direction__in=Direction.values), "cashlogentry_direction_valid", "In or out."),
        ]
        indexes = [models.Index(fields=["casino", "gaming_day"], name="cashlog_casino_day_idx")]

    def __str__(self) -> str:
        return f"{self.direction} {self.amount} chips, player {self.player_id}, {self.gaming_day}"


class CashReport(models.Model):
    """A report to file: the player's cash in (or out) on a gaming day went above the report
    threshold. Its total is the day's total in its direction, brought up to date by every move of
    the day while it is open; frozen once someone of compliance marks it filed, after which the
    day's further cash opens a supplementary report (the day's whole total again). At most one
    open per player, day and direction."""

    AUDIT_BOUND = True

    class Status(models.TextChoices):
        OPEN = "open", _("to file")
        FILED = "filed", _("filed")

    casino = models.ForeignKey("tables.Casino", on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(
        "tables.Player", on_delete=models.PROTECT, related_name="cash_reports", db_index=False
    )
    gaming_day = models.DateField()
    direction = models.CharField(max_length=3, choices=Direction.choices)
    total = models.PositiveBigIntegerField(
        help_text=_("chips: the day's total in this direction, up to the last move before it was filed")
    )
    total_value_cents = models.PositiveBigIntegerField()
    transaction = models.OneToOneField("ledger.Transaction", on_delete=models.PROTECT, related_name="+")
    opened_at = models.DateTimeField(db_default=Now())
    status = models.CharField(max_length=5, choices=Status.choices, default=Status.OPEN)
    filed_at = models.DateTimeField(null=True, blank=True)
    filed_by = staff_reference()

    class Meta:
        ordering = ["-gaming_day", "-pk"]
        # the player's reports (a player's PROTECT, his day's reports filed or not)
        indexes = [
            models.Index(fields=["player", "gaming_day", "direction"], name="cashreport_player_day_idx")
        ]
        constraints = [
            unique_constraint(
                ["player", "gaming_day", "direction"],
                "cashreport_one_open_a_day_and_direction",
                "A player has one report to file a gaming day for each direction.",
                condition=Q(status="open"),
            ),
            check_constraint(
                Q(status="open", filed_at__isnull=True, filed_by__isnull=True)
                | Q(status="filed", filed_at__isnull=False, filed_by__isnull=False),
                "cashreport_filed_by_someone_at_a_time",
                "A filed report says who filed it and when.",
            ),
            check_constraint(Q(direction__in=Direction.values), "cashreport_direction_valid", "In or out."),
        ]
        permissions = [("review_cash", "Can review the cash-transaction logs and file the reports")]

    def __str__(self) -> str:
        return f"report {self.direction} {self.total} chips, player {self.player_id}, {self.gaming_day}"

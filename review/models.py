"""The pit boss's alerts (docs/review.md, "Alerts"): conditions on the floor that someone should
look at, raised by the idempotent scan ``review.alerts.alerts_raise`` and acknowledged with a note.

The thresholds are a review-side one-to-one of ``tables.Casino`` (``AlertSettings``), not columns
of ``Casino``: the game floor never needs them, and ``tables`` may not import ``review``.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.model_kit import staff_reference


class AlertKind(models.TextChoices):
    # a context: the dashboard's tiles count the same words with a plural ("3 flagged coups"), and
    # one msgid cannot be both singular-only and plural (xgettext merges them, the label is lost)
    FLAGGED_COUP = "flagged_coup", pgettext_lazy("alert kind", "flagged coup")
    SHOE_ALARM = "shoe_alarm", pgettext_lazy("alert kind", "shoe alarm")
    UNFINISHED_COUP = "unfinished_coup", _("coup unfinished too long")
    AUDIT_BREAK = "audit_break", _("audit chain break")
    BIG_WIN = "big_win", _("win above the threshold")
    ERROR_RATE = "error_rate", _("croupier error rate above the threshold")
    MONEY_FLOW = "money_flow", _("money passed between players")


class AlertSettings(models.Model):
    """A casino's alert thresholds. A casino without a row uses the defaults below."""

    casino = models.OneToOneField("tables.Casino", on_delete=models.CASCADE, related_name="alert_settings")
    unfinished_minutes = models.PositiveIntegerField(
        default=15, help_text=_("a coup still in play after this many minutes raises an alert")
    )
    win_threshold = models.PositiveBigIntegerField(
        default=50_000, help_text=_("chips: one win (a punter's or the banker's) above this raises an alert")
    )
    error_rate_bp = models.PositiveIntegerField(
        default=500, help_text=_("basis points: steps against the rules per coup recorded; 500 = 5 %")
    )
    error_rate_coups = models.PositiveIntegerField(
        default=50, help_text=_("the croupier's rate is taken over this many of the croupier's last coups")
    )
    # money passed between players (docs/flows.md)
    flow_threshold = models.PositiveBigIntegerField(
        default=10_000, help_text=_("chips: one player's net flow to another above this is examined")
    )
    flow_days = models.PositiveIntegerField(
        default=7, help_text=_("gaming days: the period a pair's flow is summed over, today included")
    )
    flow_z = models.PositiveIntegerField(
        default=4, help_text=_("standard deviations beyond honest play that flag a pair")
    )

    class Meta:
        verbose_name = _("alert settings")
        verbose_name_plural = _("alert settings")
        constraints = [
            models.CheckConstraint(
                condition=Q(unfinished_minutes__gte=1),
                name="alertsettings_unfinished_minutes_positive",
                violation_error_message=_("A coup is unfinished after one minute at the least."),
            ),
            models.CheckConstraint(
                condition=Q(error_rate_coups__gte=1),
                name="alertsettings_error_coups_positive",
                violation_error_message=_("The error rate is taken over one coup at the least."),
            ),
            models.CheckConstraint(
                condition=Q(flow_days__gte=1),
                name="alertsettings_flow_days_positive",
                violation_error_message=_("A flow is summed over one gaming day at the least."),
            ),
        ]

    def __str__(self) -> str:
        return f"alert settings of casino {self.casino_id}"


class Alert(models.Model):
    """One condition raised once: ``(kind, subject_key)`` is unique, so a second scan finds it
    already raised. Open while ``acknowledged_at`` is empty; acknowledging needs a note."""

    Kind = AlertKind

    casino = models.ForeignKey(
        "tables.Casino",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("empty: concerns every casino (the audit chain)"),
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    subject_key = models.CharField(max_length=100, help_text=_('what it is about, e.g. "coup:41"'))
    summary = models.CharField(max_length=300)
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    coup = models.ForeignKey("tables.Coup", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    user = staff_reference()
    raised_at = models.DateTimeField()
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = staff_reference()
    note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["-raised_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "subject_key"], name="alert_raised_once"),
            models.CheckConstraint(
                condition=Q(acknowledged_at__isnull=True, acknowledged_by__isnull=True, note="")
                | (Q(acknowledged_at__isnull=False, acknowledged_by__isnull=False) & ~Q(note="")),
                name="alert_acknowledged_with_note",
                violation_error_message="An alert is acknowledged by someone, at a time, with a note.",
            ),
        ]
        indexes = [
            # the navigation counts open alerts on every page: a partial index keeps that cheap
            models.Index(
                fields=["raised_at"], condition=Q(acknowledged_at__isnull=True), name="alert_open_idx"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.summary}"

    @property
    def is_open(self) -> bool:
        return self.acknowledged_at is None

    @property
    def game_coup_id(self) -> int | None:
        """The older game's coup an alert is about (``gamecoup:<id>``; its ``coup`` is chemin de fer's)."""
        prefix, _, number = self.subject_key.partition(":")
        return int(number) if prefix == "gamecoup" and number.isdigit() else None


class AlertScan(models.Model):
    """When the scan last ran: one row (pk 1). The scan locks it, so two scans (beat and a
    dashboard poll) never run at once, and the poll runs one only when this is old."""

    scanned_at = models.DateTimeField()

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(pk=1), name="alertscan_single_row")]

    def __str__(self) -> str:
        return f"alerts scanned at {self.scanned_at:%Y-%m-%d %H:%M:%S}"

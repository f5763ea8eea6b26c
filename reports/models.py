"""Report runs: one report asked for, written by a Celery worker into the reports storage
(docs/reports.md). A run is queued, running, then finished (its file whole, its sha256 recorded
and audited) or failed (with the reason); a finished or failed run never changes again."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from core.model_kit import staff_reference
from reports.storage import reports_storage


class ReportRunStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    FAILED = "failed", _("failed")


#: the statuses in which a run is still to be written: one identical request at a time
ACTIVE = (ReportRunStatus.QUEUED, ReportRunStatus.RUNNING)


class ReportRun(models.Model):
    Status = ReportRunStatus
    #: bound to its audit event once it is finished or failed (audit.rows), when it is frozen:
    #: before that its progress and heartbeat move with no event
    AUDIT_BOUND = True
    AUDIT_BOUND_WHEN = Q(status__in=[ReportRunStatus.FINISHED, ReportRunStatus.FAILED])

    kind = models.CharField(max_length=40, help_text="a key of reports.kinds.KINDS")
    casino = models.ForeignKey("tables.Casino", null=True, blank=True, on_delete=models.PROTECT)
    table = models.ForeignKey("tables.Table", null=True, blank=True, on_delete=models.PROTECT)
    start = models.DateField(help_text="first gaming day, inclusive")
    end = models.DateField(help_text="last gaming day, inclusive")
    format = models.CharField(max_length=10)
    parameters = models.JSONField(default=dict, blank=True, help_text="the request as asked, for the record")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rows_done = models.PositiveBigIntegerField(default=0, help_text="progress: rows written so far")
    rows_expected = models.PositiveBigIntegerField(null=True, blank=True)
    row_count = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="data rows of the finished file"
    )
    file = models.FileField(storage=reports_storage, max_length=300, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    requested_by = staff_reference()
    requested_label = models.CharField(
        max_length=150, help_text="who asked: the user's name, or 'scheduler' / 'command' for the system"
    )
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="times a worker started writing it")
    heartbeat_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="the writing worker's last sign of life; a run still running with none for "
        "REPORTS_STALE_SECONDS is queued again (reports.services.report_runs_requeue_stalled)",
    )

    class Meta:
        ordering = ["-requested_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=ReportRunStatus.values), name="reportrun_status_known"
            ),
            models.CheckConstraint(condition=Q(start__lte=F("end")), name="reportrun_start_before_end"),
            # finished: the file is whole and named, its digest and row count recorded
            models.CheckConstraint(
                condition=~Q(status=ReportRunStatus.FINISHED)
                | (
                    ~Q(file="")
                    & Q(sha256__regex=r"^[0-9a-f]{64}$")
                    & Q(row_count__isnull=False)
                    & Q(finished_at__isnull=False)
                ),
                name="reportrun_finished_complete",
            ),
            models.CheckConstraint(
                condition=~Q(status=ReportRunStatus.FAILED) | (~Q(error="") & Q(finished_at__isnull=False)),
                name="reportrun_failed_says_why",
            ),
            models.CheckConstraint(
                condition=Q(status__in=[ReportRunStatus.QUEUED, ReportRunStatus.FAILED])
                | Q(started_at__isnull=False),
                name="reportrun_started",
            ),
            # Asking again for a report being written gives the same run (reports.services):
            # casino and table may be NULL, which a plain unique constraint would treat as distinct.
            models.UniqueConstraint(
                F("kind"),
                Coalesce("casino", 0),
                Coalesce("table", 0),
                F("start"),
                F("end"),
                F("format"),
                condition=Q(status__in=ACTIVE),
                name="reportrun_one_active_per_request",
            ),
        ]
        indexes = [models.Index(fields=["status", "requested_at"], name="reportrun_status")]

    def __str__(self) -> str:
        return f"{self.kind} {self.start}..{self.end} {self.format} ({self.status})"

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def title(self) -> str:
        """The report's English title (reports.kinds.KINDS), for a screen to translate; the slug
        of a kind no longer offered."""
        from reports.kinds import KINDS  # kinds reaches the builders and tables: not at import time

        info = KINDS.get(self.kind)
        return info.title if info else self.kind

    @property
    def filename(self) -> str:
        """The name a download is saved under."""
        scope = (f"_casino-{self.casino_id}" if self.casino_id else "") + (
            f"_table-{self.table_id}" if self.table_id else ""
        )
        return f"{self.kind}_{self.start:%Y-%m-%d}_{self.end:%Y-%m-%d}{scope}.{self.format}"

"""The audit trail: one hash-chained, append-only table.

Rows are written only by :func:`audit.services.audit_record`; UPDATE, DELETE and TRUNCATE are
refused by database triggers (migration 0002, see docs/audit.md).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

HEX64 = r"^[0-9a-f]{64}$"


class AuditEvent(models.Model):
    seq = models.PositiveBigIntegerField(unique=True, help_text="1, 2, 3, … without gaps")
    occurred_at = models.DateTimeField()
    # PROTECT: a user with history cannot be deleted (deactivate instead); SET_NULL would have to
    # UPDATE audit rows, which the triggers refuse anyway.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_events",
    )
    actor_label = models.CharField(max_length=150, help_text="username when the event was written")
    action = models.CharField(max_length=100)
    object_type = models.CharField(max_length=100, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    # unique prev_hash: two events can never claim the same predecessor, so the chain cannot fork
    # even if the writers' lock were bypassed.
    prev_hash = models.CharField(max_length=64, unique=True)
    hash = models.CharField(max_length=64, unique=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seq__gte=1), name="audit_seq_positive", violation_error_message="seq starts at 1."
            ),
            models.CheckConstraint(
                condition=Q(hash__regex=HEX64) & Q(prev_hash__regex=HEX64),
                name="audit_hashes_hex64",
                violation_error_message="Hashes are 64 lowercase hex digits.",
            ),
            models.CheckConstraint(
                condition=~Q(action=""),
                name="audit_action_set",
                violation_error_message="An action is required.",
            ),
        ]
        indexes = [models.Index(fields=["object_type", "object_id"], name="audit_object_idx")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.action} by {self.actor_label}"

"""Data the apps share: the stored answers to idempotent requests."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class IdempotencyRecord(models.Model):
    """The first response to a client request carrying an Idempotency-Key: a replay gets it back.

    Claimed (inserted) before the work runs, inside the same transaction, so a concurrent replay
    waits on the unique index and then finds the finished response.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=128)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of method, path and body")
    status_code = models.PositiveSmallIntegerField(default=0)
    response = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "key"],
                name="idempotency_key_unique_per_user",
                violation_error_message="This idempotency key was already used.",
            ),
            models.CheckConstraint(
                condition=~Q(key=""),
                name="idempotency_key_set",
                violation_error_message="An idempotency key cannot be empty.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"

"""Data the apps share: the stored answers to idempotent requests, the outbox of Celery work."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.model_kit import check_constraint, unique_constraint


class IdempotencyRecord(models.Model):
    """The first response to a client request carrying an Idempotency-Key: a replay gets it back.

    Claimed (inserted) before the work runs, inside the same transaction, so a concurrent replay
    waits on the unique index and then finds the finished response. The body is kept packed
    (core.answers: canonical JSON, deflated against a preset dictionary), about a sixth of it as
    ``jsonb``, and replays as the same bytes.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    key = models.CharField(max_length=128)
    fingerprint = models.BinaryField(max_length=32, help_text="SHA-256 of method, path and body (32 bytes)")
    status_code = models.PositiveSmallIntegerField(default=0)
    answer = models.BinaryField(
        default=b"", help_text="the response's JSON body, packed by core.answers (empty until answered)"
    )
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            unique_constraint(
                ["user", "key"], "idempotency_key_unique_per_user", "This idempotency key was already used."
            ),
            check_constraint(~Q(key=""), "idempotency_key_set", "An idempotency key cannot be empty."),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"


class ApiToken(models.Model):
    """A device's API token, kept only as its SHA-256 digest: the token itself is shown once, in
    the answer that creates it, and can be neither read back nor re-issued (access.services.tokens).

    SHA-256 and not a slow password hash: a token is 256 random bits, which no dictionary guesses,
    and every API request looks its digest up. ``prefix`` (the token's first characters) only tells
    tokens apart in the admin; it does not help guess the remaining 200-odd bits.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens", db_index=False
    )
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token, hex")
    prefix = models.CharField(max_length=8, help_text="the token's first characters")
    created_at = models.DateTimeField()

    class Meta:
        verbose_name = "API token"
        indexes = [models.Index(fields=["user", "created_at"], name="apitoken_user_created_idx")]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user_id})"


class LoginFailure(models.Model):
    """One refused login (a wrong password, an unknown user, a locked-out client): the security log.

    Deliberately NOT on the audit chain: an append to the chain serialises on its global lock, and
    a flood of wrong passwords then queued every croupier's step behind the attacker's (issue 10).
    A failure is one plain INSERT here; a periodic task (core.tasks) appends one audit event that
    summarises the failures since the last one (``summarised``), so the chain still says that they
    happened, how many, for which usernames and from where.
    """

    occurred_at = models.DateTimeField(db_index=True)
    username = models.CharField(max_length=150, blank=True)
    ip = models.CharField(max_length=45, blank=True)
    user_agent = models.CharField(max_length=200, blank=True)
    path = models.CharField(max_length=200, blank=True)
    locked_out = models.BooleanField(
        default=False, help_text="refused because the user or the address is locked out"
    )
    summarised = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["id"], condition=Q(summarised=False), name="loginfailure_pending_idx")
        ]

    def __str__(self) -> str:
        return f"{self.occurred_at:%Y-%m-%d %H:%M:%S} {self.username or '?'} from {self.ip or '?'}"


class OutboxMessage(models.Model):
    """A Celery task to send, written in the same transaction as the change that calls for it.

    Sending straight after COMMIT fails when the broker is down (the change is committed, the
    request would answer 500 and the work be lost); from this table a send is retried until the
    broker takes it: once at commit, then by the drain (beat's ``core.outbox_drain``, or
    ``manage.py outbox_drain``). At least once: every task sent through it is idempotent.
    """

    task = models.CharField(max_length=200, help_text="the Celery task's registered name")
    args = models.JSONField(default=list, blank=True)
    kwargs = models.JSONField(default=dict, blank=True)
    key = models.CharField(max_length=200, unique=True, help_text="one message per key, ever")
    created_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        indexes = [
            # the drain reads the unsent ones, oldest first; sent rows (nearly all) stay out of it
            models.Index(
                fields=["created_at", "id"], condition=Q(sent_at__isnull=True), name="outbox_unsent"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task} {self.key}"

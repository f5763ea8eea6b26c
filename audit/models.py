"""The audit trail: one append-only table holding one hash chain (HMAC-keyed) per casino, plus
the global chain for what belongs to no casino (users, logins, settings).

Rows are written only by :func:`audit.services.audit_record`; UPDATE, DELETE and TRUNCATE are
refused by database triggers (migration 0002, see docs/audit.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Lookup, Q
from django.db.models.functions import Length
from django.db.models.sql.compiler import SQLCompiler

from core.model_kit import check_constraint, staff_reference, unique_constraint

#: bytes of a stored hash (SHA-256, HMAC-SHA256)
HASH_BYTES = 32
#: the chain of the events that belong to no casino; every other chain is a casino's id
GLOBAL_CHAIN = 0


if TYPE_CHECKING:  # what the typed models see of a hash: hex in, hex out (the stubs say bytes)
    _BinaryField = models.BinaryField[str | bytes, str]
    _Lookup = Lookup[bool]
else:
    _BinaryField, _Lookup = models.BinaryField, Lookup


class HashField(_BinaryField):
    """A SHA-256 or HMAC-SHA256 digest kept as its 32 bytes (``bytea``, a SQLite blob), half the
    64 hex characters it was kept as, in the row and in each of its unique indexes; read and
    written as 64 lowercase hex digits, so everything above the database (the chain's hashing,
    admin, pages, exports, anchors, ``verify_audit``) sees the hex it always saw. A value that is
    not 64 hex digits is refused before it reaches the database (bytes pass as they are: a
    test's forgery, a migration's copy)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", HASH_BYTES)
        # shown (read only) where the admin showed the text column; BinaryField hides itself
        kwargs.setdefault("editable", True)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        if kwargs.get("max_length") == HASH_BYTES:
            del kwargs["max_length"]
        kwargs.pop("editable", None)
        return name, path, args, kwargs

    def from_db_value(self, value: Any, expression: Any, connection: BaseDatabaseWrapper) -> str | None:
        return None if value is None else bytes(value).hex()

    def to_python(self, value: Any) -> Any:
        if isinstance(value, bytes | memoryview):
            return bytes(value).hex()
        return value

    def get_prep_value(self, value: Any) -> Any:
        if value is None or isinstance(value, bytes | memoryview):
            return value
        text = str(value)
        if len(text) != 2 * HASH_BYTES:
            raise ValueError(f"a hash is {2 * HASH_BYTES} hex digits, got {len(text)} characters")
        return bytes.fromhex(text)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if not prepared:
            value = self.get_prep_value(value)
        return None if value is None else connection.Database.Binary(value)

    def value_to_string(self, obj: models.Model) -> str:
        return str(self.value_from_object(obj))


@HashField.register_lookup
class HashContains(_Lookup):
    """``hash__icontains``: the admin's search box, a part of the hex a person copied, matched
    against the stored bytes' hex (no index serves it, as none served LIKE '%…%' on the text)."""

    lookup_name = "icontains"
    prepare_rhs = False

    def as_sql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper) -> tuple[str, tuple[Any, ...]]:
        lhs, params = self.process_lhs(compiler, connection)
        hexed = f"encode({lhs}, 'hex')" if connection.vendor == "postgresql" else f"lower(hex({lhs}))"
        needle = str(self.rhs).lower()
        if not needle or any(c not in "0123456789abcdef" for c in needle):
            return "1 = 0", ()  # no hex digest holds anything but hex digits
        return f"{hexed} LIKE %s", (*params, f"%{needle}%")


HashField.register_lookup(Length)


class AuditEvent(models.Model):
    # Which chain the event is on: a casino's id, or 0 (GLOBAL_CHAIN) for users, logins, settings
    # and every event written before chains were split (audit 0006). Not a foreign key: the audit
    # app depends on no other app, and a chain outlives anything done to its casino's row.
    chain = models.PositiveBigIntegerField(default=GLOBAL_CHAIN, help_text="0: global, else a casino id")
    seq = models.PositiveBigIntegerField(help_text="1, 2, 3, … without gaps, per chain")
    occurred_at = models.DateTimeField()
    # PROTECT: a user with history cannot be deleted (deactivate instead); SET_NULL would have to
    # UPDATE audit rows, which the triggers refuse anyway.
    actor = staff_reference(related_name="audit_events")
    actor_label = models.CharField(max_length=150, help_text="username when the event was written")
    action = models.CharField(max_length=100)
    object_type = models.CharField(max_length=100, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    # The hash of the event one seq before on the chain (GENESIS_HASH for seq 1): the database
    # refuses an INSERT that does not link so (audit.db_triggers, "the chain's links"), so a chain
    # cannot fork or skip an event even if the writers' lock were bypassed. No index: nothing
    # looks an event up by a hash, and the link is checked through UNIQUE(chain, seq)'s.
    prev_hash = HashField()
    # Not indexed (audit 0012 dropped UNIQUE(hash), a tenth of a played coup's bytes): the hashed
    # content names the chain and seq, which UNIQUE(chain, seq) keeps apart, so no two events the
    # appender writes share a hash; a row forged with a copied one is the verifier's to find.
    hash = HashField()
    # The HMAC key the hash was computed with (settings, never stored here); empty: plain SHA-256,
    # an event written before the cut-over to keyed hashes (docs/audit.md, "Keys").
    key_id = models.CharField(max_length=32, blank=True, default="")
    # The rows this event wrote, each bound by its digest (audit.rows): [[table, id, digest,
    # column prints], ...] sorted by table and id; None for an event that binds no row (and every
    # event written before rows were bound: its hashed content has no "rows" key).
    rows = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["chain", "seq"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seq__gte=1), name="audit_seq_positive", violation_error_message="seq starts at 1."
            ),
            check_constraint(
                Q(chain__gte=0), "audit_chain_nonnegative", "A chain is 0 (global) or a casino's id."
            ),
            unique_constraint(
                ["chain", "seq"], "audit_chain_seq_unique", "This chain already has an event with this seq."
            ),
            check_constraint(
                Q(hash__length=HASH_BYTES) & Q(prev_hash__length=HASH_BYTES),
                "audit_hashes_32_bytes",
                "Hashes are 32 bytes.",
            ),
            check_constraint(~Q(action=""), "audit_action_set", "An action is required."),
        ]
        indexes = [
            models.Index(fields=["object_type", "object_id"], name="audit_object_idx"),
            # the dashboard's "a verification was asked for at …": the newest such request, found
            # without reading the trail backwards (a partial index: these events are few)
            models.Index(
                fields=["id"],
                condition=Q(action="audit.chainverification.request"),
                name="audit_verify_request_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.chain}/{self.seq} {self.action} by {self.actor_label}"


class ChainVerification(models.Model):
    """The result of one walk of one chain (``audit_chain_verify``), kept so that the pit boss's
    dashboard can say "verified up to seq N at time T: OK / broken at seq K". A run over every
    chain stores one row per chain. Append-only (migration 0003): a result, once stored, is history
    like the events it describes."""

    chain = models.PositiveBigIntegerField(default=GLOBAL_CHAIN, help_text="0: global, else a casino id")

    requested_by = staff_reference(help_text="empty: the nightly run")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    checked = models.PositiveBigIntegerField(help_text="events walked")
    # 1: the whole chain; above 1, an incremental run that walked only what was appended after a
    # point an earlier verification had vouched for (its head, confirmed unchanged)
    from_seq = models.PositiveBigIntegerField(default=1, help_text="the first event walked")
    head_seq = models.PositiveBigIntegerField(null=True, blank=True, help_text="the last event checked")
    head_hash = HashField()
    ok = models.BooleanField()
    broken_count = models.PositiveIntegerField(default=0)
    first_broken_seq = models.PositiveBigIntegerField(null=True, blank=True)
    first_broken_reason = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-finished_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(ok=True, broken_count=0, first_broken_seq__isnull=True))
                | (Q(ok=False, broken_count__gt=0, first_broken_seq__isnull=False)),
                name="chainverification_ok_consistent",
                violation_error_message="A verification is OK exactly when nothing was broken.",
            ),
            check_constraint(
                Q(finished_at__gte=models.F("started_at")),
                "chainverification_finishes_after_start",
                "A verification finishes after it starts.",
            ),
            check_constraint(
                Q(head_hash__length=HASH_BYTES),
                "chainverification_head_hash_32_bytes",
                "Hashes are 32 bytes.",
            ),
        ]

    def __str__(self) -> str:
        state = "OK" if self.ok else f"broken at seq {self.first_broken_seq}"
        return f"chain {self.chain} verified up to seq {self.head_seq}: {state}"

"""The rules snapshots coups reference (``tables.models.RulesSnapshot``): written once each,
whoever plays under the same rules first."""

from __future__ import annotations

from typing import Any

from tables.models import RulesSnapshot, rules_digest


def rules_snapshot_keep(*, content: dict[str, Any]) -> str:
    """The digest of ``content``'s snapshot, written if it is not there yet (one INSERT that does
    nothing when the snapshot exists: concurrent coups under new rules both go through), in the caller's
    transaction: the coup that references it is written in the same one."""
    digest = rules_digest(content)
    RulesSnapshot.objects.bulk_create([RulesSnapshot(digest=digest, content=content)], ignore_conflicts=True)
    # the coup about to reference it reads it as its rules at once: no SELECT of what was just written
    RulesSnapshot.content_known(digest, content)
    return digest

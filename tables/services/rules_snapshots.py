"""The rules snapshots coups reference (``tables.models.RulesSnapshot``): written once each,
whoever plays under the same rules first."""

from __future__ import annotations

from typing import Any

import orjson

from tables.models import _SNAPSHOTS, RulesSnapshot, rules_digest


def rules_snapshot_keep(*, content: dict[str, Any]) -> str:
    """The digest of ``content``'s snapshot, written if it is not there yet (one INSERT that does
    nothing when the snapshot exists: concurrent coups under new rules both go through), in the caller's
    transaction: the coup that references it is written in the same one."""
    digest = rules_digest(content)
    RulesSnapshot.objects.bulk_create([RulesSnapshot(digest=digest, content=content)], ignore_conflicts=True)
    # the coup about to reference it reads it as its rules at once: no SELECT of what was just
    # written (a digest names one content whether or not this transaction commits); kept as the
    # database gives it back (JSON types, a copy the caller cannot change)
    _SNAPSHOTS.setdefault(digest, orjson.loads(orjson.dumps(content)))
    return digest

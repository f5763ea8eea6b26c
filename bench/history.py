"""The table a benchmark imports a generated history into (bench/import_bench.py,
bench/books_bench.py): one casino, one table of the records' profile, a croupier on shift there,
and the records written to a temporary JSONL file. Call after ``django.setup()`` and ``migrate``."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path
from typing import Any

from bench.coupgen import write_jsonl


def import_table(*, profile: str) -> tuple[Any, Any]:
    """(croupier, table), through the services; ``profile`` "all" gives a casino table."""
    from django.utils import timezone

    from tables import services
    from tables.models import RuleProfile

    now = timezone.now()
    croupier = services.staff_member_create(
        actor=None, username="bench-croupier", password="bench-password-123", roles=["croupier"]
    )
    casino = services.casino_create(actor=None, name="Bench casino", levy_mode="percentage", levy_rate_bp=500)
    services.casino_staff_grant(actor=None, user=croupier, casino=casino)
    slug = "casino" if profile == "all" else profile
    table = services.table_create(
        actor=None, casino=casino, name="Bench 1", profile=RuleProfile.objects.get(slug=slug)
    )
    services.croupier_assignment_create(
        actor=None,
        user=croupier,
        table=table,
        shift_start=now - dt.timedelta(hours=1),
        shift_end=now + dt.timedelta(hours=12),
    )
    return croupier, table


def history_file(*, n: int, profile: str, prefix: str) -> Path:
    """``n`` generated records of ``profile`` ("all" mixes the four), none malformed."""
    profiles = None if profile == "all" else (profile,)
    path = Path(tempfile.mkdtemp(prefix=prefix)) / "history.jsonl"
    write_jsonl(str(path), n, profiles=profiles, malformed_every=0)
    return path

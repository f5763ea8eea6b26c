"""Eight writers at once never fork the chain: seq stays gapless and every link holds."""

from __future__ import annotations

import threading
from itertools import pairwise

import pytest
from django.contrib.auth.models import Group
from django.db import connection

from audit.models import AuditEvent
from audit.selectors import audit_chain_verify
from tables.models import Player, RuleProfile
from tables.services import player_create
from tests.factories import CasinoFactory, UserFactory

THREADS, WRITES = 8, 25


@pytest.mark.postgres
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_concurrent_audited_writes_keep_one_gapless_chain() -> None:
    casino = CasinoFactory()
    actors = [
        UserFactory(username=f"writer{t}", roles=["croupier"], casinos=[casino]) for t in range(THREADS)
    ]
    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def writer(t: int) -> None:
        try:
            start.wait()
            for i in range(WRITES):
                player_create(actor=actors[t], casino=casino, display_name=f"p{t}-{i}")
        except BaseException as exc:  # reported below; a thread must not die silently
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert errors == []
    total = THREADS * WRITES
    # every event on the casino's chain (a player belongs to its casino), none on the global one
    assert set(AuditEvent.objects.values_list("chain", flat=True)) == {casino.pk}
    events = list(
        AuditEvent.objects.order_by("seq").values("seq", "prev_hash", "hash", "occurred_at", "actor_label")
    )
    assert [e["seq"] for e in events] == list(range(1, total + 1))
    assert all(later["prev_hash"] == earlier["hash"] for earlier, later in pairwise(events))
    assert all(earlier["occurred_at"] <= later["occurred_at"] for earlier, later in pairwise(events))
    assert {e["actor_label"] for e in events} == {f"writer{t}" for t in range(THREADS)}
    assert Player.objects.filter(casino=casino).count() == total
    report = audit_chain_verify(chain=casino.pk)
    assert (report.ok, report.checked, report.head_seq) == (True, total, total)


@pytest.mark.django_db(transaction=True)
def test_builtin_data_survives_the_flush_between_transactional_tests() -> None:
    # The previous transactional test ended with a flush (append-only tables included, through the
    # test-only bypass); post_migrate must have re-created the built-in profiles and roles.
    assert RuleProfile.objects.filter(casino__isnull=True).count() == 4
    assert Group.objects.filter(name__in=["croupier", "pit_boss", "accountant"]).count() == 3
    assert AuditEvent.objects.count() == 0

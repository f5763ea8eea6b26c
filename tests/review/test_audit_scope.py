"""The dashboard's audit panel is the reader's chains' (audit.selectors.audit_chain_state(chains=),
review.selectors.dashboard.audit_chains_of): a pit boss of some casinos among several sees his
casinos' chains and the global chain (every casino's: its break is every pit boss's alert), each
chain's latest verification (every broken one, not only the first), and his "Verify the chain now"
verifies those chains only (review.services.audit_chains_to_verify, the task's ``chains``). Casino
B's broken chain once showed on casino A's pit boss's dashboard, "asked by bravo_boss", with the
totals and the newest event of every casino, and his button checked every casino's chain. A
reader of every casino (the group auditor, a superuser) sees every chain."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from audit.models import GLOBAL_CHAIN, AuditEvent, ChainVerification
from audit.selectors import audit_chain_state
from audit.services import audit_record, chain_verification_request
from audit.tasks import audit_chain_verify_task
from core.models import OutboxMessage
from tests.factories import CasinoFactory, UserFactory

pytestmark = pytest.mark.django_db


def _panel(html: str) -> str:
    found = re.search(r'<section class="card audit-panel".*?</section>', html, re.S)
    assert found is not None
    return found.group(0)


def _verification(chain: int, *, ok: bool, at: dt.datetime, by: Any = None, seq: int = 1) -> None:
    broken = {} if ok else {"broken_count": 1, "first_broken_seq": seq, "first_broken_reason": "forged"}
    ChainVerification.objects.create(
        chain=chain, requested_by=by, started_at=at, finished_at=at, ok=ok, checked=seq, head_seq=seq,
        head_hash="a" * 64, **broken,
    )  # fmt: skip


@pytest.fixture
def two_casinos(table, pit_boss) -> dict[str, Any]:
    """Casino A (``table``'s, its pit boss) and casino B with its own pit boss; one event on the
    global chain, two on A's, three on B's (the newest of all)."""
    bravo = CasinoFactory(name="Casino Bravo")
    bravo_boss = UserFactory(username="bravo_boss", roles=["pit_boss"], casinos=[bravo])
    with transaction.atomic():
        audit_record(actor=None, action="test.global")
        for n in range(2):
            audit_record(actor=None, action=f"test.a.{n}", casino=table.casino)
        for n in range(3):
            audit_record(actor=None, action=f"test.b.{n}", casino=bravo)
    return {"a": table.casino.pk, "b": bravo.pk, "bravo_boss": bravo_boss}


def test_a_pit_boss_sees_his_chains_only(client, pit_boss, two_casinos) -> None:
    a, b = two_casinos["a"], two_casinos["b"]
    now = timezone.now()
    _verification(b, ok=False, at=now, by=two_casinos["bravo_boss"])
    _verification(a, ok=True, at=now - dt.timedelta(minutes=2))
    _verification(GLOBAL_CHAIN, ok=True, at=now - dt.timedelta(minutes=1))
    state = audit_chain_state(chains={GLOBAL_CHAIN, a})
    assert [v.chain for v in state.verifications] == [GLOBAL_CHAIN, a]
    assert (state.events, state.chains, state.head_chain, state.head_seq) == (3, 2, a, 2)
    assert state.last_verification is not None and state.last_verification.chain == GLOBAL_CHAIN

    client.force_login(pit_boss)  # his login: the global chain's seq 2
    panel = _panel(client.get(reverse("review:dashboard")).content.decode())
    assert "broken at seq" not in panel and "bravo_boss" not in panel
    assert f"(the chain of casino {b})" not in panel and f"casino {b}'s chain" not in panel
    assert f'data-testid="audit-verification-{a}"' in panel
    assert 'data-testid="audit-verification-0"' in panel and "(the global chain)" in panel
    assert f'data-testid="audit-verification-{b}"' not in panel
    # the global chain's 2 events and casino A's 2, not casino B's 3; the newest of those
    assert 'data-testid="audit-length">4<' in panel
    assert "2 chains: the global one and your casinos' · " in panel
    assert "the newest event is on the global chain" in panel

    client.force_login(two_casinos["bravo_boss"])
    panel = _panel(client.get(reverse("review:dashboard")).content.decode())
    assert '<strong class="broken">broken at seq 1</strong>' in panel and "asked by bravo_boss" in panel
    assert f'data-testid="audit-verification-{a}"' not in panel


def test_every_broken_chain_is_shown_not_only_the_first(client, pit_boss, group_auditor, two_casinos) -> None:
    a, b = two_casinos["a"], two_casinos["b"]
    now = timezone.now()
    _verification(GLOBAL_CHAIN, ok=False, at=now, seq=1)
    _verification(a, ok=False, at=now, seq=2)
    _verification(b, ok=False, at=now, seq=3)
    client.force_login(pit_boss)
    panel = _panel(client.get(reverse("review:dashboard")).content.decode())
    assert "broken at seq 1" in panel and "broken at seq 2" in panel and "broken at seq 3" not in panel
    client.force_login(group_auditor)  # every casino: every chain
    panel = _panel(client.get(reverse("review:dashboard")).content.decode())
    assert all(f"broken at seq {seq}" in panel for seq in (1, 2, 3))
    assert f"(the chain of casino {b})" in panel
    assert "3 chains: one per casino, and the global one" in panel


def test_his_verify_button_verifies_his_chains(
    client, pit_boss, two_casinos, django_capture_on_commit_callbacks
) -> None:
    a, b = two_casinos["a"], two_casinos["b"]
    client.force_login(pit_boss)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("review:audit_verify"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    verified = dict(ChainVerification.objects.values_list("chain", "requested_by"))
    assert verified == {GLOBAL_CHAIN: pit_boss.pk, a: pit_boss.pk}  # nothing about casino B's
    request = AuditEvent.objects.get(action="audit.chainverification.request")
    assert request.after == {"chains": [GLOBAL_CHAIN, a]}
    assert OutboxMessage.objects.get().kwargs == {"requested_by_id": pit_boss.pk, "chains": [GLOBAL_CHAIN, a]}
    panel = _panel(client.get(reverse("review:dashboard")).content.decode())
    assert f"(the chain of casino {b})" not in panel


def test_a_superuser_pit_bosss_verify_button_verifies_every_chain(
    client, two_casinos, django_capture_on_commit_callbacks
) -> None:
    # "Verify the chain now" is a pit boss's (review.services.can_verify_audit): a superuser in
    # the group works for every casino
    admin = UserFactory(username="admin", is_superuser=True, is_staff=True, roles=["pit_boss"])
    client.force_login(admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("review:audit_verify"))
    assert set(ChainVerification.objects.values_list("chain", flat=True)) == {
        GLOBAL_CHAIN,
        two_casinos["a"],
        two_casinos["b"],
    }
    assert AuditEvent.objects.get(action="audit.chainverification.request").after is None


def test_the_task_verifies_the_chains_asked_for(two_casinos) -> None:
    b = two_casinos["b"]
    result = audit_chain_verify_task(chains=[b])
    assert result["ok"] is True and result["heads"] == {str(b): 3}
    [verification] = ChainVerification.objects.all()
    assert (verification.chain, verification.checked, verification.head_seq) == (b, 3, 3)


def test_a_request_of_other_chains_is_not_his_pending_one(
    client, pit_boss, group_auditor, two_casinos, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=False), transaction.atomic():
        chain_verification_request(actor=two_casinos["bravo_boss"], chains={two_casinos["b"]})
    client.force_login(pit_boss)
    assert "audit-pending" not in _panel(client.get(reverse("review:dashboard")).content.decode())
    client.force_login(group_auditor)
    assert 'data-testid="audit-pending"' in _panel(client.get(reverse("review:dashboard")).content.decode())

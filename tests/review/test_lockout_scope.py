"""Whose login lockouts a pit boss sees and lifts (review.services.lockouts_overseen and
lockout_lift): only those of the staff of the casinos he works for. Not a superuser's (a pit boss
who kept resetting it defeated the limit on the most privileged account), not another casino's
staff's, not a username no account has (the page listed other casinos' usernames and the names
attempted); an address only when no account he does not oversee was tried from it (lifting an
address clears every counter of that address). A refusal is a 403 with nothing cleared and nothing
audited; a superuser sees and lifts every lockout. A lift is audited on the chain of the casino the
locked account works for."""

from __future__ import annotations

from typing import Any

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse

from audit.models import GLOBAL_CHAIN, AuditEvent
from review.services import LOCKOUT_NOT_YOURS, lockout_lift, lockouts_overseen
from tests.factories import CasinoFactory, CroupierAssignmentFactory, TableFactory, UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
LIMIT = settings.AXES_FAILURE_LIMIT
NAMES = ("croupier", "b_croupier", "admin", "nobody_here")


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def login(username: str, password: str, ip: str) -> Any:
    return Client(REMOTE_ADDR=ip).post("/accounts/login/", {"username": username, "password": password})


def _address(name: str) -> str:
    return f"10.20.{NAMES.index(name)}.1" if name in NAMES else "10.20.99.1"


def _lock(name: str) -> None:
    for i in range(LIMIT):
        login(name, f"guess-{i}", _address(name))


def _locked(name: str) -> bool:
    return login(name, PASSWORD, _address(name)).status_code == 429


@pytest.fixture
def floor(croupier, pit_boss, table) -> dict[str, Any]:
    """Casino A (``table``'s, with its croupier and pit boss), casino B with its croupier, the
    superuser, and each of them and a name no account has locked out."""
    casino_b = CasinoFactory(name="Casino Bravo")
    b_croupier = UserFactory(username="b_croupier", roles=["croupier"])
    CroupierAssignmentFactory(user=b_croupier, table=TableFactory(casino=casino_b))
    admin = UserFactory(username="admin", is_superuser=True, is_staff=True)
    for name in NAMES:
        _lock(name)
    return {"a": table.casino, "b": casino_b, "admin": admin, "b_croupier": b_croupier}


def _as(user: Any) -> Client:
    client = Client(REMOTE_ADDR="10.9.9.9")
    client.force_login(user)
    return client


def _written() -> tuple[list[tuple[Any, ...]], int]:
    counters = AccessAttempt.objects.order_by("pk").values_list("pk", "username", "failures_since_start")
    attempts = list(counters)
    return attempts, AuditEvent.objects.count()


def test_the_pit_boss_sees_only_his_casinos_staff(floor, pit_boss) -> None:
    assert [lockout.username for lockout in lockouts_overseen(pit_boss)] == ["croupier"]
    html = _as(pit_boss).get(reverse("review:lockouts")).content.decode()
    assert 'data-testid="lockout-user-croupier"' in html
    for name in ("b_croupier", "admin", "nobody_here"):  # not even named on the page
        assert f"lockout-user-{name}" not in html and f"<strong>{name}</strong>" not in html
        assert f'value="{name}"' not in html
    assert 'data-testid="lockouts-scope"' in html


@pytest.mark.parametrize("name", ["admin", "b_croupier", "nobody_here"])
def test_lifting_what_he_does_not_oversee_is_refused_with_nothing_changed(floor, pit_boss, name) -> None:
    boss = _as(pit_boss)
    before = _written()
    answer = boss.post(reverse("review:lockout_lift"), {"username": name})
    assert answer.status_code == 403
    assert LOCKOUT_NOT_YOURS in answer.content.decode()  # the same words whatever the reason
    assert _written() == before  # nothing cleared, nothing audited
    assert not AuditEvent.objects.filter(action="auth.lockout.reset").exists()
    with pytest.raises(PermissionDenied):
        lockout_lift(actor=pit_boss, username=name)
    assert _written() == before
    assert _locked(name)  # still in force


def test_another_casinos_pit_boss_does_not_lift_casino_a_croupier(floor) -> None:
    bravo_boss = UserFactory(username="bravo_boss", roles=["pit_boss"], casinos=[floor["b"]])
    assert [lockout.username for lockout in lockouts_overseen(bravo_boss)] == ["b_croupier"]
    boss = _as(bravo_boss)  # his login is audited: before counting
    before = _written()
    assert boss.post(reverse("review:lockout_lift"), {"username": "croupier"}).status_code == 403
    assert _written() == before and _locked("croupier")


def test_an_administrator_of_his_casino_is_not_his_to_lift(floor, pit_boss) -> None:
    """An account of /admin/ (is_staff) that works for his casino is still an administrator's."""
    UserFactory(username="a_admin", is_staff=True, casinos=[floor["a"]])
    _lock("a_admin")
    assert "a_admin" not in [lockout.username for lockout in lockouts_overseen(pit_boss)]
    with pytest.raises(PermissionDenied):
        lockout_lift(actor=pit_boss, username="a_admin")


def test_his_croupiers_lift_is_audited_on_his_casinos_chain(floor, pit_boss) -> None:
    done = _as(pit_boss).post(reverse("review:lockout_lift"), {"username": "croupier"})
    assert done.status_code == 302
    event = AuditEvent.objects.get(action="auth.lockout.reset")
    assert (event.actor, event.chain) == (pit_boss, floor["a"].pk)
    assert event.after == {"username": "croupier", "ip": "", "cleared": 1}
    assert not _locked("croupier")
    for name in ("b_croupier", "admin", "nobody_here"):
        assert _locked(name)


def test_the_superuser_sees_and_lifts_every_lockout(floor) -> None:
    admin = floor["admin"]
    assert sorted(lockout.username for lockout in lockouts_overseen(admin)) == sorted(NAMES)
    html = _as(admin).get(reverse("review:lockouts")).content.decode()
    assert all(f'data-testid="lockout-user-{name}"' in html for name in NAMES)
    assert 'data-testid="lockouts-scope"' not in html
    for name in NAMES:
        assert _as(admin).post(reverse("review:lockout_lift"), {"username": name}).status_code == 302
    chains = dict(
        AuditEvent.objects.filter(action="auth.lockout.reset").values_list("after__username", "chain")
    )
    # each on the chain of the casino the account works for; the superuser's (of no casino) and a
    # name no account has on the global chain
    assert chains == {
        "croupier": floor["a"].pk,
        "b_croupier": floor["b"].pk,
        "admin": GLOBAL_CHAIN,
        "nobody_here": GLOBAL_CHAIN,
    }
    assert not AccessAttempt.objects.exists()


def test_an_account_of_two_casinos_is_lifted_on_the_global_chain(floor, pit_boss) -> None:
    UserFactory(username="both", roles=["croupier"], casinos=[floor["a"], floor["b"]])
    _lock("both")
    assert "both" in [lockout.username for lockout in lockouts_overseen(pit_boss)]
    lockout_lift(actor=pit_boss, username="both")
    assert AuditEvent.objects.get(action="auth.lockout.reset").chain == GLOBAL_CHAIN


def test_whoever_holds_the_admins_lift_permission_lifts_every_one(floor, table) -> None:
    lifter = UserFactory(username="security_officer")
    lifter.user_permissions.add(Permission.objects.get(codename="delete_accessattempt"))
    assert sorted(lockout.username for lockout in lockouts_overseen(lifter)) == sorted(NAMES)
    lockout_lift(actor=lifter, username="admin")
    assert not _locked("admin")


def _spray(ip: str, names: list[str]) -> None:
    """Wrong passwords for many usernames from one address: the address is locked (a spray)."""
    for i in range(LIMIT):
        login(names[i % len(names)], f"spray-{i}", ip)


def test_an_address_is_his_only_when_no_account_he_does_not_oversee_was_tried_there(
    floor, pit_boss
) -> None:
    # accounts not locked yet (a locked account's attempts are not counted again)
    UserFactory(username="a_croupier", roles=["croupier"], casinos=[floor["a"]])
    UserFactory(username="root", is_superuser=True, is_staff=True)
    _spray("10.6.6.6", ["a_croupier"] + [f"nobody-{i}" for i in range(LIMIT - 1)])  # his, or no one's
    _spray("10.7.7.7", ["root"] + [f"nobody-{i}" for i in range(LIMIT - 1)])  # a superuser's too
    superuser_sees = {lockout.ip for lockout in lockouts_overseen(floor["admin"]) if lockout.ip}
    assert superuser_sees == {"10.6.6.6", "10.7.7.7"}
    assert [lockout.ip for lockout in lockouts_overseen(pit_boss) if lockout.ip] == ["10.6.6.6"]
    boss = _as(pit_boss)
    html = boss.get(reverse("review:lockouts")).content.decode()
    assert 'data-testid="lockout-ip-10.6.6.6"' in html and "10.7.7.7" not in html

    # clearing 10.7.7.7 would clear the superuser's counter from there too: refused, nothing changed
    before = _written()
    answer = boss.post(reverse("review:lockout_lift"), {"ip": "10.7.7.7"})
    assert answer.status_code == 403 and LOCKOUT_NOT_YOURS in answer.content.decode()
    assert _written() == before
    assert AccessAttempt.objects.filter(ip_address="10.7.7.7", username="root").exists()

    assert boss.post(reverse("review:lockout_lift"), {"ip": "10.6.6.6"}).status_code == 302
    assert not AccessAttempt.objects.filter(ip_address="10.6.6.6").exists()
    assert AuditEvent.objects.get(action="auth.lockout.reset").chain == GLOBAL_CHAIN  # an address

"""Who may open what under /review/: every page for every persona, and nothing written when refused."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import ChainVerification
from core.models import OutboxMessage
from reports.models import ReportRun
from tables.models import Coup
from tests.tables.play import row_counts

pytestmark = pytest.mark.django_db

PERSONAS = ("croupier", "other_croupier", "pit_boss", "accountant", "outsider", None)


def _login(client, request, persona: str | None):
    if persona is not None:
        client.force_login(request.getfixturevalue(persona))


def _period() -> dict[str, str]:
    today = timezone.localdate()
    return {"start": (today - dt.timedelta(days=1)).isoformat(), "end": today.isoformat()}


# (url name, method, personas allowed, status when allowed)
PAGES = [
    ("review:queue", "get", {"pit_boss"}, 200),
    ("review:coup", "get", {"pit_boss"}, 200),
    ("review:dashboard", "get", {"pit_boss", "accountant"}, 200),
    ("review:exports", "get", {"pit_boss", "accountant"}, 200),
    ("review:export", "post", {"pit_boss", "accountant"}, 303),  # asks for a run (test_export_asks_for_a_run)
    ("review:audit_verify", "post", {"pit_boss"}, 302),
    ("review:dashboard_live", "get", {"pit_boss", "accountant"}, 200),
    ("review:alerts", "get", {"pit_boss"}, 200),
    ("review:charts", "get", {"pit_boss", "accountant"}, 200),
    ("review:player", "get", {"pit_boss", "accountant"}, 200),
    ("review:compliance", "get", set(), 200),  # compliance's own (tests/review/test_compliance.py)
]


@pytest.mark.parametrize(("name", "method", "allowed", "ok"), PAGES, ids=[p[0] for p in PAGES])
def test_each_page_for_each_persona(client, request, name, method, allowed, ok) -> None:
    # only the coup page needs a history (the others must work on an empty floor too)
    coup = request.getfixturevalue("awaiting").flagged if name in ("review:coup", "review:player") else None
    url_args: dict[str, list[int | str]] = {
        "review:coup": [coup.pk if coup else 0],
        "review:player": [coup.banker.pk if coup else 0],
        "review:export": ["coup-records"],
    }
    args = url_args.get(name, [])
    url = reverse(name, args=args)
    for persona in PERSONAS:
        client.logout()
        _login(client, request, persona)
        response = getattr(client, method)(url, _period() if method == "post" else {})
        if persona is None:
            assert response.status_code == 302, persona
            assert response["Location"].startswith(f"{reverse('login')}?next=")
        elif persona in allowed:
            assert response.status_code == ok, persona
        else:
            assert response.status_code == 403, persona
            assert "Nothing was changed." in response.content.decode()


@pytest.mark.parametrize("decision", ["review:coup_approve", "review:coup_reject"])
@pytest.mark.parametrize("htmx", [False, True])
def test_only_a_pit_boss_approves_or_rejects_and_nothing_changes_otherwise(
    client, request, awaiting, decision, htmx
) -> None:
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    for persona in ("croupier", "other_croupier", "accountant", "outsider", None):
        client.logout()
        _login(client, request, persona)  # logging in and out are audit events of their own
        before = row_counts()
        response = client.post(reverse(decision, args=[awaiting.flagged.pk]), {"reason": "no"}, **headers)
        assert response.status_code == (302 if persona is None else 403), persona
        assert row_counts() == before, persona
    awaiting.flagged.refresh_from_db()
    assert awaiting.flagged.state == Coup.State.AWAITING_APPROVAL


@pytest.mark.parametrize("persona", ["croupier", "accountant", "outsider"])
def test_refused_verification_and_export_write_nothing(client, request, persona) -> None:
    _login(client, request, persona)
    before = row_counts()
    assert client.post(reverse("review:audit_verify")).status_code == 403
    if persona != "accountant":
        assert client.post(reverse("review:export", args=["audit-trail"]), _period()).status_code == 403
    assert row_counts() == before
    assert not ChainVerification.objects.exists()
    assert not ReportRun.objects.exists() and not OutboxMessage.objects.exists()


@pytest.mark.parametrize("htmx", [False, True])
def test_export_asks_for_a_run_for_a_pit_boss_or_an_accountant_only(client, request, table, htmx) -> None:
    """The old immediate download's URL: the run of the equivalent kind for those allowed (303 to
    the reports page, htmx the history; the same run for both, asked twice), 403 and nothing
    written for every other persona."""
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    url = reverse("review:export", args=["percentage-tax"])
    data = {**_period(), "table": table.pk}
    for persona in ("croupier", "other_croupier", "outsider", "cashier"):
        client.logout()
        _login(client, request, persona)
        before = row_counts()
        response = client.post(url, data, **headers)
        assert response.status_code == 403, persona
        assert "Nothing was changed." in response.content.decode()
        assert row_counts() == before, persona
        assert not ReportRun.objects.exists() and not OutboxMessage.objects.exists(), persona
    for persona in ("pit_boss", "accountant"):
        client.logout()
        _login(client, request, persona)
        response = client.post(url, data, **headers)
        if htmx:
            assert response.status_code == 200, persona
            assert 'data-testid="report-run"' in response.content.decode()
        else:
            assert (response.status_code, response["Location"]) == (303, "/review/exports/#report-runs")
        run = ReportRun.objects.get()  # the pit boss's, returned to the accountant
        assert (run.kind, run.format, run.casino_id, run.table_id, run.requested_by) == (
            "levy",
            "csv",
            table.casino_id,
            table.pk,
            request.getfixturevalue("pit_boss"),
        )
    assert OutboxMessage.objects.count() == 1


def test_the_accountant_sees_the_dashboard_read_only(client, accountant) -> None:
    client.force_login(accountant)
    html = client.get(reverse("review:dashboard")).content.decode()
    assert "Verify the chain now" not in html
    assert reverse("review:queue") not in html  # no link to a page he may not open
    assert reverse("review:exports") in html


def test_get_is_refused_on_the_writing_urls(client, pit_boss) -> None:
    client.force_login(pit_boss)
    for url in (
        reverse("review:coup_approve", args=[1]),
        reverse("review:coup_reject", args=[1]),
        reverse("review:audit_verify"),
        reverse("review:export", args=["coup-records"]),
    ):
        assert client.get(url).status_code == 405


def test_an_unknown_export_or_coup_is_not_found(client, pit_boss) -> None:
    client.force_login(pit_boss)
    assert client.post(reverse("review:export", args=["payroll"]), _period()).status_code == 404
    assert client.get(reverse("review:coup", args=[999999])).status_code == 404

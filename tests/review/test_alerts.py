"""Alerts: each kind raised by the scan with exact counts, the scan's idempotency, the
acknowledgement (note required, audited, the count dropping for every pit boss), who may."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent, ChainVerification
from review.models import Alert, AlertKind, AlertScan, AlertSettings
from review.services import alert_acknowledge, alerts_raise, alerts_raise_if_stale
from review.tasks import alerts_raise_task
from tables import services
from tests.factories import UserFactory
from tests.review.alerting import broken_verification, kinds
from tests.review.history import play_flagged
from tests.tables.play import open_floor, row_counts

pytestmark = pytest.mark.django_db

K = AlertKind


def _raised(now: dt.datetime | None = None) -> list[Alert]:
    return alerts_raise(now=now or timezone.now())


def test_a_known_history_raises_each_alert_once(history, table) -> None:
    # wins: the bank took 190 (coup 1) and 380 (coup 2); player 2 won 100 (coup 3)
    AlertSettings.objects.create(casino=table.casino, win_threshold=150)
    services.shoe_close(actor=history.floor.croupier, shoe=history.floor.shoe, reason="shoe damaged")
    new = _raised()
    assert kinds() == Counter({K.FLAGGED_COUP: 1, K.SHOE_ALARM: 1, K.BIG_WIN: 2, K.ERROR_RATE: 1})
    assert len(new) == 5
    by_key = {(a.kind, a.subject_key): a for a in Alert.objects.all()}
    flagged = by_key[(K.FLAGGED_COUP, f"coup:{history.flagged.pk}")]
    assert (flagged.coup, flagged.table, flagged.casino) == (history.flagged, table, table.casino)
    coup_id = history.flagged.pk  # in every label: two sessions of a table both have a shoe 1 coup 2
    assert flagged.summary == f"{table.name} · shoe 1 coup 2 (#{coup_id}) was played against the rules"
    win = by_key[(K.BIG_WIN, f"coup:{history.flagged.pk}")]
    assert win.summary == f"{table.name} · shoe 1 coup 2 (#{coup_id}): Player 1 (the bank) won 380 chips"
    [rate] = [a for a in by_key.values() if a.kind == K.ERROR_RATE]
    assert rate.user == history.floor.croupier
    assert rate.summary == "croupier: 1 step(s) against the rules in their last 3 coup(s), 33.3 %"
    [alarm] = [a for a in by_key.values() if a.kind == K.SHOE_ALARM]
    started = timezone.localtime(history.floor.shoe.shuffled_at, dt.UTC)  # the casino's zone: UTC
    assert alarm.summary == (
        f"{table.name} · shoe 1 of {started:%Y-%m-%d %H:%M}: reshuffled before 5/6 dealt "
        "(closed after 19 of 312 cards (shoe damaged))"
    )
    # every alert raised is an audit event of the system
    events = AuditEvent.objects.filter(action="review.alert.raise")
    assert events.count() == 5 and {e.actor_id for e in events} == {None}


def test_the_scan_is_idempotent(history, table) -> None:
    AlertSettings.objects.create(casino=table.casino, win_threshold=150)
    now = timezone.now()
    first = _raised(now)
    before = (Alert.objects.count(), AuditEvent.objects.count())
    assert len(first) == 4
    assert _raised(now + dt.timedelta(minutes=1)) == []
    assert (Alert.objects.count(), AuditEvent.objects.count()) == before
    assert AlertScan.objects.get().scanned_at == now + dt.timedelta(minutes=1)


def test_thresholds_come_from_the_casino_settings_or_the_defaults(history, table) -> None:
    _raised()  # defaults: wins above 50 000 chips, error rate above 5 %
    assert kinds() == Counter({K.FLAGGED_COUP: 1, K.ERROR_RATE: 1})
    Alert.objects.all().delete()
    # a rate of 33.3 % is not above 40 %; no win is above 380
    AlertSettings.objects.create(casino=table.casino, error_rate_bp=4000, win_threshold=380)
    _raised()
    assert kinds() == Counter({K.FLAGGED_COUP: 1})


def test_a_coup_unfinished_for_too_long(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)  # awaiting its correction: still in play
    now = timezone.now()
    _raised(now + dt.timedelta(minutes=14))
    assert kinds()[K.UNFINISHED_COUP] == 0
    _raised(now + dt.timedelta(minutes=16))
    [alert] = Alert.objects.filter(kind=K.UNFINISHED_COUP)
    assert (alert.subject_key, alert.coup) == (f"coup:{coup.pk}", coup)
    assert alert.summary == (
        f"{table.name} · shoe 1 coup 1 (#{coup.pk}) unfinished for 16 min (awaiting correction)"
    )
    _raised(now + dt.timedelta(minutes=30))
    assert kinds()[K.UNFINISHED_COUP] == 1
    # a casino's own threshold
    Alert.objects.all().delete()
    AlertSettings.objects.create(casino=table.casino, unfinished_minutes=40)
    _raised(now + dt.timedelta(minutes=30))
    assert kinds()[K.UNFINISHED_COUP] == 0


def test_an_audit_chain_break_from_the_stored_verification(db) -> None:
    now = timezone.now()
    broken_verification(seq=7, at=now - dt.timedelta(hours=2))
    _raised(now)
    broken_verification(seq=7, at=now - dt.timedelta(hours=1))  # the same break found again
    _raised(now + dt.timedelta(minutes=1))
    [alert] = Alert.objects.all()
    assert (alert.kind, alert.subject_key, alert.casino) == (K.AUDIT_BREAK, "chain:seq:7", None)
    assert alert.summary.startswith("The audit chain is broken at seq 7 (1 event(s)): prev_hash")
    broken_verification(seq=9, at=now)  # another break
    _raised(now + dt.timedelta(minutes=2))
    assert kinds() == Counter({K.AUDIT_BREAK: 2})


def test_a_break_of_a_casinos_chain_is_that_casinos_alert(table) -> None:
    now = timezone.now()
    broken_verification(seq=4, at=now - dt.timedelta(hours=1), chain=table.casino_id)
    _raised(now)
    [alert] = Alert.objects.all()
    assert (alert.kind, alert.subject_key, alert.casino) == (
        K.AUDIT_BREAK,
        f"chain:{table.casino_id}:seq:4",
        table.casino,
    )
    assert alert.summary.startswith(f"The audit chain of casino {table.casino_id} is broken at seq 4 (")
    # a later OK run of that chain: no new alert (the one raised stays until acknowledged)
    ok = ChainVerification.objects.create(
        chain=table.casino_id, started_at=now, finished_at=now + dt.timedelta(seconds=1), checked=10,
        head_seq=10, head_hash="b" * 64, ok=True,
    )  # fmt: skip
    assert ok.pk and _raised(now + dt.timedelta(minutes=1)) == []


def test_the_beat_task_and_the_stale_check(history) -> None:
    assert alerts_raise_task.apply().get() == {"raised": 2}
    assert alerts_raise_task.apply().get() == {"raised": 0}
    scanned = AlertScan.objects.get().scanned_at
    assert alerts_raise_if_stale(now=scanned + dt.timedelta(seconds=30)) == []
    assert AlertScan.objects.get().scanned_at == scanned  # too recent: not run
    alerts_raise_if_stale(now=scanned + dt.timedelta(seconds=61))
    assert AlertScan.objects.get().scanned_at == scanned + dt.timedelta(seconds=61)
    # a poll that found the scan stale but waited for another's lock does not scan again
    Alert.objects.all().delete()
    assert alerts_raise(now=scanned + dt.timedelta(seconds=90), unless_within=dt.timedelta(seconds=60)) == []
    assert AlertScan.objects.get().scanned_at == scanned + dt.timedelta(seconds=61)


# ----------------------------------------------------------------------------- acknowledging
@pytest.fixture
def raised(history) -> list[Alert]:
    return _raised()


def _nav_count(client, user) -> int:
    client.force_login(user)
    return client.get(reverse("home")).context["nav_alert_count"]


def test_a_pit_boss_acknowledges_with_a_note_and_every_count_drops(client, pit_boss, table, raised) -> None:
    other = UserFactory(username="otherboss", roles=["pit_boss"], casinos=[table.casino])
    assert _nav_count(client, other) == 2
    alert = raised[0]
    client.force_login(pit_boss)
    answer = client.post(
        reverse("review:alert_acknowledge", args=[alert.pk]),
        {"note": "  replayed with the croupier  "},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'id="nav-alert-count" data-testid="nav-alert-count" hx-swap-oob="true">1<' in html
    assert "replayed with the croupier" in html
    alert.refresh_from_db()
    assert (alert.acknowledged_by, alert.note) == (pit_boss, "replayed with the croupier")
    [event] = AuditEvent.objects.filter(action="review.alert.acknowledge")
    assert event.after is not None
    assert (event.actor_id, event.object_id, event.after["note"]) == (
        pit_boss.pk,
        str(alert.pk),
        "replayed with the croupier",
    )
    assert _nav_count(client, other) == 1
    # the alerts page: one open, one in the history
    client.force_login(other)
    page = client.get(reverse("review:alerts"))
    assert [a.pk for a in page.context["open"]] == [raised[1].pk]
    assert [a.pk for a in page.context["history"].object_list] == [alert.pk]


def test_acknowledging_with_htmx_updates_the_pages_count_and_the_badge(client, pit_boss, raised) -> None:
    first, second = raised
    assert first.kind != second.kind
    client.force_login(pit_boss)
    page = client.get(reverse("review:alerts"), {"kind": first.kind}).content.decode()
    assert '<span class="rv-count" id="alert-open-count" data-testid="open-count">1</span>' in page
    assert f'<input type="hidden" name="kind" value="{first.kind}">' in page  # the filter goes along
    url = reverse("review:alert_acknowledge", args=[first.pk])
    # refused (no note): the counts come back as they were
    refused = client.post(url, {"note": "", "kind": first.kind}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="alert-open-count" data-testid="open-count" hx-swap-oob="true">1</span>' in refused
    assert 'id="nav-alert-count" data-testid="nav-alert-count" hx-swap-oob="true">2</span>' in refused
    done = client.post(url, {"note": "seen", "kind": first.kind}, HTTP_HX_REQUEST="true").content.decode()
    # the page's count (its kind: none left) and the top bar's badge (one left, of the other kind)
    assert (
        '<span class="rv-count" id="alert-open-count" data-testid="open-count" hx-swap-oob="true">0</span>'
    ) in done
    assert (
        '<span class="nav-count nav-count-hot" id="nav-alert-count" data-testid="nav-alert-count" '
        'hx-swap-oob="true">1</span>'
    ) in done
    # unfiltered, the last one: both reach 0
    last = client.post(
        reverse("review:alert_acknowledge", args=[second.pk]), {"note": "seen too"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'id="alert-open-count" data-testid="open-count" hx-swap-oob="true">0</span>' in last
    assert (
        '<span class="nav-count" id="nav-alert-count" data-testid="nav-alert-count" '
        'hx-swap-oob="true">0</span>'
    ) in last


@pytest.mark.parametrize("note", ["", "   "])
def test_the_note_is_required(client, pit_boss, raised, note) -> None:
    client.force_login(pit_boss)
    before = row_counts(), AuditEvent.objects.count()
    answer = client.post(
        reverse("review:alert_acknowledge", args=[raised[0].pk]), {"note": note}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 400
    assert (row_counts(), AuditEvent.objects.count()) == before
    assert Alert.objects.filter(acknowledged_at__isnull=True).count() == 2


def test_acknowledging_twice_is_a_conflict(pit_boss, raised) -> None:
    now = timezone.now()
    alert_acknowledge(actor=pit_boss, alert=raised[0], note="seen", now=now)
    from review.services import AlertAlreadyAcknowledged

    with pytest.raises(AlertAlreadyAcknowledged):
        alert_acknowledge(actor=pit_boss, alert=raised[0], note="again", now=now)
    assert AuditEvent.objects.filter(action="review.alert.acknowledge").count() == 1


@pytest.mark.parametrize("persona", ["croupier", "accountant", "outsider", None])
def test_only_a_pit_boss_acknowledges(client, request, raised, persona) -> None:
    if persona is not None:
        client.force_login(request.getfixturevalue(persona))
    before = row_counts(), AuditEvent.objects.count()
    answer = client.post(reverse("review:alert_acknowledge", args=[raised[0].pk]), {"note": "mine"})
    assert answer.status_code == (302 if persona is None else 403)
    assert (row_counts(), AuditEvent.objects.count()) == before
    assert Alert.objects.filter(acknowledged_at__isnull=True).count() == 2
    if persona is not None:
        assert client.get(reverse("review:alerts")).status_code == 403
        assert "nav_alert_count" not in client.get(reverse("home")).context


def test_the_alerts_page_filters_and_pages_the_history(client, pit_boss, raised, monkeypatch) -> None:
    monkeypatch.setattr("review.views.ALERTS_PAGE_SIZE", 1)
    for alert in raised:
        alert_acknowledge(actor=pit_boss, alert=alert, note="done", now=timezone.now())
    client.force_login(pit_boss)
    page1 = client.get(reverse("review:alerts"))
    assert list(page1.context["open"]) == [] and page1.context["history"].paginator.num_pages == 2
    only = client.get(reverse("review:alerts"), {"kind": K.ERROR_RATE})
    assert [a.kind for a in only.context["history"].object_list] == [K.ERROR_RATE]


def test_the_open_alerts_are_paged_and_counted_whole(client, pit_boss, raised, monkeypatch) -> None:
    """A night of alarms is hundreds of open alerts: they come a page at a time, the heading
    counting them all."""
    monkeypatch.setattr("review.views.ALERTS_PAGE_SIZE", 1)
    client.force_login(pit_boss)
    newest_first = sorted(raised, key=lambda a: (a.raised_at, a.pk), reverse=True)
    first = client.get(reverse("review:alerts"))
    assert [a.pk for a in first.context["open"]] == [newest_first[0].pk]
    assert first.context["open"].paginator.count == len(raised) > 1
    assert f'data-testid="open-count">{len(raised)}</span>' in first.content.decode()
    assert "open_page=2#open-title" in first.content.decode()  # the pager's "Next"
    last = client.get(reverse("review:alerts"), {"open_page": len(raised)})
    assert [a.pk for a in last.context["open"]] == [newest_first[-1].pk]


def test_the_database_keeps_an_alert_raised_once_and_acknowledged_with_a_note(pit_boss) -> None:
    from django.db import IntegrityError, transaction

    now = timezone.now()
    alert = Alert.objects.create(
        kind=K.AUDIT_BREAK, subject_key="chain:seq:1", summary="broken", raised_at=now
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Alert.objects.create(kind=K.AUDIT_BREAK, subject_key="chain:seq:1", summary="again", raised_at=now)
    with pytest.raises(IntegrityError), transaction.atomic():
        Alert.objects.filter(pk=alert.pk).update(acknowledged_at=now, acknowledged_by=pit_boss, note="")
    with pytest.raises(IntegrityError), transaction.atomic():
        Alert.objects.filter(pk=alert.pk).update(note="seen")  # by nobody, at no time
    # the same subject under another kind is another condition
    Alert.objects.create(kind=K.FLAGGED_COUP, subject_key="chain:seq:1", summary="other", raised_at=now)


# ------------------------------------------------------------------------- settings and beat
def test_thresholds_are_edited_in_the_admin_and_audited(admin_client, table) -> None:
    url = reverse("admin:review_alertsettings_add")
    data = {
        "casino": table.casino.pk,
        "unfinished_minutes": 20,
        "win_threshold": 10_000,
        "error_rate_bp": 300,
        "error_rate_coups": 40,
        "flow_threshold": 5_000,
        "flow_days": 3,
        "flow_z": 5,
    }
    assert admin_client.post(url, data).status_code == 302
    stored = AlertSettings.objects.get(casino=table.casino)
    assert (stored.unfinished_minutes, stored.win_threshold, stored.error_rate_bp) == (20, 10_000, 300)
    assert AuditEvent.objects.filter(action="admin.review.alertsettings.create").count() == 1
    # refused by its constraint, with a message rather than an error
    bad = admin_client.post(url, {**data, "unfinished_minutes": 0})
    assert bad.status_code == 200 and AlertSettings.objects.count() == 1
    assert "A coup is unfinished after one minute at the least." in bad.content.decode()
    for name in ("alertsettings", "alert"):
        assert admin_client.get(reverse(f"admin:review_{name}_changelist")).status_code == 200


def test_beat_runs_the_scan_every_minute(settings) -> None:
    from celery import current_app

    entry = settings.CELERY_BEAT_SCHEDULE["review-alerts-raise"]
    assert (entry["task"], entry["schedule"]) == ("review.alerts_raise", 60.0)
    assert "review.alerts_raise" in current_app.tasks

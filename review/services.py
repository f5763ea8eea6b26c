"""Who may use the pit boss's pages, and the review app's own writes: the alerts, lifting a login
lockout.

The other decisions are the game floor's services: approving and rejecting corrections are
``tables.services.correction_approve`` / ``correction_reject``, voiding a coup
``tables.services.coup_void``; asking for an audit verification is
``audit.services.chain_verification_request``. Who may export is ``tables.permissions.can_export``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext_noop

from access.services.logins import login_lockout_reset
from audit.services import audit_record
from core.errors import Conflict
from core.sentence import said
from review.models import Alert, AlertScan
from review.selectors.alerts import alert_candidates
from tables.permissions import can_approve, check_works_for, reads_everything
from tables.perms import LIFT_LOCKOUT

#: the dashboard's poll runs the scan itself when the last one is older than this (beat runs it
#: every minute; without a worker, as in the demo, the poll keeps the alerts current)
SCAN_STALE_AFTER = dt.timedelta(seconds=60)


def can_review_corrections(user: Any) -> bool:
    """The corrections queue and a coup's review page: pit bosses."""
    return can_approve(user)


def can_see_dashboard(user: Any) -> bool:
    """The dashboard, the charts and a player's page: pit bosses, and accountants read-only."""
    return reads_everything(user)


def can_verify_audit(user: Any) -> bool:
    """Asking for an audit verification writes (a request event, a stored result): pit bosses."""
    return can_approve(user)


def can_handle_alerts(user: Any) -> bool:
    """The alerts page, the navigation's open count, acknowledging: pit bosses."""
    return can_approve(user)


# ------------------------------------------------------------------------------------ alerts
@transaction.atomic
def alerts_raise(*, now: dt.datetime, unless_within: dt.timedelta | None = None) -> list[Alert]:
    """Store an alert for every condition found (``alert_candidates``) not raised before, each
    audited; returns the new ones. Idempotent: ``(kind, subject_key)`` is unique, and the scan row
    is locked for the whole run, so two scans at once (beat and a poll) wait for each other
    rather than race to insert the same alert. With ``unless_within``, nothing is done when the
    last scan (read under the lock) is that recent: of several polls that found the scan stale at
    once, only the first runs it."""
    # the row exists from the first scan on (get_or_create survives two first scans at once)
    _, created = AlertScan.objects.get_or_create(pk=1, defaults={"scanned_at": now})
    scan = AlertScan.objects.select_for_update().get(pk=1)
    if not created and unless_within is not None and now - scan.scanned_at < unless_within:
        return []
    candidates = alert_candidates(now=now)
    raised = set(
        Alert.objects.filter(subject_key__in={c.subject_key for c in candidates}).values_list(
            "kind", "subject_key"
        )
    )
    # a candidate's fields are the alert's columns, by name: stored as it was found, raised now
    new = [Alert(**asdict(c), raised_at=now) for c in candidates if (c.kind, c.subject_key) not in raised]
    Alert.objects.bulk_create(new)
    for alert in new:
        audit_record(
            actor=None,
            action="review.alert.raise",
            target=alert,
            after={"kind": alert.kind, "subject": alert.subject_key, "summary": alert.summary},
        )
    scan.scanned_at = now
    scan.save(update_fields=["scanned_at"])
    return new


def alerts_raise_if_stale(*, now: dt.datetime) -> list[Alert]:
    """Run the scan when the last one is older than ``SCAN_STALE_AFTER`` (the dashboard's poll)."""
    last = AlertScan.objects.filter(pk=1).values_list("scanned_at", flat=True).first()
    if last is not None and now - last < SCAN_STALE_AFTER:
        return []
    return alerts_raise(now=now, unless_within=SCAN_STALE_AFTER)


#: Alert.note's max_length
NOTE_MAX_LENGTH = 500


class AlertAlreadyAcknowledged(Conflict):
    code = "alert_acknowledged"


@transaction.atomic
def alert_acknowledge(*, actor: Any, alert: Alert, note: str, now: dt.datetime) -> Alert:
    """A pit boss saw the alert and says what was done (the note is required). Audited."""
    if not can_handle_alerts(actor):
        raise PermissionDenied("Only a pit boss acknowledges alerts.")
    if alert.casino_id is not None:  # the group's own (a global chain's break): any pit boss
        check_works_for(actor, alert.casino_id)
    note = note.strip()
    if not note:
        raise ValidationError(said("Say what was done about the alert."))
    if len(note) > NOTE_MAX_LENGTH:
        raise ValidationError(said("A note has at most {most} characters.", most=NOTE_MAX_LENGTH))
    locked = Alert.objects.select_for_update().get(pk=alert.pk)
    if locked.acknowledged_at is not None:
        raise AlertAlreadyAcknowledged(
            said(
                "Already acknowledged by {who} at {at}.",
                who=str(locked.acknowledged_by),
                at=f"{locked.acknowledged_at:%Y-%m-%d %H:%M}",
            )
        )
    locked.acknowledged_at, locked.acknowledged_by, locked.note = now, actor, note
    locked.save(update_fields=["acknowledged_at", "acknowledged_by", "note"])
    audit_record(
        actor=actor,
        action="review.alert.acknowledge",
        target=locked,
        before={"acknowledged_at": None},
        after={"kind": locked.kind, "subject": locked.subject_key, "acknowledged_at": now, "note": note},
    )
    return locked


# ------------------------------------------------------------------------------------ lockouts
def can_lift_lockouts(user: Any) -> bool:
    """The list of login lockouts and lifting one: pit bosses (a croupier locked out at the start of
    his shift asks the pit, not an administrator), and whoever holds django-axes' delete
    permission (the administrators' own reset in /admin/)."""
    return can_approve(user) or bool(user.has_perm(LIFT_LOCKOUT))


@transaction.atomic
def lockout_lift(*, actor: Any, username: str = "", ip: str = "") -> int:
    """Lift the lockout of a username or of a client address (one of the two): its failure
    counters cleared, audited ``auth.lockout.reset`` with the actor, in one transaction. Returns
    how many counters were cleared (0: it had lapsed meanwhile, still audited as asked)."""
    if not can_lift_lockouts(actor):
        raise PermissionDenied("Only a pit boss lifts a login lockout.")
    username, ip = (username or "").strip(), (ip or "").strip()
    if bool(username) == bool(ip):
        raise ValidationError(gettext_noop("Name the username or the address whose lockout is lifted."))
    return login_lockout_reset(actor=actor, username=username, ip=ip)

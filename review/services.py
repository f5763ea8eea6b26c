"""Who may use the pit boss's pages, and the review app's own writes: the alerts, lifting a login
lockout.

The other decisions are the game floor's services: approving and rejecting corrections are
``tables.services.correction_approve`` / ``correction_reject``, voiding a coup
``tables.services.coup_void``; asking for an audit verification is
``audit.services.chain_verification_request``. Who may export is ``tables.permissions.can_export``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext_noop

from access.services.logins import (
    Lockout,
    lockout_named_check,
    lockout_tried_from,
    lockouts_current,
    login_lockout_reset,
)
from audit.services import audit_record
from core.errors import Conflict
from core.sentence import said
from review.models import Alert, AlertScan
from review.selectors.alerts import alert_candidates
from review.selectors.dashboard import audit_chains_of
from tables.models import CasinoStaff
from tables.permissions import can_approve, casino_scope, check_role, reads_everything
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


def audit_chains_to_verify(user: Any) -> frozenset[int] | None:
    """The audit chains ``user``'s "Verify the chain now" verifies: those of the casinos he works
    for and the global chain (``audit_chains_of``); every chain (None) for a reader of every casino
    (a superuser, the staff of every casino there is)."""
    scope = casino_scope(user)
    return None if scope.group_wide else audit_chains_of(scope.works)


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
    # an alert of no casino (a global chain's break) is the group's own: any pit boss
    check_role(actor, can_handle_alerts, "Only a pit boss acknowledges alerts.", alert.casino_id)
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
#: the refusal of a lockout a pit boss does not oversee: the same words whatever the reason (a
#: superuser, another casino's staff, a username no account has), so that it tells nobody which
LOCKOUT_NOT_YOURS = gettext_noop(
    "You lift only the lockouts of the staff of the casinos you work for: an administrator lifts this one."
)


def can_lift_lockouts(user: Any) -> bool:
    """The list of login lockouts and lifting one: pit bosses (a croupier locked out at the start of
    his shift asks the pit, not an administrator), and whoever holds django-axes' delete
    permission (the administrators' own reset in /admin/). Which lockouts: ``lockouts_overseen``."""
    return can_approve(user) or bool(user.has_perm(LIFT_LOCKOUT))


def lifts_every_lockout(user: Any) -> bool:
    """A superuser, or whoever holds django-axes' delete permission (he lifts any lockout in
    /admin/ anyway): every lockout, of any username or address."""
    return bool(getattr(user, "is_authenticated", False)) and (
        bool(user.is_superuser) or bool(user.has_perm(LIFT_LOCKOUT))
    )


#: the most usernames one query names (SQLite's bound parameters are limited)
LOCKOUT_NAMES_CHUNK = 500


def _chunks(names: list[str]) -> Iterator[list[str]]:
    for at in range(0, len(names), LOCKOUT_NAMES_CHUNK):
        yield names[at : at + LOCKOUT_NAMES_CHUNK]


def usernames_overseen(user: Any, usernames: Iterable[str]) -> set[str]:
    """Of ``usernames``, those whose lockout ``user`` lifts: all of them for one who lifts every
    lockout; for a pit boss, the accounts that work for a casino he works for
    (``tables.models.CasinoStaff``) and are no administrator (neither a superuser nor an account
    of /admin/); none of a username no account has. Nobody else lifts any."""
    names = sorted({name for name in usernames if name})
    if lifts_every_lockout(user):
        return set(names)
    if not can_approve(user):
        return set()
    works = casino_scope(user).works
    found: set[str] = set()
    for chunk in _chunks(names):
        posts = CasinoStaff.objects.filter(
            user__username__in=chunk, user__is_superuser=False, user__is_staff=False
        )
        if works is not None:
            posts = posts.filter(casino_id__in=works)
        found.update(posts.values_list("user__username", flat=True))
    return found


def _accounts_among(usernames: set[str]) -> set[str]:
    """Which of ``usernames`` are an account's (a login can succeed under them)."""
    found: set[str] = set()
    manager = get_user_model()._default_manager
    field = get_user_model().USERNAME_FIELD
    for chunk in _chunks(sorted(name for name in usernames if name)):
        found.update(manager.filter(**{f"{field}__in": chunk}).values_list(field, flat=True))
    return found


def addresses_overseen(user: Any, ips: Iterable[str]) -> set[str]:
    """Of ``ips``, the addresses whose lockout ``user`` lifts. Lifting an address's lockout clears
    every failure counter of the address, whatever the username (``access.services.logins.
    lockout_tried_from``): a pit boss lifts it only when no account he does not oversee was tried
    from there (a username no account has is no one's: clearing its counters opens no account), so
    he never clears, through the address, the counters of a superuser or of another casino's staff."""
    wanted = {ip for ip in ips if ip}
    if lifts_every_lockout(user):
        return wanted
    if not can_approve(user):
        return set()
    tried = lockout_tried_from(wanted)
    names = set().union(*tried.values()) if tried else set()
    foreign = _accounts_among(names) - usernames_overseen(user, names)
    return {ip for ip in wanted if not (tried.get(ip, set()) & foreign)}


def lockouts_overseen(user: Any, *, now: dt.datetime | None = None) -> list[Lockout]:
    """The lockouts in force (``lockouts_current``) that ``user`` sees and lifts: every one for a
    superuser (and whoever holds django-axes' delete permission); for a pit boss, those of the
    usernames of his casinos' staff (``usernames_overseen``) and of the addresses he may lift
    (``addresses_overseen``): not a superuser's, not another casino's staff's, not a username no
    account has (the names tried are not shown to him). Nobody else sees any."""
    if not can_lift_lockouts(user):
        return []
    found = lockouts_current(now=now)
    if lifts_every_lockout(user):
        return found
    names = usernames_overseen(user, [lockout.username for lockout in found if lockout.username])
    ips = addresses_overseen(user, [lockout.ip for lockout in found if lockout.ip])
    return [lock for lock in found if (lock.username in names if lock.username else lock.ip in ips)]


@transaction.atomic
def lockout_lift(*, actor: Any, username: str = "", ip: str = "") -> int:
    """Lift the lockout of a username or of a client address (one of the two): its failure
    counters cleared, audited ``auth.lockout.reset`` with the actor, in one transaction (on the
    chain of the casino the username's account works for: ``access.services.logins.
    lockout_casino``). A pit boss lifts only what ``lockouts_overseen`` shows him; anything else
    is refused (403, ``LOCKOUT_NOT_YOURS``) with nothing cleared and nothing audited, whether or
    not it is locked. Returns how many counters were cleared (0: it had lapsed meanwhile, still
    audited as asked)."""
    if not can_lift_lockouts(actor):
        raise PermissionDenied("Only a pit boss lifts a login lockout.")
    username, ip = (username or "").strip(), (ip or "").strip()
    if bool(username) == bool(ip):
        raise ValidationError(gettext_noop("Name the username or the address whose lockout is lifted."))
    lockout_named_check(username=username, ip=ip)  # a name no login can have tried: 400 first
    if username and username not in usernames_overseen(actor, [username]):
        raise PermissionDenied(LOCKOUT_NOT_YOURS)
    if ip and ip not in addresses_overseen(actor, [ip]):
        raise PermissionDenied(LOCKOUT_NOT_YOURS)
    return login_lockout_reset(actor=actor, username=username, ip=ip)

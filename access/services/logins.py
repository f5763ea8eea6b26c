"""Refused logins: the security log, its periodic summary on the audit chain, and lockouts.

Throttling and lockout are django-axes' (settings ``AXES_*``): after ``LOGIN_FAILURE_LIMIT``
failures for one **username** every login of that username is refused, without the password being
checked, until ``LOGIN_LOCKOUT_MINUTES`` after its last counted failure, or until a pit boss of a
casino its account works for (the review pages: ``review.services.lockout_lift``, which decides who
lifts what) or an administrator lifts it. A client **address** is locked the same way only when
failures for many usernames come from it (``LOGIN_SPRAY_USERNAMES`` within the lockout's window: a
password spray): the pit's podium tablet is one address shared by every croupier, and one of them
mistyping his own password ten times must not lock the others out (:func:`lockout_parameters`).

Why failures are not audit events one by one: appending to the audit chain takes its global lock
(audit.services), which every croupier's step also takes to commit. Six anonymous clients trying
passwords made every step 40x slower (issue 10). A failure is now one INSERT into
``LoginFailure``, which takes no lock anybody else waits for; :func:`login_failures_summarise`,
run by beat every few minutes, appends ONE event ``auth.login_failures`` that counts the failures
since the previous summary (how many, how many while locked out, the first and last, the most tried
usernames and addresses) and names the rows it covers, which stay in the log for the details.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import math
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_noop

from audit.services import audit_record
from core.client_ip import client_ip
from core.models import LoginFailure
from core.parsers import _UNSTORABLE
from core.problems import problem_response
from core.sentence import said

LOCKED_OUT_MESSAGE = gettext_noop(
    "Too many failed logins: this account or this device is locked out for a while. "
    "A manager can lift the lock."
)
NOT_AN_ADDRESS = gettext_noop(
    "That is not an IP address (such as 192.0.2.7 or 2001:db8::7): nobody is locked out under it."
)
#: usernames and addresses a summary names (the most tried first); the rest are only counted
SUMMARY_TOP = 20
#: the most failures one summary covers (the oldest first; the rest wait for the next run): a
#: flood between two runs cannot make the summariser load an unbounded list
SUMMARY_BATCH = 50_000
#: the most values one ``__in`` names (SQLite's bound parameters are limited)
_IN_CHUNK = 500
# Arbitrary but fixed key for the summariser's advisory lock: "logins" in ASCII.
_SUMMARY_LOCK_KEY = 0x6C6F67696E73


def login_username(request: HttpRequest | None, credentials: dict[str, Any] | None) -> str | None:
    """The username a login tried, as the lockout and the log count it (``AXES_USERNAME_CALLABLE``):
    at most 150 characters (Django's own limit; anything longer names nobody), no NUL."""
    if credentials:
        username = credentials.get("username")
    else:
        data = getattr(request, "POST", None) or {}
        username = data.get("username")
    if username is None:
        return None
    return str(username).replace("\x00", "")[:150]


def login_failure_record(*, credentials: dict[str, Any], request: HttpRequest | None) -> LoginFailure:
    """Log one refused login (the ``user_login_failed`` receiver calls this). Never the password:
    Django has already masked it in ``credentials``; only the username is kept."""
    meta = request.META if request is not None else {}
    return LoginFailure.objects.create(
        occurred_at=timezone.now(),
        username=login_username(request, credentials) or "",
        ip=client_ip(request) if request is not None else "",
        user_agent=str(meta.get("HTTP_USER_AGENT", ""))[:200],
        path=(request.path if request is not None else "")[:200],
        locked_out=bool(getattr(request, "axes_locked_out", False)),
    )


def _top(counter: Counter[str]) -> dict[str, int]:
    return dict(counter.most_common(SUMMARY_TOP))


def login_failures_summarise() -> dict[str, Any] | None:
    """Append one ``auth.login_failures`` audit event for the failures not summarised yet (None
    when there were none). Idempotent: the rows it covers are marked in the same transaction."""
    with transaction.atomic():
        if connection.vendor == "postgresql":  # two beat runs at once: the second waits, finds none
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_SUMMARY_LOCK_KEY])
        pending = LoginFailure.objects.filter(summarised=False).order_by("pk")
        rows = list(pending.values_list("pk", "occurred_at", "username", "ip", "locked_out")[:SUMMARY_BATCH])
        if not rows:
            return None
        summary: dict[str, Any] = {
            "count": len(rows),
            "locked_out": sum(1 for r in rows if r[4]),
            "first_id": rows[0][0],
            "last_id": rows[-1][0],
            "first_at": min(r[1] for r in rows).isoformat(),
            "last_at": max(r[1] for r in rows).isoformat(),
            "usernames": _top(Counter(r[2] for r in rows)),
            "ips": _top(Counter(r[3] for r in rows)),
        }
        ids = [r[0] for r in rows]
        for at in range(0, len(ids), 5_000):  # by the id: a row committed meanwhile is left for the next
            LoginFailure.objects.filter(pk__in=ids[at : at + 5_000]).update(summarised=True)
        audit_record(actor=None, action="auth.login_failures", after=summary)
    return summary


def login_failures_purge(*, before: Any) -> int:
    """Forget summarised failures older than ``before`` (the chain keeps their summary)."""
    deleted, _ = LoginFailure.objects.filter(summarised=True, occurred_at__lt=before).delete()
    return deleted


def username_max_length() -> int:
    """The longest username a login can try: the user model's field's (Django's: 150)."""
    from django.contrib.auth import get_user_model

    model = get_user_model()
    length = getattr(model._meta.get_field(model.USERNAME_FIELD), "max_length", None)
    return int(length or 150)


def lockout_named_check(*, username: str, ip: str) -> None:
    """Refuse (ValidationError, before anything is read or written) a username no login can have
    tried, or an address that is no IP address: nothing would be cleared, and the audit trail would
    record the reset of a lockout that cannot exist (an address PostgreSQL's ``inet`` refuses is a
    500 there)."""
    if username and (len(username) > username_max_length() or _UNSTORABLE.search(username)):
        raise ValidationError(
            {
                "username": said(
                    "No login can try this username (at most {limit} characters, no NUL): nobody "
                    "is locked out under it.",
                    limit=username_max_length(),
                )
            }
        )
    if ip:
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            address = None
        # a scope ("fe80::1%eth0") is no client's address as the lockouts record it
        if address is None or getattr(address, "scope_id", None):
            raise ValidationError({"ip": NOT_AN_ADDRESS})


@transaction.atomic
def login_lockout_reset(*, actor: Any, username: str = "", ip: str = "") -> int:
    """Lift the lockout of a username and/or a client address (the caller has checked that the
    actor may: the admin's permission, ``review.services.lockout_lift``): audited, on the chain of
    the casino the username's account works for (``lockout_casino``; the global chain for an
    address). Returns how many of django-axes' attempt records were cleared."""
    from axes.utils import reset

    if not (username or ip):
        raise ValueError("name a username or an address to unlock")
    lockout_named_check(username=username, ip=ip)
    cleared = 0
    if username:
        cleared += reset(username=username)
    if ip:
        cleared += reset(ip=ip)
    audit_record(
        actor=actor,
        action="auth.lockout.reset",
        after={"username": username, "ip": ip, "cleared": cleared},
        # a username's lockout is the casino's its account works for; an address's is nobody's
        casino=lockout_casino(username) if username and not ip else None,
    )
    return cleared


def lockout_casino(username: str) -> int | None:
    """The casino whose audit chain records lifting the lockout of ``username``: the one casino its
    account works for (``tables.models.CasinoStaff``); None (the global chain) for an account of
    several casinos or of none, and for a username no account has."""
    from tables.models import CasinoStaff

    casinos = list(
        CasinoStaff.objects.filter(user__username=username).values_list("casino_id", flat=True).distinct()[:2]
    )
    return casinos[0] if len(casinos) == 1 else None


def lockout_tried_from(ips: Collection[str]) -> dict[str, set[str]]:
    """The usernames of every failure counter of each address in ``ips``, in the window or not:
    what lifting the address's lockout clears (django-axes' reset by address deletes every counter
    of the address, whatever its username). An address with no counter is absent."""
    from axes.models import AccessAttempt

    wanted = sorted({ip for ip in ips if ip})
    tried: dict[str, set[str]] = {}
    for at in range(0, len(wanted), _IN_CHUNK):
        rows = AccessAttempt.objects.filter(ip_address__in=wanted[at : at + _IN_CHUNK])
        for ip, username in rows.values_list("ip_address", "username").distinct():
            tried.setdefault(ip, set()).add(username or "")
    return tried


# ------------------------------------------------------------------------------------ the policy
def _cool_off() -> dt.timedelta:
    from axes.helpers import get_cool_off

    cool_off = get_cool_off()
    assert isinstance(cool_off, dt.timedelta)  # LOGIN_LOCKOUT_MINUTES: a lockout always lapses
    return cool_off


def login_spray_from(ip: str | None, *, now: dt.datetime | None = None) -> bool:
    """Whether failures for ``LOGIN_SPRAY_USERNAMES`` usernames or more came from ``ip`` within
    the lockout's window: somebody tries passwords across accounts from there."""
    from axes.models import AccessAttempt

    if not ip:
        return False
    since = (now or timezone.now()) - _cool_off()
    usernames = (
        AccessAttempt.objects.filter(ip_address=ip, attempt_time__gte=since).values("username").distinct()
    )
    return bool(usernames.count() >= settings.LOGIN_SPRAY_USERNAMES)


def lockout_parameters(request_or_attempt: Any, credentials: Any = None) -> list[str | list[str]]:
    """What django-axes counts failures by (``AXES_LOCKOUT_PARAMETERS``, called with the request
    or an attempt row): the username alone; and the client address too, separately, once a spray
    comes from it. django-axes sums the failures of each and locks at ``LOGIN_FAILURE_LIMIT``."""
    ip = getattr(request_or_attempt, "axes_ip_address", None) or getattr(
        request_or_attempt, "ip_address", None
    )
    at = getattr(request_or_attempt, "axes_attempt_time", None)
    if login_spray_from(ip, now=at):
        return [["username"], ["ip_address"]]
    return ["username"]


def _lock_ends(
    rows: list[tuple[dt.datetime, int]], limit: int, cool_off: dt.timedelta
) -> dt.datetime | None:
    """When failures counted in the window (each row: its last failure's time and how many) fall
    below the limit, the oldest leaving first; None when they are below it already."""
    total = sum(failures for _, failures in rows)
    if total < limit:
        return None
    for at, failures in sorted(rows):
        total -= failures
        if total < limit:
            return at + cool_off
    return None  # pragma: no cover - the loop always ends below the limit


def lockout_until(
    *, username: str | None, ip: str | None, now: dt.datetime | None = None
) -> dt.datetime | None:
    """When the lockout of this username (and of this address, under a spray) ends; None when
    neither is locked. Attempts refused while locked are not counted, so the end does not move."""
    from axes.models import AccessAttempt

    now = now or timezone.now()
    cool_off = _cool_off()
    recent = AccessAttempt.objects.filter(attempt_time__gte=now - cool_off)
    groups = [recent.filter(username=username)] if username else []
    if login_spray_from(ip, now=now):
        groups.append(recent.filter(ip_address=ip))
    ends = []
    for group in groups:
        counted = list(group.values_list("attempt_time", "failures_since_start"))
        if (end := _lock_ends(counted, settings.AXES_FAILURE_LIMIT, cool_off)) is not None:
            ends.append(end)
    return max(ends) if ends else None


@dataclass(frozen=True, slots=True)
class Lockout:
    """A lockout in force: of a username, or of a client address (a spray)."""

    username: str
    ip: str
    failures: int
    until: dt.datetime


def lockouts_current(*, now: dt.datetime | None = None) -> list[Lockout]:
    """Every lockout in force now (django-axes' counters in the window): usernames first, then
    addresses, each by name. A read, for the pit boss's page."""
    from axes.models import AccessAttempt

    now = now or timezone.now()
    cool_off = _cool_off()
    limit = settings.AXES_FAILURE_LIMIT
    rows = list(
        AccessAttempt.objects.filter(attempt_time__gte=now - cool_off).values_list(
            "username", "ip_address", "attempt_time", "failures_since_start"
        )
    )
    by_user: dict[str, list[tuple[dt.datetime, int]]] = {}
    by_ip: dict[str, list[tuple[dt.datetime, int]]] = {}
    users_by_ip: dict[str, set[str]] = {}
    for username, ip, at, failures in rows:
        if username:
            by_user.setdefault(username, []).append((at, failures))
        if ip:
            by_ip.setdefault(ip, []).append((at, failures))
            users_by_ip.setdefault(ip, set()).add(username or "")
    found = []
    for username, counted in sorted(by_user.items()):
        if (end := _lock_ends(counted, limit, cool_off)) is not None:
            found.append(Lockout(username, "", sum(f for _, f in counted), end))
    for ip, counted in sorted(by_ip.items()):
        if len(users_by_ip[ip]) < settings.LOGIN_SPRAY_USERNAMES:
            continue
        if (end := _lock_ends(counted, limit, cool_off)) is not None:
            found.append(Lockout("", ip, sum(f for _, f in counted), end))
    return found


def lockout_zone() -> str:
    """The time zone a lockout's end is told in: the casinos' when they share one, else the
    server's (``TIME_ZONE``). The login page knows no casino."""
    from tables.models import Casino

    zones = set(Casino.objects.values_list("time_zone", flat=True).distinct()[:2])
    return zones.pop() if len(zones) == 1 else settings.TIME_ZONE


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """What a locked-out login answers (``AXES_LOCKOUT_CALLABLE``): 429 with Retry-After (the
    seconds until the lock lapses); JSON under /api/ (problem details, code ``locked_out``), our
    page elsewhere, which says until when in the user's language and the casinos' time zone."""
    now = timezone.now()
    until = lockout_until(
        username=login_username(request, credentials),
        ip=getattr(request, "axes_ip_address", None),
        now=now,
    )
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = problem_response(request, status=429, code="locked_out", detail=LOCKED_OUT_MESSAGE)
    else:
        context = {"message": LOCKED_OUT_MESSAGE, "until": until, "zone": lockout_zone()}
        response = render(request, "registration/locked_out.html", context, status=429)
    seconds = (until - now).total_seconds() if until is not None else _cool_off().total_seconds()
    response["Retry-After"] = str(max(1, math.ceil(seconds)))
    return response

"""Refused logins: the security log, its periodic summary on the audit chain, and lockouts.

Throttling and lockout are django-axes' (settings ``AXES_*``: after ``LOGIN_FAILURE_LIMIT``
failures for one username, or from one client address, every login of it is refused, without the
password being checked, until ``LOGIN_LOCKOUT_MINUTES`` have passed or an administrator resets it).

Why failures are not audit events one by one: appending to the audit chain takes its global lock
(audit.services), which every croupier's step also takes to commit. Six anonymous clients trying
passwords made every step 40x slower (issue 10). A failure is now one INSERT into
``LoginFailure``, which takes no lock anybody else waits for; :func:`login_failures_summarise`,
run by beat every few minutes, appends ONE event ``auth.login_failures`` that counts the failures
since the previous summary (how many, how many while locked out, the first and last, the most tried
usernames and addresses) and names the rows it covers, which stay in the log for the details.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from audit.services import audit_record
from core.client_ip import client_ip
from core.models import LoginFailure
from core.problems import problem_response

LOCKED_OUT_MESSAGE = (
    "Too many failed logins: this account or this device is locked out for a while. "
    "A manager can lift the lock."
)
#: usernames and addresses a summary names (the most tried first); the rest are only counted
SUMMARY_TOP = 20
#: the most failures one summary covers (the oldest first; the rest wait for the next run): a
#: flood between two runs cannot make the summariser load an unbounded list
SUMMARY_BATCH = 50_000
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


@transaction.atomic
def login_lockout_reset(*, actor: Any, username: str = "", ip: str = "") -> int:
    """Lift the lockout of a username and/or a client address (an administrator, after checking
    who is asking): audited. Returns how many of django-axes' attempt records were cleared."""
    from axes.utils import reset

    if not (username or ip):
        raise ValueError("name a username or an address to unlock")
    cleared = 0
    if username:
        cleared += reset(username=username)
    if ip:
        cleared += reset(ip=ip)
    audit_record(
        actor=actor,
        action="auth.lockout.reset",
        after={"username": username, "ip": ip, "cleared": cleared},
    )
    return cleared


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """What a locked-out login answers (``AXES_LOCKOUT_CALLABLE``): 429 with Retry-After; JSON
    under /api/ (problem details, code ``locked_out``), our page elsewhere."""
    from axes.helpers import get_cool_off

    cool_off = get_cool_off(request)
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = problem_response(request, status=429, code="locked_out", detail=LOCKED_OUT_MESSAGE)
    else:
        response = render(
            request, "registration/locked_out.html", {"message": LOCKED_OUT_MESSAGE}, status=429
        )
    if cool_off:
        response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response

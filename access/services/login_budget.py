"""The login budget: every password check passes through it *before* the hash.

Why: a password check costs a hash (PBKDF2, about 0.3 s of one core here) on a web worker. A flood
of wrong passwords from many addresses and usernames, none of them locked out yet (django-axes
locks after ``LOGIN_FAILURE_LIMIT`` failures), kept every worker hashing and held the croupiers'
steps at seconds for as long as it lasted. The budget refuses an attempt with 429 and Retry-After
before anything is checked, by three fixed-window counters, each counted once for the whole site:

- per **username** (``LOGIN_BUDGET_PER_USERNAME`` a minute, the name case-folded);
- per client **address** (``LOGIN_BUDGET_PER_ADDRESS`` a minute; core.client_ip, so a forged
  X-Forwarded-For from a direct client is not believed);
- for the **site** (``LOGIN_BUDGET_PER_SECOND``): at most that many hashes a second on every
  worker and node together, whoever asks, counted over a sliding window: up to
  ``LOGIN_BUDGET_BURST`` at once (tablets signing in together at a shift change, in one second or
  across two), then no more than the sustained rate allows over the window the burst spans
  (``BURST / PER_SECOND`` seconds: 5 in any 5 seconds by default). In a second that follows a busy
  one (more attempts than the burst: a flood) only the sustained rate, so that a flood's checks are
  spread out, not bunched. This is what keeps the floor going
  under a flood from rotating addresses: the hashes the site spends on logins are bounded, the
  rest are 429s that cost one cache round trip. During such a flood a genuine login may be told
  to try again in a second; a croupier already signed in is never asked (authenticated requests
  do not pass here).

The counters live in the ``login_budget`` cache (settings: Redis when ``CACHE_URL`` names it, as
production does, so every worker and node counts together; in-process otherwise, which is exact
for ``make run``'s single process). When that cache cannot be reached the counting goes on in the
process (the same limits per worker): a Redis outage neither opens the gate nor shuts it.
0 turns a counter off.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache

logger = logging.getLogger(__name__)

#: the window of each counter, in seconds
WINDOWS = {"username": 60, "address": 60, "site": 1}
#: the clock the windows are cut from (a name of its own: a test stops it without stopping time.time)
_clock = time.time
#: where counting goes on while the shared cache is out of reach (this process only)
_fallback = LocMemCache("login-budget-fallback", {"OPTIONS": {"MAX_ENTRIES": 100_000}})


@dataclass(frozen=True, slots=True)
class LoginBudgetRefusal:
    """An attempt refused before its password was checked: which counter ran out, and when the
    next attempt may come."""

    scope: str  # "username" | "address" | "site"
    retry_after: int  # whole seconds, at least 1


def _limit(scope: str) -> int:
    return int(
        {
            "username": settings.LOGIN_BUDGET_PER_USERNAME,
            "address": settings.LOGIN_BUDGET_PER_ADDRESS,
            "site": settings.LOGIN_BUDGET_PER_SECOND,
        }[scope]
    )


def _incr(store: BaseCache, key: str, window: int) -> int:
    # add() is a no-op when the key exists; incr() is atomic on Redis (INCR) and under LocMem's
    # lock. A key that lapsed between the two is added again once.
    for _ in range(2):
        store.add(key, 0, timeout=window + 1)
        try:
            return int(store.incr(key))
        except ValueError:
            continue
    return 1


def _shared_store() -> BaseCache:
    return caches["login_budget"]


def _count(key: str, window: int) -> int:
    try:
        return _incr(_shared_store(), key, window)
    except Exception as exc:
        logger.warning("login budget: the shared cache failed (%s); counting in this process", exc)
        return _incr(_fallback, key, window)


def _peek(key: str) -> int:
    """A counter's value, read where :func:`_count` would count it (0 when there is none)."""
    try:
        return int(_shared_store().get(key) or 0)
    except Exception:  # as _count: the process's own count
        return int(_fallback.get(key) or 0)


def _key(scope: str, value: str, slot: int) -> str:
    # hashed: a username may hold anything (spaces, control characters) and any length
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"login-budget:{scope}:{digest}:{slot}"


def _site_limit(per_second: int, slot: int) -> int:
    """The site's limit of attempts for this second: ``LOGIN_BUDGET_BURST`` when the second before
    was calm (no more attempts than the burst), else the sustained limit. Under a flood every
    second is busy, so the site checks ``LOGIN_BUDGET_PER_SECOND`` passwords a second and no more.
    The site's counter counts every attempt that reaches it, refused or not (and lives two
    seconds): the second before's is that second's pressure."""
    before = _peek(_key("site", "", slot - 1))
    burst = int(settings.LOGIN_BUDGET_BURST)
    return max(per_second, burst) if before <= max(per_second, burst) else per_second


def _site_window(per_second: int) -> tuple[int, int]:
    """(seconds, checks): the sliding window the site's granted checks are counted over, and how
    many it allows: the burst, spread over the seconds the sustained rate takes to earn it."""
    burst = max(int(settings.LOGIN_BUDGET_BURST), per_second)
    return max(1, math.ceil(burst / per_second)), burst


def _site_grant(per_second: int, slot: int) -> bool:
    """Take one granted check from the site's sliding window (this second's granted counter and
    the seconds before it); False, and nothing taken, when the window is full. Two workers racing
    may overshoot by the checks they grant at once, never more."""
    seconds, allowed = _site_window(per_second)
    before = [_key("site-granted", "", slot - n) for n in range(1, seconds)]
    try:
        found = _shared_store().get_many(before) if before else {}
    except Exception:  # as _count: the process's own count
        found = _fallback.get_many(before) if before else {}
    earlier = sum(int(v or 0) for v in found.values())
    key = _key("site-granted", "", slot)
    granted = _count(key, seconds)
    if earlier + granted <= allowed:
        return True
    try:  # not granted: not counted
        _shared_store().decr(key)
    except Exception:
        with contextlib.suppress(ValueError):
            _fallback.decr(key)
    return False


def login_budget_take(*, username: str, ip: str, now: float | None = None) -> LoginBudgetRefusal | None:
    """Take one password check from the budget: None when it may go ahead, else the refusal.

    The username's and the address's counters are taken first, the site's only when both allow:
    a flood against one name or from one address, once refused, does not eat the site's budget
    for everybody else."""
    now = _clock() if now is None else now
    wanted = [("username", username.casefold()), ("address", ip), ("site", "")]
    for scope, value in wanted:
        limit, window = _limit(scope), WINDOWS[scope]
        if limit <= 0 or (scope != "site" and not value):
            continue
        slot = int(now // window)
        per_second = limit
        if scope == "site":
            limit = _site_limit(limit, slot)
        used = _count(_key(scope, value, slot), window)
        if used > limit or (scope == "site" and not _site_grant(per_second, slot)):
            if used == limit + 1:  # once per counter and window: a flood does not flood the log
                logger.warning("login budget: %s counter ran out (%d in %d s)", scope, limit, window)
            return LoginBudgetRefusal(scope=scope, retry_after=max(1, math.ceil((slot + 1) * window - now)))
    return None

"""Reads for the alerts (docs/review.md, "Alerts"): the casinos' thresholds, the conditions the
scan raises alerts for (``alert_candidates``), the open count the navigation shows, the alerts
page's lists. No writes here: ``review.services.alerts_raise`` stores what this finds.

Every condition is read from the game floor's own records (``tables``, ``ledger``, ``audit``);
``tables`` never imports ``review``, so nothing on the floor raises an alert itself."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from fractions import Fraction
from zoneinfo import ZoneInfo

from django.db.models import Count, Max, Q, QuerySet

from audit.anchors import ANCHOR_FILE_REASON, ANCHORS_REASON
from audit.selectors import chain_verifications_latest
from ledger.models import Account, Entry, TransactionKind
from review.models import Alert, AlertKind, AlertSettings
from review.selectors.flows import flow_findings, flow_subject
from review.wording import (
    ALERT_AUDIT_ANCHOR_FILE,
    ALERT_AUDIT_BREAK,
    ALERT_AUDIT_BREAK_CASINO,
    ALERT_BIG_WIN,
    ALERT_BIG_WIN_BANK,
    ALERT_ERROR_RATE,
    ALERT_FLAGGED,
    ALERT_MONEY_FLOW,
    ALERT_MONEY_FLOW_BANKER,
    ALERT_SHOE_ALARM,
    ALERT_UNFINISHED,
    percent,
)
from tables.games import wings
from tables.models import (
    CORRECTION_KINDS,
    UNFINISHED_COUP_STATES,
    Casino,
    Coup,
    CoupStep,
    Player,
    Shoe,
    ShoeAlarm,
)

#: how far back the scan looks for events (flagged coups, shoe alarms, wins, croupiers at work):
#: a condition older than this when first scanned is history, on the dashboard, not an alert
SCAN_LOOKBACK = dt.timedelta(hours=24)


@dataclass(frozen=True, slots=True)
class AlertCandidate:
    """A condition the scan found, before it is stored (or found stored already). Its fields are
    ``review.Alert``'s columns, by name: ``alerts_raise`` stores it field for field."""

    kind: str
    subject_key: str
    summary: str
    casino_id: int | None
    table_id: int | None = None
    coup_id: int | None = None
    user_id: int | None = None


def alert_thresholds() -> dict[int, AlertSettings]:
    """Every casino's thresholds (unsaved defaults for a casino without its settings row)."""
    stored = {s.casino_id: s for s in AlertSettings.objects.all()}
    return {
        pk: stored.get(pk) or AlertSettings(casino_id=pk)
        for pk in Casino.objects.values_list("pk", flat=True)
    }


def _coup_label(coup: Coup) -> dict[str, object]:
    """The coup an alert names, as its summary's values (review.wording's patterns): its table,
    shoe and number, and its id, without which two sessions' "shoe 1 coup 1" read alike."""
    return {"table": coup.shoe.table.name, "shoe": coup.shoe.number, "coup": coup.number, "id": coup.pk}


def _shoe_started(shoe: Shoe) -> str:
    """When a shoe started, in its casino's time zone (a shoe alarm's summary: shoes are numbered
    per session, their start tells two "shoe 1" of one table apart)."""
    local = shoe.shuffled_at.astimezone(ZoneInfo(shoe.table.casino.time_zone))
    return f"{local:%Y-%m-%d %H:%M}"


def _flagged(since: dt.datetime) -> list[AlertCandidate]:
    coups = Coup.objects.filter(flagged=True, created_at__gte=since, shoe__imported=False).select_related(
        "shoe__table"
    )
    return [
        AlertCandidate(
            kind=AlertKind.FLAGGED_COUP,
            subject_key=f"coup:{c.pk}",
            summary=ALERT_FLAGGED.format(**_coup_label(c)),
            casino_id=c.shoe.table.casino_id,
            table_id=c.shoe.table_id,
            coup_id=c.pk,
        )
        for c in coups.order_by("pk")
    ]


def _shoe_alarms(since: dt.datetime) -> list[AlertCandidate]:
    alarms = ShoeAlarm.objects.filter(raised_at__gte=since).select_related("shoe__table__casino")
    return [
        AlertCandidate(
            kind=AlertKind.SHOE_ALARM,
            subject_key=f"shoealarm:{a.pk}",
            summary=ALERT_SHOE_ALARM.format(
                table=a.shoe.table.name,
                shoe=a.shoe.number,
                started=_shoe_started(a.shoe),
                kind=a.get_kind_display(),
                detail=a.detail,
            ),
            casino_id=a.shoe.table.casino_id,
            table_id=a.shoe.table_id,
            coup_id=a.coup_id,
        )
        for a in alarms.order_by("pk")
    ]


def _coup_alert(kind: AlertKind, coup: Coup, summary: str) -> AlertCandidate:
    """An alert about a chemin de fer coup: keyed by the coup (one alert a coup and kind), at its
    table and casino."""
    return AlertCandidate(
        kind=kind,
        subject_key=f"coup:{coup.pk}",
        summary=summary,
        casino_id=coup.shoe.table.casino_id,
        table_id=coup.shoe.table_id,
        coup_id=coup.pk,
    )


def _unfinished(now: dt.datetime, thresholds: dict[int, AlertSettings]) -> list[AlertCandidate]:
    # unfinished coups are few (one per open table at most): filter by each casino's threshold here
    shortest = min((s.unfinished_minutes for s in thresholds.values()), default=15)
    coups = Coup.objects.filter(
        state__in=UNFINISHED_COUP_STATES,
        shoe__imported=False,
        created_at__lt=now - dt.timedelta(minutes=shortest),
    ).select_related("shoe__table")
    found = []
    for c in coups.order_by("pk"):
        limit = thresholds[c.shoe.table.casino_id].unfinished_minutes
        minutes = int((now - c.created_at).total_seconds() // 60)
        if minutes < limit:
            continue
        summary = ALERT_UNFINISHED.format(**_coup_label(c), minutes=minutes, state=c.get_state_display())
        found.append(_coup_alert(AlertKind.UNFINISHED_COUP, c, summary))
    # every game with coups of its own (the older games': tables.games), under the same thresholds
    for wing in wings():
        found += wing.alert_candidates(now=now, thresholds=thresholds)
    return found


def _audit_break() -> list[AlertCandidate]:
    # the stored result of the latest walk of each chain (nightly, or asked for on the dashboard):
    # re-hashing the whole chain every minute would cost more than the scan itself
    found = []
    for last in chain_verifications_latest():
        if last.ok:
            continue
        casino = last.chain or None  # a casino's chain: the alert is that casino's
        if casino is None and last.first_broken_reason.startswith(ANCHOR_FILE_REASON):
            # the anchor file itself (deleted, emptied, started again, anchors missing between two):
            # no event of the chain is broken, the file is what the alert names (its seq: the event
            # that recorded the file); the same finding by several runs is one alert, another
            # finding about the file another
            finding = hashlib.sha256(last.first_broken_reason.encode()).hexdigest()[:12]
            found.append(
                AlertCandidate(
                    kind=AlertKind.AUDIT_BREAK,
                    subject_key=f"anchors:seq:{last.first_broken_seq}:{finding}",
                    summary=ALERT_AUDIT_ANCHOR_FILE.format(
                        reason=last.first_broken_reason.removeprefix(ANCHORS_REASON)
                    )[:300],
                    casino_id=None,
                )
            )
            continue
        found.append(
            AlertCandidate(
                kind=AlertKind.AUDIT_BREAK,
                # the same break found by several runs is one alert; a break elsewhere is another
                # (the global chain's key is what it was when it was the only chain)
                subject_key=f"chain:{casino}:seq:{last.first_broken_seq}"
                if casino
                else f"chain:seq:{last.first_broken_seq}",
                summary=(ALERT_AUDIT_BREAK if casino is None else ALERT_AUDIT_BREAK_CASINO).format(
                    casino=casino,
                    seq=last.first_broken_seq,
                    count=last.broken_count,
                    reason=last.first_broken_reason,
                )[:300],
                casino_id=casino,
            )
        )
    return found


def _big_wins(since: dt.datetime, thresholds: dict[int, AlertSettings]) -> list[AlertCandidate]:
    """A coup's final settlement credited one account, a punter's chips or the bank (the
    banker's win net of the levy), more than the casino's threshold."""
    lowest = min((s.win_threshold for s in thresholds.values()), default=0)
    entries = (
        Entry.objects.filter(
            transaction__kind=TransactionKind.COUP_SETTLEMENT,
            transaction__posted_at__gte=since,
            transaction__coup__isnull=False,
            account__kind__in=[Account.Kind.PLAYER, Account.Kind.BANK],
            amount__gt=lowest,
        )
        .select_related("transaction__coup__shoe__table", "transaction__coup__banker", "account__player")
        .order_by("transaction__coup_id", "-amount", "pk")
    )
    found: dict[int, AlertCandidate] = {}
    for e in entries:
        coup = e.transaction.coup
        assert coup is not None  # filtered above
        if coup.pk in found or e.amount <= thresholds[coup.shoe.table.casino_id].win_threshold:
            continue  # the coup's largest win only
        who = e.account.player if e.account.kind == Account.Kind.PLAYER else coup.banker
        pattern = ALERT_BIG_WIN if e.account.kind == Account.Kind.PLAYER else ALERT_BIG_WIN_BANK
        summary = pattern.format(**_coup_label(coup), who=who.display_name if who else "?", amount=e.amount)
        found[coup.pk] = _coup_alert(AlertKind.BIG_WIN, coup, summary)
    return list(found.values())


def _game_steps() -> QuerySet[CoupStep]:
    """Steps of the game recorded live (the dashboard's error rates count the same)."""
    return CoupStep.objects.filter(coup__shoe__imported=False).exclude(
        kind__in=[k.value for k in CORRECTION_KINDS]
    )


def _error_rates(since: dt.datetime, thresholds: dict[int, AlertSettings]) -> list[AlertCandidate]:
    """Croupiers at work in the lookback whose steps against the rules, per coup over their last
    N coups (the casino's ``error_rate_coups``), exceed the casino's rate."""
    widest = max((s.error_rate_coups for s in thresholds.values()), default=50)
    found = []
    actors = _game_steps().filter(created_at__gte=since).values_list("actor_id", flat=True).distinct()
    for actor_id in sorted(set(actors)):  # croupiers on the floor: a handful
        coups = list(
            _game_steps()
            .filter(actor_id=actor_id)
            .values("coup_id", "coup__shoe__table__casino_id", "actor__username")
            .annotate(last=Max("created_at"), wrong=Count("pk", filter=~Q(violations=[])))
            .order_by("-last", "-coup_id")[:widest]
        )
        if not coups:
            continue
        casino_id = coups[0]["coup__shoe__table__casino_id"]  # where he works now
        limits = thresholds[casino_id]
        window = coups[: limits.error_rate_coups]
        wrong = sum(r["wrong"] for r in window)
        rate = Fraction(wrong, len(window))
        if wrong == 0 or rate <= Fraction(limits.error_rate_bp, 10_000):
            continue
        latest_wrong = next(r["coup_id"] for r in window if r["wrong"])
        found.append(
            AlertCandidate(
                kind=AlertKind.ERROR_RATE,
                # a new alert when a new wrong coup keeps him above the threshold, not every minute
                subject_key=f"user:{actor_id}:coup:{latest_wrong}",
                summary=ALERT_ERROR_RATE.format(
                    user=coups[0]["actor__username"], wrong=wrong, coups=len(window), rate=percent(rate, 1)
                ),
                casino_id=casino_id,
                coup_id=latest_wrong,
                user_id=actor_id,
            )
        )
    return found


def _money_flows(now: dt.datetime, thresholds: dict[int, AlertSettings]) -> list[AlertCandidate]:
    """Pairs whose one-way flow over the casino's period is above its threshold and explained by
    the losing side's play beyond chance (review.selectors.flows, docs/flows.md): one alert a pair
    and gaming day, at the table of the last coup they met in."""
    found = []
    for casino in Casino.objects.filter(pk__in=thresholds).order_by("pk"):
        first, last, findings = flow_findings(casino=casino, settings=thresholds[casino.pk], now=now)
        for f in findings:
            names = dict(Player.objects.filter(pk__in=[f.winner, f.loser]).values_list("pk", "display_name"))
            values = {
                "loser": names[f.loser],
                "winner": names[f.winner],
                "flow": f.flow,
                "first": first,
                "last": last,
            }
            if "given_up" in f.reasons:
                s = f.spread
                summary = ALERT_MONEY_FLOW.format(
                    **values,
                    given_up=f"{float(s.given_up):.1f}",
                    points=s.points,
                    mean=f"{float(s.mean):.1f}",
                    sd=f"{s.sd:.1f}",
                )
            else:
                d = f.discrimination
                summary = ALERT_MONEY_FLOW_BANKER.format(
                    **values,
                    wrong_facing=d.wrong_facing,
                    facing=d.facing,
                    wrong_others=d.wrong_others,
                    others=d.others,
                )
            coup = Coup.objects.select_related("shoe").get(pk=f.coups[-1])
            found.append(
                AlertCandidate(
                    kind=AlertKind.MONEY_FLOW,
                    subject_key=flow_subject(
                        casino_id=casino.pk, winner=f.winner, loser=f.loser, first=first, last=last
                    ),
                    summary=summary[:300],
                    casino_id=casino.pk,
                    table_id=coup.shoe.table_id,
                    coup_id=coup.pk,
                )
            )
    return found


def alert_candidates(*, now: dt.datetime) -> list[AlertCandidate]:
    """Every condition that calls for an alert now, raised already or not."""
    since = now - SCAN_LOOKBACK
    thresholds = alert_thresholds()
    return [
        *_flagged(since),
        *_shoe_alarms(since),
        *_unfinished(now, thresholds),
        *_audit_break(),
        *_big_wins(since, thresholds),
        *_error_rates(since, thresholds),
        *_money_flows(now, thresholds),
    ]


# --------------------------------------------------------------------------------- the pages
def open_alerts() -> QuerySet[Alert]:
    return Alert.objects.filter(acknowledged_at__isnull=True)


def open_alert_count(*, casinos: frozenset[int] | None = None) -> int:
    """What the navigation shows every pit boss: one COUNT on the partial index of open alerts (of
    ``casinos`` and the group's own, such as a break of the global audit chain)."""
    return _of_casinos(open_alerts(), casinos).count()


def _of_casinos(alerts: QuerySet[Alert], casinos: frozenset[int] | None) -> QuerySet[Alert]:
    if casinos is None:
        return alerts
    return alerts.filter(Q(casino_id__in=casinos) | Q(casino__isnull=True))


@dataclass(frozen=True)
class AlertFilters:
    kind: str = ""
    casino_id: int | None = None
    table_id: int | None = None
    #: the casinos the reader sees (tables.permissions.CasinoScope.casino_ids; None: every casino)
    casinos: frozenset[int] | None = None


def _filtered(alerts: QuerySet[Alert], filters: AlertFilters) -> QuerySet[Alert]:
    alerts = _of_casinos(alerts, filters.casinos)
    if filters.kind:
        alerts = alerts.filter(kind=filters.kind)
    if filters.casino_id is not None:
        alerts = alerts.filter(Q(casino_id=filters.casino_id) | Q(casino__isnull=True))
    if filters.table_id is not None:
        alerts = alerts.filter(table_id=filters.table_id)
    return alerts.select_related("casino", "table", "coup", "user", "acknowledged_by")


def alerts_open(*, filters: AlertFilters) -> QuerySet[Alert]:
    """Open alerts, newest first."""
    return _filtered(open_alerts(), filters).order_by("-raised_at", "-pk")


def alerts_acknowledged(*, filters: AlertFilters) -> QuerySet[Alert]:
    """The history: acknowledged alerts, the latest acknowledged first."""
    return _filtered(Alert.objects.filter(acknowledged_at__isnull=False), filters).order_by(
        "-acknowledged_at", "-pk"
    )

"""The pit boss's pages (docs/review.md): the corrections queue, a coup's review, the dashboard, the
audit verification. Thin: parse, check who may, call one service or selector, render.

Approve and reject answer htmx with the re-rendered queue row or coup review (``return=row`` /
``return=detail``), a refusal with the same fragment showing why (status 400/403/409, which
base.html's htmx-config swaps in), and plain form posts with a redirect (or the page again with
the error), so the pages work without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET, require_POST

from access.services.logins import lockout_zone
from audit.selectors import audit_chain_state
from audit.services import chain_verification_request
from compliance.models import CashReport
from compliance.permissions import is_compliance
from compliance.services import cash_report_file
from core.db_router import replica_fallback_notice, replica_reads
from core.form_numbers import form_count
from core.numbers import PERCENT_SIGN, figure, percent
from core.types import AuthenticatedHttpRequest
from review.charts import bar_chart, day_label, day_text
from review.forms import (
    AcknowledgeForm,
    AlertFilterForm,
    ChartsForm,
    ComplianceDayForm,
    PeriodForm,
    RatingForm,
    RejectForm,
)
from review.models import Alert
from review.pages import (
    REFUSALS,
    allow_page,
    nav_context,
    page_render,
    reader_casinos,
    refusal_answer,
    void_context,
)
from review.selectors.alerts import AlertFilters, alerts_acknowledged, alerts_open, open_alert_count
from review.selectors.charts import coups_per_hour, hold_by_gaming_day
from review.selectors.compliance import compliance_page, compliance_today
from review.selectors.coup_review import coup_review
from review.selectors.dashboard import audit_chains_of, dashboard, open_tables
from review.selectors.flows import flow_alerts_recent
from review.selectors.live import live_pit
from review.selectors.player import player_page
from review.selectors.queue import (
    QUEUE_PAGE_SIZE,
    queue_row_after_decision,
    queue_rows,
    review_queue,
    review_queue_count,
)
from review.selectors.rating import player_rating, rating_session_names
from review.services import (
    alert_acknowledge,
    alerts_raise_if_stale,
    audit_chains_to_verify,
    can_handle_alerts,
    can_lift_lockouts,
    can_review_corrections,
    can_see_dashboard,
    can_verify_audit,
    lifts_every_lockout,
    lockout_lift,
    lockouts_overseen,
)
from tables import services
from tables.games import wing_for, wings
from tables.gaming_day import Period, casino_calendar
from tables.models import Coup, GameCoup, Player, Table, VoidRequest
from tables.permissions import (
    check_reads_casino,
    check_works_for,
    in_casinos,
)
from tables.selectors import void_requests_pending
from tables.services.rollups import rollups_refresh_unless_running
from tables.wording import VOID_DONE, say, void_request_detail

#: the voids waiting for a second pit boss shown above the queue (a few at most, in practice)
VOIDS_SHOWN = 50


# ------------------------------------------------------------------------------- corrections
@login_required
@require_GET
def queue(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_review_corrections(request.user))
    waiting = review_queue(casinos=reader_casinos(request))
    page = Paginator(waiting, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = queue_rows(page.object_list, user=request.user)
    voids = list(void_requests_pending(casinos=reader_casinos(request))[:VOIDS_SHOWN])
    context = {"page": page, "rows": rows, "voids": voids}
    return page_render(request, "review/queue.html", context, active="queue")


def _coup_page(
    request: AuthenticatedHttpRequest, coup: Coup, *, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "review": coup_review(coup=coup, user=request.user),
        "reject_form": RejectForm(),
        "error": error,
        **void_context(request.user, coup),
        **nav_context(request),
    }
    return render(request, "review/coup.html", context, status=status)


@login_required
@require_GET
def coup_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    allow_page(can_review_corrections(request.user))
    coup = get_object_or_404(Coup.objects.select_related("shoe__table"), pk=pk)
    check_reads_casino(request.user, coup.shoe.table.casino_id)
    return _coup_page(request, coup)


def _decide(
    request: AuthenticatedHttpRequest,
    pk: int,
    decide: Callable[[Coup], Any],
    *,
    done: str,
    form: RejectForm | None = None,
) -> HttpResponse:
    """Run one decision (approve/reject) and answer htmx or the plain form post."""
    allow_page(can_review_corrections(request.user))
    coup = get_object_or_404(Coup.objects.select_related("shoe__table"), pk=pk)
    # another casino's coup: refused (403) before its page could be shown with the refusal
    check_works_for(request.user, coup.shoe.table.casino_id)
    as_row = request.POST.get("return") == "row"
    error, status = "", 200
    try:
        if form is not None and not form.is_valid():
            raise ValidationError(list(form.errors["reason"]))
        result = decide(coup)
        if isinstance(result, VoidRequest):  # above the casino's limit: a second pit boss decides
            done = say(void_request_detail(result), _)
    except REFUSALS as exc:
        error, status = refusal_answer(exc)
    if request.htmx:
        waiting = review_queue_count(casinos=reader_casinos(request))  # the navigation's counter, out of band
        if as_row:
            row = queue_row_after_decision(coup=coup, user=request.user)
            context = {"row": row, "error": error, "oob_queue_count": waiting}
            return render(request, "review/_queue_row.html", context, status=status)
        review = coup_review(coup=coup, user=request.user)
        context = {
            "review": review,
            "reject_form": form or RejectForm(),
            "error": error,
            "done": "" if error else done,
            "oob_queue_count": waiting,
            **void_context(request.user, coup),
        }
        return render(request, "review/_coup_body.html", context, status=status)
    if error:
        review = coup_review(coup=coup, user=request.user)
        context = {
            "review": review,
            "reject_form": form or RejectForm(),
            "error": error,
            **void_context(request.user, coup),
            **nav_context(request),
        }
        return render(request, "review/coup.html", context, status=status)
    messages.success(request, done)
    return redirect("review:queue" if as_row else reverse("review:coup", args=[coup.pk]))


@login_required
@require_POST
def coup_approve(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def approve(coup: Coup) -> Any:
        return services.correction_approve(actor=request.user, coup=coup)

    done = gettext_noop("Correction approved: the restored settlement is final.")
    return _decide(request, pk, approve, done=done)


def _decide_with_reason(
    request: AuthenticatedHttpRequest, pk: int, service: Callable[..., Any], *, done: str
) -> HttpResponse:
    """A decision that needs the pit boss's reason (reject, void): the reason form, then the service."""
    form = RejectForm(request.POST)

    def decide(coup: Coup) -> Any:
        return service(actor=request.user, coup=coup, reason=form.cleaned_data["reason"])

    return _decide(request, pk, decide, form=form, done=done)


@login_required
@require_POST
def coup_reject(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    done = gettext_noop("Correction rejected: the croupier must restore the coup again.")
    return _decide_with_reason(request, pk, services.correction_reject, done=done)


@login_required
@require_POST
def coup_void(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _decide_with_reason(request, pk, services.coup_void, done=VOID_DONE)


# ------------------------------------------------------------------------------- dashboard
@login_required
@require_GET
def dashboard_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_see_dashboard(request.user))
    week = Period.last_days()
    casinos = reader_casinos(request)
    form = PeriodForm(request.GET or None, initial={"start": week.start, "end": week.end}, casinos=casinos)
    if form.is_bound and form.is_valid():
        period, table = form.period, form.selected_table
    else:
        period, table = week, None
    # the rollups the figures read follow the audit trail: bring them up to now first
    rollups_refresh_unless_running()
    # a read replica, when one is configured and fit to answer; else the primary (docs/scaling.md)
    with replica_reads() as reads:
        data = dashboard(
            period=period,
            table=table,
            casinos=casinos,
            flagged_page=request.GET.get("flagged_page", 1),
            alarms_page=request.GET.get("alarms_page", 1),
        )
    live = live_pit(tables=data.open_tables, now=timezone.now())
    context = {
        "form": form,
        "data": data,
        "live": live,
        "live_query": urlencode({"table": table.pk} if table is not None else {}),
        "replica_notice": replica_fallback_notice(reads),
        "poll_seconds": settings.REVIEW_POLL_SECONDS,
        "nav_alerts": can_handle_alerts(request.user),
        "filter_query": urlencode(
            {k: v for k, v in request.GET.dict().items() if k in ("start", "end", "table")}
        ),
        "can_verify": can_verify_audit(request.user),
        # the tables of the games with pages of their own (tables.games): links to their coups
        "game_tables": [
            t
            for wing in wings()
            if (rows := wing.review_tables()) is not None
            for t in in_casinos(rows, casinos, "casino")
        ],
    }
    return page_render(request, "review/dashboard.html", context, active="dashboard")


@login_required
@require_POST
def audit_verify(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_verify_audit(request.user))
    # his casinos' chains and the global one (every chain for a superuser): the task runs once
    # this has committed
    chain_verification_request(actor=request.user, chains=audit_chains_to_verify(request.user))
    if request.htmx:
        chain = audit_chain_state(chains=audit_chains_of(reader_casinos(request)))
        return render(request, "review/_audit_panel.html", {"chain": chain, "can_verify": True})
    messages.success(request, "Audit verification requested.")
    return redirect(reverse("review:dashboard") + "#audit")


# ------------------------------------------------------------------------------- the live pit
@login_required
@require_GET
def dashboard_live(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The dashboard's live part, polled by htmx. It first raises the alerts due when the last
    scan is over a minute old (beat does it every minute; without a worker this keeps them
    current), then reads; the navigation's open-alert count goes with it, out of band."""
    allow_page(can_see_dashboard(request.user))
    now = timezone.now()
    if can_handle_alerts(request.user):
        alerts_raise_if_stale(now=now)
    table_id = request.GET.get("table", "")
    table = None
    if table_id:  # one table's live part; no id: every table the reader sees
        if (pk := form_count(table_id)) is None:  # "abc", "-1", "²": the page never asks so
            raise BadRequest(f"?table= is no table id: {table_id!r}")
        table = Table.objects.filter(pk=pk).first()
    casinos = reader_casinos(request)
    if table is not None:
        check_reads_casino(request.user, table.casino_id)
    live = live_pit(tables=open_tables(table=table, casinos=casinos), now=now)
    context = {
        "live": live,
        "nav_queue": can_review_corrections(request.user),
        "nav_alerts": can_handle_alerts(request.user),
        "oob_alert_count": live.alerts_open if can_handle_alerts(request.user) else None,
    }
    return render(request, "review/_live.html", context)


# ------------------------------------------------------------------------------ the older games
# ------------------------------------------------------------------- voids for a second pit boss
def _void_decision(
    request: AuthenticatedHttpRequest, pk: int, decide: Callable[[VoidRequest], Any]
) -> HttpResponse:
    """Approve or refuse a void waiting for a second pit boss (tables.services.voids): back to the
    coup's page, saying what happened; a refusal shows the page again with why, at its status."""
    allow_page(can_review_corrections(request.user))
    rows = VoidRequest.objects.select_related("coup__shoe__table", "game_coup__table")
    waiting = get_object_or_404(rows, pk=pk)
    check_works_for(request.user, waiting.casino_id)  # another casino's: 403, as every write there
    coup = waiting.coup or waiting.game_coup
    assert coup is not None  # the database holds one of the two
    try:
        decided = decide(waiting)
    except REFUSALS as exc:
        error, status = refusal_answer(exc)
        coup.refresh_from_db()
        if isinstance(coup, GameCoup):  # a game with pages of its own (tables.games)
            page = wing_for(coup.game).review_coup_page(request, coup, error=error, status=status)
            assert page is not None  # a wing with coups of its own has their page
            return page
        return _coup_page(request, coup, error=error, status=status)
    messages.success(request, say(void_request_detail(decided), _))
    if isinstance(coup, GameCoup):
        url = wing_for(coup.game).review_coup_url(coup)
        assert url is not None
        return redirect(url)
    return redirect("review:coup", pk=coup.pk)


@login_required
@require_POST
def void_request_approve_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _void_decision(request, pk, lambda v: services.void_request_approve(actor=request.user, request=v))


@login_required
@require_POST
def void_request_refuse_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    reason = str(request.POST.get("reason", ""))[:300]
    return _void_decision(
        request, pk, lambda v: services.void_request_refuse(actor=request.user, request=v, reason=reason)
    )


# ------------------------------------------------------------------------------------- alerts
ALERTS_PAGE_SIZE = 20


@login_required
@require_GET
def alerts_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_handle_alerts(request.user))
    form = AlertFilterForm(request.GET or None, casinos=reader_casinos(request))
    filters = _alert_filters(form, reader_casinos(request))
    history = Paginator(alerts_acknowledged(filters=filters), ALERTS_PAGE_SIZE)
    history_page = history.get_page(request.GET.get("page"))
    # the open alerts paged too: a night of alarms is hundreds, and the page is read on a tablet
    open_alerts = Paginator(alerts_open(filters=filters), ALERTS_PAGE_SIZE)
    context = {
        "form": form,
        "filters": filters,
        "open": open_alerts.get_page(request.GET.get("open_page")),
        "history": history_page,
        "ack_form": AcknowledgeForm(),
        "filter_query": urlencode({k: v for k, v in request.GET.dict().items() if k in ("kind", "casino")}),
    }
    return page_render(request, "review/alerts.html", context, active="alerts")


def _alert_filters(form: AlertFilterForm, casinos: frozenset[int] | None) -> AlertFilters:
    """The alerts page's filters from its form (none when it is unbound or invalid), always within
    ``casinos``, those the reader sees."""
    if form.is_bound and form.is_valid():
        casino = form.cleaned_data["casino"]
        kind, casino_id = form.cleaned_data["kind"], casino.pk if casino else None
        return AlertFilters(kind=kind, casino_id=casino_id, casinos=casinos)
    return AlertFilters(casinos=casinos)


@login_required
@require_POST
def alert_acknowledge_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    allow_page(can_handle_alerts(request.user))
    alert = get_object_or_404(Alert, pk=pk)
    if alert.casino_id is not None:  # another casino's alert: 403, not its row shown with the refusal
        check_works_for(request.user, alert.casino_id)
    form = AcknowledgeForm(request.POST)
    error, status = "", 200
    try:
        if not form.is_valid():
            raise ValidationError(list(form.errors["note"]))
        alert = alert_acknowledge(
            actor=request.user, alert=alert, note=form.cleaned_data["note"], now=timezone.now()
        )
    except REFUSALS as exc:
        error, status = refusal_answer(exc)
        alert.refresh_from_db()
    if request.htmx:
        # the row, and out of band every count it changed: the navigation's and the page's (under
        # the filters the page was shown with, posted back by the row's form); once acknowledged,
        # the history too, its first page (where the alert now is, the latest acknowledged first)
        casinos = reader_casinos(request)
        filters = _alert_filters(AlertFilterForm(request.POST, casinos=casinos), casinos)
        history = None
        if not error:
            history = Paginator(alerts_acknowledged(filters=filters), ALERTS_PAGE_SIZE).get_page(1)
        context = {
            "alert": alert,
            "ack_form": form,
            "error": error,
            "filters": filters,
            "oob_alert_count": open_alert_count(casinos=reader_casinos(request)),
            "oob_open_count": alerts_open(filters=filters).count(),
            "oob_history": history,
            "filter_query": urlencode(
                {k: v for k, v in request.POST.dict().items() if k in ("kind", "casino") and v}
            ),
        }
        return render(request, "review/_alert_row.html", context, status=status)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _("Alert acknowledged."))
    return redirect("review:alerts")


# ------------------------------------------------------------------------------------- lockouts
@login_required
@require_GET
def lockouts_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The login lockouts in force (a username, or an address under a spray) the reader lifts
    (``review.services.lockouts_overseen``: a pit boss, his casinos' staff's), each with Lift."""
    allow_page(can_lift_lockouts(request.user))
    return _lockouts_render(request)


def _lockouts_render(
    request: AuthenticatedHttpRequest, *, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "lockouts": lockouts_overseen(request.user),
        "zone": lockout_zone(),
        "every_lockout": lifts_every_lockout(request.user),
    }
    return page_render(
        request, "review/lockouts.html", context, active="lockouts", error=error, status=status
    )


@login_required
@require_POST
def lockout_lift_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Lift one lockout (``review.services.lockout_lift``: audited); the list again, or why not."""
    allow_page(can_lift_lockouts(request.user))
    username, ip = request.POST.get("username", ""), request.POST.get("ip", "")
    try:
        lockout_lift(actor=request.user, username=username, ip=ip)
    except REFUSALS as exc:
        error, status = refusal_answer(exc)
        return _lockouts_render(request, error=error, status=status)
    who = username.strip() or ip.strip()
    messages.success(request, _("The lockout of %(who)s is lifted.") % {"who": who})
    return redirect("review:lockouts")


# ----------------------------------------------------------------------------------- compliance
@login_required
@require_GET
def compliance_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Compliance's page: a gaming day's cash-transaction log, the reports to file, those filed."""
    allow_page(is_compliance(request.user))
    return _compliance_render(request)


def _compliance_render(
    request: AuthenticatedHttpRequest, *, error: str = "", status: int = 200
) -> HttpResponse:
    casinos = reader_casinos(request)
    today = compliance_today(casinos=casinos)
    # the field shows the day the page opens on; a day refused shows its error, and today's page
    form = ComplianceDayForm(request.GET or None, initial={"day": today})
    day = form.cleaned_data["day"] if form.is_bound and form.is_valid() else None
    context = {
        "form": form,
        "page": compliance_page(
            casinos=casinos,
            day=day or today,
            log_page=request.GET.get("log_page"),
            to_file_page=request.GET.get("to_file_page"),
        ),
        "flow_alerts": flow_alerts_recent(casinos=casinos),
    }
    return page_render(
        request, "review/compliance.html", context, active="compliance", error=error, status=status
    )


@login_required
@require_POST
def cash_report_file_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Mark a report filed (``compliance.services.cash_report_file``: who and when, audited)."""
    allow_page(is_compliance(request.user))
    report = get_object_or_404(CashReport.objects.select_related("player"), pk=pk)
    try:
        cash_report_file(actor=request.user, report=report)
    except REFUSALS as exc:
        error, status = refusal_answer(exc)
        if status == 403:
            raise
        return _compliance_render(request, error=error, status=status)
    messages.success(request, _("The report on %(player)s is marked filed.") % {"player": report.player})
    # back to the report's own gaming day, where it is now listed as filed (today's page would
    # not list it when the report is from an earlier day)
    return redirect(f"{reverse('review:compliance')}?day={report.gaming_day.isoformat()}")


# ------------------------------------------------------------------------------------- charts
@login_required
@require_GET
def charts_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_see_dashboard(request.user))
    form = ChartsForm(request.GET or None, casinos=reader_casinos(request))
    casino, days = None, 14
    if form.is_bound and form.is_valid():
        casino, days = form.cleaned_data["casino"], form.cleaned_data["days"] or 14
    # the first casino the reader sees (another casino's is not a valid choice of the form)
    casino = casino or form.scoped_choices("casino").first()
    now = timezone.now()
    context: dict[str, Any] = {
        "form": form,
        "casino": casino,
        "days": days,
    }
    if casino is not None:
        rollups_refresh_unless_running()
        with replica_reads() as reads:
            hold = hold_by_gaming_day(casino=casino, days=days, now=now)
        context["replica_notice"] = replica_fallback_notice(reads)
        context["hold"] = hold
        context["hold_chart"] = bar_chart(
            title=_("Levy hold per gaming day against the expected levy"),
            desc=_(
                "Bars: levy collected as a percentage of covered stakes, per gaming day of %(casino)s. "
                "Marks: the odds engine's expected levy share of the same stakes."
            )
            % {"casino": casino.name},
            labels=[day_label(d.day) for d in hold],
            values=[d.hold for d in hold],
            texts=[f"{day_text(d.day)}: {_('hold')} {percent(d.hold, 3)}" for d in hold],
            markers=[d.expected for d in hold],
            marker_texts=[f"{day_text(d.day)}: {_('expected')} {percent(d.expected, 3)}" for d in hold],
            tick_format=lambda v: f"{figure(v)}{PERCENT_SIGN}",
            tick_scale=100.0,
            label_every=max(1, days // 10),
        )
        per_hour = coups_per_hour(casino=casino, now=now)
        context["hour_charts"] = [
            (
                t,
                bar_chart(
                    title=_("Coups per hour at %(table)s, last 24 hours") % {"table": t.table.name},
                    desc=_("%(total)s coups in 24 hours, one bar per hour.") % {"total": t.total},
                    labels=[f"{h:%H}" for h, _n in t.hours],
                    values=[n for _h, n in t.hours],
                    texts=[f"{h:%H:00}: {n}" for h, n in t.hours],
                    label_every=3,
                    height=160,
                    integer=True,
                ),
            )
            for t in per_hour
        ]
    return page_render(request, "review/charts.html", context, active="charts")


# ------------------------------------------------------------------------------------ a player
@login_required
@require_GET
def player_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    allow_page(can_see_dashboard(request.user))
    player = get_object_or_404(Player.objects.select_related("casino"), pk=pk, house=False)
    check_reads_casino(request.user, player.casino_id)
    now = timezone.now()
    data = player_page(player=player, now=now, page=request.GET.get("page", 1))
    # the rating's period is in gaming days of his casino; an invalid one shows its error and no slip
    form = RatingForm(
        {k: request.GET[k] for k in ("start", "end") if k in request.GET},
        today=casino_calendar(player.casino).day_of(now),
    )
    slip = names = None
    if form.is_valid():
        slip = player_rating(
            player=player, first=form.cleaned_data["start"], last=form.cleaned_data["end"], now=now
        )
        names = rating_session_names(slip)
    context = {
        "data": data,
        "rating_form": form,
        "slip": slip,
        "slip_sessions": [
            (names[line.session_id], line) for line in slip.sessions if line.session_id is not None
        ]
        if slip and names
        else [],
        "rating_query": urlencode({k: form.data[k] for k in ("start", "end") if form.data.get(k)}),
        **nav_context(request),
    }
    return render(request, "review/player.html", context)

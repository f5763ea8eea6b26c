"""The older games' pages in the back office, under ``/review/`` (the ``review`` namespace: the
back office takes them from the wing, tables.games ``review_urls``): a table's game coups and one
coup's review, with the pit boss's void. Thin: check who may, call one service or selector, render
in the back office's frame (review.pages)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.errors import error_answer
from core.types import AuthenticatedHttpRequest
from older_games import services as svc
from older_games.review import GAME_COUPS_PAGE_SIZE, game_coup_review, game_tables, table_game_coups
from review.pages import REFUSALS, allow_page, page_render, reader_casinos, refusal_text, void_context
from review.services import can_see_dashboard
from tables.models import GameCoup, Table, VoidRequest
from tables.permissions import check_reads_casino, check_works_for, in_casinos
from tables.wording import say, void_request_detail


@login_required
@require_GET
def game_coups_page(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    """A table's game coups (Macao, Landsknecht, old baccarat), newest first, page by page; a
    chemin de fer table has none (its coups are the dashboard's and the queue's)."""
    allow_page(can_see_dashboard(request.user))
    table = get_object_or_404(Table.objects.select_related("casino"), pk=table_id)
    check_reads_casino(request.user, table.casino_id)
    page = Paginator(table_game_coups(table), GAME_COUPS_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "table": table,
        "page": page,
        "game_tables": in_casinos(game_tables(), reader_casinos(request), "casino"),
    }
    return page_render(request, "older_games/review_coups.html", context, active="dashboard")


def game_coup_page(
    request: AuthenticatedHttpRequest, coup: GameCoup, *, error: str = "", done: str = "", status: int = 200
) -> HttpResponse:
    context = {"review": game_coup_review(coup), **void_context(request.user, coup), "done": done}
    return page_render(
        request, "older_games/review_coup.html", context, active="dashboard", error=error, status=status
    )


@login_required
@require_GET
def game_coup_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    allow_page(can_see_dashboard(request.user))
    coup = get_object_or_404(GameCoup.objects.select_related("table", "banker", "created_by"), pk=pk)
    check_reads_casino(request.user, coup.table.casino_id)
    return game_coup_page(request, coup)


@login_required
@require_POST
def game_coup_void_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Void an open game coup with the pit boss's reason (``game_coup_void``); a refusal shows the
    coup's page again with why, at its status (400, 403, 409)."""
    allow_page(can_see_dashboard(request.user))
    coup = get_object_or_404(GameCoup.objects.select_related("table"), pk=pk)
    check_works_for(request.user, coup.table.casino_id)  # 403, its page not shown with the refusal
    try:
        voided = svc.game_coup_void(actor=request.user, coup=coup, reason=request.POST.get("reason", ""))
    except REFUSALS as exc:
        answer = error_answer(exc)
        assert answer is not None, exc
        coup.refresh_from_db()
        return game_coup_page(request, coup, error=refusal_text(answer.messages), status=answer.status)
    if isinstance(voided, VoidRequest):  # above the casino's limit: a second pit boss decides
        messages.success(request, say(void_request_detail(voided), _))
    else:
        messages.success(request, _("The coup is void."))
    return redirect("review:game_coup", pk=coup.pk)

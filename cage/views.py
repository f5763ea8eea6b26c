"""The cage's screens (tablet-sized, htmx): the casino's players with their chips and marker, a
buy-in and a cash-out form per player, a new-player form, and a player's chip history.

Thin views: parse the POST (cage.forms), call one service (cage.services), render. A buy-in or
cash-out is sent twice: the first submit shows what will be posted and asks for a confirmation
(nothing written), unless the posting would be refused (a cash-out above the player's chips: the
refusal comes at once, ``cage_move_check``); the confirmation posts it, under the form's one-time
key, so a double tap posts once. With htmx a POST answers with the player's row; without
JavaScript the whole page is rendered (the confirmation) or the browser is redirected to it
(done). Refusals (core.errors): 403 is the 403 page; a ``ValidationError`` (amount, chips short,
key reused) is shown in the row, status 400, nothing written.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from cage import selectors, services
from cage.forms import CageMoveForm, PlayerNewForm, one_time_key
from cage.permissions import can_operate_cage, can_read_chips, check_can_operate_cage
from compliance import selectors as compliance_selectors
from compliance import services as compliance
from compliance.models import DocumentType
from core.api.inputs import MAX_ID
from core.errors import error_answer, validation_messages
from core.numbers import chips
from ledger.selectors import chips_by_player
from tables.models import Casino, Player
from tables.permissions import check_reads_casino

PLAYERS_PER_PAGE = 50
HISTORY_PER_PAGE = 25
KIND_VERBS: dict[str, str] = {services.BUY_IN: "Buy-in", services.CASH_OUT: "Cash-out"}


def _htmx(request: HttpRequest) -> bool:
    """Did htmx send it (django_htmx's middleware sets ``request.htmx``)?"""
    return bool(getattr(request, "htmx", False))


def _forbidden(request: HttpRequest) -> HttpResponse:
    response = render(request, "403.html", status=403)
    if _htmx(request):  # the whole page becomes the 403 page, not one row of it
        response["HX-Retarget"] = "body"
        response["HX-Reswap"] = "innerHTML"
    return response


def _row(
    player: Player,
    *,
    balance: int | None = None,
    confirm: dict[str, Any] | None = None,
    notice: str = "",
    error: list[str] | None = None,
    error_kind: str = "",
    posted: dict[str, Any] | None = None,
    identify: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One player's row: his chips, fresh one-time keys for its two forms, and what the last POST
    left there (a confirmation to give, a notice, the refusal's messages)."""
    if balance is None:
        balance = chips_by_player(players=[player])[player.pk]
    return {
        "chips": selectors.PlayerChips(player, balance),
        "buy_in_key": one_time_key(),
        "cash_out_key": one_time_key(),
        "confirm": confirm,
        "notice": notice,
        "error": error or [],
        "error_kind": error_kind,
        "posted": posted or {},
        "identify": identify,
    }


def _page_context(
    request: HttpRequest, casino: Casino, *, rows: dict[int, dict[str, Any]] | None = None, **kw: Any
) -> dict[str, Any]:
    search = request.GET.get("q", "")
    page = Paginator(selectors.cage_players(casino=casino, search=search), PLAYERS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    shown = {c.player.pk: c.balance for c in selectors.players_chips(players=page.object_list)}
    rows = rows or {}
    return {
        "casino": casino,
        "casinos": selectors.cage_casinos(user=request.user),
        "page": page,
        "rows": [rows.get(p.pk) or _row(p, balance=shown[p.pk]) for p in page.object_list],
        "search": search,
        "query": urlencode({"q": search}) if search else "",
        "can_operate": can_operate_cage(request.user),
        "new_player": kw.pop("new_player", None) or PlayerNewForm(),
        **kw,
    }


def _casino(casino_id: int) -> Casino:
    return get_object_or_404(Casino, pk=casino_id)


def _posting_casino(request: HttpRequest, casino_id: int) -> Casino | HttpResponse:
    """The casino whose cage ``request`` posts to, or the 403 page: unless the user operates the
    cage of that very casino (he works there), the POST is refused before its form, its player or
    anything of the casino is read, valid form or not, so that no answer shows another casino's
    cage (a write at another casino is a 403, as the services say: cage.permissions). The casino
    is fetched only then: an id naming no casino is refused as one naming another's."""
    try:
        check_can_operate_cage(request.user, casino_id)
    except PermissionDenied:
        return _forbidden(request)
    return _casino(casino_id)


def _casino_player(casino: Casino, player_id: object) -> Player | None:
    """The casino's player (not the house) whose id the form posted; None for anything else, a
    player of another casino included: a form error, never shown (nor told from a wrong id)."""
    value = str(player_id)
    if not (value.isascii() and value.isdigit()) or not 0 < int(value) <= MAX_ID:
        return None
    return Player.objects.filter(casino=casino, house=False, pk=int(value)).select_related("casino").first()


# ------------------------------------------------------------------------------------ reading
@login_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    """The cage: straight to the casino when there is only one."""
    if not can_read_chips(request.user):
        return _forbidden(request)
    casinos = list(selectors.cage_casinos(user=request.user))
    if len(casinos) == 1:
        return redirect("cage:players", casino_id=casinos[0].pk)
    return render(request, "cage/casinos.html", {"casinos": casinos})


@login_required
@require_GET
def players(request: HttpRequest, casino_id: int) -> HttpResponse:
    if not can_read_chips(request.user):
        return _forbidden(request)
    casino = _casino(casino_id)
    check_reads_casino(request.user, casino.pk)
    return render(request, "cage/players.html", _page_context(request, casino))


@login_required
@require_GET
def player_row(request: HttpRequest, casino_id: int, player_id: int) -> HttpResponse:
    """One row again (the confirmation's "Cancel")."""
    if not can_read_chips(request.user):
        return _forbidden(request)
    player = get_object_or_404(Player, pk=player_id, casino_id=casino_id)
    check_reads_casino(request.user, player.casino_id)
    if not _htmx(request):
        return redirect("cage:players", casino_id=casino_id)
    return render(request, "cage/_player_row.html", _row_context(request, player.casino, _row(player)))


@login_required
@require_GET
def history(request: HttpRequest, player_id: int) -> HttpResponse:
    """A player's chip history: every entry on his account, newest first, with the balance after."""
    if not can_read_chips(request.user):
        return _forbidden(request)
    player = get_object_or_404(Player.objects.filter(house=False).select_related("casino"), pk=player_id)
    check_reads_casino(request.user, player.casino_id)
    page = Paginator(selectors.player_history(player=player), HISTORY_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "cage/history.html",
        {"player": player, "chips": selectors.player_chips(player=player), "page": page},
    )


# ------------------------------------------------------------------------------------ writing
def _row_context(request: HttpRequest, casino: Casino, row: dict[str, Any]) -> dict[str, Any]:
    return {"casino": casino, "row": row, "can_operate": can_operate_cage(request.user)}


def _answer(
    request: HttpRequest, casino: Casino, player: Player, row: dict[str, Any], status: int = 200
) -> HttpResponse:
    if _htmx(request):
        return render(request, "cage/_player_row.html", _row_context(request, casino, row), status=status)
    context = _page_context(request, casino, rows={player.pk: row})
    if player.pk not in {r["chips"].player.pk for r in context["rows"]}:
        context["rows"].insert(0, row)  # on another page of the list: shown on top
    return render(request, "cage/players.html", context, status=status)


def _move(request: HttpRequest, casino_id: int, kind: str) -> HttpResponse:
    casino = _posting_casino(request, casino_id)
    if isinstance(casino, HttpResponse):
        return casino
    form = CageMoveForm(request.POST)
    player = _casino_player(casino, form.data.get("player", ""))
    if player is None:
        return HttpResponse("Which player?", status=400, content_type="text/plain")
    posted = {"kind": kind, "amount": form.data.get("amount", "")}
    if not form.is_valid():
        messages_ = [str(m) for errors in form.errors.values() for m in errors]
        return _answer(
            request, casino, player, _row(player, error=messages_, error_kind=kind, posted=posted), 400
        )
    data = form.cleaned_data
    post = services.cage_buy_in if kind == services.BUY_IN else services.cage_cash_out
    try:
        document = compliance.document_parse(data["document_type"], data["document_number"])
        if not data["confirm"]:
            # the first submit: what the posting would refuse (a cash-out above his chips, a
            # player not identified) is refused now, before the cashier is asked; else say what
            # will be posted, write nothing
            plan = services.cage_move_check(
                actor=request.user,
                casino=casino,
                player=player,
                kind=kind,
                amount=data["amount"],
                document=document,
            )
            confirm = _confirmation(request, player, kind, data, plan)
            return _answer(request, casino, player, _row(player, confirm=confirm))
        receipt = post(
            actor=request.user,
            casino=casino,
            player=player,
            amount=data["amount"],
            key=data["key"],
            document=document,
        )
    except compliance.IdentificationRequired as exc:
        # ask for the document: the day's totals, and the same amount and key to go on with
        identify = {"kind": kind, "amount": data["amount"], "key": data["key"], "message": exc.message,
                    "today": compliance_selectors.day_totals_now(casino=casino, player=player),
                    "documents": DocumentType.choices}  # fmt: skip
        return _answer(request, casino, player, _row(player, identify=identify), exc.status)
    except (PermissionDenied, ValidationError) as exc:
        answer = error_answer(exc)
        assert answer is not None
        if answer.status == 403:
            return _forbidden(request)
        refused = _document_refused(exc)
        if refused:
            # the document as typed is refused: the same ID form again, what was typed kept and
            # each reason beside its field, the same amount and key to go on with
            identify = {"kind": kind, "amount": data["amount"], "key": data["key"],
                        "today": compliance_selectors.day_totals_now(casino=casino, player=player),
                        "documents": DocumentType.choices, "errors": refused,
                        "document_type": form.data.get("document_type", ""),
                        "document_number": form.data.get("document_number", "")}  # fmt: skip
            return _answer(request, casino, player, _row(player, identify=identify), answer.status)
        reasons = validation_messages(exc) if isinstance(exc, ValidationError) else list(answer.messages)
        return _answer(
            request,
            casino,
            player,
            _row(player, error=reasons, error_kind=kind, posted=posted),
            answer.status,
        )
    notice = _notice(receipt)
    if _htmx(request):
        return _answer(request, casino, player, _row(player, balance=receipt.balance, notice=notice))
    messages.success(request, notice)
    response = HttpResponseRedirect(reverse("cage:players", args=[casino.pk]) + f"#player-{player.pk}")
    response.status_code = 303  # See Other: the browser GETs the list after its POST
    return response


def _document_refused(exc: Exception) -> dict[str, list[str]]:
    """The refusals of the identity document's fields (compliance.document_parse), by field: none
    when ``exc`` refuses something else."""
    if not isinstance(exc, ValidationError) or not hasattr(exc, "error_dict"):
        return {}
    fields = {"document_type", "document_number"}
    if not set(exc.error_dict) & fields:
        return {}
    return {
        name: validation_messages(ValidationError(errors))
        for name, errors in exc.error_dict.items()
        if name in fields
    }


def _confirmation(
    request: HttpRequest, player: Player, kind: str, data: dict[str, Any], plan: compliance.CashMovePlan
) -> dict[str, Any]:
    """The question before a posting: the move, the day's totals when the move needs the player
    identified, and his document (masked; the read is audited) or the one just typed."""
    confirm = {"kind": kind, "verb": KIND_VERBS[kind], "amount": data["amount"], "key": data["key"]}
    if plan.duties.identification:
        confirm["today"] = compliance_selectors.day_totals_now(casino=player.casino, player=player)
        if plan.document is not None:
            confirm["document"] = plan.document
        elif (found := compliance.identification_read(actor=request.user, player=player)) is not None:
            confirm["identified"] = found
    return confirm


def _notice(receipt: services.CageReceipt) -> str:
    """What was posted, in the page's language, the chips as every screen writes them."""
    values = {"player": receipt.player, "amount": chips(receipt.amount)}
    done = (
        gettext("%(player)s: bought in %(amount)s chips") % values
        if receipt.kind == services.BUY_IN
        else gettext("%(player)s: cashed out %(amount)s chips") % values
    )
    if receipt.replayed:
        done = gettext("Already recorded (sent twice): %(done)s") % {"done": done}
    return gettext("%(done)s. Chips now: %(chips)s.") % {"done": done, "chips": chips(receipt.balance)}


@login_required
@require_POST
def buy_in(request: HttpRequest, casino_id: int) -> HttpResponse:
    return _move(request, casino_id, services.BUY_IN)


@login_required
@require_POST
def cash_out(request: HttpRequest, casino_id: int) -> HttpResponse:
    return _move(request, casino_id, services.CASH_OUT)


@login_required
@require_POST
def player_new(request: HttpRequest, casino_id: int) -> HttpResponse:
    """The cage registers a new player; then the list shows him, ready for his buy-in."""
    casino = _posting_casino(request, casino_id)
    if isinstance(casino, HttpResponse):
        return casino
    form = PlayerNewForm(request.POST)
    if form.is_valid():
        try:
            player = services.cage_player_register(actor=request.user, casino=casino, **form.cleaned_data)
        except ValidationError as exc:
            for message in validation_messages(exc):
                form.add_error(None, message)
        except PermissionDenied:
            return _forbidden(request)
        else:
            done = gettext("%(player)s is registered: the buy-in is below.") % {"player": player}
            messages.success(request, done)
            query = urlencode({"q": player.display_name})
            url = reverse("cage:players", args=[casino.pk]) + f"?{query}#player-{player.pk}"
            return HttpResponseRedirect(url, status=303)
    return render(request, "cage/players.html", _page_context(request, casino, new_player=form), status=400)

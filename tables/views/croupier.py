"""The croupier's tablet screens: his table, the seating, the shoe, the bank and the coup.

Thin views: parse the POST (tables.forms), call one service, render. Every write goes through
tables.services, which checks who may make it; the views check it too, first, so a user who may
only read never reaches a service. With htmx a POST answers with the part of the screen it changed
(the coup panel, or the whole table body); without JavaScript it redirects to the table page.

What a refusal looks like (by its status in core.errors, the API's mapping too):
- ``ValidationError`` (bad card, bet above the bank…): the same screen with the message next to
  the control that sent it, status 400, nothing written;
- ``CoupConflict`` (another tablet moved the coup on): the current state, with a notice, 409;
- ``ConfirmationRequired`` (the step breaks the rules): a confirm panel naming the violation; the
  croupier resends with ``confirm=1`` if it really happened;
- ``PermissionDenied``: the 403 page;
- the database broke the transaction off (deadlock, lock timeout), twice (core.transient runs it
  once more): the current state with a notice to send it again, 409 or 503, nothing written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_GET, require_POST

from chemin_de_fer.engine.coup import Code, NeedsCards, Restored, Violation
from chemin_de_fer.engine.machine import Move
from core.errors import DatabaseBusy, RetryConflict, error_answer
from core.form_numbers import form_count
from core.numbers import chips
from core.sentence import Word, said
from core.transient import run_retrying
from core.types import AuthenticatedHttpRequest
from ledger.selectors import chips_by_player
from tables import forms, selectors, services, wording
from tables.engine_bridge import cards_parse, game_kind, superseded_ids
from tables.games import wing_for
from tables.lifecycle import CoupRecordsChanged
from tables.models import (
    AMENDABLE_KINDS,
    BankTurn,
    Coup,
    CoupStep,
    Player,
    Seat,
    Spectator,
    Table,
    TableSession,
)
from tables.permissions import (
    SeparationOfDuties,
    can_approve,
    check_can_read_table,
    is_croupier_at,
    reads_everything,
)
from tables.services.amends import AmendConfirmationRequired
from tables.views import display
from tables.wing import CHEMIN_DE_FER

SERIES_TEMPLATE = "ledger/_series_standings.html"
# English here (tests read them), translated when shown: the screens' edge (docs/i18n.md)
CONFLICT_NOTICE = gettext_noop("Another tablet moved this coup on: here is where it stands now.")
BUSY_NOTICE = gettext_noop("The table was busy and nothing was recorded: send it again.")
#: after "Nobody bets: withdraw the bank" (tables.services.withdrawals): what happened
WITHDRAWN_KEPT = gettext_noop(
    "The bank of {bank} was withdrawn without a deal: nobody bet. {banker} keeps the bank (the next "
    "bank at least {minimum})."
)
WITHDRAWN_PASSES = gettext_noop(
    "The bank of {bank} was withdrawn without a deal: nobody bet. The bank passes."
)
#: a form whose expected_step is no step count (a screen sends the one it shows)
STEP_UNKNOWN = gettext_noop("The screen did not say which step it showed: reload it.")

TablePart = str  # "page" (full page), "body" (seating + coup panel), "panel" (the coup panel)


@dataclass(frozen=True)
class ScreenError:
    """A refusal, shown next to the control that sent it (``where``)."""

    where: str
    messages: list[str]


@dataclass(frozen=True)
class ConfirmPanel:
    violation: str
    step_label: str
    fields: list[tuple[str, str]]  # the POST to resend, with confirm=1
    action: str = ""  # where to resend it: the step's URL unless said (an amendment's)


@dataclass
class RestorePanel:
    """A flagged coup being restored: what was played, the engine's restoration so far."""

    violations: list[str]
    cards: list[display.CardFace]
    codes: str  # the cards added so far, space separated, for the next POST
    needs_cards: int
    restored: Restored | None
    player_cards: list[display.CardFace] = field(default_factory=list)
    banker_cards: list[display.CardFace] = field(default_factory=list)
    void_cards: list[display.CardFace] = field(default_factory=list)
    unused: int = 0  # cards added that the restored game does not take
    outcome: str = ""
    played_player: list[display.CardFace] = field(default_factory=list)
    played_banker: list[display.CardFace] = field(default_factory=list)
    played_outcome: str = ""
    played_totals: tuple[int | None, int | None] = (None, None)
    # a closed shoe: the cards recorded after the coup that the restoration takes, and whether
    # more can still be dealt (tables.selectors.RestorationShoe)
    shoe_closed: bool = False
    recorded: list[display.CardFace] = field(default_factory=list)
    cards_gone: str = ""  # the record ran out and the shoe's cards are gone: a pit boss voids
    kept_from_rejected: bool = False  # ``cards`` are those a rejected restoration took from the shoe
    # the pit boss who rejected the latest restoration, and why (none rejected: empty)
    rejected_by: str = ""
    rejected_reason: str = ""


def _form_checked(form: Any) -> None:
    """Raise the form's errors as one ValidationError (shown next to its control)."""
    if not form.is_valid():
        errors = form.errors.get_json_data()
        raise ValidationError([e["message"] for errs in errors.values() for e in errs])


def _table(table_id: int) -> Table:
    return get_object_or_404(Table.objects.select_related("casino", "profile"), pk=table_id)


def _series_template() -> str | None:
    try:
        get_template(SERIES_TEMPLATE)
    except TemplateDoesNotExist:
        return None
    return SERIES_TEMPLATE


def _series_context(floor: selectors.TableFloor) -> dict[str, Any]:
    """The home profile's series standings, from the ledger's partial once it exists."""
    template = _series_template() if floor.table.profile.series_coups else None
    if template is None or floor.session is None:
        return {"series_template": None}
    from tables.models import Series
    from tables.money.series import series_can_continue, series_standings

    series = Series.objects.filter(session=floor.session).order_by("-started_at").first()
    running = series is not None and series.ended_at is None
    return {
        "series_template": template,
        "series": series,
        "series_running": running,
        "series_status": series_can_continue(series=series)[1] if series is not None and running else "",
        "series_end_reasons": Series.EndReason.choices,
        "standings": series_standings(series=series) if series is not None else [],
    }


def _side(kind: str) -> str:
    return "banker" if "banker" in kind else "player"


def _restore_panel(coup: Coup, codes: list[str] | None) -> RestorePanel:
    """``codes``: the cards the croupier has entered so far (None: none posted yet, the screen as
    it opens)."""
    view = selectors.coup_view(coup=coup)
    shoe = selectors.restoration_shoe(coup=view.coup, state=view.state)
    kept = False
    if codes is None:
        # after a rejected restoration, the cards it took from the (still open) shoe are on the
        # table: entered again for the croupier, who deals only what the game still needs (and
        # removes them if they were the mistake); a closed shoe's record already counts them
        earlier = [s for s in view.steps if s.kind == CoupStep.Kind.CORRECTION]
        codes = list(earlier[-1].payload.get("cards", [])) if earlier and not shoe.closed else []
        kept = bool(codes)
    superseded = superseded_ids(view.steps)  # a typo's violation went with the typo
    violations = [
        # the colon is the sentence's: French puts a space before it
        gettext("{step}: {violation}").format(
            step=gettext(step.get_kind_display()).capitalize(),
            violation=wording.violation_text(
                Violation(Code(code), _side(game_kind(step))), view.state, gettext
            ),
        )
        for step in view.steps
        if step.pk not in superseded
        for code in step.violations
    ]
    preview = selectors.correction_preview(coup=coup, cards=codes)
    taken = len(preview.extra_cards) if isinstance(preview, Restored) else len(shoe.recorded)
    from_record = list(shoe.recorded[:taken])
    panel = RestorePanel(
        violations=violations,
        cards=display.card_faces(codes),
        codes=" ".join(codes),
        needs_cards=preview.needs_cards if isinstance(preview, NeedsCards) else 0,
        restored=preview if isinstance(preview, Restored) else None,
        played_player=display.card_faces(view.state.player_cards),
        played_banker=display.card_faces(view.state.banker_cards),
        played_outcome=gettext(wording.OUTCOME_LABELS.get((view.verdict or {}).get("outcome", ""), "")),
        played_totals=((view.verdict or {}).get("player_total"), (view.verdict or {}).get("banker_total")),
        shoe_closed=shoe.closed,
        recorded=display.card_faces(from_record),
        kept_from_rejected=kept,
    )
    if isinstance(preview, NeedsCards) and shoe.closed and not shoe.can_deal:
        panel.cards_gone = wording.say(
            wording.closed_shoe_cards_gone(view.coup.shoe.number, preview.needs_cards), gettext
        )
    if isinstance(preview, Restored):
        played_p, played_b = len(view.state.player_cards), len(view.state.banker_cards)
        panel.player_cards = display.card_faces(preview.player_cards, new_from=played_p)
        panel.banker_cards = display.card_faces(preview.banker_cards, new_from=played_b)
        panel.void_cards = display.card_faces(preview.void_cards)
        panel.unused = len(codes) - (len(preview.extra_cards) - len(from_record))
        panel.outcome = gettext(wording.OUTCOME_LABELS[preview.outcome.value])
    return panel


#: where each refusal is shown (tables/_errors.html "here"), by what the coup panel shows
_PANEL_CONTROLS = {
    "shoe": {"shoe"},
    "offer": {"bank", "bank-auction"},
    "declare": {"declare", "bank", "shoe-close", "share"},
    "restore": {"restore"},
}
_BODY_CONTROLS = {"session", "pause", "seat", "seating", "spectator", "coup"}


def _mode(floor: selectors.TableFloor, playing: bool, restoring: bool) -> str:
    """What the coup panel shows now: one thing at a time."""
    if floor.session is None:
        return "closed"
    if floor.pause is not None:
        return "paused"
    if playing:
        return "coup"
    if restoring:
        return "restore"
    if floor.shoe is None:
        return "shoe"
    if floor.rotation is not None:
        return "offer"
    return "declare" if floor.bank is not None else "none"


def _shown_in(where: str, mode: str) -> bool:
    if where in _BODY_CONTROLS:
        return True
    if mode == "coup":  # the step controls: a kind, a bettor's row, or a step's amendment
        return where in {k.value for k in Move} or where.startswith(("bet:", "banco:", "amend:"))
    return where in _PANEL_CONTROLS.get(mode, set())


def _context(
    request: AuthenticatedHttpRequest,
    table: Table,
    *,
    error: ScreenError | None = None,
    notice: str = "",
    confirm: ConfirmPanel | None = None,
    restore_codes: list[str] | None = None,
) -> dict[str, Any]:
    floor = selectors.table_floor(table=table)
    screen = restore = None
    coup = floor.coup
    if coup is not None and coup.state == Coup.State.OPEN:
        view = selectors.coup_view(coup=coup)
        screen = display.coup_screen(
            view,
            seats=selectors.coup_betting_order(coup=view.coup, seats=floor.seats),
            spectators=floor.spectators,
            names=selectors.coup_punter_names(coup=coup),
        )
    elif coup is not None:
        restore = _restore_panel(coup, restore_codes)
    # a pit boss's latest word on the coup being restored (its rejection), or else on the shoe's
    # last coup (its void): said on the screen until the table plays on (one query)
    voided = None
    if restore is not None and coup is not None:
        decided = selectors.coup_last_decision(coup=coup)
        if decided is not None and decided.kind == CoupStep.Kind.CORRECTION_REJECTED:
            restore.rejected_by = decided.actor.get_username()
            restore.rejected_reason = str(decided.payload.get("reason", ""))
    elif screen is None and floor.last_shoe is not None:
        decided = selectors.coup_last_decision(shoe=floor.last_shoe)
        if decided is not None and decided.kind == CoupStep.Kind.COUP_VOIDED:
            voided = decided
    mode = _mode(floor, screen is not None, restore is not None)
    if error is not None and not _shown_in(error.where, mode):
        error = ScreenError("coup", error.messages)  # its control is not on screen: show it on top
    if error is not None:  # a refusal in the screen's words (one built with said(): its values too)
        error = ScreenError(error.where, [wording.say(m, gettext) for m in error.messages])
    last = floor.last_result
    return {
        "table": table,
        "profile": table.profile,
        "floor": floor,
        "can_act": is_croupier_at(request.user, table),
        "can_approve": can_approve(request.user, table.casino_id),
        "mode": mode,
        "screen": screen,
        "restore": restore,
        "voided": voided,  # the shoe's last coup, voided: the CoupStep that says who and why
        "last": last,
        "last_player": display.card_faces(last.player_cards) if last else [],
        "last_banker": display.card_faces(last.banker_cards) if last else [],
        "last_outcome": gettext(wording.OUTCOME_LABELS.get(last.outcome, "")) if last else "",
        "free_seats": [n for n in range(1, table.seat_count + 1) if n not in {s.number for s in floor.seats}],
        "picker_ranks": display.PICKER_RANKS,
        "picker_suits": display.PICKER_SUITS,
        "error": error,
        "notice": notice,
        "confirm": confirm,
        "posted": request.POST if request.method == "POST" else {},
        # the chips of everyone at the table, beside his name (one query)
        "chips": chips_by_player(
            players=[s.player for s in floor.seats] + [s.player for s in floor.spectators]
        ),
        **_series_context(floor),
    }


def _render(
    request: AuthenticatedHttpRequest, table: Table, *, part: TablePart = "page", status: int = 200, **kw: Any
) -> HttpResponse:
    screen = wing_for(table.game).table_screen(
        request, table, part=part, status=status, error=kw.get("error"), notice=kw.get("notice", "")
    )
    if screen is not None:  # a game with a screen of its own (the older games')
        return screen
    if not request.htmx:
        part = "page"
    template = {
        "page": "tables/table.html",
        "body": "tables/_table_body.html",
        "panel": "tables/_coup_panel_response.html",
    }[part]
    return render(request, template, _context(request, table, **kw), status=status)


def _forbidden(request: AuthenticatedHttpRequest) -> HttpResponse:
    response = render(request, "403.html", status=403)
    if request.htmx:  # the whole page becomes the 403 page, not a corner of it
        response["HX-Retarget"] = "body"
        response["HX-Reswap"] = "innerHTML"
    return response


#: the refusals a screen shows in place (see the module docstring); any other exception is a bug
REFUSALS = (
    PermissionDenied,
    SeparationOfDuties,
    services.CoupConflict,
    ValidationError,
    RetryConflict,
    DatabaseBusy,
)


def _refused(
    request: AuthenticatedHttpRequest, table: Table, exc: Exception, *, part: TablePart, where: str, **kw: Any
) -> HttpResponse:
    """One of REFUSALS as the screen shows it, by its status in core.errors: the 403 page, the
    current state with a notice (409), or the messages next to the control that sent it (400,
    rendered with ``kw``)."""
    answer = error_answer(exc)
    assert answer is not None, exc
    if answer.status == 403 and not isinstance(exc, SeparationOfDuties):
        return _forbidden(request)
    # separation of duties: the sentence says who may, next to the control that was refused
    if isinstance(exc, RetryConflict | DatabaseBusy):
        return _render(request, table, part=part, status=answer.status, notice=BUSY_NOTICE)
    # a coup changed outside the application is no other tablet's doing: its own words, in place
    if answer.status == 409 and not isinstance(exc, CoupRecordsChanged):
        return _render(request, table, part=part, status=409, notice=CONFLICT_NOTICE)
    error = ScreenError(where, list(answer.messages))
    return _render(request, table, part=part, status=answer.status, error=error, **kw)


def _done(request: AuthenticatedHttpRequest, table: Table, part: TablePart) -> HttpResponse:
    if request.htmx:
        return _render(request, table, part=part)
    response = HttpResponseRedirect(reverse("floor:table", args=[table.pk]))
    response.status_code = 303  # See Other: the browser GETs the table page after its POST
    return response


_Row = TypeVar("_Row", bound=Model)


def _session(table: Table) -> TableSession:
    session = selectors.table_open_session(table=table)
    if session is None:
        raise ValidationError(gettext_noop("Open the table first."))
    return session


def _one(rows: QuerySet[_Row], pk: int | None, refusal: str) -> _Row:
    """Row ``pk`` among ``rows``, else refused with ``refusal``. No id (an empty form field): no
    row, as a lookup by pk=None would find."""
    found = rows.filter(pk=pk).first() if pk is not None else None
    if found is None:
        raise ValidationError(refusal)
    return found


def _seat(table: Table, seat_id: int | None) -> Seat:
    """The seat taken at the table now (a closed session's seats have all been left)."""
    seats = Seat.objects.filter(session__table=table, left_at__isnull=True)
    return _one(seats, seat_id, gettext_noop("That player is not seated at this table."))


def _spectator(table: Table, spectator_id: int | None) -> Spectator:
    """The spectator standing at the table now (a closed session's have all left)."""
    standing = Spectator.objects.filter(session__table=table, left_at__isnull=True)
    return _one(standing, spectator_id, gettext_noop("That spectator is not at this table."))


def _player(table: Table, player_id: int | None) -> Player:
    players = Player.objects.filter(casino_id=table.casino_id)
    return _one(players, player_id, gettext_noop("No such player in this casino."))


def _coup(table: Table, coup_id: int) -> Coup:
    return get_object_or_404(Coup, pk=coup_id, shoe__table=table)


# ---------------------------------------------------------------------------------- reading
@login_required
@require_GET
def mine(request: AuthenticatedHttpRequest) -> HttpResponse:
    """ "My table for this shift": straight to it when there is exactly one."""
    tables = selectors.croupier_tables(user=request.user)
    if len(tables) == 1 and not reads_everything(request.user):
        return redirect("floor:table", table_id=tables[0].pk)
    overview = list(selectors.tables_overview(user=request.user)) if reads_everything(request.user) else []
    return render(request, "tables/mine.html", {"tables": tables, "overview": overview})


@login_required
@require_GET
def table_page(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    table = _table(table_id)
    check_can_read_table(request.user, table)
    if (page := wing_for(table.game).table_page(request, table)) is not None:
        return page  # a game with a screen of its own
    part = request.GET.get("part", "page")
    return _render(request, table, part=part if part in ("panel", "body") else "page")


# ---------------------------------------------------------------------------------- writing
def table_action(
    where: str, part: TablePart, *, any_game: bool = False
) -> Callable[..., Callable[..., HttpResponse]]:
    """A POST at the table: croupier on shift only; refusals re-render the screen (see the module
    docstring); success re-renders ``part`` (htmx) or redirects to the table page. An action calls
    one service (one transaction), so running it again after a deadlock is safe. Only an action
    that does not depend on the game (``any_game``: the session, the seats) is taken at an older
    game's table; the others (shoes, banks, spectators) are refused there."""

    def decorator(action: Callable[..., None]) -> Callable[..., HttpResponse]:
        @login_required
        @require_POST
        @wraps(action)
        def view(request: AuthenticatedHttpRequest, table_id: int, **kwargs: Any) -> HttpResponse:
            table = _table(table_id)
            if not is_croupier_at(request.user, table):
                return _forbidden(request)
            try:
                if not any_game and table.game != CHEMIN_DE_FER:
                    raise ValidationError(
                        said(
                            "{table} deals {game}: this is a chemin de fer action.",
                            table=table.name,
                            game=Word(table.get_game_display(), "game"),
                        )
                    )
                run_retrying(lambda: action(request, table, **kwargs))
            except REFUSALS as exc:
                return _refused(request, table, exc, part=part, where=where)
            return _done(request, table, part)

        return view

    return decorator


@table_action("session", "body", any_game=True)
def session_open(request: AuthenticatedHttpRequest, table: Table) -> None:
    services.table_session_open(actor=request.user, table=table)


@table_action("session", "body", any_game=True)
def session_close(request: AuthenticatedHttpRequest, table: Table) -> None:
    reason = request.POST.get("reason", "").strip()[:200]
    services.table_session_close(actor=request.user, session=_session(table), reason=reason)


@table_action("pause", "body")
def pause(request: AuthenticatedHttpRequest, table: Table) -> None:
    services.session_pause_start(actor=request.user, session=_session(table))


@table_action("pause", "body")
def resume(request: AuthenticatedHttpRequest, table: Table) -> None:
    services.session_pause_end(actor=request.user, session=_session(table))


@table_action("seat", "body", any_game=True)
def seat_take(request: AuthenticatedHttpRequest, table: Table) -> None:
    form = forms.SeatForm(request.POST)
    _form_checked(form)
    session = _session(table)
    data = form.cleaned_data
    if data["player"]:
        player = _player(table, data["player"])
        services.seat_take(actor=request.user, session=session, player=player, number=data["number"])
    else:
        services.seat_take_new_player(
            actor=request.user, session=session, display_name=data["new_name"], number=data["number"]
        )


@table_action("seating", "body", any_game=True)
def seat_leave(request: AuthenticatedHttpRequest, table: Table, seat_id: int) -> None:
    services.seat_leave(actor=request.user, seat=_seat(table, seat_id))


@table_action("spectator", "body")
def spectator_join(request: AuthenticatedHttpRequest, table: Table) -> None:
    form = forms.SpectatorForm(request.POST)
    _form_checked(form)
    session = _session(table)
    data = form.cleaned_data
    if data["player"]:
        services.spectator_join(actor=request.user, session=session, player=_player(table, data["player"]))
    else:
        services.spectator_join_new_player(actor=request.user, session=session, display_name=data["new_name"])


@table_action("seating", "body")
def spectator_leave(request: AuthenticatedHttpRequest, table: Table, spectator_id: int) -> None:
    services.spectator_leave(actor=request.user, spectator=_spectator(table, spectator_id))


@table_action("shoe", "panel")
def shoe_start(request: AuthenticatedHttpRequest, table: Table) -> None:
    form = forms.ShoeForm(request.POST)
    _form_checked(form)
    data = form.cleaned_data
    services.shoe_start(
        actor=request.user,
        session=_session(table),
        decks=data["decks"],
        burnt_cards=form.burnt(),
        cut_by=_player(table, data["cut_by"]) if data["cut_by"] else None,
        cut_card_position=data["cut_card_position"],
        stop_card_position=data["stop_card_position"],
    )


@table_action("shoe-close", "panel")
def shoe_close(request: AuthenticatedHttpRequest, table: Table) -> None:
    shoe = selectors.table_now(table=table).shoe
    if shoe is None:
        raise ValidationError(gettext_noop("There is no shoe in play."))
    services.shoe_close(actor=request.user, shoe=shoe, reason=request.POST.get("reason", "").strip()[:200])


def _seat_chosen(
    request: AuthenticatedHttpRequest, table: Table
) -> tuple[dict[str, Any], TableSession, Seat]:
    """The seat choice posted (``SeatChoiceForm``, checked), the open session and the seat it names."""
    form = forms.SeatChoiceForm(request.POST)
    _form_checked(form)
    return form.cleaned_data, _session(table), _seat(table, form.cleaned_data["seat"])


@table_action("bank", "panel")
def bank_first(request: AuthenticatedHttpRequest, table: Table) -> None:
    data, session, seat = _seat_chosen(request, table)
    services.bank_first_assign(actor=request.user, session=session, seat=seat, amount=data["amount"])


@table_action("bank", "panel")
def bank_offer(request: AuthenticatedHttpRequest, table: Table) -> None:
    data, session, seat = _seat_chosen(request, table)
    accept = data["answer"] == "accept"
    services.bank_offer_answer(actor=request.user, session=session, seat=seat, accept=accept)


@table_action("bank-auction", "panel")
def bank_auction(request: AuthenticatedHttpRequest, table: Table) -> None:
    data, session, seat = _seat_chosen(request, table)
    if data["amount"] is None:
        raise ValidationError(gettext_noop("What bank does the player put up?"))
    services.bank_auction_award(actor=request.user, session=session, seat=seat, amount=data["amount"])


@table_action("bank", "panel")
def bank_new(request: AuthenticatedHttpRequest, table: Table) -> None:
    _data, session, seat = _seat_chosen(request, table)
    services.bank_new_from_minimum(actor=request.user, session=session, seat=seat)


@table_action("bank", "panel")
def bank_pass(request: AuthenticatedHttpRequest, table: Table) -> None:
    services.bank_pass(actor=request.user, session=_session(table))


@table_action("bank", "panel")
def bank_house(request: AuthenticatedHttpRequest, table: Table) -> None:
    services.bank_house_take(actor=request.user, session=_session(table))


@table_action("series", "body")
def series_begin(request: AuthenticatedHttpRequest, table: Table) -> None:
    services.series_begin(actor=request.user, session=_session(table))


@table_action("series", "body")
def series_finish(request: AuthenticatedHttpRequest, table: Table) -> None:
    reason = request.POST.get("reason", "")
    services.series_finish(actor=request.user, session=_session(table), reason=reason)


@table_action("share", "panel")
def bank_share(request: AuthenticatedHttpRequest, table: Table) -> None:
    form = forms.BankShareForm(request.POST)
    _form_checked(form)
    amount = form.cleaned_data["amount"]
    if amount is None:
        raise ValidationError(gettext_noop("How much of the bank does the spectator put up?"))
    session = _session(table)
    spectator = _spectator(table, form.cleaned_data["spectator"])
    services.bank_share_contribute(actor=request.user, session=session, spectator=spectator, amount=amount)


@table_action("share", "panel")
def bank_share_out(request: AuthenticatedHttpRequest, table: Table) -> None:
    form = forms.BankShareForm(request.POST)
    _form_checked(form)
    session = _session(table)
    spectator = _spectator(table, form.cleaned_data["spectator"])
    services.bank_share_withdraw(actor=request.user, session=session, spectator=spectator)


@table_action("declare", "panel")
def coup_start(request: AuthenticatedHttpRequest, table: Table) -> None:
    form = forms.BankForm(request.POST)
    _form_checked(form)
    services.coup_start(actor=request.user, session=_session(table), amount=form.cleaned_data["amount"])


# ---------------------------------------------------------------------------------- the coup
def coup_action(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A POST on one of the table's coups: croupier on shift only (the 403 page otherwise, before
    the coup is looked for); ``view`` gets the table and the coup (404 if not the table's)."""

    @login_required
    @require_POST
    @wraps(view)
    def wrapped(
        request: AuthenticatedHttpRequest, table_id: int, coup_id: int, **kwargs: Any
    ) -> HttpResponse:
        table = _table(table_id)
        if not is_croupier_at(request.user, table):
            return _forbidden(request)
        return view(request, table, _coup(table, coup_id), **kwargs)

    return wrapped


def _where(post: Any) -> str:
    """Which control sent a step: the bettor's row for a bet or banco, else the step's kind."""
    kind = post.get("kind", "")
    if kind in (Move.BET, Move.BANCO) and post.get("punter"):
        return f"{kind}:{post.get('punter')}"
    return kind or "coup"


@coup_action
def coup_step(request: AuthenticatedHttpRequest, table: Table, coup: Coup) -> HttpResponse:
    """One step of the coup, checked by the engine as it is entered."""
    form = forms.StepForm(request.POST)
    try:
        _form_checked(form)
        step = form.step_request()
        run_retrying(
            lambda: services.coup_step_record(
                actor=request.user,
                coup=coup,
                request=step,
                expected_step=form.cleaned_data["expected_step"],
                confirm=form.cleaned_data["confirm"],
            )
        )
    except services.ConfirmationRequired as exc:
        state = selectors.coup_view(coup=coup).state
        return _confirm_asked(
            request,
            table,
            violation=wording.violation_text(exc.violation, state, gettext),
            step_label=gettext(wording.BUTTON_LABELS.get(step.kind, step.kind.value)),
        )
    except REFUSALS as exc:
        return _refused(request, table, exc, part="panel", where=_where(request.POST))
    return _done(request, table, "panel")


def _confirm_asked(
    request: AuthenticatedHttpRequest, table: Table, *, violation: str, step_label: str, action: str = ""
) -> HttpResponse:
    """The coup panel asking the croupier to confirm a step against the rules: the POST as sent,
    to send again with ``confirm=1`` (to ``action``, else the step's URL)."""
    resend = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", "confirm")
        for value in values
    ]
    confirm = ConfirmPanel(violation, step_label, fields=[*resend, ("confirm", "1")], action=action)
    return _render(request, table, part="panel", confirm=confirm)


@coup_action
def coup_amend(request: AuthenticatedHttpRequest, table: Table, coup: Coup, index: int) -> HttpResponse:
    """Amend a mistyped bet or card before the reveal (a new step supersedes it; reason required)."""
    form = forms.AmendForm(request.POST)
    try:
        _form_checked(form)
        amendment = form.amendment()
        run_retrying(
            lambda: services.step_amend(
                actor=request.user,
                coup=coup,
                index=index,
                amendment=amendment,
                reason=form.cleaned_data["reason"],
                expected_step=form.cleaned_data["expected_step"],
                confirm=form.cleaned_data["confirm"],
            )
        )
    except AmendConfirmationRequired as exc:
        return _confirm_asked(
            request,
            table,
            violation=wording.violation_text(exc.violation, exc.state, gettext),  # the game as amended
            step_label=gettext("amend step {index}").format(index=index),
            action=reverse("floor:coup_amend", args=[table.pk, coup.pk, index]),
        )
    except REFUSALS as exc:
        return _refused(request, table, exc, part="panel", where=_amend_where(coup, index))
    return _done(request, table, "panel")


def _amend_where(coup: Coup, index: int) -> str:
    """Where an amendment's refusal is shown: next to step ``index``'s Amend, or on top of the
    panel when the panel offers none there (no such step, a step that is no bet or card, one
    already amended: a stale screen or a hand-made request), where it would be shown nowhere."""
    rows = list(coup.steps.all())
    target = next((r for r in rows if r.index == index), None)
    if target is None or target.pk in superseded_ids(rows) or game_kind(target) not in AMENDABLE_KINDS:
        return "coup"
    return f"amend:{index}"


def _expected_step(post: Any) -> int | None:
    """The coup's step count the screen showed (``expected_step``), for the stale-screen check;
    None when the form sent none. Anything but ASCII digits (``abc``, ``-1``, ``²``) is refused: a
    screen never sends it, and skipping the check for it would let a stale screen through."""
    value = str(post.get("expected_step", ""))
    if value == "":
        return None
    count = form_count(value)
    if count is None:
        raise ValidationError(STEP_UNKNOWN)
    return count


@coup_action
def coup_withdraw(request: AuthenticatedHttpRequest, table: Table, coup: Coup) -> HttpResponse:
    """Nobody bet on the declared bank (RULES.md §7): withdraw it without a deal."""
    try:
        expected = _expected_step(request.POST)
        result = run_retrying(
            lambda: services.coup_bank_withdraw(actor=request.user, coup=coup, expected_step=expected)
        )
    except REFUSALS as exc:
        return _refused(request, table, exc, part="panel", where="withdraw")
    notice = _withdrawn_notice(result.coup)  # what happened, said once: no deal, who has the bank
    if request.htmx:
        return _render(request, table, part="panel", notice=notice)
    messages.success(request, notice)
    return _done(request, table, "panel")


def _withdrawn_notice(coup: Coup) -> str:
    """What the croupier is told once a bank is withdrawn: its amount, that nothing was dealt, and
    who holds the bank now (the banker keeps it, at least as declared; or it has passed)."""
    turn = BankTurn.objects.select_related("player").get(pk=coup.bank_turn_id)
    if turn.ended_at is None:
        return gettext(WITHDRAWN_KEPT).format(
            bank=chips(coup.bank), banker=turn.player.display_name, minimum=chips(turn.required_minimum)
        )
    return gettext(WITHDRAWN_PASSES).format(bank=chips(coup.bank))


@coup_action
def coup_restore(request: AuthenticatedHttpRequest, table: Table, coup: Coup) -> HttpResponse:
    """Restore a flagged coup: add the cards dealt to complete it, preview, submit."""
    form = forms.RestoreForm(request.POST)
    codes: list[str] = []
    try:
        _form_checked(form)
        codes = cards_parse(form.card_list())
        action = form.cleaned_data["action"] or "preview"
        if action == "add":
            typed = form.card_text()
            if not typed:
                raise ValidationError(gettext_noop("Tap the rank then the suit, or type the card."))
            codes = [*codes, *cards_parse([typed], field="card")]
        elif action == "undo":
            codes = codes[:-1]
        elif action == "submit":
            run_retrying(lambda: services.correction_submit(actor=request.user, coup=coup, cards=codes))
            return _done(request, table, "panel")
    except REFUSALS as exc:
        return _refused(request, table, exc, part="panel", where="restore", restore_codes=codes)
    return _render(request, table, part="panel", restore_codes=codes)

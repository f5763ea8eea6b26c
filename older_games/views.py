"""The croupier's screen for the older games (Macao, Landsknecht, old baccarat): one screen for all
three, driven by the shared reads (older_games.selectors) and written through the shared services
(older_games.services). Nothing here knows a game's rules: the controls are the coup's
``next_steps`` laid out (a card picker for a step that takes a card, an amount for a stake or a
cover, a button per choice), and what a control sends is the step's JSON.

The session and the seats are chemin de fer's own views (tables.views.croupier: they do not depend
on the game); their answers come back here because the croupier's renderer sends an older game's
table to :func:`game_render`. Refusals are shown as the croupier's screens show them (400 with the
message, 409 with the current state, the 403 page), nothing written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_GET, require_POST

from core.cards import RANKS, SUITS
from core.form_numbers import form_count
from core.sentence import Word, said
from core.transient import run_retrying
from core.types import AuthenticatedHttpRequest
from ledger.selectors import chips_by_player
from older_games import services as svc
from older_games.api.inputs import GAME_STEP_FIELDS
from older_games.selectors import GameCoupView, fund_return_shares, game_coup_view, game_table_view
from tables import selectors, wording
from tables.engine_bridge import cards_parse
from tables.models import OLDER_GAMES, GameCoup, Player, Seat, Table, VoidRequest
from tables.permissions import can_approve, check_can_read_table, is_croupier_at, recorded_a_step_of
from tables.views import croupier
from tables.views.display import card_face
from tables.wording import RANK_LABELS, RECORDER_VOID_REFUSAL, SUIT_SYMBOLS, say, void_request_detail

# English here, translated when shown (docs/i18n.md): the words of the older games' screens, shared
# with the pit boss's pages (tables.wording)
GAME_TITLES = wording.GAME_TITLES
KIND_LABELS = wording.GAME_STEP_LABELS
CHOICE_LABELS = wording.GAME_CHOICE_LABELS
OUTCOME_LABELS = wording.GAME_OUTCOME_LABELS
HAND_LABELS = wording.HAND_LABELS
PARTY_LABELS = wording.PARTY_LABELS
#: words shown as the services say them, translated on the screen: why no coup can start yet, a
#: coup's state
SHOWN_AS_SAID = (
    gettext_noop("The game needs a banker and at least one other seated player."),
    gettext_noop("Open"),
    gettext_noop("Settled"),
    gettext_noop("Void"),
)
#: the controls whose refusals the panel shows next to them; any other shows on top
SHOWN_HERE = {"session", "seat", "seating", "game", "void", "undo"}


@dataclass
class Control:
    """One next step as the screen lays it out: a card picker, an amount, choices or a button."""

    kind: str
    label: str
    player: str = ""
    player_name: str = ""
    widget: str = "button"  # "card", "amount", "choice" or "button"
    testid: str = ""
    where: str = ""  # what a refusal of this control's step names (shown beneath it)
    grid: list[tuple[str, list[tuple[str, str, bool, bool]]]] = field(default_factory=list)
    amounts: list[int] = field(default_factory=list)
    min_amount: int | None = None
    max_amount: int | None = None
    choices: list[tuple[str, str]] = field(default_factory=list)


def _label(words: dict[str, str], word: str) -> str:
    return gettext(words[word]) if word in words else word


def step_where(kind: str, player: str) -> str:
    """Where a step's refusal is shown: beneath the control of that kind for that player."""
    return f"step:{kind}:{player}"


def _card_grid(cards: set[str]) -> list[tuple[str, list[tuple[str, str, bool, bool]]]]:
    """Rank by rank, the four suits: (code, symbol, red, enabled)."""
    return [
        (RANK_LABELS.get(r, r), [(r + s, SUIT_SYMBOLS[s], s in "HD", r + s in cards) for s in SUITS])
        for r in RANKS
    ]


def controls(view: GameCoupView) -> list[Control]:
    out = []
    for step in view.next_steps:
        kind = step["kind"]
        player = step.get("player") or ""
        control = Control(
            kind=kind,
            label=_label(KIND_LABELS, kind),
            player=player,
            player_name=view.name(player) if player else "",
            testid=f"step-{kind}" + (f"-{player}" if player else ""),
            where=step_where(kind, player),
        )
        if "cards" in step:
            control.widget, control.grid = "card", _card_grid(set(step["cards"]))
        elif "amounts" in step:
            control.widget = "amount"
            control.amounts = list(step["amounts"])
            control.min_amount, control.max_amount = step.get("min_amount"), step.get("max_amount")
        elif "choices" in step:
            control.widget = "choice"
            control.choices = [(c, _label(CHOICE_LABELS, c)) for c in step["choices"]]
        out.append(control)
    return out


def _step_text(view: GameCoupView, payload: dict[str, Any]) -> str:
    """A recorded step in a line: its kind, its player, its card, amount or decision."""
    parts = [_label(KIND_LABELS, str(payload.get("kind", "")))]
    if payload.get("player"):
        parts.append(view.name(str(payload["player"])))
    if payload.get("card"):
        parts.append(card_face(str(payload["card"])).label)
    if payload.get("amount") is not None:
        parts.append(str(payload["amount"]))
    if payload.get("decision"):
        parts.append(_label(CHOICE_LABELS, str(payload["decision"])))
    if payload.get("kind") == "undo" and isinstance(payload.get("of"), dict):
        parts.append(_step_text(view, payload["of"]))  # what was taken back
    if payload.get("reason"):
        parts.append(str(payload["reason"]))
    return " · ".join(parts)


def _coup_context(view: GameCoupView) -> dict[str, Any]:
    def name(key: str) -> str:
        labels = HAND_LABELS if key in HAND_LABELS else PARTY_LABELS
        return _label(labels, key) if key in labels else view.name(key)

    return {
        "coup": view.coup,
        "view": view,
        "banker_name": view.name(view.banker),
        "punter_names": [view.name(k) for k in view.punters],
        # each hand: its name, its cards, whether it is the banker's, and what decides for it as the
        # engine counts it (points, over 9, or Landsknecht's rank, its label as the cards show it)
        "hands": [
            (
                name(k),
                [card_face(c) for c in cards],
                k == view.banker,
                view.scores.get(k),
                RANK_LABELS.get(view.scores[k].rank or "", view.scores[k].rank) if k in view.scores else "",
            )
            for k, cards in view.hands.items()
        ],
        "cards": [card_face(c) for c in view.cards],
        "exposure": [(name(k), v) for k, v in sorted(view.exposure.items(), key=lambda kv: name(kv[0]))],
        "history": [
            {
                "index": s["index"],
                "text": _step_text(view, s["payload"]),
                "actor": s["actor"],
                "undone": s["undone"],
            }
            for s in view.steps
        ],
        "controls": controls(view),
        "leaving": {svc.key_player_id(k) for k in view.leaving},
        "seat_form_open": view.admits_newcomers,
    }


def _recent(coups: list[GameCoup]) -> list[dict[str, Any]]:
    return [
        {
            "number": c.number,
            "banker": c.banker.display_name,
            "state": c.state,
            "state_label": c.get_state_display(),
            "outcome": _label(OUTCOME_LABELS, c.outcome) if c.outcome else "",
            "void_reason": c.void_reason,
        }
        for c in coups
    ]


def _context(
    request: AuthenticatedHttpRequest,
    table: Table,
    *,
    error: croupier.ScreenError | None = None,
    notice: str = "",
) -> dict[str, Any]:
    # every step of a coup renders this: only what the older games' screen shows is read (not
    # chemin de fer's shoes, banks and alarms), and the table's reading between coups only then
    session = selectors.table_open_session(table=table)
    seats = list(
        Seat.objects.filter(session=session, left_at__isnull=True).select_related("player").order_by("number")
        if session is not None
        else []
    )
    can_act = is_croupier_at(request.user, table)
    if error is not None and error.where not in SHOWN_HERE and not error.where.startswith("step:"):
        error = croupier.ScreenError("game", error.messages)  # its control is not on screen: on top
    context: dict[str, Any] = {
        "table": table,
        "game_title": _label(GAME_TITLES, svc.table_play(table).title),
        "session": session,
        "seats": seats,
        "can_act": can_act,
        "can_void": can_act or can_approve(request.user, table.casino_id),
        "error": error,
        "notice": notice,
        "chips": chips_by_player(players=[s.player for s in seats]),
        "free_seats": [n for n in range(1, table.seat_count + 1) if n not in {s.number for s in seats}],
        "fund": svc.fund_balance(table) if table.game == Table.Game.LANDSKNECHT else None,
    }
    if session is None:
        return context
    if context["fund"]:
        # what the close will give back of the fund, said on the close form before it is pressed
        # each payer by his name, those who paid and left the table too (read by id)
        shares = fund_return_shares(session, balance=context["fund"])
        by_key = {svc.player_key(s.player): s.player.display_name for s in seats}
        gone = [pid for k, _a in shares if k not in by_key and (pid := svc.key_player_id(k)) is not None]
        if gone:
            for player in Player.objects.filter(casino=table.casino_id, pk__in=gone):
                by_key[svc.player_key(player)] = player.display_name
        context["fund_return"] = [(by_key.get(k) or k, amount) for k, amount in shares]
    open_coup = GameCoup.objects.filter(table=table, state=GameCoup.State.OPEN).first()
    if open_coup is not None:
        context.update(_coup_context(game_coup_view(open_coup)))
        if context["can_void"] and recorded_a_step_of(request.user, open_coup):
            # separation of duties: who recorded a step does not void the coup; the screen says who does
            context["can_void"], context["void_by_another"] = False, RECORDER_VOID_REFUSAL
        if context["seat_form_open"] and can_act:  # a newcomer may still sit down and join
            context["players_available"] = list(selectors.players_available(table=table))
        shown = {c.where for c in context["controls"]}
        if error is not None and error.where.startswith("step:") and error.where not in shown:
            context["error"] = croupier.ScreenError("game", error.messages)  # not on screen: on top
        return context
    tview = game_table_view(session)
    last = tview.recent[0] if tview.recent else None
    if last is not None and last.state == GameCoup.State.SETTLED:
        # what the last coup paid each party, so the croupier can call it out before the next
        settled = game_coup_view(last)
        context["last_net"] = [
            (_label(PARTY_LABELS, k) if k in PARTY_LABELS else settled.name(k), v)
            for k, v in sorted(settled.net.items(), key=lambda kv: -kv[1])
        ]
        context["last_number"] = last.number
    context.update(
        tview=tview,
        recent=_recent(tview.recent),
        proposed_banker=tview.names.get(tview.proposed_banker or "", ""),
        proposed_punters=[tview.names.get(k, k) for k in tview.proposed_punters],
        players_available=list(selectors.players_available(table=table)),
        # Macao's first bank by drawn cards, before the session's first coup (a table by lot)
        first_bank_draw=can_act and svc.first_bank_draw_open(session),
    )
    return context


def game_render(
    request: AuthenticatedHttpRequest,
    table: Table,
    *,
    part: str = "page",
    status: int = 200,
    error: croupier.ScreenError | None = None,
    notice: str = "",
) -> HttpResponse:
    """The older game's screen: the whole page, or (htmx) its body, which every POST swaps."""
    template = "older_games/_table_body.html" if request.htmx and part != "page" else "older_games/table.html"
    context = _context(request, table, error=error, notice=notice)
    shown = context.get("error")
    if shown is not None:  # in the screen's words; a player the engine names by key, by his name
        seen = context.get("view") or context.get("tview")
        names = {**(seen.names if seen is not None else {}), **{k: Word(k, "party") for k in PARTY_LABELS}}
        context["error"] = croupier.ScreenError(
            shown.where, [wording.say(m, gettext, names) for m in shown.messages]
        )
    return render(request, template, context, status=status)


# ---------------------------------------------------------------------------------- reading
@login_required
@require_GET
def game_page(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    table = croupier._table(table_id)
    check_can_read_table(request.user, table)
    if table.game not in OLDER_GAMES:
        return redirect("floor:table", table_id=table.pk)
    return game_render(request, table, part="body" if request.GET.get("part") == "body" else "page")


# ---------------------------------------------------------------------------------- writing
def _where(request: AuthenticatedHttpRequest, void: bool) -> str:
    """The control a POST came from: the void form, the undo button, a step's (its kind and
    player), or the panel's top."""
    if void:
        return "void"
    if request.POST.get("undo"):
        return "undo"
    kind = str(request.POST.get("kind", ""))
    return step_where(kind, str(request.POST.get("player", ""))) if kind else "game"


def game_action(*, void: bool = False) -> Callable[..., Callable[..., HttpResponse]]:
    """A POST at an older game's table: the croupier on shift (a pit boss too, to void); a refusal
    re-renders the screen with its message (400), the current state (409) or the 403 page; success
    re-renders the body (htmx) or redirects to the screen. An action may return a notice (what
    happened is not what was asked: a void waiting for a second pit boss), shown on the body or,
    after the redirect, as a message."""

    def decorator(action: Callable[..., str | None]) -> Callable[..., HttpResponse]:
        @login_required
        @require_POST
        @wraps(action)
        def view(request: AuthenticatedHttpRequest, table_id: int, **kwargs: Any) -> HttpResponse:
            table = croupier._table(table_id)
            allowed = is_croupier_at(request.user, table) or (
                void and can_approve(request.user, table.casino_id)
            )
            if not allowed:
                return croupier._forbidden(request)
            try:
                if table.game not in OLDER_GAMES:
                    raise ValidationError(
                        said("{table} deals chemin de fer: play it on its own screen.", table=table.name)
                    )
                notice = run_retrying(lambda: action(request, table, **kwargs)) or ""
            except croupier.REFUSALS as exc:
                return croupier._refused(request, table, exc, part="body", where=_where(request, void))
            if request.htmx:
                return game_render(request, table, part="body", notice=notice)
            if notice:
                messages.info(request, notice)
            response = HttpResponseRedirect(reverse("floor:game", args=[table.pk]))
            response.status_code = 303
            return response

        return view

    return decorator


def _expected_steps(post: Any) -> int:
    """The coup's step count the screen showed: a stale tablet's step is refused (409)."""
    value = form_count(str(post.get("expected_steps", "")).strip())
    if value is None:
        raise ValidationError(gettext_noop("The screen did not say which step it showed: reload it."))
    return value


def _open_coup(table: Table, coup_id: int) -> GameCoup:
    coup = GameCoup.objects.filter(pk=coup_id, table=table).first()
    if coup is None:
        raise ValidationError(gettext_noop("No such coup at this table."))
    return coup


def step_payload(post: Any) -> dict[str, Any]:
    """The step's JSON from the control's form: its kind, and the player, card, amount or decision
    it carries (a quick-amount button or a card button wins over what was typed)."""
    kind = str(post.get("kind", "")).strip()
    if not kind:
        raise ValidationError(gettext_noop("Which step? Use one of the buttons."))
    payload: dict[str, Any] = {"kind": kind}
    if post.get("player"):
        player = str(post["player"])
        if len(player) > _PLAYER_KEY_MAX:  # a player's key (player-12), as the API takes it
            raise ValidationError(gettext_noop("No such player in this casino."))
        payload["player"] = player
    card = str(post.get("card") or post.get("typed") or "").strip()
    if card:
        payload["card"] = cards_parse([card], field="card")[0]
    elif "typed" in post:  # a card form sent with no card
        raise ValidationError(gettext_noop("Tap a card, or type its code (e.g. 9H)."))
    amount = str(post.get("quick_amount") or post.get("amount") or "").strip()
    if amount:
        chips = form_count(amount)
        if chips is None:
            raise ValidationError(gettext_noop("The amount is a whole number of chips."))
        payload["amount"] = chips
    elif "amount" in post:
        raise ValidationError(gettext_noop("How many chips?"))
    if post.get("decision"):
        decision = str(post["decision"])
        if decision not in _DECISIONS:
            raise ValidationError(gettext_noop("Which step? Use one of the buttons."))
        payload["decision"] = decision
    return payload


#: what the API takes for these fields (older_games.api.inputs.GameStepIn): the screen's step is
#: held to the same shape, so nothing a form adds is stored with the step and its audit event
_PLAYER_KEY_MAX = 40
_DECISIONS = ("take", "again")


def step_fields_refusal(game: str, payload: dict[str, Any]) -> None:
    """Refuse a step carrying a field its kind does not take in ``game`` (GAME_STEP_FIELDS, the
    API's rule): a field the game would ignore is never stored with the step. But ``player``: the
    screen names the seat a control belongs to (a Macao card dealt to a player), a key of at most
    40 characters (:func:`step_payload`), which the step line shows."""
    allowed = GAME_STEP_FIELDS.get(game, {}).get(payload["kind"])
    taken = {"kind", "player", *(allowed or ())}
    if allowed is not None and any(name not in taken for name in payload):
        raise ValidationError(gettext_noop("Which step? Use one of the buttons."))


def drawn_cards(post: Any, seats: list[Seat]) -> dict[Player, str]:
    """The cards typed on the first-bank draw form, one field a seated player (``drawn-<id>``),
    read as every typed card is (``10d`` is the ten of diamonds); a field left empty: that player
    did not draw."""
    out: dict[Player, str] = {}
    for seat in seats:
        typed = str(post.get(f"drawn-{seat.player_id}", "")).strip()
        if typed:
            out[seat.player] = cards_parse([typed], field="card")[0]
    return out


@game_action()
def game_start(request: AuthenticatedHttpRequest, table: Table) -> None:
    session = croupier._session(table)
    if request.POST.get("draw"):  # Macao: the lowest card drawn banks first (RULES.md §11)
        seats = list(Seat.objects.filter(session=session, left_at__isnull=True).select_related("player"))
        svc.game_coup_start(actor=request.user, session=session, drawn=drawn_cards(request.POST, seats))
        return
    banker_id = str(request.POST.get("banker", "")).strip()
    banker = None
    if banker_id:  # the croupier chose the banker among the seated players, else as proposed
        banker_pk = form_count(banker_id)
        if banker_pk is None:
            raise ValidationError(gettext_noop("No such player in this casino."))
        banker = croupier._player(table, banker_pk)
    svc.game_coup_start(actor=request.user, session=session, banker=banker)


@game_action()
def game_step(request: AuthenticatedHttpRequest, table: Table, coup_id: int) -> None:
    expected = _expected_steps(request.POST)
    coup = _open_coup(table, coup_id)
    payload = step_payload(request.POST)
    step_fields_refusal(coup.game, payload)
    svc.game_step_record(actor=request.user, coup=coup, payload=payload, expected_steps=expected)


@game_action()
def game_undo(request: AuthenticatedHttpRequest, table: Table, coup_id: int) -> None:
    expected = _expected_steps(request.POST)
    coup = _open_coup(table, coup_id)
    svc.game_step_undo(actor=request.user, coup=coup, expected_steps=expected)


@game_action(void=True)
def game_void(request: AuthenticatedHttpRequest, table: Table, coup_id: int) -> str | None:
    expected = _expected_steps(request.POST)
    coup = _open_coup(table, coup_id)
    reason = str(request.POST.get("reason", "")).strip()[:300]
    voided = svc.game_coup_void(actor=request.user, coup=coup, reason=reason, expected_steps=expected)
    if isinstance(voided, VoidRequest):  # above the casino's limit: a second pit boss decides
        return say(void_request_detail(voided), gettext)
    return None


@game_action()
def game_fund(request: AuthenticatedHttpRequest, table: Table) -> None:
    svc.game_fund_collect(actor=request.user, session=croupier._session(table))

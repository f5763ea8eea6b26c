"""The REST API's answers as plain data: the ``*_data`` functions build each response from the
models and the selectors' read models (docs/api.md describes them; the serializers of
tables.api.outputs document them in the schema).

Plain dicts rather than serializers on the way out: running every step's answer through DRF's
serializers would cost more than the rest of the API's share of a step (a test checks that each
answer renders identically through its serializer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypedDict

from chemin_de_fer.engine.coup import NeedsCards, Restored, Violation
from chemin_de_fer.engine.interchange import restored_to_dict
from tables import services
from tables.api.outputs import EV_PLACES
from tables.engine_bridge import game_rows
from tables.models import (
    Coup,
    CoupStep,
    Player,
    Table,
    VoidRequest,
)
from tables.selectors import (
    CoupView,
    coup_view,
    table_now,
)
from tables.wording import void_request_detail

if TYPE_CHECKING:  # django-stubs-ext is a dev requirement
    from django_stubs_ext import WithAnnotations


def player_data(player: Player) -> dict[str, Any]:
    return {
        "id": player.pk,
        "display_name": player.display_name,
        "membership_number": player.membership_number,
    }


def table_summary_data(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "game": table.game,
        "casino": table.casino.name,
        "profile": table.profile.slug,
        "seat_count": table.seat_count,
        "state": table.state,
        "first_banker_method": table.first_banker_method,
        "house_bank": table.house_bank,
        "passed_bank_auction": table.passed_bank_auction,
    }


def table_data(table: Table) -> dict[str, Any]:
    """The table as a client needs it now (``selectors.table_now``): session, people, shoe, bank,
    the coup in play."""
    data: dict[str, Any] = {
        **table_summary_data(table),
        "game_settings": table.game_settings,
        "session": None,
        "seats": [],
        "spectators": [],
        "shoe": None,
        "bank": None,
        "bank_rotation": None,
        "current_coup": None,
        "last_coup": None,
    }
    now = table_now(table=table)
    session = now.session
    if session is None:
        return data
    pause = now.pause
    data["session"] = {
        "id": session.pk,
        "opened_at": session.opened_at,
        "opened_by": session.opened_by.get_username(),
        "paused": pause is not None,
        "paused_since": pause.started_at if pause else None,
    }
    data["seats"] = [
        {
            "id": seat.pk,
            "number": seat.number,
            "player": player_data(seat.player),
            "joined_at": seat.joined_at,
        }
        for seat in now.seats
    ]
    data["spectators"] = [
        {"id": spec.pk, "player": player_data(spec.player), "joined_at": spec.joined_at}
        for spec in now.spectators
    ]
    shoe = now.shoe
    if shoe is not None:
        data["shoe"] = {
            "id": shoe.pk,
            "number": shoe.number,
            "decks": shoe.decks,
            "cards_dealt": now.cards_dealt,
            "cards_left": now.cards_left,
            "stop_card_position": shoe.stop_card_position,
            "stop_reached": shoe.stop_reached,
            "alarm": shoe.alarm,
            "alarms": [
                {
                    "kind": a.kind,
                    "card": a.card,
                    "detail": a.detail,
                    "coup": a.coup_id,
                    "raised_at": a.raised_at,
                }
                # the open shoe's, oldest first
                for a in reversed(now.alarms)
                if a.shoe_id == shoe.pk
            ],
        }
    turn = now.bank
    if turn is not None:
        data["bank"] = {
            "id": turn.pk,
            "player": player_data(turn.player),
            "seat": turn.seat.number if turn.seat is not None else None,
            "house": turn.seat is None,
            "started_how": turn.started_how,
            "started_at": turn.started_at,
            "required_minimum": turn.required_minimum,
        }
    else:
        rotation = now.rotation
        assert rotation is not None
        data["bank_rotation"] = {
            "how": rotation.how,
            "required_minimum": rotation.required_minimum,
            "maximum": rotation.terms.maximum,
            "auction_bank": rotation.auction.minimum if rotation.auction is not None else None,
            "order": [seat.number for seat in rotation.order],
            "candidates": [seat.number for seat in rotation.candidates],
            "offer_to": rotation.offer_to.number if rotation.offer_to else None,
        }
    data["current_coup"] = now.coup.pk if now.coup else None
    data["last_coup"] = now.last_coup.pk if now.last_coup else None
    return data


def violation_data(v: Violation) -> dict[str, str]:
    return {"code": v.code.value, "side": v.side, "detail": v.detail}


def decimal_string(value: Fraction, places: int = EV_PLACES) -> str:
    """An exact fraction as a decimal string, rounded half-even at ``places`` (no float on the way)."""
    scaled = round(value * 10**places)  # Fraction.__round__: exact, half-even
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _linked_index(
    linked_id: int | None, linked: Callable[[], CoupStep | None], index_of: Mapping[int, int] | None
) -> int | None:
    """The index of the step another one points at (what it corrects, what it supersedes): from
    ``index_of`` when the caller has the coup's steps, else read from the linked step; None for none."""
    if linked_id is None:
        return None
    index = (index_of or {}).get(linked_id)
    if index is None:
        step = linked()
        assert step is not None  # its id is set
        index = step.index
    return index


def step_data(
    step: CoupStep,
    index_of: Mapping[int, int] | None = None,
    superseded_by: Mapping[int, int] | None = None,
) -> dict[str, Any]:
    """One step; ``index_of`` (step id → index) and ``superseded_by`` (step id → the index of the
    amendment that replaced it) when the caller has the coup's steps, else they are looked up."""
    corrects = _linked_index(step.corrects_id, lambda: step.corrects, index_of)
    supersedes = _linked_index(step.supersedes_id, lambda: step.supersedes, index_of)
    if superseded_by is not None:
        replaced = superseded_by.get(step.pk)
    else:
        replaced = CoupStep.objects.filter(supersedes=step).values_list("index", flat=True).first()
    return {
        "index": step.index,
        "kind": step.kind,
        "payload": step.payload,
        "violations": list(step.violations),
        "corrects": corrects,
        "supersedes": supersedes,
        "superseded_by": replaced,
        "actor": step.actor.get_username(),
        "created_at": step.created_at,
    }


def restoration_data(restoration: Restored | NeedsCards | None) -> dict[str, Any] | None:
    return restored_to_dict(restoration)


def coup_data(view: CoupView) -> dict[str, Any]:
    coup, state = view.coup, view.state
    index_of = {s.pk: s.index for s in view.steps}
    superseded_by = {s.supersedes_id: s.index for s in view.steps if s.supersedes_id is not None}
    standing = game_rows(view.steps)  # the engine's step n is the n-th of these
    advice = view.advice
    return {
        "id": coup.pk,
        "table": coup.shoe.table_id,
        "shoe": coup.shoe_id,
        "shoe_number": coup.shoe.number,
        "number": coup.number,
        "state": coup.state,
        "phase": state.phase.value,
        "step_count": coup.step_count,
        "bank": coup.bank,
        "banker": coup.banker_id,
        "banker_seat": coup.bank_turn.seat.number if coup.bank_turn.seat is not None else None,
        "house_bank": coup.bank_turn.seat is None,
        "first_coup_of_bank": coup.first_coup_of_bank,
        "flagged": coup.flagged,
        "alarm": coup.alarm,
        "covered": state.covered,
        "uncovered": state.uncovered,
        "banco": state.banco,
        "bets": [{"punter": b.punter, "amount": b.amount, "spectator": b.spectator} for b in state.bets],
        "cards": {"player": list(state.player_cards), "banker": list(state.banker_cards)},
        "actions": {
            "player": state.player_action.value if state.player_action else None,
            "banker": state.banker_action.value if state.banker_action else None,
        },
        "requirement": (
            {"side": view.requirement[0], "requirement": view.requirement[1].value}
            if view.requirement
            else None
        ),
        "next_steps": [
            {"kind": n.kind.value, "violation": violation_data(n.violation) if n.violation else None}
            for n in view.next_steps
        ],
        "advice": (
            {
                "chooser": advice.chooser,
                "choice": advice.choice.value,
                "ev_draw": decimal_string(advice.ev_draw),
                "ev_stand": decimal_string(advice.ev_stand),
                "basis": advice.basis,
                "assumption": advice.assumption,
            }
            if advice
            else None
        ),
        "violations": [{"step": standing[n - 1].index, **violation_data(v)} for n, v in state.violations],
        "verdict": view.verdict,
        "restoration": restoration_data(view.restoration),
        "correction": step_data(view.correction, index_of, superseded_by) if view.correction else None,
        "steps": [step_data(s, index_of, superseded_by) for s in view.steps],
        "created_at": coup.created_at,
        "settled_at": coup.settled_at,
    }


def step_result_data(result: services.StepResult) -> dict[str, Any]:
    # the step just recorded: nothing has superseded it yet
    view = coup_view(coup=result.coup, steps=result.steps, state=result.state)
    return {"step": step_data(result.step, superseded_by={}), "coup": coup_data(view)}


class PendingCorrections(TypedDict):
    """What the corrections queue prefetches on each of its coups (tables.api.views.corrections)."""

    corrections_submitted: list[CoupStep]  # latest first


def pending_correction_data(coup: WithAnnotations[Coup, PendingCorrections]) -> dict[str, Any]:
    """A coup of the corrections queue (``coup.corrections_submitted``: its corrections, latest first)."""
    return {
        "coup": coup.pk,
        "table": coup.shoe.table_id,
        "table_name": coup.shoe.table.name,
        "shoe_number": coup.shoe.number,
        "coup_number": coup.number,
        "bank": coup.bank,
        "created_at": coup.created_at,
        "correction": (  # a correction is never superseded (only game steps are amended)
            step_data(coup.corrections_submitted[0], superseded_by={}) if coup.corrections_submitted else None
        ),
    }


def void_request_data(request: VoidRequest) -> dict[str, Any]:
    """A void request as the API answers it (its coup, table and people loaded or read here)."""
    if request.coup_id is not None:
        assert request.coup is not None
        table, number = request.coup.shoe.table, request.coup.number
    else:
        assert request.game_coup is not None
        table, number = request.game_coup.table, request.game_coup.number
    return {
        "id": request.pk,
        "state": request.state,
        "casino": request.casino_id,
        "coup": request.coup_id,
        "game_coup": request.game_coup_id,
        "table": table.pk,
        "table_name": table.name,
        "coup_number": number,
        "stakes": request.stakes,
        "limit": request.limit,
        "reason": request.reason,
        "requested_by": request.requested_by.get_username(),
        "requested_at": request.requested_at,
        "decided_by": request.decided_by.get_username() if request.decided_by else None,
        "decided_at": request.decided_at,
        "note": request.note,
        "detail": void_request_detail(request),
    }

"""The REST API's answers as plain data: the ``*_data`` functions build each response from the
models and the selectors' read models (docs/api.md describes them; the serializers of
tables.api.outputs document them in the schema).

Plain dicts rather than serializers on the way out: running every step's answer through DRF's
serializers would cost more than the rest of the API's share of a step (a test checks that each
answer renders identically through its serializer).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tables import services
from tables.api.outputs import EV_PLACES
from tables.models import (
    UNFINISHED_COUP_STATES,
    Coup,
    CoupStep,
    Player,
    Seat,
    SessionPause,
    Shoe,
    ShoeAlarm,
    ShoeCard,
    Spectator,
    Table,
)
from tables.rules.coup import NeedsCards, Restored, Violation
from tables.rules.interchange import restored_to_dict
from tables.selectors import (
    CoupView,
    bank_open_turn,
    bank_rotation,
    coup_view,
    table_open_session,
)


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
        "casino": table.casino.name,
        "profile": table.profile.slug,
        "seat_count": table.seat_count,
        "state": table.state,
        "first_banker_method": table.first_banker_method,
    }


def table_data(table: Table) -> dict[str, Any]:
    """The table as a client needs it now: session, people, shoe, bank, the coup in play."""
    data: dict[str, Any] = {
        **table_summary_data(table),
        "session": None,
        "seats": [],
        "spectators": [],
        "shoe": None,
        "bank": None,
        "bank_rotation": None,
        "current_coup": None,
        "last_coup": None,
    }
    session = table_open_session(table=table)
    if session is None:
        return data
    session.table = table
    pause = SessionPause.objects.filter(session=session, ended_at__isnull=True).first()
    data["session"] = {
        "id": session.pk,
        "opened_at": session.opened_at,
        "opened_by": session.opened_by.get_username(),
        "paused": pause is not None,
        "paused_since": pause.started_at if pause else None,
    }
    seats = Seat.objects.filter(session=session, left_at__isnull=True).select_related("player")
    data["seats"] = [
        {
            "id": seat.pk,
            "number": seat.number,
            "player": player_data(seat.player),
            "joined_at": seat.joined_at,
        }
        for seat in seats.order_by("number")
    ]
    spectators = Spectator.objects.filter(session=session, left_at__isnull=True).select_related("player")
    data["spectators"] = [
        {"id": spec.pk, "player": player_data(spec.player), "joined_at": spec.joined_at}
        for spec in spectators.order_by("joined_at", "pk")
    ]
    shoe = Shoe.objects.filter(table=table, state=Shoe.State.OPEN).first()
    if shoe is not None:
        dealt = ShoeCard.objects.filter(shoe=shoe).count()
        data["shoe"] = {
            "id": shoe.pk,
            "number": shoe.number,
            "decks": shoe.decks,
            "cards_dealt": dealt,
            "cards_left": 52 * shoe.decks - dealt,
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
                for a in ShoeAlarm.objects.filter(shoe=shoe).order_by("raised_at", "pk")
            ],
        }
    turn = bank_open_turn(session=session)
    if turn is not None:
        data["bank"] = {
            "id": turn.pk,
            "player": player_data(turn.player),
            "seat": turn.seat.number,
            "started_how": turn.started_how,
            "started_at": turn.started_at,
            "required_minimum": turn.required_minimum,
        }
    else:
        rotation = bank_rotation(session=session)
        assert rotation is not None
        data["bank_rotation"] = {
            "how": rotation.how,
            "required_minimum": rotation.required_minimum,
            "order": [seat.number for seat in rotation.order],
            "candidates": [seat.number for seat in rotation.candidates],
            "offer_to": rotation.offer_to.number if rotation.offer_to else None,
        }
    coups = Coup.objects.filter(shoe__session=session).order_by("-created_at", "-pk")
    data["current_coup"] = coups.filter(state__in=UNFINISHED_COUP_STATES).values_list("pk", flat=True).first()
    data["last_coup"] = coups.values_list("pk", flat=True).first()
    return data


def violation_data(v: Violation) -> dict[str, str]:
    return {"code": v.code.value, "side": v.side, "detail": v.detail}


def decimal_string(value: Fraction, places: int = EV_PLACES) -> str:
    """An exact fraction as a decimal string, rounded half-even at ``places`` (no float on the way)."""
    scaled = round(value * 10**places)  # Fraction.__round__: exact, half-even
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def step_data(step: CoupStep, index_of: Mapping[int, int] | None = None) -> dict[str, Any]:
    corrects = None
    if step.corrects_id is not None:
        corrects = (index_of or {}).get(step.corrects_id)
        if corrects is None:
            corrects = step.corrects.index
    return {
        "index": step.index,
        "kind": step.kind,
        "payload": step.payload,
        "violations": list(step.violations),
        "corrects": corrects,
        "actor": step.actor.get_username(),
        "created_at": step.created_at,
    }


def restoration_data(restoration: Restored | NeedsCards | None) -> dict[str, Any] | None:
    return restored_to_dict(restoration)


def coup_data(view: CoupView) -> dict[str, Any]:
    coup, state = view.coup, view.state
    index_of = {s.pk: s.index for s in view.steps}
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
        "banker_seat": coup.bank_turn.seat.number,
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
        "violations": [{"step": n, **violation_data(v)} for n, v in state.violations],
        "verdict": view.verdict,
        "restoration": restoration_data(view.restoration),
        "correction": step_data(view.correction, index_of) if view.correction else None,
        "steps": [step_data(s, index_of) for s in view.steps],
        "created_at": coup.created_at,
        "settled_at": coup.settled_at,
    }


def step_result_data(result: services.StepResult) -> dict[str, Any]:
    return {"step": step_data(result.step), "coup": coup_data(coup_view(coup=result.coup))}


def pending_correction_data(coup: Coup) -> dict[str, Any]:
    """A coup of the corrections queue (``coup.corrections_submitted``: its corrections, latest first)."""
    return {
        "coup": coup.pk,
        "table": coup.shoe.table_id,
        "table_name": coup.shoe.table.name,
        "shoe_number": coup.shoe.number,
        "coup_number": coup.number,
        "bank": coup.bank,
        "created_at": coup.created_at,
        "correction": step_data(coup.corrections_submitted[0]) if coup.corrections_submitted else None,
    }

"""Property: a coup with a random typo (a bet amount or a card), amended before the reveal, ends
exactly like the same coup entered right the first time — the same verdict, the same record,
the same chips for every seat (docs/table-workflow.md, "Amending a typo"; RULES.md §3, §6).

Table A plays a random clean coup through the services, choosing among the engine's legal
next steps. Table B replays A's steps with one of them mistyped, goes on for a random number of
steps in the mistyped game (confirming what it flags, amending first what it refuses), then
amends the typo and finishes. Nothing but the amendment tells the two tables apart."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.interchange import record_to_dict
from chemin_de_fer.engine.machine import Move
from core.cards import RANKS, SUITS
from ledger.models import Account
from ledger.selectors import account_balance
from tables import services
from tables.engine_bridge import exported_record
from tables.models import Coup
from tables.selectors import coup_view
from tables.services import Amendment, ConfirmationRequired, StepRequest
from tests.factories import CroupierAssignmentFactory, TableFactory, UserFactory

from .play import Floor, open_floor

pytestmark = pytest.mark.django_db

CARDS = [rank + suit for rank in RANKS for suit in SUITS]
CARD_KINDS = (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER)
BANK = 200


def fresh_floor() -> Floor:
    table = TableFactory()
    croupier = UserFactory(roles=["croupier"])
    CroupierAssignmentFactory(user=croupier, table=table)
    return open_floor(croupier, table)


def record(floor: Floor, coup: Coup, request: StepRequest, *, confirm: bool = False) -> Any:
    coup.refresh_from_db()
    return services.coup_step_record(
        actor=floor.croupier, coup=coup, request=request, expected_step=coup.step_count, confirm=confirm
    )


def play_right(floor: Floor, data: st.DataObject) -> tuple[Coup, list[StepRequest]]:
    """A random clean coup: random bets, then at every point one of the engine's clean next steps,
    cards drawn at random."""
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=BANK).coup
    requests: list[StepRequest] = []
    left = BANK
    for seat in data.draw(st.lists(st.sampled_from([2, 3, 4]), min_size=1, max_size=3, unique=True)):
        amount = data.draw(st.integers(1, left))
        requests.append(StepRequest(kind=Move.BET, seat=seat, amount=amount))
        record(floor, coup, requests[-1])
        left -= amount
        if not left:
            break
    requests.append(StepRequest(kind=Move.BETS_CLOSED))
    record(floor, coup, requests[-1])
    while True:
        view = coup_view(coup=coup)
        clean = [n.kind for n in view.next_steps if n.violation is None]
        kind = data.draw(st.sampled_from(clean))
        request = StepRequest(
            kind=kind, card=data.draw(st.sampled_from(CARDS)) if kind in CARD_KINDS else None
        )
        requests.append(request)
        record(floor, coup, request)
        if kind is Move.REVEAL:
            break
    coup.refresh_from_db()
    return coup, requests


def mistyped(request: StepRequest, data: st.DataObject, uncovered: int) -> StepRequest | None:
    """The same step with a wrong value (None when no other value could have been typed)."""
    if request.kind in CARD_KINDS:
        return replace(request, card=data.draw(st.sampled_from([c for c in CARDS if c != request.card])))
    others = [n for n in range(1, uncovered + 1) if n != request.amount]
    return replace(request, amount=data.draw(st.sampled_from(others))) if others else None


def the_fix(request: StepRequest) -> Amendment:
    if request.kind in CARD_KINDS:
        return Amendment(card=request.card)
    return Amendment(amount=request.amount)


def play_with_typo(floor: Floor, requests: list[StepRequest], data: st.DataObject) -> Coup:
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=BANK).coup
    amendable = [i for i, r in enumerate(requests) if r.kind in (Move.BET, *CARD_KINDS)]
    at = data.draw(st.sampled_from(amendable))
    delay = data.draw(st.integers(0, 4))
    typo_index: int | None = None  # the typo's step index, until it is amended

    def amend_now() -> None:
        nonlocal typo_index
        assert typo_index is not None
        coup.refresh_from_db()
        services.step_amend(
            actor=floor.croupier, coup=coup, index=typo_index, amendment=the_fix(requests[at]), reason="typo"
        )
        typo_index = None

    for i, request in enumerate(requests):
        if typo_index is not None and (request.kind is Move.REVEAL or i > at + delay):
            amend_now()
        if i == at:
            typo = mistyped(request, data, coup_view(coup=coup).state.uncovered)
            if typo is not None:
                typo_index = record(floor, coup, typo).step.index
                continue
        while True:
            try:
                record(floor, coup, request)
            except ConfirmationRequired:  # the typo makes it look wrong: it happened, confirm
                record(floor, coup, request, confirm=True)
            except ValidationError:  # impossible in the mistyped game: amend the typo first
                if typo_index is None:
                    raise
                amend_now()
                continue
            break
    coup.refresh_from_db()
    return coup


def seat_chips(floor: Floor) -> dict[int, int]:
    casino = floor.table.casino
    return {
        n: account_balance(casino=casino, kind=Account.Kind.PLAYER, player=p)
        for n, p in floor.players.items()
    }


def outcome(coup: Coup) -> dict[str, Any]:
    view = coup_view(coup=coup)
    reveal = next(s for s in view.steps if s.kind == "reveal")
    verdict = {k: v for k, v in reveal.payload["verdict"].items() if k != "id"}
    exported = {
        k: v
        for k, v in record_to_dict(exported_record(view.coup, view.steps, view.state)).items()
        if k != "id"
    }
    return {"state": coup.state, "flagged": coup.flagged, "verdict": verdict, "record": exported}


@pytest.mark.slow
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_typo_amended_ends_like_the_coup_entered_right(data: st.DataObject) -> None:
    right, typo = fresh_floor(), fresh_floor()
    right_coup, requests = play_right(right, data)
    typo_coup = play_with_typo(typo, requests, data)
    assert outcome(typo_coup) == outcome(right_coup)
    assert right_coup.state == Coup.State.SETTLED
    assert seat_chips(typo) == seat_chips(right)

"""The coup's and the shoe's lifecycles (tables/lifecycle.py): every declared transition is made
by a service, every other one is refused with nothing written, and no other module moves a coup."""

from __future__ import annotations

import ast
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

import tables
from chemin_de_fer.engine.machine import Move
from core.errors import Conflict
from tables import lifecycle, services
from tables.lifecycle import COUP_IMPORT_ONLY, COUP_TRANSITIONS, SHOE_TRANSITIONS, CoupConflict
from tables.models import Coup, CoupState, Shoe, ShoeState
from tables.services.shoes import shoe_close_locked
from tests.tables.play import Floor, open_floor, play, row_counts, step

PACKAGE = Path(tables.__file__).resolve().parent
DECLARED = {(a, b) for a, targets in COUP_TRANSITIONS.items() for b in targets}


def _flagged(floor: Floor, bank: int) -> Coup:
    """The banker stands on 5 against the player's 6 (BANKER_SHOULD_DRAW): awaiting correction."""
    return play(
        floor,
        bank=bank,
        bets=[(2, 240), (3, 160)],
        cards=("TH", "3S", "2C", "2H"),
        player="draw",
        player_card="6D",
        banker="stand",
        confirm=True,
    )


def test_the_table_names_every_state_once() -> None:
    assert set(COUP_TRANSITIONS) == set(CoupState)
    assert set(SHOE_TRANSITIONS) == set(ShoeState)
    assert COUP_TRANSITIONS[CoupState.SETTLED] == COUP_TRANSITIONS[CoupState.VOID] == frozenset()
    assert COUP_TRANSITIONS[CoupState.WITHDRAWN] == frozenset()
    assert COUP_IMPORT_ONLY <= DECLARED


@pytest.mark.django_db
def test_every_declared_transition_is_made_by_a_service(croupier, table, pit_boss, monkeypatch) -> None:
    made: list[tuple[str, str]] = []
    check = lifecycle.coup_transition_check

    def recording(current: str, to: str, **kw: Any) -> None:
        check(current, to, **kw)
        made.append((current, to))

    monkeypatch.setattr(lifecycle, "coup_transition_check", recording)
    floor = open_floor(croupier, table)
    clean = play(
        floor,
        bank=200,
        bets=[(2, 120), (3, 50), (4, 30)],
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )
    assert clean.state == CoupState.SETTLED
    flagged = _flagged(floor, 400)
    services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
    services.correction_reject(actor=pit_boss, coup=flagged, reason="wrong card")
    services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
    services.correction_approve(actor=pit_boss, coup=flagged)
    flagged.refresh_from_db()
    assert flagged.state == CoupState.SETTLED and flagged.settled_at is not None
    voided = _flagged(floor, 780)
    services.coup_void(actor=pit_boss, coup=voided, reason="cards lost")
    voided.refresh_from_db()
    assert voided.state == CoupState.VOID
    # issue 9 §2: a bank nobody bets on is withdrawn (RULES.md §7), any coup not over is voided
    nobody = services.coup_start(actor=croupier, session=floor.session, amount=780).coup
    services.coup_bank_withdraw(actor=croupier, coup=nobody)
    in_play = services.coup_start(actor=croupier, session=floor.session, amount=780).coup
    step(floor, in_play, Move.BET, seat=2, amount=100)
    services.coup_void(actor=pit_boss, coup=in_play, reason="the punter cannot pay")
    restored = _flagged(floor, 780)
    services.correction_submit(actor=croupier, coup=restored, cards=["4C"])
    services.coup_void(actor=pit_boss, coup=restored, reason="nobody agrees on the restoration")
    states = dict(Coup.objects.filter(pk__in=[nobody.pk, in_play.pk, restored.pk]).values_list("pk", "state"))
    assert states == {nobody.pk: "withdrawn", in_play.pk: "void", restored.pk: "void"}

    assert set(made) | COUP_IMPORT_ONLY == DECLARED
    assert made == [
        (CoupState.OPEN, CoupState.SETTLED),
        (CoupState.OPEN, CoupState.AWAITING_CORRECTION),
        (CoupState.AWAITING_CORRECTION, CoupState.AWAITING_APPROVAL),
        (CoupState.AWAITING_APPROVAL, CoupState.AWAITING_CORRECTION),
        (CoupState.AWAITING_CORRECTION, CoupState.AWAITING_APPROVAL),
        (CoupState.AWAITING_APPROVAL, CoupState.SETTLED),
        (CoupState.OPEN, CoupState.AWAITING_CORRECTION),
        (CoupState.AWAITING_CORRECTION, CoupState.VOID),
        (CoupState.OPEN, CoupState.WITHDRAWN),
        (CoupState.OPEN, CoupState.VOID),
        (CoupState.OPEN, CoupState.AWAITING_CORRECTION),
        (CoupState.AWAITING_CORRECTION, CoupState.AWAITING_APPROVAL),
        (CoupState.AWAITING_APPROVAL, CoupState.VOID),
    ]


@pytest.mark.parametrize("current, to", sorted(set(product(CoupState, CoupState)) - DECLARED))
def test_an_undeclared_transition_is_refused(current: CoupState, to: CoupState) -> None:
    with pytest.raises(CoupConflict, match=f"cannot become {to.replace('_', ' ')}"):
        lifecycle.coup_transition_check(current, to)


@pytest.mark.django_db
def test_an_illegal_change_writes_nothing(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = _flagged(floor, 400)
    before, counts = Coup.objects.values().get(pk=coup.pk), row_counts()
    for to in (CoupState.SETTLED, CoupState.OPEN, CoupState.AWAITING_CORRECTION):
        with pytest.raises(CoupConflict) as refused, transaction.atomic():
            lifecycle.coup_state_change(coup=Coup.objects.get(pk=coup.pk), to=to)
        assert refused.value.status == 409 and refused.value.current_step == coup.step_count
    assert Coup.objects.values().get(pk=coup.pk) == before
    assert row_counts() == counts


@pytest.mark.django_db
def test_a_closed_shoe_is_not_closed_again(croupier, table) -> None:
    floor = open_floor(croupier, table)
    assert floor.shoe is not None
    services.shoe_close(actor=croupier, shoe=floor.shoe, reason="end of the shift")
    shoe = Shoe.objects.get(pk=floor.shoe.pk)
    before, counts = Shoe.objects.values().get(pk=shoe.pk), row_counts()
    with pytest.raises(Conflict, match="This shoe is closed: it cannot become closed"), transaction.atomic():
        shoe_close_locked(actor=croupier, shoe=shoe, reason="again")
    assert Shoe.objects.values().get(pk=shoe.pk) == before
    assert row_counts() == counts


def _writes_a_coup_state(node: ast.AST) -> bool:
    """``coup.state = ...`` (any name holding "coup"), or ``.update(state=...)`` on a query."""
    if isinstance(node, ast.Assign):
        targets = [t for target in node.targets for t in ast.walk(target)]
        return any(
            isinstance(t, ast.Attribute) and t.attr == "state" and "coup" in ast.unparse(t.value).lower()
            for t in targets
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update":
        return any(k.arg == "state" for k in node.keywords)
    return False


def test_no_module_but_the_lifecycle_moves_a_coup() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "lifecycle.py" and "migrations" not in path.parts
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
        if _writes_a_coup_state(node)
    ]
    assert offenders == []

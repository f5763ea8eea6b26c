"""Voids above a casino's limit wait for a second pit boss (issue 20, item 5b): asked by one, the
coup playing on; approved (voided in the second's name), refused, or lapsed by another who neither
asked nor recorded a step. Every refusal changes nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from audit.models import AuditEvent
from chemin_de_fer.engine.machine import Move
from older_games import services as game_coups
from tables import services
from tables.lifecycle import CoupConflict
from tables.models import Coup, CoupStep, GameCoup, VoidRequest
from tables.permissions import SeparationOfDuties
from tables.selectors import table_ways_forward, void_requests_pending
from tables.services.corrections import coup_stakes_covered
from tests.factories import CasinoFactory, CroupierAssignmentFactory, TableFactory, UserFactory
from tests.review.history import play_flagged
from tests.tables.play import coup_with_bets, open_floor, row_counts, step, void_limit_set

pytestmark = pytest.mark.django_db

ASKER = "You asked for this void: a second pit boss decides it."
RECORDED = "You recorded a step of this coup: a pit boss who recorded none voids it."


@pytest.fixture
def second_boss(table):
    """Marc, the other pit boss on duty at ``table``'s casino."""
    return UserFactory(username="marc", roles=["pit_boss"], casinos=[table.casino])


def _ask(coup: Coup, actor: Any, reason: str = "misdeal") -> VoidRequest:
    """``actor``'s void of ``coup``, above the limit: the request that waits."""
    asked = services.coup_void(actor=actor, coup=coup, reason=reason)
    assert isinstance(asked, VoidRequest)
    return asked


def _counts() -> dict[str, int]:
    return {**row_counts(), "VoidRequest": VoidRequest.objects.count()}


def test_the_stakes_are_the_bets_standing(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = coup_with_bets(floor)
    assert coup_stakes_covered(coup) == 0
    step(floor, coup, Move.BET, seat=2, amount=150)
    step(floor, coup, Move.BET, seat=3, amount=90)
    assert coup_stakes_covered(coup) == 240


def test_within_the_limit_one_pit_boss_voids(croupier, table, pit_boss) -> None:
    void_limit_set(table, 240)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    result = services.coup_void(actor=pit_boss, coup=coup, reason="a player was taken ill")
    assert isinstance(result, services.StepResult)
    coup.refresh_from_db()
    assert (coup.state, VoidRequest.objects.count()) == (Coup.State.VOID, 0)


def test_with_no_limit_one_pit_boss_voids_whatever_the_stakes(croupier, table, pit_boss) -> None:
    void_limit_set(table, None)
    coup = coup_with_bets(open_floor(croupier, table), (2, 300), (3, 100))
    services.coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    coup.refresh_from_db()
    assert (coup.state, VoidRequest.objects.count()) == (Coup.State.VOID, 0)


def test_above_the_limit_the_void_waits_and_the_coup_plays_on(croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    floor = open_floor(croupier, table)
    coup = coup_with_bets(floor, (2, 240))
    asked = _ask(coup, pit_boss, "  the shoe looks wrong ")
    assert isinstance(asked, VoidRequest)
    assert (asked.state, asked.stakes, asked.limit, asked.reason, asked.requested_by) == (
        VoidRequest.State.PENDING,
        240,
        100,
        "the shoe looks wrong",
        pit_boss,
    )
    coup.refresh_from_db()
    assert (coup.state, coup.steps.filter(kind=CoupStep.Kind.COUP_VOIDED).count()) == (Coup.State.OPEN, 0)
    event = AuditEvent.objects.get(action="tables.voidrequest.open")
    assert (event.actor, event.after) == (
        pit_boss,
        {"coup": coup.pk, "game_coup": None, "stakes": 240, "limit": 100, "reason": "the shoe looks wrong"},
    )
    assert list(void_requests_pending(casinos=frozenset({table.casino_id}))) == [asked]
    assert list(void_requests_pending(casinos=frozenset({CasinoFactory().pk}))) == []
    # his retry answers the same request and writes nothing
    before = _counts()
    assert services.coup_void(actor=pit_boss, coup=coup, reason="the shoe looks wrong") == asked
    assert _counts() == before
    # the croupier plays on meanwhile
    step(floor, coup, Move.BET, seat=3, amount=60)
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.OPEN


def test_a_waiting_void_is_a_way_forward_for_the_table(croupier, table, pit_boss, second_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    assert "void_request_approve" not in table_ways_forward(table=table)
    asked = _ask(coup, pit_boss)
    ways = table_ways_forward(table=table)
    assert {"coup_void", "void_request_approve", "void_request_refuse"} <= set(ways)
    services.void_request_approve(actor=second_boss, request=asked)
    assert "table_session_close" in table_ways_forward(table=table)  # voided: the table may close


def test_the_asker_neither_approves_nor_refuses(croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    asked = _ask(coup, pit_boss, "misdeal")
    before = _counts()
    for decide in (
        lambda: services.void_request_approve(actor=pit_boss, request=asked),
        lambda: services.void_request_refuse(actor=pit_boss, request=asked, reason="changed my mind"),
    ):
        with pytest.raises(SeparationOfDuties) as refused:
            decide()
        assert refused.value.message == ASKER
    assert _counts() == before
    assert VoidRequest.objects.get().state == VoidRequest.State.PENDING


def test_a_second_pit_boss_approves_and_the_coup_is_voided_in_his_name(
    croupier, table, pit_boss, second_boss
) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    asked = _ask(coup, pit_boss, "misdeal")
    approved = services.void_request_approve(actor=second_boss, request=asked.pk)
    assert (approved.state, approved.decided_by, approved.decided_at is not None) == (
        VoidRequest.State.APPROVED,
        second_boss,
        True,
    )
    coup.refresh_from_db()
    voided = coup.steps.get(kind=CoupStep.Kind.COUP_VOIDED)
    assert (coup.state, voided.actor, voided.payload) == (
        Coup.State.VOID,
        second_boss,
        {"reason": "misdeal", "was": "open"},
    )
    event = AuditEvent.objects.get(action="tables.coup.void")
    assert (event.actor, event.after) == (
        second_boss,
        {
            "index": voided.index,
            "reason": "misdeal",
            "was": "open",
            "void_request": asked.pk,
            "asked_by": pit_boss.pk,
        },
    )
    assert AuditEvent.objects.filter(action="tables.voidrequest.approved", actor=second_boss).count() == 1
    assert list(void_requests_pending()) == []
    # decided once: a second decision is a conflict that says how, and changes nothing
    before = _counts()
    third = UserFactory(username="third", roles=["pit_boss"], casinos=[table.casino])
    with pytest.raises(CoupConflict, match="This void was already approved"):
        services.void_request_refuse(actor=third, request=asked, reason="too late")
    assert _counts() == before


def test_a_second_pit_boss_refuses_with_a_reason_and_the_coup_goes_on(
    croupier, table, pit_boss, second_boss
) -> None:
    void_limit_set(table, 100)
    floor = open_floor(croupier, table)
    coup = coup_with_bets(floor, (2, 240))
    asked = _ask(coup, pit_boss, "misdeal")
    before = _counts()
    with pytest.raises(ValidationError) as blank:
        services.void_request_refuse(actor=second_boss, request=asked, reason="   ")
    assert blank.value.message_dict == {"reason": ["Say why the void is refused."]}
    assert _counts() == before
    refused = services.void_request_refuse(actor=second_boss, request=asked, reason=" the deal was fine ")
    assert (refused.state, refused.decided_by, refused.note) == (
        VoidRequest.State.REFUSED,
        second_boss,
        "the deal was fine",
    )
    coup.refresh_from_db()
    assert coup.state == Coup.State.OPEN
    step(floor, coup, Move.BETS_CLOSED)  # played on
    # a void may be asked again, by anyone (a new request)
    again = _ask(coup, second_boss, "now it is wrong")
    assert again.pk != asked.pk and again.requested_by == second_boss


def test_another_pit_boss_s_void_of_a_waiting_coup_is_a_conflict(
    croupier, table, pit_boss, second_boss
) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    services.coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    before = _counts()
    with pytest.raises(CoupConflict, match="already waits for a second pit boss: approve or refuse it"):
        services.coup_void(actor=second_boss, coup=coup, reason="misdeal too")
    assert _counts() == before


def test_who_recorded_a_step_does_not_approve(croupier, table, pit_boss) -> None:
    boss_croupier = UserFactory(
        username="bosscroupier", roles=["pit_boss", "croupier"], casinos=[table.casino]
    )
    CroupierAssignmentFactory(user=boss_croupier, table=table)
    void_limit_set(table, 100)
    floor = open_floor(croupier, table)
    coup = coup_with_bets(floor, (2, 240))
    step(replace(floor, croupier=boss_croupier), coup, Move.BET, seat=3, amount=10)
    asked = _ask(coup, pit_boss, "misdeal")
    before = _counts()
    with pytest.raises(SeparationOfDuties) as refused:
        services.void_request_approve(actor=boss_croupier, request=asked)
    assert refused.value.message == RECORDED
    assert _counts() == before


def test_a_pit_boss_of_another_casino_decides_nothing(croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    asked = _ask(coup, pit_boss, "misdeal")
    elsewhere = UserFactory(username="elsewhere", roles=["pit_boss"], casinos=[TableFactory().casino])
    before = _counts()
    with pytest.raises(PermissionDenied, match="You do not work for this casino"):
        services.void_request_approve(actor=elsewhere, request=asked)
    with pytest.raises(PermissionDenied, match="You do not work for this casino"):
        services.void_request_refuse(actor=elsewhere, request=asked, reason="no")
    assert _counts() == before


def test_a_request_whose_coup_ended_first_lapses(croupier, table, pit_boss, second_boss) -> None:
    void_limit_set(table, 100)
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)  # 400 at stake, flagged
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    asked = _ask(coup, pit_boss, "the restoration is doubtful")
    assert isinstance(asked, VoidRequest) and asked.stakes == 400
    services.correction_approve(actor=second_boss, coup=coup)  # settled for good
    assert list(void_requests_pending()) == []  # moot: not offered any more
    settled = _counts()
    lapsed = services.void_request_approve(actor=second_boss, request=asked)
    assert (lapsed.state, lapsed.decided_by, lapsed.note) == (
        VoidRequest.State.LAPSED,
        None,
        "the coup ended first",
    )
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.SETTLED
    assert _counts() == {**settled, "AuditEvent": settled["AuditEvent"] + 1}  # the lapse, nothing voided


def test_a_void_within_the_limit_lapses_the_request_still_waiting(croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    asked = _ask(coup, pit_boss, "misdeal")
    void_limit_set(table, 1000)  # the casino raised its limit meanwhile
    services.coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    asked.refresh_from_db()
    assert (asked.state, Coup.objects.get(pk=coup.pk).state) == (VoidRequest.State.LAPSED, Coup.State.VOID)


def test_the_database_refuses_the_asker_as_decider_and_two_waiting_voids(croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    asked = _ask(coup, pit_boss, "misdeal")
    with pytest.raises(IntegrityError), transaction.atomic():
        VoidRequest.objects.filter(pk=asked.pk).update(
            state="approved", decided_by=pit_boss, decided_at=asked.requested_at
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        VoidRequest.objects.create(
            casino=table.casino, coup=coup, stakes=240, limit=100, reason="twice",
            requested_by=pit_boss, requested_at=asked.requested_at,
        )  # fmt: skip
    with pytest.raises(IntegrityError), transaction.atomic():
        VoidRequest.objects.filter(pk=asked.pk).update(stakes=100)  # not above the limit
    assert VoidRequest.objects.get().state == VoidRequest.State.PENDING


# ------------------------------------------------------------------------------- older games
def test_an_older_game_s_void_above_the_limit_waits_for_a_second_pit_boss(
    game_table, table, croupier, pit_boss, second_boss
) -> None:
    void_limit_set(table, 50)
    _t, session, _players = game_table("macao", players=3)  # a banker and two punters, unit 10
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    assert game_coups.game_coup_stakes(coup) == 60  # each punter may lose 3 units to a banker's 9
    asked = game_coups.game_coup_void(actor=pit_boss, coup=coup, reason="a player was called away")
    assert isinstance(asked, VoidRequest)
    assert (asked.game_coup, asked.coup, asked.stakes, asked.limit) == (coup, None, 60, 50)
    assert GameCoup.objects.get(pk=coup.pk).state == GameCoup.State.OPEN
    approved = services.void_request_approve(actor=second_boss, request=asked)
    voided = GameCoup.objects.get(pk=coup.pk)
    assert (approved.state, voided.state, voided.void_reason) == (
        VoidRequest.State.APPROVED,
        GameCoup.State.VOID,
        "a player was called away",
    )
    event = AuditEvent.objects.get(action="tables.game_coup.void")
    after = event.after or {}
    assert (event.actor, after["void_request"], after["asked_by"]) == (
        second_boss,
        asked.pk,
        pit_boss.pk,
    )

"""Separation of duties (issue 10, item 6): nobody approves or rejects the correction of a coup in
which he recorded a step — not only the correction's submitter. Refused with a DomainError
(403 ``separation_of_duties``) that says why; a refusal changes nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.urls import reverse

from chemin_de_fer.engine.machine import Move
from core.errors import error_answer
from tables import services
from tables.models import Coup, CoupStep
from tables.permissions import SeparationOfDuties
from tests.factories import CroupierAssignmentFactory, UserFactory
from tests.problems import problem_body
from tests.review.history import play_flagged
from tests.tables.api.conftest import Api
from tests.tables.play import Floor, open_floor, row_counts, step

pytestmark = pytest.mark.django_db

RECORDED = "You recorded a step of this coup: another person, who recorded none, must review its correction."


@pytest.fixture
def boss_croupier(table):
    """A pit boss who also deals at ``table`` (a small club, a break to cover)."""
    user = UserFactory(username="bosscroupier", roles=["pit_boss", "croupier"])
    CroupierAssignmentFactory(user=user, table=table)
    return user


def flagged_with_one_step_by(floor: Floor, other: Floor) -> Coup:
    """The flagged coup of tests/review/history.py, recorded by ``floor``'s croupier but for one
    bet, which ``other``'s croupier recorded; the correction submitted by ``floor``'s croupier."""
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=400).coup
    step(floor, coup, Move.BET, seat=2, amount=240)
    step(other, coup, Move.BET, seat=3, amount=160)
    step(floor, coup, Move.BETS_CLOSED)
    for kind, card in (
        (Move.CARD_TO_PLAYER, "TH"),
        (Move.CARD_TO_BANKER, "3S"),
        (Move.CARD_TO_PLAYER, "2C"),
        (Move.CARD_TO_BANKER, "2H"),
    ):
        step(floor, coup, kind, card=card)
    step(floor, coup, Move.PLAYER_DRAW, confirm=True)
    step(floor, coup, Move.CARD_TO_PLAYER, card="6D", confirm=True)
    step(floor, coup, Move.BANKER_STAND, confirm=True)
    step(floor, coup, Move.REVEAL)
    services.correction_submit(actor=floor.croupier, coup=coup, cards=["4C"])
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL
    return coup


def test_who_recorded_one_step_cannot_approve_nor_reject(croupier, table, boss_croupier, pit_boss) -> None:
    floor = open_floor(croupier, table)
    coup = flagged_with_one_step_by(floor, replace(floor, croupier=boss_croupier))
    before = row_counts()
    for decide in (
        lambda: services.correction_approve(actor=boss_croupier, coup=coup),
        lambda: services.correction_reject(actor=boss_croupier, coup=coup, reason="looks fine to me"),
    ):
        with pytest.raises(SeparationOfDuties) as refused:
            decide()
        assert refused.value.message == RECORDED
        answer = error_answer(refused.value)
        assert answer is not None
        assert (answer.status, answer.code, answer.body) == (
            403,
            "separation_of_duties",
            {"code": "separation_of_duties", "detail": RECORDED},
        )
    assert row_counts() == before
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL
    # a pit boss who recorded nothing of it approves
    services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED


def test_the_api_refuses_the_recorder_with_the_code(croupier, table, boss_croupier) -> None:
    floor = open_floor(croupier, table)
    coup = play_flagged(replace(floor, croupier=boss_croupier))  # every step his
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])  # restored by the croupier
    before = row_counts()
    refused = Api(boss_croupier).post(f"/coups/{coup.pk}/correction/approve/")
    assert refused.status_code == 403
    assert problem_body(refused) == {"code": "separation_of_duties", "detail": RECORDED}
    assert row_counts() == before


def test_the_review_pages_say_why_before_he_tries(client, croupier, table, boss_croupier) -> None:
    floor = open_floor(croupier, table)
    coup = flagged_with_one_step_by(floor, replace(floor, croupier=boss_croupier))
    client.force_login(boss_croupier)
    html = client.get(reverse("review:coup", args=[coup.pk])).content.decode()
    assert RECORDED in html
    assert '<button type="button" class="button" disabled>Approve</button>' in html
    row = next(r for r in client.get(reverse("review:queue")).context["rows"] if r.coup.pk == coup.pk)
    assert row.refusal == RECORDED
    before = row_counts()
    refused = client.post(reverse("review:coup_approve", args=[coup.pk]))
    assert refused.status_code == 403 and RECORDED in refused.content.decode()
    assert row_counts() == before


def test_a_review_step_is_not_a_recorded_step(croupier, table, pit_boss) -> None:
    """Having rejected an earlier correction of the coup does not bar the pit boss from the next."""
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    services.correction_reject(actor=pit_boss, coup=coup, reason="check the shoe")
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED
    assert coup.steps.filter(actor=pit_boss).count() == 2
    assert set(coup.steps.filter(actor=pit_boss).values_list("kind", flat=True)) == {
        CoupStep.Kind.CORRECTION_REJECTED,
        CoupStep.Kind.CORRECTION_APPROVED,
    }


# ------------------------------------------------------------------ voids (issue 20, item 5)
VOID_RECORDED = "You recorded a step of this coup: a pit boss who recorded none voids it."


def test_who_recorded_a_step_cannot_void_the_coup(croupier, table, boss_croupier, pit_boss) -> None:
    floor = open_floor(croupier, table)
    coup = flagged_with_one_step_by(floor, replace(floor, croupier=boss_croupier))
    before = row_counts()
    with pytest.raises(SeparationOfDuties) as refused:
        services.coup_void(actor=boss_croupier, coup=coup, reason="I would rather")
    assert refused.value.message == VOID_RECORDED
    assert row_counts() == before
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL
    refused_api = Api(boss_croupier).post(f"/coups/{coup.pk}/void/", {"reason": "I would rather"})
    assert refused_api.status_code == 403
    assert problem_body(refused_api) == {"code": "separation_of_duties", "detail": VOID_RECORDED}
    assert row_counts() == before
    services.coup_void(actor=pit_boss, coup=coup, reason="the shoe was wrong")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID


def test_the_review_page_offers_the_void_only_to_a_pit_boss_who_recorded_nothing(
    client, croupier, table, boss_croupier, pit_boss
) -> None:
    floor = open_floor(croupier, table)
    coup = flagged_with_one_step_by(floor, replace(floor, croupier=boss_croupier))
    client.force_login(boss_croupier)
    html = client.get(reverse("review:coup", args=[coup.pk])).content.decode()
    assert 'data-testid="void-open"' not in html and VOID_RECORDED in html
    client.force_login(pit_boss)
    html = client.get(reverse("review:coup", args=[coup.pk])).content.decode()
    assert 'data-testid="void-open"' in html and VOID_RECORDED not in html


def test_an_older_game_s_croupier_who_dealt_the_coup_does_not_void_it(game_table, croupier, pit_boss) -> None:
    from older_games import services as svc
    from tables.models import GameCoup, GameStep

    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "2H"})
    before = (GameStep.objects.count(), row_counts())
    with pytest.raises(SeparationOfDuties, match="a pit boss who recorded none voids it"):
        svc.game_coup_void(actor=croupier, coup=coup, reason="misdeal")
    assert (GameStep.objects.count(), row_counts()) == before
    assert GameCoup.objects.get(pk=coup.pk).state == GameCoup.State.OPEN
    svc.game_coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    assert GameCoup.objects.get(pk=coup.pk).state == GameCoup.State.VOID


def test_an_older_game_s_croupier_voids_a_coup_nobody_stepped_yet(game_table, croupier) -> None:
    from older_games import services as svc
    from tables.models import GameCoup

    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    svc.game_coup_void(actor=croupier, coup=coup, reason="started by mistake")
    assert GameCoup.objects.get(pk=coup.pk).state == GameCoup.State.VOID

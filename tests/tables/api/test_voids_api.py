"""The API of voids above a casino's limit (issue 20, item 5b): ``POST …/void/`` answers 202 and
the request; ``/void-requests/`` lists those waiting, a second pit boss approves or refuses."""

from __future__ import annotations

import pytest

from tables.models import Coup, GameCoup, VoidRequest
from tests.factories import TableFactory, UserFactory
from tests.problems import problem_body
from tests.tables.api.conftest import Api
from tests.tables.play import coup_with_bets, open_floor, row_counts, void_limit_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def second_boss(table):
    return UserFactory(username="marc", roles=["pit_boss"], casinos=[table.casino])


def _counts() -> dict[str, int]:
    return {**row_counts(), "VoidRequest": VoidRequest.objects.count()}


def test_a_void_above_the_limit_is_accepted_and_waits(
    croupier, table, pit_boss, second_boss, accountant
) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    boss = Api(pit_boss)
    answer = boss.post(f"/coups/{coup.pk}/void/", {"reason": "misdeal"})
    assert answer.status_code == 202
    body = answer.json()
    asked = VoidRequest.objects.get()
    assert {k: v for k, v in body.items() if k not in ("requested_at",)} == {
        "id": asked.pk,
        "state": "pending",
        "casino": table.casino_id,
        "coup": coup.pk,
        "game_coup": None,
        "table": table.pk,
        "table_name": table.name,
        "coup_number": coup.number,
        "stakes": 240,
        "limit": 100,
        "reason": "misdeal",
        "requested_by": "pitboss",
        "decided_by": None,
        "decided_at": None,
        "note": "",
        "detail": "240 chips at stake, above this casino's limit of 100 for one pit boss: the void waits "
        "for a second pit boss, who approves or refuses it.",
    }
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.OPEN
    # the list: pit bosses and accountants of the casino; the croupier is refused
    listed = Api(accountant).ok(Api(accountant).get("/void-requests/"), 200)
    assert (listed["count"], listed["results"][0]["id"]) == (1, asked.pk)
    assert problem_body(Api(croupier).get("/void-requests/"))["code"] == "permission_denied"
    # the asker is refused with the code, nothing changes
    before = _counts()
    refused = boss.post(f"/void-requests/{asked.pk}/approve/")
    assert (refused.status_code, problem_body(refused)) == (
        403,
        {"code": "separation_of_duties", "detail": "You asked for this void: a second pit boss decides it."},
    )
    assert _counts() == before
    # the second pit boss approves: the coup is void
    second = Api(second_boss)
    approved = second.ok(second.post(f"/void-requests/{asked.pk}/approve/"), 200)
    assert (approved["state"], approved["decided_by"], approved["detail"]) == (
        "approved",
        "marc",
        "Void approved: the coup is voided.",
    )
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.VOID
    assert second.ok(second.get("/void-requests/"), 200)["count"] == 0
    # decided: a second decision is a conflict
    again = second.post(f"/void-requests/{asked.pk}/refuse/", {"reason": "no"})
    assert (again.status_code, problem_body(again)["detail"]) == (409, "This void was already approved.")


def test_a_refusal_needs_a_reason_and_the_coup_goes_on(croupier, table, pit_boss, second_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    Api(pit_boss).post(f"/coups/{coup.pk}/void/", {"reason": "misdeal"})
    asked = VoidRequest.objects.get()
    second = Api(second_boss)
    before = _counts()
    assert second.post(f"/void-requests/{asked.pk}/refuse/", {}).status_code == 400
    assert second.post(f"/void-requests/{asked.pk}/refuse/", {"reason": "   "}).status_code == 400
    assert _counts() == before
    refused = second.ok(
        second.post(f"/void-requests/{asked.pk}/refuse/", {"reason": "the deal was fine"}), 200
    )
    assert (refused["state"], refused["note"], refused["detail"]) == (
        "refused",
        "the deal was fine",
        "Void refused: the coup goes on.",
    )
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.OPEN


def test_another_casino_s_request_is_neither_listed_nor_decided(croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    Api(pit_boss).post(f"/coups/{coup.pk}/void/", {"reason": "misdeal"})
    asked = VoidRequest.objects.get()
    elsewhere = Api(UserFactory(username="elsewhere", roles=["pit_boss"], casinos=[TableFactory().casino]))
    assert elsewhere.ok(elsewhere.get("/void-requests/"), 200)["count"] == 0
    before = _counts()
    for path in (f"/void-requests/{asked.pk}/approve/", f"/void-requests/{asked.pk}/refuse/"):
        answer = elsewhere.post(path, {"reason": "no"})
        assert (answer.status_code, problem_body(answer)) == (
            403,
            {"code": "permission_denied", "detail": "You do not work for this casino."},
        )
    assert Api(pit_boss).post("/void-requests/999999/approve/").status_code == 404
    assert _counts() == before


def test_who_may_not_void_or_decide_is_told_what_he_may_not_do(
    croupier, table, pit_boss, accountant, cashier
) -> None:
    """A croupier voiding, or anyone but a pit boss deciding a void request, was told "Only a pit
    boss may approve or reject a correction.": the words of another refusal."""
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    Api(pit_boss).post(f"/coups/{coup.pk}/void/", {"reason": "misdeal"})
    asked = VoidRequest.objects.get()
    before = _counts()
    decide = {"code": "permission_denied", "detail": "Only a pit boss may approve or refuse a void request."}
    for user in (croupier, accountant, cashier):
        voided = Api(user).post(f"/coups/{coup.pk}/void/", {"reason": "misdeal"})
        assert (voided.status_code, problem_body(voided)) == (
            403,
            {"code": "permission_denied", "detail": "Only a pit boss may void a coup."},
        )
        for path, body in (
            (f"/void-requests/{asked.pk}/approve/", {}),
            (f"/void-requests/{asked.pk}/refuse/", {"reason": "no"}),
        ):
            decided = Api(user).post(path, body)
            assert (decided.status_code, problem_body(decided)) == (403, decide)
    assert _counts() == before
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.OPEN


def test_an_older_game_s_void_above_the_limit_answers_202(
    game_table, table, croupier, pit_boss, second_boss
) -> None:
    void_limit_set(table, 50)
    macao, _session, _players = game_table("macao", players=3)
    coup = Api(croupier).ok(Api(croupier).post(f"/tables/{macao.pk}/game-coups/"), 201)
    answer = Api(pit_boss).post(f"/game-coups/{coup['id']}/void/", {"reason": "called away"})
    assert answer.status_code == 202
    body = answer.json()
    assert (body["state"], body["game_coup"], body["coup"], body["stakes"], body["limit"]) == (
        "pending",
        coup["id"],
        None,
        60,
        50,
    )
    second = Api(second_boss)
    assert second.ok(second.post(f"/void-requests/{body['id']}/approve/"), 200)["state"] == "approved"
    assert GameCoup.objects.get(pk=coup["id"]).state == GameCoup.State.VOID

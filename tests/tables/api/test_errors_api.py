"""Refusals through the API: idempotency, stale steps, permissions, bad input. Every refused
request leaves every table as it was — coup steps, coups, bets, cards, audit events, idempotency
records and ledger transactions counted before and after."""

from __future__ import annotations

import pytest

from core.models import IdempotencyRecord
from tables.models import CoupStep
from tests.factories import CroupierAssignmentFactory, UserFactory
from tests.problems import field_errors, problem_body
from tests.tables.play import open_floor, row_counts

from .conftest import Api

pytestmark = pytest.mark.django_db


@pytest.fixture
def coup(croupier, table) -> int:
    """A coup of bank 100 at step 1 (bank declared), seats 1 (banker) to 4."""
    open_floor(croupier, table, spectators=1)
    api = Api(croupier)
    return api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]


def refused(api: Api, coup: int, status: int, *, key: str | None = None, **body) -> dict:
    before = row_counts()
    response = api.post(f"/coups/{coup}/steps/", body, key=key)
    assert response.status_code == status, response.content
    assert row_counts() == before
    return problem_body(response)


# ------------------------------------------------------------------------------------ idempotency
def test_a_replay_returns_the_first_response_and_does_nothing(croupier, coup) -> None:
    api = Api(croupier)
    body = {"step": 1, "kind": "bet", "seat": 2, "amount": 40}
    first = api.post(f"/coups/{coup}/steps/", body, key="tablet-7-0001")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    after_first = row_counts()
    # same body, keys in another order: the same request
    again = api.post(
        f"/coups/{coup}/steps/", {"amount": 40, "seat": 2, "kind": "bet", "step": 1}, key="tablet-7-0001"
    )
    assert (again.status_code, again.json(), again["Idempotent-Replayed"]) == (201, first.json(), "true")
    assert row_counts() == after_first
    assert CoupStep.objects.filter(coup_id=coup, kind="bet").count() == 1
    assert IdempotencyRecord.objects.filter(user=croupier, key="tablet-7-0001").count() == 1
    step = CoupStep.objects.get(coup_id=coup, kind="bet")
    assert step.idempotency_key == "tablet-7-0001"  # the step carries the request that made it


def test_a_replayed_coup_start_starts_no_second_coup(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    first = api.post(f"/tables/{table.pk}/coups/", {"bank": 100}, key="start-1")
    after = row_counts()
    again = api.post(f"/tables/{table.pk}/coups/", {"bank": 100}, key="start-1")
    assert (first.status_code, again.status_code, again.json()) == (201, 201, first.json())
    assert row_counts() == after and after["Coup"] == 1


def test_the_same_key_for_another_request_is_refused(croupier, table, coup) -> None:
    api = Api(croupier)
    api.ok(api.post(f"/coups/{coup}/steps/", {"step": 1, "kind": "bet", "seat": 2, "amount": 40}, key="k-1"))
    for path, body in (
        (f"/coups/{coup}/steps/", {"step": 2, "kind": "bet", "seat": 3, "amount": 40}),  # another body
        (f"/coups/{coup}/steps/", {"step": 1, "kind": "bet", "seat": 2, "amount": 41}),
        (f"/tables/{table.pk}/session/pause/", {}),  # another path
    ):
        before = row_counts()
        response = api.post(path, body, key="k-1")
        assert response.status_code == 422
        assert problem_body(response) == {
            "code": "idempotency_key_reused",
            "detail": "This Idempotency-Key was already used for a different request: "
            "use a new key for a new request.",
        }
        assert row_counts() == before


def test_a_key_is_per_user(croupier, table, coup) -> None:
    second = UserFactory(username="second_croupier", roles=["croupier"])
    CroupierAssignmentFactory(user=second, table=table)
    one, two = Api(croupier), Api(second)
    one.ok(one.post(f"/coups/{coup}/steps/", {"step": 1, "kind": "bet", "seat": 2, "amount": 40}, key="same"))
    # the same key from another user is his own request; it runs (and here is stale)
    stale = two.post(f"/coups/{coup}/steps/", {"step": 1, "kind": "bet", "seat": 2, "amount": 40}, key="same")
    assert stale.status_code == 409
    two.ok(
        two.post(f"/coups/{coup}/steps/", {"step": 2, "kind": "bet", "seat": 3, "amount": 40}, key="other")
    )
    # but a step keeps its request's key, unique within its coup: the first tablet's key "same"
    # already names step 2 of this coup, so this step is refused and nothing written (use UUIDs)
    clash = two.refuse(f"/coups/{coup}/steps/", {"step": 3, "kind": "bets_closed"}, key="same", status=409)
    assert clash == {
        "code": "write_conflict",
        "detail": "This conflicts with a change recorded meanwhile: reload and retry.",
        "current_step": None,
    }


def test_a_refused_request_is_not_stored_so_a_retry_runs_again(croupier, coup) -> None:
    api = Api(croupier)
    for _ in range(2):  # refused twice: never replayed from a stored refusal
        assert field_errors(
            refused(api, coup, 400, key="retry-me", step=1, kind="bet", seat=2, amount=101)
        ) == {"amount": ["only 100 of the bank is left to cover"]}
    assert not IdempotencyRecord.objects.filter(key="retry-me").exists()
    # corrected, with the same key: it runs
    api.ok(
        api.post(
            f"/coups/{coup}/steps/", {"step": 1, "kind": "bet", "seat": 2, "amount": 100}, key="retry-me"
        )
    )


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("", "This header is required on every POST (Idempotency-Key: a new UUID)."),
        ("has space", "A key is 1 to 64 visible ASCII characters, without spaces."),
        ("x" * 65, "A key is 1 to 64 visible ASCII characters, without spaces."),
    ],
)
def test_a_post_needs_a_well_formed_key(croupier, coup, key, message) -> None:
    body = refused(Api(croupier), coup, 400, key=key, step=1, kind="bet", seat=2, amount=10)
    assert field_errors(body) == {"Idempotency-Key": [message]}


# ---------------------------------------------------------------------------------- stale / over
def test_a_stale_step_is_a_conflict(croupier, coup) -> None:
    api = Api(croupier)
    api.ok(api.step(coup, "bet", seat=2, amount=50, step=1))
    body = refused(api, coup, 409, step=1, kind="bet", seat=3, amount=10)
    assert body == {
        "code": "coup_conflict",
        "detail": "Stale step: the coup is at step 2, not 1.",
        "current_step": 2,
    }
    assert refused(api, coup, 409, step=7, kind="bet", seat=3, amount=10)["current_step"] == 2


def test_no_step_after_the_reveal(croupier, coup) -> None:
    api = Api(croupier)
    api.ok(api.step(coup, "bet", seat=2, amount=100))
    api.ok(api.step(coup, "bets_closed"))
    for kind, card in (
        ("card_to_player", "9H"),
        ("card_to_banker", "2S"),
        ("card_to_player", "KC"),
        ("card_to_banker", "3D"),
    ):
        api.ok(api.step(coup, kind, card=card))
    api.ok(api.step(coup, "player_natural"))
    api.ok(api.step(coup, "reveal"))
    body = refused(api, coup, 409, step=api.seen[coup], kind="reveal")
    assert body == {
        "code": "coup_conflict",
        "detail": "This coup is settled: no more steps.",
        "current_step": 9,
    }


def test_a_step_the_engine_cannot_record_is_a_bad_request(croupier, coup) -> None:
    body = refused(Api(croupier), coup, 400, step=1, kind="card_to_player", card="9H")
    assert body == {
        "code": "invalid",
        "detail": "card_to_player is not possible now (phase betting); expected bet, banco",
    }


# ----------------------------------------------------------------------------------- permissions
def test_who_may_record_a_step(croupier, other_croupier, pit_boss, accountant, outsider, coup) -> None:
    for user in (other_croupier, pit_boss, accountant, outsider):
        body = refused(Api(user), coup, 403, step=1, kind="bet", seat=2, amount=10)
        assert body == {
            "code": "permission_denied",
            "detail": "Only the croupier assigned to this table for the current shift may do this.",
        }
    assert refused(Api(), coup, 401, step=1, kind="bet", seat=2, amount=10) == {
        "code": "not_authenticated",
        "detail": "Authentication credentials were not provided.",
    }


def test_who_may_read_a_coup(croupier, other_croupier, pit_boss, accountant, outsider, coup) -> None:
    assert Api(croupier).get(f"/coups/{coup}/").status_code == 200
    assert Api(pit_boss).get(f"/coups/{coup}/").status_code == 200
    assert Api(accountant).get(f"/coups/{coup}/").status_code == 200
    assert Api(other_croupier).get(f"/coups/{coup}/").status_code == 403
    assert Api(outsider).get(f"/coups/{coup}/").status_code == 403
    assert Api().get(f"/coups/{coup}/").status_code == 401
    assert Api(pit_boss).get("/coups/999999/").status_code == 404
    assert Api(outsider).get("/corrections/").status_code == 403
    assert Api().get("/corrections/").status_code == 401


def test_corrections_by_the_wrong_people(croupier, other_croupier, pit_boss, accountant, coup) -> None:
    # nothing to restore yet: the croupier's request is a conflict, the others' are forbidden
    before = row_counts()
    assert Api(croupier).post(f"/coups/{coup}/correction/", {"cards": []}).status_code == 409
    assert Api(other_croupier).post(f"/coups/{coup}/correction/", {"cards": []}).status_code == 403
    assert Api(pit_boss).post(f"/coups/{coup}/correction/", {"cards": []}).status_code == 403
    assert Api(accountant).post(f"/coups/{coup}/correction/approve/").status_code == 403
    assert Api(croupier).post(f"/coups/{coup}/correction/reject/", {"reason": "no"}).status_code == 403
    assert Api(pit_boss).post(f"/coups/{coup}/correction/approve/").status_code == 409
    assert Api(pit_boss).post("/coups/999999/correction/approve/").status_code == 404
    assert row_counts() == before


def test_unknown_coup_is_not_found(croupier) -> None:
    before = row_counts()
    assert Api(croupier).post("/coups/999999/steps/", {"step": 1, "kind": "bets_closed"}).status_code == 404
    assert row_counts() == before


@pytest.mark.parametrize("number", [2**63, 10**19, 10**20, 99999999999999999999])
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/tables/{n}/coups/", {"bank": 100}),
        ("/coups/{n}/steps/", {"step": 1, "kind": "bets_closed"}),
        ("/coups/{n}/steps/1/amend/", {"card": "9H", "reason": "typo"}),
        ("/coups/{n}/", None),
    ],
    ids=["coup-start", "step", "amend", "coup-read"],
)
def test_an_id_no_row_can_have_is_not_found_whoever_asks(
    croupier, cashier, coup, number, path, body
) -> None:
    """These routes went to the database's own SQL with the id as sent: a number past 64 bits was
    an OverflowError, a 500 for every role. Such an id names no row (core.converters)."""
    before = row_counts()
    for api in (Api(croupier), Api(cashier)):
        url = path.format(n=number)
        response = api.get(url) if body is None else api.post(url, body)
        assert response.status_code == 404, (api.user, response.content[:300])
    assert row_counts() == before


# ------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("card", ["1X", "10Z", "", "XX", "A", 9])
def test_bad_cards_are_field_errors(croupier, coup, card) -> None:
    api = Api(croupier)
    api.ok(api.step(coup, "bet", seat=2, amount=100))
    api.ok(api.step(coup, "bets_closed"))
    body = refused(api, coup, 400, step=3, kind="card_to_player", card=card)
    assert list(field_errors(body)) == ["card"]


def test_cards_as_people_type_them_are_stored_canonical(croupier, coup) -> None:
    api = Api(croupier)
    api.ok(api.step(coup, "bet", seat=2, amount=100))
    api.ok(api.step(coup, "bets_closed"))
    assert api.ok(api.step(coup, "card_to_player", card="10d"))["coup"]["cards"]["player"] == ["TD"]


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (0, "Ensure this value is greater than or equal to 1."),
        (-5, "Ensure this value is greater than or equal to 1."),
        ("ten", "A whole number is required."),
        ("10", "A whole number is required."),
        (10.5, "A whole number is required."),
        (True, "A whole number is required."),
        (None, "This field may not be null."),
        (101, "only 100 of the bank is left to cover"),  # above the uncovered part
        (2**31, "Ensure this value is less than or equal to 2147483647."),
    ],
)
def test_bad_amounts_are_field_errors(croupier, coup, amount, message) -> None:
    body = refused(Api(croupier), coup, 400, step=1, kind="bet", seat=2, amount=amount)
    assert field_errors(body) == {"amount": [message]}


def test_above_the_uncovered_part_after_other_bets(croupier, coup) -> None:
    api = Api(croupier)
    api.ok(api.step(coup, "bet", seat=2, amount=70))
    body = refused(api, coup, 400, step=2, kind="bet", seat=3, amount=31)
    assert field_errors(body) == {"amount": ["only 30 of the bank is left to cover"]}


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"step": 1, "kind": "bet", "seat": 2, "amout": 10}, {"amout": ["Unknown field."]}),
        (
            {"step": 1, "kind": "bet", "seat": 2, "amount": 10, "card": "9H"},
            {"card": ["A bet step does not take this field."]},
        ),
        (
            {"step": 1, "kind": "bets_closed", "amount": 10},
            {"amount": ["A bets_closed step does not take this field."]},
        ),
        (
            {"step": 1, "kind": "bank_declared", "amount": 10},
            {"kind": ['"bank_declared" is not a valid choice.']},
        ),
        ({"step": 1, "kind": "shuffle"}, {"kind": ['"shuffle" is not a valid choice.']}),
        ({"kind": "bets_closed"}, {"step": ["This field is required."]}),
        ({"step": "1", "kind": "bets_closed"}, {"step": ["A whole number is required."]}),
        (
            {"step": 1, "kind": "bet", "amount": 10},
            {"seat": ["Give either the seat number or the spectator, not both."]},
        ),
        ({"step": 1, "kind": "bet", "seat": 9, "amount": 10}, {"seat": ["Nobody sits at seat 9."]}),
        (
            {"step": 1, "kind": "bet", "seat": 13, "amount": 10},
            {"seat": ["Ensure this value is less than or equal to 12."]},
        ),
        ({"step": 1, "kind": "bet", "seat": 2}, {"amount": ["A bet is a positive whole number of chips."]}),
        ({"step": 1, "kind": "banco"}, {"callers": ["Name who called banco."]}),
        (
            {"step": 1, "kind": "banco", "callers": [{"seat": 2, "chair": 1}]},
            {"callers": {"0": {"chair": ["Unknown field."]}}},
        ),
        (
            {"step": 1, "kind": "bet", "seat": 2, "amount": 10, "confirm": "maybe"},
            {"confirm": ["Must be a valid boolean."]},
        ),
    ],
)
def test_bad_step_bodies_are_field_errors(croupier, coup, body, errors) -> None:
    assert field_errors(refused(Api(croupier), coup, 400, **body)) == errors


def test_malformed_json_is_a_bad_request(croupier, coup) -> None:
    before = row_counts()
    response = Api(croupier).client.post(
        f"/api/v1/coups/{coup}/steps/", "{not json", content_type="application/json", HTTP_IDEMPOTENCY_KEY="j"
    )
    assert response.status_code == 400 and problem_body(response)["detail"].startswith("JSON parse error")
    assert row_counts() == before


@pytest.mark.parametrize("bank", [0, -5, "ten", 2**31])
def test_bad_banks_are_field_errors(croupier, table, bank) -> None:
    open_floor(croupier, table)
    before = row_counts()
    response = Api(croupier).post(f"/tables/{table.pk}/coups/", {"bank": bank})
    assert response.status_code == 400 and list(field_errors(problem_body(response))) == ["bank"]
    assert row_counts() == before


def test_a_bank_below_the_minimum_is_refused(croupier, table) -> None:
    floor = open_floor(croupier, table)
    from tables.models import BankTurn

    BankTurn.objects.filter(session=floor.session).update(required_minimum=150)
    before = row_counts()
    response = Api(croupier).post(f"/tables/{table.pk}/coups/", {"bank": 100})
    assert response.status_code == 400
    assert field_errors(problem_body(response)) == {"amount": ["the bank must be at least 150"]}
    assert row_counts() == before


def test_a_coup_start_s_refusals_keep_their_order(croupier, other_croupier, table) -> None:
    """A coup's start answers the table's refusals in the order every write at a table does: no
    such table (404), not its croupier (403), a body not valid (400, the field), no session open
    (400) — each before the next, though one statement, the start's lock, now answers the first,
    the second and the fourth."""
    from tests.factories import TableFactory

    elsewhere = TableFactory()  # another casino's table: its croupier is not ours
    api, stranger = Api(croupier), Api(other_croupier)
    not_found = {"code": "not_found", "detail": "No Table matches the given query."}
    assert api.refuse("/tables/999999/coups/", {"bank": "ten"}, status=404) == not_found
    not_here = {
        "code": "permission_denied",
        "detail": "Only the croupier assigned to this table for the current shift may do this.",
    }
    assert stranger.refuse(f"/tables/{table.pk}/coups/", {"bank": "ten"}, status=403) == not_here
    assert api.refuse(f"/tables/{elsewhere.pk}/coups/", {"bank": "ten"}, status=403) == not_here
    invalid = api.refuse(f"/tables/{table.pk}/coups/", {"bank": "ten"}, status=400)
    assert list(field_errors(invalid)) == ["bank"]
    assert api.refuse(f"/tables/{table.pk}/coups/", {"bank": 100}, status=400) == {
        "code": "invalid",
        "detail": "This table has no open session.",
    }
    # a session once open and closed is none open either
    from tables import services

    session = services.table_session_open(actor=croupier, table=table)
    services.table_session_close(actor=croupier, session=session, reason="end of the night")
    assert api.refuse(f"/tables/{table.pk}/coups/", {"bank": 100}, status=400) == {
        "code": "invalid",
        "detail": "This table has no open session.",
    }
    # and once a session is open, the start goes on to its own refusals (no shoe yet)
    services.table_session_open(actor=croupier, table=table)
    assert api.refuse(f"/tables/{table.pk}/coups/", {"bank": 100}, status=400) == {
        "code": "invalid",
        "detail": "Start a shoe first.",
    }

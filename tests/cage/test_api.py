"""The cage's REST endpoints: buy-in and cash-out (idempotent POSTs, the cage only), a player's
balance and history (who may read what), and nothing written by any refusal."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils import timezone

from cage import services
from compliance.models import CashReport, PlayerIdentification
from ledger.models import Account, Transaction
from tables.gaming_day import casino_calendar
from tests.problems import field_errors, problem_body
from tests.tables.api.conftest import Api

from .conftest import counts, key, new_player, new_seat, new_session, new_spectator, owes

pytestmark = pytest.mark.django_db

BUY_IN, CASH_OUT = "/cage/buy-in/", "/cage/cash-out/"


def balance_path(player) -> str:
    return f"/players/{player.pk}/balance/"


def history_path(player) -> str:
    return f"/players/{player.pk}/history/"


def refused(api: Api, path: str, body, status: int, **headers) -> dict:
    before = counts()
    response = api.post(path, body, **headers)
    assert response.status_code == status, response.content[:1000]
    assert counts() == before
    return problem_body(response)


def test_a_buy_in_answers_the_receipt(cashier, dupont) -> None:
    api = Api(cashier)
    body = api.ok(api.post(BUY_IN, {"player": dupont.pk, "amount": 500}))
    txn = Transaction.objects.get(kind=Transaction.Kind.BUY_IN)
    assert body == {
        "player": {"id": dupont.pk, "display_name": "M. Dupont", "membership_number": "M-1001"},
        "casino": dupont.casino_id,
        "balance": 500,
        "marker": 0,
        "reserve": 0,
        "transaction": txn.pk,
        "kind": "buy_in",
        "amount": 500,
        "posted_at": body["posted_at"],
        "actor": "cashier",
    }
    out = api.ok(api.post(CASH_OUT, {"player": dupont.pk, "amount": 120}))
    assert (out["kind"], out["balance"]) == ("cash_out", 380)
    assert Account.objects.get(kind=Account.Kind.CAGE).balance == -380


def test_a_resent_buy_in_replays_the_first_answer_and_posts_once(cashier, dupont) -> None:
    api = Api(cashier)
    once = key()
    first = api.post(BUY_IN, {"player": dupont.pk, "amount": 500}, key=once)
    before = counts()
    again = api.post(BUY_IN, {"player": dupont.pk, "amount": 500}, key=once)
    assert (again.status_code, again["Idempotent-Replayed"]) == (201, "true")
    assert again.json() == first.json()
    assert counts() == before
    # the same key with another body: 422, nothing written
    body = refused(api, BUY_IN, {"player": dupont.pk, "amount": 501}, 422, key=once)
    assert body["code"] == "idempotency_key_reused"


def test_a_post_without_an_idempotency_key_is_refused(cashier, dupont) -> None:
    body = refused(Api(cashier), BUY_IN, {"player": dupont.pk, "amount": 5}, 400, key="")
    assert "Idempotency-Key" in body


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"player": 1, "amount": 0}, "amount"),
        ({"player": 1, "amount": -5}, "amount"),
        ({"player": 1, "amount": "100"}, "amount"),
        ({"player": 1, "amount": 10.0}, "amount"),
        ({"player": 1, "amount": 10**12}, "amount"),
        ({"player": 1}, "amount"),
        ({"player": "1", "amount": 5}, "player"),
        ({"player": 1, "amount": 5, "amout": 5}, "amout"),
    ],
)
def test_malformed_bodies_are_refused(cashier, dupont, body, field) -> None:
    body = {**body, "player": dupont.pk} if body.get("player") == 1 else body
    assert field in refused(Api(cashier), BUY_IN, body, 400)


def test_an_amount_above_the_cage_limit_is_refused(cashier, dupont, settings) -> None:
    settings.CAGE_MAX_AMOUNT = 1000
    body = refused(Api(cashier), BUY_IN, {"player": dupont.pk, "amount": 1001}, 400)
    assert field_errors(body) == {"amount": ["A buy-in moves at most 1000 chips at once."]}


def test_a_cash_out_above_the_balance_is_refused(cashier, dupont) -> None:
    api = Api(cashier)
    # a program's client that carries a screen's language cookie: the API answers in English still
    api.client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    api.ok(api.post(BUY_IN, {"player": dupont.pk, "amount": 100}))
    body = refused(api, CASH_OUT, {"player": dupont.pk, "amount": 101}, 400)
    assert body == {
        "code": "invalid",
        "detail": "M. Dupont has only 100 chips; a cash-out of 101 is refused.",
    }


def test_an_unknown_player_is_404(cashier) -> None:
    refused(Api(cashier), BUY_IN, {"player": 987654, "amount": 5}, 404)
    assert Api(cashier).get("/players/987654/balance/").status_code == 404


@pytest.mark.parametrize("persona", ["croupier", "pit_boss", "accountant", "outsider"])
def test_only_the_cage_posts(request, dupont, persona) -> None:
    api = Api(request.getfixturevalue(persona))
    for path in (BUY_IN, CASH_OUT):
        assert refused(api, path, {"player": dupont.pk, "amount": 5}, 403) == {
            "code": "permission_denied",
            "detail": "Only the cage may sell chips or cash them in.",
        }


def test_anonymous_clients_get_401_and_nothing_changes(dupont) -> None:
    api = Api()
    refused(api, BUY_IN, {"player": dupont.pk, "amount": 5}, 401)
    assert api.get(balance_path(dupont)).status_code == 401
    assert api.get(history_path(dupont)).status_code == 401


def test_a_superuser_may_post(superuser, dupont) -> None:
    api = Api(superuser)
    assert api.ok(api.post(BUY_IN, {"player": dupont.pk, "amount": 5}))["balance"] == 5


# ------------------------------------------------------------------------------------- reading
def test_the_balance_shows_the_marker(cashier, casino, dupont) -> None:
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=100, key=key())
    owes(casino, dupont, 160)
    body = Api(cashier).ok(Api(cashier).get(balance_path(dupont)), 200)
    assert (body["balance"], body["marker"], body["reserve"]) == (-60, 60, 0)


@pytest.mark.parametrize("persona", ["cashier", "pit_boss", "accountant", "superuser"])
def test_the_cage_pit_boss_and_accountant_read_balances_and_history(
    request, casino, cashier, dupont, persona
):
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=100, key=key())
    services.cage_cash_out(actor=cashier, casino=casino, player=dupont, amount=30, key=key())
    api = Api(request.getfixturevalue(persona))
    assert api.ok(api.get(balance_path(dupont)), 200)["balance"] == 70
    history = api.ok(api.get(history_path(dupont)), 200)
    assert history["count"] == 2 and history["next"] is None
    assert [(e["kind"], e["amount"], e["balance_after"]) for e in history["results"]] == [
        ("cash_out", -30, 70),
        ("buy_in", 100, 100),
    ]
    assert history["results"][1]["what"] == "buy-in at the cage"


def test_the_history_is_paginated(cashier, casino, dupont) -> None:
    for _ in range(51):
        services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=2, key=key())
    api = Api(cashier)
    first = api.ok(api.get(history_path(dupont)), 200)
    assert (first["count"], len(first["results"]), first["results"][0]["balance_after"]) == (51, 50, 102)
    last = api.ok(api.get(history_path(dupont) + "?page=2"), 200)
    assert [e["balance_after"] for e in last["results"]] == [2]


def test_a_croupier_reads_the_balances_of_the_players_at_his_table_only(
    croupier, table, other_table, casino, cashier, dupont
) -> None:
    services.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=100, key=key())
    api = Api(croupier)
    assert api.get(balance_path(dupont)).status_code == 403  # nowhere yet
    elsewhere = new_seat(session=new_session(table=other_table), player=dupont, number=1)
    assert api.get(balance_path(dupont)).status_code == 403  # at another croupier's table
    elsewhere.left_at = timezone.now()
    elsewhere.save()
    session = new_session(table=table)
    seat = new_seat(session=session, player=dupont, number=3)
    assert api.ok(api.get(balance_path(dupont)), 200)["balance"] == 100
    assert api.get(history_path(dupont)).status_code == 403  # his history is the back office's
    seat.left_at = timezone.now()
    seat.save()
    assert api.get(balance_path(dupont)).status_code == 403  # he left
    new_spectator(session=session, player=dupont)
    assert api.get(balance_path(dupont)).status_code == 200  # standing at the table counts


def test_outsiders_read_nothing(outsider, dupont) -> None:
    api = Api(outsider)
    assert api.get(balance_path(dupont)).status_code == 403
    assert api.get(history_path(dupont)).status_code == 403


# ------------------------------------------------------------------ finding a player (a device)
def test_the_cage_finds_players_by_name_or_number_with_their_chips(cashier, casino, dupont, stranger) -> None:
    leroy = new_player(casino=casino, display_name="Mme Leroy", membership_number="M-1002")
    services.cage_buy_in(actor=cashier, casino=casino, player=leroy, amount=700, key=key())
    owes(casino, dupont, 300)
    api = Api(cashier)
    everyone = api.ok(api.get(f"/cage/players/?casino={casino.pk}"), 200)
    assert everyone["count"] == 2 and everyone["next"] is None
    assert [(p["player"]["display_name"], p["balance"], p["marker"]) for p in everyone["results"]] == [
        ("M. Dupont", -300, 300),
        ("Mme Leroy", 700, 0),
    ]
    by_number = api.ok(api.get(f"/cage/players/?casino={casino.pk}&search=M-1002"), 200)
    assert [p["player"]["id"] for p in by_number["results"]] == [leroy.pk]
    by_name = api.ok(api.get(f"/cage/players/?casino={casino.pk}&search=dup"), 200)
    assert [p["player"]["id"] for p in by_name["results"]] == [dupont.pk]


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("", 400, "invalid"),
        ("?casino=abc", 400, "invalid"),
        ("?casino=0", 400, "invalid"),
        ("?casino=999999", 404, "not_found"),
    ],
)
def test_finding_players_needs_a_casino(cashier, casino, query, status, code) -> None:
    response = Api(cashier).get(f"/cage/players/{query}")
    assert response.status_code == status
    assert problem_body(response)["code"] == code


@pytest.mark.parametrize(("persona", "status"), [("croupier", 403), ("outsider", 403), (None, 401)])
def test_only_who_reads_chips_finds_players(request, casino, dupont, persona, status) -> None:
    user = request.getfixturevalue(persona) if persona else None
    response = Api(user).get(f"/cage/players/?casino={casino.pk}")
    assert response.status_code == status
    assert "results" not in response.json()


# ------------------------------------------------------------------------ cash-transaction compliance
def test_a_buy_in_above_the_day_s_report_threshold_needs_the_document_in_the_body(cashier, dupont) -> None:
    api = Api(cashier)
    api.ok(api.post(BUY_IN, {"player": dupont.pk, "amount": 10_000}))
    before = {**counts(), "reports": CashReport.objects.count()}
    body = refused(api, BUY_IN, {"player": dupont.pk, "amount": 1}, 400)
    assert body == {
        "code": "identification_required",
        "detail": "M. Dupont must be identified before this buy-in of 1 chips (today's buy-ins would reach "
        "10001 chips): give the identity document's type and number.",
    }
    half = refused(api, BUY_IN, {"player": dupont.pk, "amount": 1, "document_type": "passport"}, 400)
    assert field_errors(half) == {"document_number": ["Type the document's number (at most 40 characters)."]}
    assert {**counts(), "reports": CashReport.objects.count()} == before
    with_it = {"player": dupont.pk, "amount": 1, "document_type": "passport", "document_number": "12AB34567"}
    assert api.ok(api.post(BUY_IN, with_it))["balance"] == 10_001
    assert list(CashReport.objects.values_list("player", "direction", "total")) == [(dupont.pk, "in", 10_001)]
    assert PlayerIdentification.objects.get(player=dupont).masked == "****4567"


STRING = "A string is required."


@pytest.mark.parametrize(
    ("document", "errors"),
    [
        ({"document_type": "passport", "document_number": 123456789}, {"document_number": [STRING]}),
        ({"document_type": 1, "document_number": "12AB34567"}, {"document_type": [STRING]}),
    ],
)
def test_an_identity_document_is_json_strings_not_numbers_turned_into_text(
    cashier, dupont, document, errors
) -> None:
    """``"document_number": 123456789`` was kept as the text "123456789" on the player's file."""
    api = Api(cashier)
    api.ok(api.post(BUY_IN, {"player": dupont.pk, "amount": 10_000}))
    before = {**counts(), "identified": PlayerIdentification.objects.count()}
    body = refused(api, BUY_IN, {"player": dupont.pk, "amount": 1, **document}, 400)
    assert field_errors(body) == errors
    assert {**counts(), "identified": PlayerIdentification.objects.count()} == before


def test_the_cage_reads_a_player_s_cash_today_and_nobody_else(cashier, pit_boss, dupont) -> None:
    api = Api(cashier)
    api.ok(api.post(BUY_IN, {"player": dupont.pk, "amount": 700}))
    api.ok(api.post(CASH_OUT, {"player": dupont.pk, "amount": 200}))
    body = api.ok(api.get(f"/players/{dupont.pk}/cash-today/"), 200)
    assert body == {
        "player": dupont.pk,
        "gaming_day": body["gaming_day"],
        "cash_in": 700,
        "cash_out": 200,
        "identified": False,
    }
    assert body["gaming_day"] == casino_calendar(dupont.casino).today(timezone.now()).isoformat()
    assert Api(pit_boss).get(f"/players/{dupont.pk}/cash-today/").status_code == 403

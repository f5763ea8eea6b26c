"""A table driven through the REST API step by step: every step kind, the engine's answers on the
way (next steps, requirement, advice, verdict), the confirmation of a step against the rules, the
correction flow with a second client approving, the interchange record."""

from __future__ import annotations

import re
from typing import Any

import pytest

from audit.selectors import audit_chains_verify
from chemin_de_fer.engine.coup import Restored
from chemin_de_fer.engine.interchange import record_from_dict
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.profiles import BUILTIN
from tables.models import Coup, CoupStep, StepKind
from tests.factories import CroupierAssignmentFactory, UserFactory
from tests.problems import field_errors, problem_body
from tests.tables.play import open_floor, row_counts

from .conftest import Api

pytestmark = pytest.mark.django_db

EV = re.compile(r"^-?\d+\.\d{8}$")


def kinds(coup: dict[str, Any]) -> list[str]:
    return [n["kind"] for n in coup["next_steps"]]


def start(api: Api, table_id: int, bank: int) -> dict[str, Any]:
    return api.ok(api.post(f"/tables/{table_id}/coups/", {"bank": bank}))["coup"]


def deal(api: Api, coup_id: int, p1: str, b1: str, p2: str, b2: str) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for kind, card in (
        ("card_to_player", p1),
        ("card_to_banker", b1),
        ("card_to_player", p2),
        ("card_to_banker", b2),
    ):
        body = api.ok(api.step(coup_id, kind, card=card))
    return body["coup"]


# ---------------------------------------------------------------------------------- coup by coup
def coup_with_draws_and_options(api: Api, table_id: int) -> dict[str, Any]:
    """Bank 200 covered by three bets; the player draws on his free 5, the banker on his free
    3 against a 9: the engine advises at both option points. Banker wins 8 to 4, levy 10."""
    coup = start(api, table_id, 200)
    assert (coup["step_count"], coup["phase"], coup["state"]) == (1, "betting", "open")
    assert kinds(coup) == ["bet", "banco"]
    assert coup["steps"][0]["kind"] == "bank_declared" and coup["steps"][0]["payload"]["amount"] == 200
    cid = coup["id"]
    for seat, amount in ((2, 120), (3, 50), (4, 30)):
        coup = api.ok(api.step(cid, "bet", seat=seat, amount=amount))["coup"]
    assert (coup["covered"], coup["uncovered"], kinds(coup)) == (200, 0, ["bets_closed"])
    assert coup["bets"] == [
        {"punter": "seat-2", "amount": 120, "spectator": False},
        {"punter": "seat-3", "amount": 50, "spectator": False},
        {"punter": "seat-4", "amount": 30, "spectator": False},
    ]
    coup = api.ok(api.step(cid, "bets_closed"))["coup"]
    assert (coup["phase"], kinds(coup)) == ("dealing", ["card_to_player"])
    coup = deal(api, cid, "2h", "AS", "3C", "2D")  # typed cards are stored canonical
    assert coup["cards"] == {"player": ["2H", "3C"], "banker": ["AS", "2D"]}
    assert coup["phase"] == "player_to_act"
    assert coup["requirement"] == {"side": "player", "requirement": "option"}
    assert coup["next_steps"] == [
        {"kind": "player_draw", "violation": None},
        {"kind": "player_stand", "violation": None},
    ]
    advice = coup["advice"]
    assert advice["chooser"] == "player" and advice["choice"] in ("draw", "stand")
    assert EV.match(advice["ev_draw"]) and EV.match(advice["ev_stand"]) and advice["basis"] == "shoe"
    assert advice["assumption"]
    coup = api.ok(api.step(cid, "player_draw"))["coup"]
    assert (coup["advice"], kinds(coup)) == (None, ["card_to_player"])
    coup = api.ok(api.step(cid, "card_to_player", card="9H"))["coup"]
    assert coup["requirement"] == {"side": "banker", "requirement": "option"}
    assert coup["advice"]["chooser"] == "banker"
    assert kinds(coup) == ["banker_draw", "banker_stand"]
    coup = api.ok(api.step(cid, "banker_draw"))["coup"]
    coup = api.ok(api.step(cid, "card_to_banker", card="5S"))["coup"]
    assert kinds(coup) == ["reveal"]
    body = api.ok(api.step(cid, "reveal"))
    coup = body["coup"]
    assert body["step"]["kind"] == "reveal" and body["step"]["index"] == 14
    assert (coup["state"], coup["phase"], coup["step_count"], coup["flagged"]) == (
        "settled",
        "done",
        14,
        False,
    )
    verdict = coup["verdict"]
    assert (verdict["outcome"], verdict["player_total"], verdict["banker_total"]) == ("banker", 4, 8)
    assert verdict["settlement"] == {
        "covered": 200, "uncovered": 0, "tax": 10, "banker_net": 190,
        "punters": {"seat-2": -120, "seat-3": -50, "seat-4": -30}, "next_bank_min": 390,
    }  # fmt: skip
    assert verdict["violations"] == [] and coup["violations"] == [] and coup["next_steps"] == []
    return coup


def coup_banco_and_banker_natural(api: Api, table_id: int, bank: int, spectator_id: int) -> dict[str, Any]:
    """A spectator and seat 3 call banco: the seated caller takes the bank alone. The banker shows
    a natural 8 against the player's 5."""
    coup = start(api, table_id, bank)
    cid = coup["id"]
    coup = api.ok(api.step(cid, "banco", callers=[{"spectator": spectator_id}, {"seat": 3}]))["coup"]
    assert coup["banco"] and coup["bets"] == [{"punter": "seat-3", "amount": bank, "spectator": False}]
    assert kinds(coup) == ["bets_closed"]
    api.ok(api.step(cid, "bets_closed"))
    coup = deal(api, cid, "4H", "5D", "AC", "3S")
    # the banker's natural will decide: whatever the player says is moot
    assert coup["requirement"] is None and coup["advice"] is None
    assert kinds(coup) == ["player_draw", "player_stand"]
    coup = api.ok(api.step(cid, "player_stand"))["coup"]
    assert coup["next_steps"][0] == {"kind": "banker_natural", "violation": None}
    assert coup["next_steps"][1]["violation"] == {"code": "NATURAL_NOT_SHOWN", "side": "banker", "detail": ""}
    api.ok(api.step(cid, "banker_natural"))
    coup = api.ok(api.step(cid, "reveal"))["coup"]
    assert (coup["state"], coup["verdict"]["outcome"], coup["verdict"]["banker_total"]) == (
        "settled",
        "banker",
        8,
    )
    return coup


def coup_player_natural(api: Api, table_id: int, bank: int, bettor_seat: int) -> dict[str, Any]:
    """The player shows a natural 9 at once: the banker loses the bank. The croupier typed the 9H
    as a 6H and amends it before going on (the 6H stays in the steps, superseded)."""
    coup = start(api, table_id, bank)
    cid = coup["id"]
    api.ok(api.step(cid, "bet", seat=bettor_seat, amount=bank))
    api.ok(api.step(cid, "bets_closed"))
    coup = deal(api, cid, "6H", "2S", "KC", "3D")
    typo = next(s["index"] for s in coup["steps"] if s["payload"].get("card") == "6H")
    body = api.ok(api.post(f"/coups/{cid}/steps/{typo}/amend/", {"card": "9h", "reason": "read 6 for 9"}))
    coup = body["coup"]
    assert (body["step"]["kind"], body["step"]["supersedes"]) == ("amend", typo)
    assert coup["steps"][typo - 1]["superseded_by"] == body["step"]["index"]
    assert coup["cards"] == {"player": ["9H", "KC"], "banker": ["2S", "3D"]}
    assert coup["next_steps"] == [
        {"kind": "player_natural", "violation": None},
        {"kind": "player_draw", "violation": {"code": "NATURAL_NOT_SHOWN", "side": "player", "detail": ""}},
        {"kind": "player_stand", "violation": {"code": "NATURAL_NOT_SHOWN", "side": "player", "detail": ""}},
    ]
    coup = api.ok(api.step(cid, "player_natural"))["coup"]
    assert kinds(coup) == ["reveal"]
    coup = api.ok(api.step(cid, "reveal"))["coup"]
    assert (coup["state"], coup["verdict"]["outcome"]) == ("settled", "player")
    return coup


def coup_banker_stood_wrongly(api: Api, table_id: int, bank: int) -> dict[str, Any]:
    """The banker stands on 5 against a 6 (he must draw): refused until confirmed, then recorded
    and flagged; the restored game needs one more card from the shoe."""
    coup = start(api, table_id, bank)
    cid = coup["id"]
    api.ok(api.step(cid, "bet", seat=2, amount=60))
    api.ok(api.step(cid, "bet", seat=4, amount=40))
    api.ok(api.step(cid, "bets_closed"))
    deal(api, cid, "TH", "3S", "2C", "2H")
    coup = api.ok(api.step(cid, "player_draw"))["coup"]
    assert coup["requirement"] is None  # the card is owed first
    coup = api.ok(api.step(cid, "card_to_player", card="6D"))["coup"]
    assert coup["requirement"] == {"side": "banker", "requirement": "draw"}
    assert coup["next_steps"] == [
        {"kind": "banker_draw", "violation": None},
        {"kind": "banker_stand", "violation": {"code": "BANKER_SHOULD_DRAW", "side": "banker", "detail": ""}},
    ]
    before = row_counts()
    refused = api.step(cid, "banker_stand")
    assert refused.status_code == 422
    assert problem_body(refused) == {
        "code": "confirmation_required",
        "detail": "BANKER_SHOULD_DRAW: confirm that this happened at the table",
        "violation": {"code": "BANKER_SHOULD_DRAW", "side": "banker", "detail": ""},
    }
    assert row_counts() == before
    body = api.ok(api.step(cid, "banker_stand", confirm=True))
    assert body["step"]["violations"] == ["BANKER_SHOULD_DRAW"]
    assert body["coup"]["flagged"] is True
    assert body["coup"]["violations"] == [
        {"step": 11, "code": "BANKER_SHOULD_DRAW", "side": "banker", "detail": ""}
    ]
    coup = api.ok(api.step(cid, "reveal"))["coup"]
    assert coup["state"] == "awaiting_correction"
    assert coup["verdict"]["violations"] == [{"code": "BANKER_SHOULD_DRAW", "side": "banker", "detail": ""}]
    assert coup["restoration"] == {"needs_cards": 1}
    return coup


def correct_with_one_card(croupier: Api, pit_boss: Api, coup_id: int, accountant: Api) -> dict[str, Any]:
    before = row_counts()
    missing = croupier.post(f"/coups/{coup_id}/correction/", {"cards": []})
    assert missing.status_code == 400
    assert field_errors(problem_body(missing)) == {
        "cards": ["The restored game needs 1 more card from the shoe: deal them."]
    }
    bad = croupier.post(f"/coups/{coup_id}/correction/", {"cards": ["1X"]})
    assert bad.status_code == 400 and list(field_errors(problem_body(bad))) == ["cards"]
    assert row_counts() == before
    body = croupier.ok(croupier.post(f"/coups/{coup_id}/correction/", {"cards": ["4c"]}))
    assert body["step"]["kind"] == "correction" and body["step"]["corrects"] == 11
    coup = body["coup"]
    assert coup["state"] == "awaiting_approval"
    assert coup["correction"]["payload"]["restored"] == {
        "player_cards": ["TH", "2C", "6D"], "banker_cards": ["3S", "2H", "4C"],
        "player_total": 8, "banker_total": 9, "outcome": "banker", "void_cards": [],
    }  # fmt: skip
    # the queue the pit boss works from (the accountant reads it too; the croupier does not)
    queue = pit_boss.ok(pit_boss.get("/corrections/"), 200)
    assert [item["coup"] for item in queue["results"]] == [coup_id]
    assert queue["results"][0]["correction"]["actor"] == "croupier"
    assert accountant.get("/corrections/").status_code == 200
    assert croupier.get("/corrections/").status_code == 403
    # approval: in a second client, by a pit boss
    croupier.refuse(f"/coups/{coup_id}/correction/approve/", status=403)
    accountant.refuse(f"/coups/{coup_id}/correction/reject/", {"reason": "no"}, status=403)
    body = pit_boss.ok(pit_boss.post(f"/coups/{coup_id}/correction/approve/"))
    assert body["step"]["kind"] == "correction_approved" and body["step"]["actor"] == "pitboss"
    assert body["coup"]["state"] == "settled"
    assert pit_boss.ok(pit_boss.get("/corrections/"), 200)["results"] == []
    return body


def coup_player_drew_wrongly(api: Api, table_id: int, bank: int) -> dict[str, Any]:
    """The player draws on 7 (he must stand); the restored game needs no other card."""
    coup = start(api, table_id, bank)
    cid = coup["id"]
    api.ok(api.step(cid, "bet", seat=2, amount=100))
    api.ok(api.step(cid, "bets_closed"))
    deal(api, cid, "4D", "3H", "3C", "TD")
    before = row_counts()
    assert api.step(cid, "player_draw").json()["violation"]["code"] == "PLAYER_SHOULD_STAND"
    assert row_counts() == before
    api.ok(api.step(cid, "player_draw", confirm=True))
    api.ok(api.step(cid, "card_to_player", card="2S"))
    api.ok(api.step(cid, "banker_draw"))
    api.ok(api.step(cid, "card_to_banker", card="6H"))
    coup = api.ok(api.step(cid, "reveal"))["coup"]
    assert coup["state"] == "awaiting_correction"
    assert coup["restoration"] == {
        "player_cards": ["4D", "3C"], "banker_cards": ["3H", "TD", "2S"],
        "player_total": 7, "banker_total": 5, "outcome": "player", "void_cards": ["6H"],
    }  # fmt: skip
    return coup


# ------------------------------------------------------------------------------------------ tests
def test_a_clean_coup_through_the_api_with_advice_at_both_options(croupier, table, accountant) -> None:
    floor = open_floor(croupier, table)
    api = Api(croupier)
    coup = coup_with_draws_and_options(api, table.pk)
    detail = Api(accountant).ok(Api(accountant).get(f"/coups/{coup['id']}/"), 200)
    assert detail == coup  # a reader sees exactly what the croupier's client saw
    state = api.ok(api.get(f"/tables/{table.pk}/"), 200)
    assert state["bank"]["required_minimum"] == 390 and state["bank"]["seat"] == 1
    assert (state["current_coup"], state["last_coup"]) == (None, coup["id"])
    assert state["shoe"]["cards_dealt"] == 3 + 6 and state["shoe"]["cards_left"] == 312 - 9
    assert [s["number"] for s in state["seats"]] == [1, 2, 3, 4]
    assert floor.shoe.pk == state["shoe"]["id"]
    assert all(report.ok for report in audit_chains_verify())  # every chain


def test_every_step_kind_through_the_api_in_one_session(croupier, table, pit_boss, accountant) -> None:
    floor = open_floor(croupier, table, spectators=1)
    api, boss, reader = Api(croupier), Api(pit_boss), Api(accountant)
    coup_with_draws_and_options(api, table.pk)
    banco = coup_banco_and_banker_natural(api, table.pk, 390, floor.spectators[0].pk)
    assert banco["verdict"]["settlement"]["next_bank_min"] == 761  # 390 + 390 - 19

    flagged = coup_banker_stood_wrongly(api, table.pk, 761)
    # a flagged coup blocks the next one until it is restored
    blocked = api.refuse(f"/tables/{table.pk}/coups/", {"bank": 761}, status=400)
    assert blocked["detail"].startswith("First restore coup")
    approved = correct_with_one_card(api, boss, flagged["id"], reader)
    assert approved["step"]["payload"]["settlement"]["next_bank_min"] == 856  # 761 + 100 - 5

    # a flagged coup nobody can restore (say the shoe's next card is gone): a pit boss voids it;
    # every bet is returned and the bank stays as declared
    unrestorable = coup_player_drew_wrongly(api, table.pk, 856)
    api.refuse(f"/coups/{unrestorable['id']}/void/", {"reason": "cards gone"}, status=403)
    voided = boss.ok(boss.post(f"/coups/{unrestorable['id']}/void/", {"reason": "the next card is gone"}))
    assert (voided["step"]["kind"], voided["coup"]["state"]) == ("coup_voided", "void")
    assert api.ok(api.get(f"/tables/{table.pk}/"), 200)["bank"]["required_minimum"] == 856

    wrong = coup_player_drew_wrongly(api, table.pk, 856)
    api.ok(api.post(f"/coups/{wrong['id']}/correction/", {"cards": []}))
    blank = boss.refuse(f"/coups/{wrong['id']}/correction/reject/", {"reason": " "}, status=400)
    assert field_errors(blank) == {"reason": ["This field may not be blank."]}
    rejected = boss.ok(boss.post(f"/coups/{wrong['id']}/correction/reject/", {"reason": "recheck the cards"}))
    assert (
        rejected["step"]["kind"] == "correction_rejected"
        and rejected["coup"]["state"] == "awaiting_correction"
    )
    api.ok(api.post(f"/coups/{wrong['id']}/correction/", {"cards": []}))
    settled = boss.ok(boss.post(f"/coups/{wrong['id']}/correction/approve/"))["coup"]
    assert settled["state"] == "settled"
    assert [s["kind"] for s in settled["steps"][-4:]] == [
        "correction", "correction_rejected", "correction", "correction_approved"
    ]  # fmt: skip

    # the restored player win lost the bank: it goes round in turn, refusals skipped
    state = api.ok(api.get(f"/tables/{table.pk}/"), 200)
    assert state["bank"] is None
    rotation = state["bank_rotation"]
    assert (rotation["how"], rotation["offer_to"]) == ("rotation", rotation["order"][0])
    first, second = rotation["order"][:2]
    wrong_seat = api.refuse(f"/tables/{table.pk}/bank/offer/", {"seat": second, "accept": True}, status=400)
    assert f"seat {first}" in wrong_seat["detail"]
    state = api.ok(api.post(f"/tables/{table.pk}/bank/offer/", {"seat": first, "accept": False}))
    assert state["bank_rotation"]["offer_to"] == second
    state = api.ok(api.post(f"/tables/{table.pk}/bank/offer/", {"seat": second, "accept": True}))
    assert (state["bank"]["seat"], state["bank"]["started_how"], state["bank_rotation"]) == (
        second,
        "rotation",
        None,
    )
    bettor = next(n for n in (1, 2, 3, 4) if n != second)
    # a bank nobody bets on is withdrawn (RULES.md §7): the banker keeps it for the next deal
    nobody = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]
    assert api.ok(api.post(f"/coups/{nobody['id']}/withdraw/", {}))["coup"]["state"] == "withdrawn"
    coup_player_natural(api, table.pk, 100, bettor)

    recorded = set(CoupStep.objects.values_list("kind", flat=True))
    assert recorded == {k.value for k in StepKind}
    assert Coup.objects.filter(shoe=floor.shoe).count() == 7  # the voided and the withdrawn included
    assert all(report.ok for report in audit_chains_verify())  # every chain


def test_record_export_matches_the_approved_restoration(croupier, table, pit_boss, accountant) -> None:
    floor = open_floor(croupier, table)
    api, boss, reader = Api(croupier), Api(pit_boss), Api(accountant)
    flagged = coup_banker_stood_wrongly(api, table.pk, 100)["id"]
    approved = correct_with_one_card(api, boss, flagged, reader)
    record = reader.ok(reader.get(f"/coups/{flagged}/record/"), 200)
    # docs/coup-record.md: the optional keys (spectator, house_limit, ...) only when not their default
    assert record == {
        "id": f"T{table.pk}-session{floor.session.pk}-shoe1-coup1", "profile": "casino", "bank": 100,
        # in betting order: the casino bets from the banker's right (seat 1: 12, 11, ... 4, 3, 2)
        "bets": [{"punter": "seat-4", "amount": 40}, {"punter": "seat-2", "amount": 60}],
        "banco": False, "first_coup_of_bank": True,
        "player": {"cards": ["TH", "2C", "6D"], "action": "draw"},
        "banker": {"cards": ["3S", "2H"], "action": "stand"},
        "shoe_next": ["4C"],
    }  # fmt: skip
    # re-judged offline by the same engine, the record gives the approved settlement
    verdict = judge_coup(
        record_from_dict(record, known_profiles=BUILTIN), Rules.for_profile(BUILTIN["casino"])
    )
    assert isinstance(verdict.restored, Restored)
    assert verdict.restored.banker_cards == ("3S", "2H", "4C")
    settlement = approved["step"]["payload"]["settlement"]
    assert verdict.settlement is not None
    assert (verdict.settlement.tax, dict(verdict.settlement.punters)) == (
        settlement["tax"],
        settlement["punters"],
    )
    assert boss.get(f"/coups/{flagged}/record/").status_code == 200
    assert api.get(f"/coups/{flagged}/record/").status_code == 403  # croupiers do not export
    unfinished = start(api, table.pk, 195)
    conflict = reader.get(f"/coups/{unfinished['id']}/record/")
    assert conflict.status_code == 409
    assert problem_body(conflict) == {
        "code": "coup_conflict",
        "detail": "The coup is not finished: it has no record yet.",
        "current_step": 1,
    }


def test_a_pit_boss_never_approves_his_own_correction(croupier, table) -> None:
    floor = open_floor(croupier, table)
    both = UserFactory(username="croupier_and_boss", roles=["croupier", "pit_boss"])
    CroupierAssignmentFactory(user=both, table=table)
    api = Api(both)
    flagged = coup_banker_stood_wrongly(api, table.pk, 100)
    api.ok(api.post(f"/coups/{flagged['id']}/correction/", {"cards": ["4C"]}))
    before = row_counts()
    own = api.post(f"/coups/{flagged['id']}/correction/approve/")
    assert own.status_code == 403
    assert problem_body(own) == {
        "code": "separation_of_duties",
        "detail": "You submitted this correction: another person must review it.",
    }
    assert api.post(f"/coups/{flagged['id']}/correction/reject/", {"reason": "mine"}).status_code == 403
    assert row_counts() == before
    assert floor.session.table_id == table.pk

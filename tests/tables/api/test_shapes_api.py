"""Every answer of the API has exactly the shape its schema documents: rendered through the
output serializer that documents it, it comes out unchanged (no key missing, none extra, every
value of its declared type)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from tables.api import outputs as s
from tests.tables.play import open_floor

from .conftest import Api
from .test_coups_api import coup_banker_stood_wrongly, deal, start

pytestmark = pytest.mark.django_db


def conforms(body: Any, shape: serializers.BaseSerializer) -> None:
    shape.instance = body
    assert json.loads(JSONRenderer().render(shape.data)) == body


def test_every_answer_conforms_to_its_schema(croupier, table, pit_boss, accountant) -> None:
    floor = open_floor(croupier, table, spectators=1)
    api, boss, reader = Api(croupier), Api(pit_boss), Api(accountant)
    t = f"/tables/{table.pk}"
    conforms(api.ok(api.get(f"{t}/"), 200), s.TableOut())
    conforms(api.ok(api.get("/tables/"), 200)["results"], s.TableSummaryOut(many=True))
    conforms(api.ok(api.post(f"{t}/players/", {"display_name": "New"})), s.PlayerOut())

    body = api.ok(api.post(f"{t}/coups/", {"bank": 100}))
    conforms(body, s.StepResultOut())
    cid = body["coup"]["id"]
    api.ok(api.step(cid, "bet", seat=2, amount=90))
    # the seated round over first (RULES.md §2: spectators never pre-empt seated players)
    api.ok(api.step(cid, "bet", spectator=floor.spectators[0].pk, amount=10, seated_round_over=True))
    api.ok(api.step(cid, "bets_closed"))
    coup = deal(api, cid, "2H", "AS", "3C", "2D")
    assert coup["advice"] is not None  # an option point: advice and requirement shown
    conforms(coup, s.CoupOut())
    api.ok(api.step(cid, "player_draw"))
    api.ok(api.step(cid, "card_to_player", card="9H"))
    api.ok(api.step(cid, "banker_draw"))
    api.ok(api.step(cid, "card_to_banker", card="5S"))
    body = api.ok(api.step(cid, "reveal"))
    assert body["coup"]["verdict"]["settlement"] is not None
    conforms(body, s.StepResultOut())

    flagged = coup_banker_stood_wrongly(api, table.pk, 195)
    assert flagged["restoration"] == {"needs_cards": 1}
    conforms(flagged, s.CoupOut())
    body = api.ok(api.post(f"/coups/{flagged['id']}/correction/", {"cards": ["4C"]}))
    assert body["coup"]["correction"] is not None
    conforms(body, s.StepResultOut())
    conforms(boss.ok(boss.get("/corrections/"), 200)["results"], s.PendingCorrectionOut(many=True))
    conforms(boss.ok(boss.post(f"/coups/{flagged['id']}/correction/approve/")), s.StepResultOut())
    conforms(reader.ok(reader.get(f"/coups/{flagged['id']}/record/"), 200), s.CoupRecordOut())

    # a lost bank: the rotation instead of the banker
    lost = start(api, table.pk, 290)
    api.ok(api.step(lost["id"], "bet", seat=2, amount=290))
    api.ok(api.step(lost["id"], "bets_closed"))
    deal(api, lost["id"], "9H", "2S", "KC", "3D")
    api.ok(api.step(lost["id"], "player_natural"))
    api.ok(api.step(lost["id"], "reveal"))
    state = api.ok(api.get(f"{t}/"), 200)
    assert state["bank"] is None and state["bank_rotation"] is not None
    conforms(state, s.TableOut())

    # the error bodies
    stale = api.post(f"/coups/{lost['id']}/steps/", {"step": 1, "kind": "reveal"}).json()
    conforms(stale, s.ConflictOut())

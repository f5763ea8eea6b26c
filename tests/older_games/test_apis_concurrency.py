"""Two tablets at an older game's table at once, on real PostgreSQL connections in real threads:
the table's row lock makes them queue, so exactly one records the next step (or starts the coup)
and the other is refused with nothing written."""

from __future__ import annotations

import pytest

from audit.selectors import audit_chains_verify
from tables.models import GameCoup, GameStep
from tests.factories import CroupierAssignmentFactory, UserFactory
from tests.problems import DERIVED
from tests.tables.api.conftest import Api
from tests.tables.api.test_concurrency_api import race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.concurrency]


def test_two_tablets_at_a_macao_table(game_table, croupier) -> None:
    table, _session, _players = game_table("macao", players=3)
    second = UserFactory(username="second_tablet", roles=["croupier"])
    CroupierAssignmentFactory(user=second, table=table)
    one, two = Api(croupier), Api(second)
    start = f"/tables/{table.pk}/game-coups/"
    results = race((one, start, {}, "start-one"), (two, start, {}, "start-two"))
    assert sorted(status for status, _ in results) == [201, 409], results
    assert GameCoup.objects.filter(table=table).count() == 1
    coup = next(body for status, body in results if status == 201)
    path = f"/game-coups/{coup['id']}/steps/"
    for n, (mine, theirs) in enumerate((("9H", "8H"), ("2S", "3S"), ("5D", "6D"))):
        results = race(
            (one, path, {"kind": "deal", "card": mine, "expected_steps": n}, f"one-{n}"),
            (two, path, {"kind": "deal", "card": theirs, "expected_steps": n}, f"two-{n}"),
        )
        assert sorted(status for status, _ in results) == [201, 409], results
        conflict = next(body for status, body in results if status == 409)
        assert {k: v for k, v in conflict.items() if k not in DERIVED} == {
            "code": "coup_conflict",
            "detail": f"Coup 1 has {n + 1} steps, not {n}: another entry came first.",
            "current_step": n + 1,
        }
        assert GameStep.objects.filter(coup_id=coup["id"]).count() == n + 1
    assert all(report.ok for report in audit_chains_verify())

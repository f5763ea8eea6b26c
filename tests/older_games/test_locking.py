"""An older game's step locks its table and its coup, and not the casino every table of it shares
(tables.services.locking.lock_game_coup): a step at one table never waits on another's."""

from __future__ import annotations

import pytest
from django.db import transaction

from older_games import services as svc
from tables.models import Casino
from tables.services.locking import lock_game_coup
from tests.row_locks import row_free

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def test_a_step_locks_the_table_and_the_coup_but_not_the_casino(game_table, croupier) -> None:
    table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert row_free("tables_casino", table.casino_id) and row_free("tables_table", table.pk)
    with transaction.atomic():
        locked = lock_game_coup(coup.pk)
        assert (locked.pk, locked.table.pk, locked.table.casino.pk) == (coup.pk, table.pk, table.casino_id)
        assert row_free("tables_casino", table.casino_id) is True
        assert row_free("tables_table", table.pk) is False
        assert row_free("tables_gamecoup", coup.pk) is False
    assert Casino.objects.filter(pk=table.casino_id).exists()
    assert row_free("tables_table", table.pk) is True

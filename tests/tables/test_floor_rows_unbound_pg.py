"""A seat INSERTed with the application's own PostgreSQL login (docs/deployment.md's role may
write seats: they are not append-only), for a player who never sat, with no event binding it: the
reveal of the coup his chips were bet in is refused, nothing written
(tests/tables/test_floor_rows_unbound.py does the same on either database)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tables.lifecycle import CoupRecordsChanged
from tables.models import Coup, Seat
from tests.tables.play import K, open_floor, step
from tests.tables.test_floor_rows_bound_pg import app_login, as_app  # noqa: F401  (the fixture)
from tests.tables.test_floor_rows_unbound import chips, played_to_its_reveal, victim_bought_in, written

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_seat_inserted_with_the_app_login_is_refused_at_the_reveal(app_login, croupier, table) -> None:  # noqa: F811
    floor = open_floor(croupier, table)
    victim = victim_bought_in(table, croupier)
    as_app(
        app_login,
        "INSERT INTO tables_seat (session_id, player_id, number, joined_at) VALUES (%s, %s, 6, %s)",
        [floor.session.pk, victim.pk, timezone.now()],
    )
    assert Seat.objects.filter(session=floor.session, player=victim).exists()
    coup = played_to_its_reveal(floor, croupier, seat=6)
    before = written()
    with pytest.raises(CoupRecordsChanged, match="seat 6 was never recorded at the table"):
        step(floor, coup, K.REVEAL)
    assert written() == before
    assert chips(victim) == 5000
    coup.refresh_from_db()
    assert coup.state == Coup.State.OPEN

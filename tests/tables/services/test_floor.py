# ruff: noqa: RUF001  (French and Russian words: typographic apostrophes and Cyrillic letters)
"""tables/services/floor.py: closing a table while a coup is played (the refusal names the ways
out), and one table at a time for a player (seated or standing; the refusal names the other
table), through the services and the croupier's screen."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from ledger.models import Transaction
from tables import services
from tables.models import Seat, Spectator, TableSession
from tables.wording import CLOSE_COUP_IN_PLAY
from tests.factories import PlayerFactory
from tests.tables.play import open_floor, row_counts

pytestmark = pytest.mark.django_db

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}
DUPONT_REFUSED = (
    "M. Dupont is seated at Classic table: a player leaves that table before sitting or standing at another."
)


def _client(user: Any, lang: str = "") -> Client:
    client = Client()
    client.force_login(user)
    if lang:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    return client


# --------------------------------------------------------------------- closing with a coup in play
def test_closing_during_a_coup_names_the_croupier_and_the_pit_boss_ways_out(croupier, pit_boss, table):
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    screen, boss = _client(croupier), _client(pit_boss)  # (a login is an audit event)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        services.table_session_close(actor=croupier, session=floor.session)
    assert refused.value.messages == [
        "A coup is still being played: the croupier finishes it, or a pit boss voids it (“Void the "
        "coup” on the coup's review page, reached from the dashboard). Then the table can be closed."
    ]
    answer = screen.post(reverse("floor:session_close", args=[table.pk]), {"reason": ""}, **HTMX)
    assert answer.status_code == 400
    assert escape(CLOSE_COUP_IN_PLAY) in answer.content.decode()
    assert row_counts() == before  # nothing written
    assert TableSession.objects.get(pk=floor.session.pk).closed_at is None
    # the way out it names: the pit boss's void on the coup's review page, then the table closes
    voided = boss.post(reverse("review:coup_void", args=[coup.pk]), {"reason": "misdeal"})
    assert voided.status_code == 302
    services.table_session_close(actor=croupier, session=floor.session)
    assert TableSession.objects.get(pk=floor.session.pk).closed_at is not None


# ------------------------------------------------------------------------- one table at a time
@pytest.fixture
def two_tables(croupier, table, classic_table) -> tuple[TableSession, TableSession]:
    table.name, classic_table.name = "Casino table", "Classic table"
    table.save(update_fields=["name"])
    classic_table.save(update_fields=["name"])
    return (
        services.table_session_open(actor=croupier, table=table),
        services.table_session_open(actor=croupier, table=classic_table),
    )


def test_a_player_seated_at_another_table_is_refused_a_seat_and_a_place_naming_it(croupier, two_tables):
    here, classic = two_tables
    dupont = PlayerFactory(casino=here.table.casino, display_name="M. Dupont")
    services.seat_take(actor=croupier, session=classic, player=dupont, number=3)
    before = row_counts()
    with pytest.raises(ValidationError) as refused:
        services.seat_take(actor=croupier, session=here, player=dupont, number=1)
    assert refused.value.messages == [DUPONT_REFUSED]
    assert refused.value.error_list[0].code == "seated_elsewhere"
    with pytest.raises(ValidationError) as refused:
        services.spectator_join(actor=croupier, session=here, player=dupont)
    assert refused.value.messages == [DUPONT_REFUSED]
    assert row_counts() == before
    assert list(Seat.objects.filter(player=dupont).values_list("session_id", "number")) == [(classic.pk, 3)]
    # once he leaves that table he sits here
    services.seat_leave(actor=croupier, seat=Seat.objects.get(player=dupont))
    seat = services.seat_take(actor=croupier, session=here, player=dupont, number=1)
    assert (seat.session_id, seat.number, seat.left_at) == (here.pk, 1, None)


def test_a_spectator_at_another_table_is_refused_naming_it(croupier, two_tables):
    here, classic = two_tables
    leroy = PlayerFactory(casino=here.table.casino, display_name="Mme Leroy")
    services.spectator_join(actor=croupier, session=classic, player=leroy)
    before = row_counts()
    for attempt in (
        lambda: services.seat_take(actor=croupier, session=here, player=leroy, number=2),
        lambda: services.spectator_join(actor=croupier, session=here, player=leroy),
    ):
        with pytest.raises(ValidationError) as refused:
            attempt()
        assert refused.value.messages == [
            "Mme Leroy is standing at Classic table as a spectator: a player leaves that table before "
            "sitting or standing at another."
        ]
    assert row_counts() == before
    assert Spectator.objects.filter(player=leroy).count() == 1


def test_a_closed_table_holds_nobody(croupier, two_tables):
    here, classic = two_tables
    dupont = PlayerFactory(casino=here.table.casino, display_name="M. Dupont")
    services.seat_take(actor=croupier, session=classic, player=dupont, number=3)
    services.table_session_close(actor=croupier, session=classic)  # everybody leaves with it
    seat = services.seat_take(actor=croupier, session=here, player=dupont, number=1)
    assert seat.session_id == here.pk


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", DUPONT_REFUSED),
        (
            "fr",
            "M. Dupont a une place à la table « Classic table » : un joueur quitte cette table avant "
            "de s’asseoir à une autre ou d’y rester debout.",
        ),
        (
            "ru",
            "M. Dupont сидит за столом «Classic table»: игрок сначала уходит из-за этого стола, а "
            "потом садится или встаёт у другого.",
        ),
    ],
)
def test_the_screen_shows_the_refusal_in_the_croupiers_language(croupier, two_tables, lang, expected):
    here, classic = two_tables
    dupont = PlayerFactory(casino=here.table.casino, display_name="M. Dupont")
    services.seat_take(actor=croupier, session=classic, player=dupont, number=3)
    seats = Seat.objects.count()
    answer = _client(croupier, lang).post(
        reverse("floor:seat_take", args=[here.table.pk]), {"number": 1, "player": dupont.pk}, **HTMX
    )
    assert answer.status_code == 400
    assert escape(expected) in answer.content.decode()
    assert Seat.objects.count() == seats
    assert not Transaction.objects.filter(kind=Transaction.Kind.CARD_MONEY).exists()


@pytest.mark.postgres
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_tablets_seating_one_player_at_two_tables_at_once_seat_him_once(croupier, two_tables) -> None:
    """The player's row lock: the second tablet waits for the first one's seat, then is refused."""
    import threading

    from django.db import connection

    here, classic = two_tables
    dupont = PlayerFactory(casino=here.table.casino, display_name="M. Dupont")
    start, errors = threading.Barrier(2), []

    def tablet(session: TableSession) -> None:
        try:
            start.wait()
            services.seat_take(actor=croupier, session=session, player=dupont, number=4)
        except ValidationError as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=tablet, args=(s,)) for s in (here, classic)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    [seat] = Seat.objects.filter(player=dupont, left_at__isnull=True)
    other = classic if seat.session_id == here.pk else here
    [refused] = errors
    assert refused.messages == [
        f"M. Dupont is seated at {seat.session.table.name}: a player leaves that table before sitting or "
        "standing at another."
    ]
    assert not Seat.objects.filter(session=other, player=dupont).exists()

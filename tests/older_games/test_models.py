"""What the database itself guarantees for the older games' coups, and a table's game settings."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from ledger.models import Account, Transaction
from older_games import services as svc
from tables import services
from tables.models import GameCoup, GameStep, Table
from tests.factories import builtin_profile

pytestmark = pytest.mark.django_db


def test_a_step_is_never_edited_nor_deleted(game_table, croupier):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    step = svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "4C"}).step
    with pytest.raises(IntegrityError), transaction.atomic():
        GameStep.objects.filter(pk=step.pk).update(payload={"kind": "deal", "card": "9C"})
    with pytest.raises(IntegrityError), transaction.atomic():
        GameStep.objects.filter(pk=step.pk).delete()
    assert GameStep.objects.get(pk=step.pk).payload == {"kind": "deal", "card": "4C"}


def test_one_open_coup_per_table_in_the_database(game_table, croupier):
    table, session, players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(IntegrityError), transaction.atomic():
        GameCoup.objects.create(
            table=table, session=session, number=2, game="macao", house_settings={}, seating=coup.seating,
            banker=players[0], created_at=timezone.now(), created_by=croupier,
        )  # fmt: skip
    assert GameCoup.objects.filter(table=table).count() == 1


def test_a_settled_coup_keeps_its_record_and_a_void_one_its_reason(game_table, croupier):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(IntegrityError), transaction.atomic():
        GameCoup.objects.filter(pk=coup.pk).update(state="settled", ended_at=timezone.now())
    with pytest.raises(IntegrityError), transaction.atomic():
        GameCoup.objects.filter(pk=coup.pk).update(state="void", ended_at=timezone.now())
    assert GameCoup.objects.get(pk=coup.pk).state == "open"


def test_a_fund_account_names_its_table_and_a_game_posting_its_coup(game_table, croupier):
    table, session, _players = game_table("landsknecht", players=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(casino=table.casino, kind="fund", name="x", opened_at=timezone.now())
    with pytest.raises(IntegrityError), transaction.atomic():
        Transaction.objects.create(casino=table.casino, kind="game_settlement", idempotency_key="k")
    svc.game_fund_collect(actor=croupier, session=session)
    fund = Account.objects.get(kind="fund", table=table)
    assert (fund.balance, fund.name) == (20, f"fund: {table.name} ({table.casino.name})")
    # a second collection finds nothing due and posts nothing
    assert svc.game_fund_collect(actor=croupier, session=session) == []
    assert Transaction.objects.filter(kind="fund_due").count() == 2


def test_table_create_checks_the_game_settings(croupier, table):
    with pytest.raises(ValidationError, match="unknown house setting"):
        services.table_create(
            actor=croupier, casino=table.casino, name="M", profile=builtin_profile(), game="macao",
            game_settings={"colour": "red"},
        )  # fmt: skip
    with pytest.raises(ValidationError, match="profile"):
        services.table_create(
            actor=croupier,
            casino=table.casino,
            name="C",
            profile=builtin_profile(),
            game_settings={"unit": 1},
        )
    made = services.table_create(
        actor=croupier, casino=table.casino, name="M", profile=builtin_profile(), game="old-baccarat",
        game_settings={"tie_rule": "pool"},
    )  # fmt: skip
    assert (made.game, made.game_settings) == (Table.Game.OLD_BACCARAT, {"tie_rule": "pool"})
    assert Table.objects.filter(casino=table.casino, name__in=["M", "C"]).count() == 1


def test_a_chemin_de_fer_table_has_no_game_coups(croupier, table):
    session = services.table_session_open(actor=croupier, table=table)
    with pytest.raises(ValidationError, match="not one of the older games"):
        svc.game_coup_start(actor=croupier, session=session)
    assert GameCoup.objects.count() == 0


def test_only_the_tables_croupier_plays_and_a_pit_boss_or_he_voids(game_table, croupier, pit_boss, outsider):
    from django.core.exceptions import PermissionDenied

    _table, session, _players = game_table("macao", players=2)
    with pytest.raises(PermissionDenied):
        svc.game_coup_start(actor=pit_boss, session=session)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(PermissionDenied):
        svc.game_step_record(actor=outsider, coup=coup, payload={"kind": "deal", "card": "2C"})
    with pytest.raises(PermissionDenied):
        svc.game_coup_void(actor=outsider, coup=coup, reason="no")
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == ("open", 0)
    svc.game_coup_void(actor=croupier, coup=coup, reason="player called away")
    assert GameCoup.objects.get(pk=coup.pk).state == "void"

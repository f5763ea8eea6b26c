"""A coup references its rules snapshot (tables.models.RulesSnapshot) instead of copying it: one
row per distinct snapshot, keyed by its content's SHA-256, read back as ``Coup.rules``; the
audit's row check covers the content a coup references (Coup.AUDIT_ROW_READS); tables 0031
moves the copies out and back."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from audit.row_verify import rows_verify
from audit.rows import RowReader, binding_unpack
from tables.engine_bridge import table_rules_snapshot
from tables.models import Coup, RulesSnapshot, rules_digest
from tables.services.rules_snapshots import rules_snapshot_keep
from tests.audit.rows import bound_by, superuser_sql
from tests.security.db_role import app_role_regrant
from tests.tables.play import open_floor, play

pytestmark = pytest.mark.django_db

CARDS = ("2H", "8H", "3H", "TH")  # player 5, banker 8: the banker's natural


def test_the_digest_is_the_sha256_of_the_canonical_json() -> None:
    content = {"levy": {"rate_bp": 500}, "house_limit": None, "profile": {"slug": "casino"}}
    canonical = '{"house_limit":null,"levy":{"rate_bp":500},"profile":{"slug":"casino"}}'
    assert rules_digest(content) == hashlib.sha256(canonical.encode()).hexdigest()


def test_a_snapshot_is_kept_once() -> None:
    content = {"house_limit": 5000, "levy": {}, "profile": {}}
    first = rules_snapshot_keep(content=content)
    again = rules_snapshot_keep(content=json.loads(json.dumps(content)))
    assert first == again == rules_digest(content)
    assert list(RulesSnapshot.objects.values_list("digest", "content")) == [(first, content)]


def test_coups_under_the_same_rules_share_one_snapshot_and_read_it_as_their_rules(croupier, table) -> None:
    floor = open_floor(croupier, table)
    one = play(floor, bank=100, bets=[(2, 10)], cards=CARDS, player="stand", banker="natural")
    two = play(floor, bank=110, bets=[(2, 10)], cards=CARDS, player="stand", banker="natural")
    expected = table_rules_snapshot(table)
    assert RulesSnapshot.objects.count() == 1
    assert one.rules_snapshot_id == two.rules_snapshot_id == rules_digest(expected)
    assert Coup.objects.get(pk=two.pk).rules == expected


def _settled_coup(croupier, table) -> Coup:
    floor = open_floor(croupier, table)
    return play(floor, bank=100, bets=[(2, 10)], cards=CARDS, player="stand", banker="natural")


@pytest.mark.django_db(transaction=True)
def test_a_snapshot_changed_behind_the_triggers_is_named_on_every_coup_under_it(croupier, table) -> None:
    coup = _settled_coup(croupier, table)
    assert rows_verify().differences == []
    superuser_sql(
        "UPDATE tables_rulessnapshot SET content = %s WHERE digest = %s",
        [json.dumps({**coup.rules, "house_limit": 1}), coup.rules_snapshot_id],
    )
    named = [(d.table, d.pk, d.columns) for d in rows_verify().differences]
    assert named == [("tables_coup", coup.pk, ("rules",))]


@pytest.mark.django_db(transaction=True)
def test_a_coup_moved_under_other_rules_is_named(croupier, table) -> None:
    coup = _settled_coup(croupier, table)
    other = rules_snapshot_keep(content={**coup.rules, "house_limit": 1})
    superuser_sql("UPDATE tables_coup SET rules_snapshot_id = %s WHERE id = %s", [other, coup.pk])
    named = [(d.table, d.pk, d.columns) for d in rows_verify().differences]
    assert named == [("tables_coup", coup.pk, ("rules",))]


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_the_copies_out_and_back_and_the_bindings_still_hold(croupier, table) -> None:
    coup = _settled_coup(croupier, table)
    rules = coup.rules
    executor = MigrationExecutor(connection)
    executor.migrate([("tables", "0030_bind_existing_rows")])
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT rules FROM tables_coup WHERE id = %s", [coup.pk])
            (copied,) = cursor.fetchone()
        assert (json.loads(copied) if isinstance(copied, str) else copied) == rules
        # the coup as the table held it before 0031, its copy in its own column: the digest the
        # coup's last event bound is this row's (so the coups bound before 0031 still verify after)
        old = MigrationExecutor(connection).loader.project_state([("tables", "0030_bind_existing_rows")]).apps
        reader = RowReader(old.get_model("tables", "Coup"), "default")
        assert reader.columns == RowReader(Coup, "default").columns
        (values,) = reader.values(pk=coup.pk)
        event = bound_by("tables_coup", coup.pk)
        (bound,) = [r[2] for r in event.rows or () if r[0] == "tables_coup" and r[1] == coup.pk]
        assert reader.state(values).digest == binding_unpack(bound).digest
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
        app_role_regrant()  # tables_rulessnapshot was made anew: the app role's revokes again
    assert list(RulesSnapshot.objects.values_list("digest", "content")) == [(rules_digest(rules), rules)]
    assert Coup.objects.get(pk=coup.pk).rules_snapshot_id == rules_digest(rules)
    assert rows_verify().differences == []
    with pytest.raises(Exception, match="append-only"), connection.cursor() as cursor:  # frozen again
        cursor.execute("UPDATE tables_coup SET bank = 1 WHERE id = %s", [coup.pk])

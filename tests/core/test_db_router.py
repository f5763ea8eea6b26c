"""The read-replica router (core/db_router.py, docs/scaling.md), with two database aliases: the
test settings' ``replica`` mirrors the test database, so what the primary commits the replica
reads back, and the queries each connection ran show where a read went."""

from __future__ import annotations

import pytest
from django.db import connections, router, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from core.db_router import replica_reads
from tables.models import Casino

pytestmark = pytest.mark.postgres


def test_the_router_is_off_without_a_replica_alias() -> None:
    with replica_reads():
        assert router.db_for_read(Casino) == "default"
        assert Casino.objects.all().db == "default"


@override_settings(READ_REPLICA_ALIAS="replica")
def test_reads_go_to_the_replica_only_inside_replica_reads() -> None:
    assert router.db_for_read(Casino) == "default"
    with replica_reads():
        assert router.db_for_read(Casino) == "replica"
        assert router.db_for_write(Casino) == "default"
    assert router.db_for_read(Casino) == "default"


@override_settings(READ_REPLICA_ALIAS="not-configured")
def test_an_alias_that_names_no_database_leaves_reads_on_the_primary() -> None:
    with replica_reads():
        assert router.db_for_read(Casino) == "default"


@override_settings(READ_REPLICA_ALIAS="replica")
def test_the_replica_is_never_migrated() -> None:
    assert router.allow_migrate("replica", "tables") is False
    assert router.allow_migrate("default", "tables") is True


@pytest.mark.django_db(transaction=True, databases=["default", "replica"])
@override_settings(READ_REPLICA_ALIAS="replica")
def test_a_committed_row_is_read_back_through_the_replica_connection() -> None:
    Casino.objects.create(name="Deauville")
    with (
        CaptureQueriesContext(connections["replica"]) as on_replica,
        CaptureQueriesContext(connections["default"]) as on_primary,
        replica_reads(),
    ):
        names = list(Casino.objects.values_list("name", flat=True))
    assert names == ["Deauville"]
    assert len(on_replica.captured_queries) == 1
    assert on_primary.captured_queries == []


@pytest.mark.django_db(transaction=True, databases=["default", "replica"])
@override_settings(READ_REPLICA_ALIAS="replica")
def test_a_read_inside_a_write_transaction_stays_on_the_primary_and_sees_its_own_write() -> None:
    with transaction.atomic(), replica_reads():
        Casino.objects.create(name="Enghien")
        with CaptureQueriesContext(connections["replica"]) as on_replica:
            assert list(Casino.objects.values_list("name", flat=True)) == ["Enghien"]
    assert on_replica.captured_queries == []

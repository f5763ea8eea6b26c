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


@pytest.mark.django_db(transaction=True, databases=["default", "replica"])
@override_settings(READ_REPLICA_ALIAS="replica")
def test_the_dashboard_reads_its_figures_from_the_replica(client) -> None:
    from django.urls import reverse

    from tests.factories import UserFactory

    client.force_login(UserFactory(username="pitboss", roles=["pit_boss"]))
    with CaptureQueriesContext(connections["replica"]) as on_replica:
        assert client.get(reverse("review:dashboard")).status_code == 200
    read = " ".join(q["sql"] for q in on_replica.captured_queries)
    assert "tables_tableday" in read and "tables_croupierday" in read  # the hold and the error rates
    assert not any(q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")) for q in on_replica)


@pytest.mark.django_db(transaction=True, databases=["default", "replica"])
@override_settings(READ_REPLICA_ALIAS="replica")
def test_an_audit_trail_report_reads_the_replica_and_a_levy_report_the_primary() -> None:
    import datetime as dt

    from django.utils import timezone

    from reports.kinds import ReportRequest
    from reports.services import report_run_execute, report_run_schedule
    from tests.factories import CasinoFactory

    casino = CasinoFactory()
    today = timezone.localdate()
    kinds = {"audit-trail": ("jsonl", None), "levy": ("csv", casino.pk)}
    seen: dict[str, int] = {}
    for kind, (fmt, casino_id) in kinds.items():
        request = ReportRequest(kind=kind, fmt=fmt, start=today - dt.timedelta(days=1), end=today,
                                casino_id=casino_id)  # fmt: skip
        run = report_run_schedule(request=request, enqueue=False)
        with CaptureQueriesContext(connections["replica"]) as on_replica:
            report_run_execute(run_id=run.pk)
        run.refresh_from_db()
        assert run.status == "finished", run.error
        seen[kind] = sum("audit_auditevent" in q["sql"] or "tables_tableday" in q["sql"] for q in on_replica)
    assert seen["audit-trail"] >= 1
    assert seen["levy"] == 0

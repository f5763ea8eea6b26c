"""Issue 10, item 3: the attacks the reporter ran with the application's own database role, run
again as that role, on PostgreSQL, each refused with nothing changed.

The role is set up from the SQL docs/deployment.md gives (core.db_roles: the same statements, and a
test below checks the document still shows them), under a name of this test database's own (roles
are shared by the whole server), and the attacks come through a second connection logged in as it.
The data is the real services' (a casino coup settled with its levy), committed, so the attacker's
connection sees it; the checks read it back through the test's own connection (a superuser).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.db import IntegrityError, connection

from audit.db_triggers import CHAIN_LINK_FUNCTION, GUARD_FUNCTION
from audit.models import AuditEvent
from core.db_roles import APPEND_ONLY_TABLES, script
from tables.models import Bet, RulesSnapshot

pytestmark = pytest.mark.postgres

DOCS = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"

from tests.security.db_role import (  # noqa: E402
    CHECK_VIOLATION,
    INSUFFICIENT_PRIVILEGE,
    RESTRICT_VIOLATION,
    Played,
    _books,
    _execute,
    refused,
)


@pytest.mark.django_db(transaction=True)
def test_the_app_role_cannot_create_temp_tables_to_shadow_the_ledger(app_role, played) -> None:
    before = _books()
    error = refused(
        app_role,
        [("CREATE TEMP TABLE ledger_transaction (id bigint, casino_id bigint, posted_at timestamptz)", ())],
    )
    assert error.sqlstate == INSUFFICIENT_PRIVILEGE
    assert "permission denied to create temporary tables" in str(error)
    assert _books() == before


def _shadow_attack(played: Played) -> list[tuple[str, Sequence[Any]]]:
    """The reporter's attack: TEMP tables named like the ledger's, which the COMMIT check read
    instead of the real ones (a posted transaction looking fresh, no entries to sum), then entries
    appended to the posted transaction."""
    posted = played.posted
    return [
        ("CREATE TEMP TABLE ledger_transaction (id bigint, casino_id bigint, posted_at timestamptz)", ()),
        (
            "INSERT INTO pg_temp.ledger_transaction VALUES (%s, %s, now())",
            (posted.pk, posted.casino_id),
        ),
        ("CREATE TEMP TABLE ledger_entry (transaction_id bigint, amount bigint)", ()),
        ("CREATE TEMP TABLE ledger_account (id bigint, casino_id bigint)", ()),
        (
            "INSERT INTO pg_temp.ledger_account SELECT id, casino_id FROM public.ledger_account",
            (),
        ),
        (
            "INSERT INTO public.ledger_entry (transaction_id, account_id, amount) "
            "VALUES (%s, %s, 500), (%s, %s, -500)",
            (posted.pk, played.player_account.pk, posted.pk, played.cage.pk),
        ),
    ]


@pytest.mark.django_db(transaction=True)
def test_with_temp_tables_the_shadowing_attack_is_still_refused_at_commit(app_role, played) -> None:
    """Should an operator leave TEMP to the role, the trigger functions read the real tables
    (schema-qualified names, a fixed search_path): the entries are refused at COMMIT."""
    db, app = app_role.names.database, app_role.names.app
    _execute([f"GRANT TEMPORARY ON DATABASE {db} TO {app}"])
    try:
        before = _books()
        error = refused(app_role, _shadow_attack(played))
    finally:
        _execute([f"REVOKE TEMPORARY ON DATABASE {db} FROM {app}"])
    assert error.sqlstate == CHECK_VIOLATION
    assert f"ledger transaction {played.posted.pk}: entries are added only with their transaction" in str(
        error
    )
    assert _books() == before


@pytest.mark.django_db(transaction=True)
def test_the_levy_cannot_be_rewritten_or_deleted(app_role, played) -> None:
    before = _books()
    for sql in (
        "UPDATE tables_banktax SET amount = 0",
        "DELETE FROM tables_banktax",
        "TRUNCATE tables_banktax",
    ):
        error = refused(app_role, [(sql, ())])
        assert error.sqlstate == INSUFFICIENT_PRIVILEGE, sql
        assert "permission denied for table tables_banktax" in str(error)
    assert _books() == before


@pytest.mark.django_db(transaction=True)
def test_the_app_role_cannot_insert_an_event_off_its_chain(app_role, played) -> None:
    """The application's role may INSERT events (it writes the trail): one that forks its casino's
    chain, naming the head's predecessor as its own, is refused by the link trigger."""
    chain = played.coup.shoe.table.casino_id
    trail = list(AuditEvent.objects.filter(chain=chain).order_by("seq").values_list("seq", "hash"))
    (_, before_head), (head_seq, _) = trail[-2], trail[-1]
    error = refused(
        app_role,
        [
            (
                "INSERT INTO audit_auditevent (chain, seq, occurred_at, actor_label, action, object_type,"
                " object_id, prev_hash, hash, key_id) VALUES (%s, %s, now(), 'intruder', 'forged', '', '',"
                " %s, %s, '')",
                (chain, head_seq + 1, bytes.fromhex(before_head), bytes(range(32))),
            )
        ],
    )
    assert error.sqlstate == "23000"
    assert f"event chain={chain} seq={head_seq + 1} does not follow its predecessor" in str(error)
    assert list(AuditEvent.objects.filter(chain=chain).order_by("seq").values_list("seq", "hash")) == trail


@pytest.mark.django_db(transaction=True)
def test_the_rules_coups_reference_cannot_be_rewritten_or_deleted(app_role, played) -> None:
    """A coup's rules are a shared, content-addressed snapshot: rewriting one would change the
    rules of every coup played under it. Refused to the app role, and by the trigger to the owner."""
    before = _books()
    snapshots = list(RulesSnapshot.objects.values_list("digest", "content"))
    for sql in (
        "UPDATE tables_rulessnapshot SET content = '{}'::jsonb",
        "DELETE FROM tables_rulessnapshot",
        "TRUNCATE tables_rulessnapshot CASCADE",
    ):
        error = refused(app_role, [(sql, ())])
        assert error.sqlstate == INSUFFICIENT_PRIVILEGE, sql
        assert "permission denied for table tables_rulessnapshot" in str(error)
    for sql, op in (
        ("UPDATE tables_rulessnapshot SET content = '{}'::jsonb", "UPDATE"),
        ("DELETE FROM tables_rulessnapshot", "DELETE"),
    ):
        refusal = f"tables_rulessnapshot is append-only: {op} refused"
        with pytest.raises(IntegrityError, match=refusal), connection.cursor() as cursor:
            cursor.execute(sql)
    assert list(RulesSnapshot.objects.values_list("digest", "content")) == snapshots != []
    assert _books() == before


@pytest.mark.django_db(transaction=True)
def test_the_levy_trigger_refuses_even_a_role_with_the_privilege(played) -> None:
    """The second line: the append-only trigger, for a deployment that skipped the REVOKE (here
    the test's own role, triggers on)."""
    before = _books()
    for sql, op in (
        ("UPDATE tables_banktax SET amount = 0", "UPDATE"),
        ("DELETE FROM tables_banktax", "DELETE"),
    ):
        refusal = f"tables_banktax is append-only: {op} refused"
        with pytest.raises(IntegrityError, match=refusal), connection.cursor() as cursor:
            cursor.execute(sql)
    assert _books() == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_account SET balance = balance + 1000 WHERE id = {player}",
        "UPDATE ledger_account SET balance = 0 WHERE kind = 'levy'",
        # two accounts at once, the total unchanged: still refused
        "UPDATE ledger_account SET balance = balance + CASE id WHEN {player} THEN 77 ELSE -77 END "
        "WHERE id IN ({player}, {cage})",
    ],
)
def test_a_balance_changes_only_with_ledger_entries(app_role, played, sql: str) -> None:
    before = _books()
    error = refused(app_role, [(sql.format(player=played.player_account.pk, cage=played.cage.pk), ())])
    assert error.sqlstate == RESTRICT_VIOLATION
    assert "ledger_account: the balance moves only with ledger entries" in str(error)
    assert _books() == before


@pytest.mark.django_db(transaction=True)
def test_an_account_cannot_be_opened_with_chips(app_role, played) -> None:
    before = _books()
    error = refused(
        app_role,
        [
            (
                "INSERT INTO ledger_account (casino_id, kind, table_id, name, balance, opened_at) "
                "SELECT casino_id, 'bank', %s, 'forged', 1000000, now() FROM ledger_account WHERE id = %s",
                (played.coup.shoe.table_id, played.cage.pk),
            )
        ],
    )
    assert error.sqlstate == RESTRICT_VIOLATION
    assert "an account opens with no chips" in str(error)
    assert _books() == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE tables_bet SET amount = 1 WHERE coup_id = {settled}",
        "UPDATE tables_bet SET withdrawn = true WHERE coup_id = {settled}",  # after the coup: refused
        "UPDATE tables_bet SET amount = amount + 1 WHERE coup_id = {open}",  # even while open
        "UPDATE tables_bet SET withdrawn = true, amount = 1 WHERE coup_id = {open}",
        "DELETE FROM tables_bet WHERE coup_id = {open}",
    ],
)
def test_bets_are_append_only(app_role, played, sql: str) -> None:
    before = _books()
    error = refused(app_role, [(sql.format(settled=played.coup.pk, open=played.open_coup.pk), ())])
    assert error.sqlstate == RESTRICT_VIOLATION
    assert "tables_bet is append-only" in str(error)
    assert _books() == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE tables_coup SET bank = 1 WHERE id = {settled}",
        "UPDATE tables_coup SET banker_id = (SELECT min(p.id) FROM tables_player AS p "
        "WHERE p.id <> tables_coup.banker_id) WHERE id = {settled}",
        "UPDATE tables_coup SET state = 'void', settled_at = NULL WHERE id = {settled}",
        # another rules snapshot (a legitimate INSERT) put under the coup
        "WITH s AS (INSERT INTO tables_rulessnapshot VALUES (repeat('a', 64), '{{}}') RETURNING digest) "
        "UPDATE tables_coup SET rules_snapshot_id = (SELECT digest FROM s) WHERE id = {settled}",
        "UPDATE tables_coup SET settled_at = settled_at + interval '1 hour' WHERE id = {settled}",
        "DELETE FROM tables_coup WHERE id = {settled}",
    ],
)
def test_a_settled_coup_is_frozen(app_role, played, sql: str) -> None:
    before = _books()
    error = refused(app_role, [(sql.format(settled=played.coup.pk), ())])
    assert error.sqlstate == RESTRICT_VIOLATION
    assert "tables_coup is append-only" in str(error)
    assert _books() == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "target", ["tables_bet", "tables_coup", "tables_banktax", "ledger_account", "ledger_entry"]
)
def test_truncate_is_not_the_app_roles(app_role, played, target: str) -> None:
    before = _books()
    error = refused(app_role, [(f"TRUNCATE {target} CASCADE", ())])
    assert error.sqlstate == INSUFFICIENT_PRIVILEGE
    assert f"permission denied for table {target}" in str(error)
    assert _books() == before


@pytest.mark.django_db(transaction=True)
def test_what_the_services_do_is_still_allowed_to_the_app_role(app_role, played) -> None:
    """The legitimate writes, as the role: a bet withdrawn while its coup is open (a banco, an
    amendment), an open coup's counters, a balanced posting moving the balances."""
    bet = Bet.objects.get(coup=played.open_coup)
    with app_role.connect() as conn, conn.transaction():
        conn.execute("UPDATE tables_bet SET withdrawn = true WHERE id = %s", (bet.pk,))
        conn.execute(
            "UPDATE tables_coup SET step_count = step_count + 1 WHERE id = %s", (played.open_coup.pk,)
        )
        (txn,) = conn.execute(
            "INSERT INTO ledger_transaction (casino_id, kind, memo, idempotency_key) "
            "VALUES (%s, 'hourly_fee', '', 'as-app') RETURNING id",
            (played.cage.casino_id,),
        ).fetchone()
        conn.execute(
            "INSERT INTO ledger_entry (transaction_id, account_id, amount) VALUES (%s, %s, 7), (%s, %s, -7)",
            (txn, played.player_account.pk, txn, played.cage.pk),
        )
    bet.refresh_from_db()
    assert bet.withdrawn is True
    before_player, before_cage = played.player_account.balance, played.cage.balance
    played.player_account.refresh_from_db()
    played.cage.refresh_from_db()
    assert (played.player_account.balance, played.cage.balance) == (before_player + 7, before_cage - 7)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SET session_replication_role = replica", "permission denied to set parameter"),
        ("ALTER TABLE tables_banktax DISABLE TRIGGER ALL", "must be owner of table tables_banktax"),
        ("CREATE TABLE public.forged (id int)", "permission denied for schema public"),
        (
            "CREATE FUNCTION public.forged() RETURNS int LANGUAGE sql AS 'SELECT 1'",
            "permission denied for schema public",
        ),
    ],
)
def test_the_app_role_cannot_switch_triggers_off_or_create_objects(app_role, played, sql, message) -> None:
    before = _books()
    error = refused(app_role, [(sql, ())])
    assert error.sqlstate == INSUFFICIENT_PRIVILEGE
    assert message in str(error)
    assert _books() == before


# ------------------------------------------------------------------------ the set-up stays right
@pytest.mark.django_db
def test_every_trigger_function_is_pinned_to_a_search_path() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.proname, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = current_schema() AND p.prorettype = 'trigger'::regtype ORDER BY 1"
        )
        functions = dict(cursor.fetchall())
    assert set(functions) == {
        GUARD_FUNCTION,
        CHAIN_LINK_FUNCTION,
        "compliance_cashreport_frozen_guard",
        "ledger_booksverification_frozen_guard",
        "reports_reportrun_frozen_guard",
        "ledger_account_guard",
        "ledger_entry_balance_move",
        "ledger_entry_check",
        "tables_bet_guard",
        "tables_coup_guard",
    }
    for name, config in functions.items():
        path = next((c for c in config or [] if c.startswith("search_path=")), None)
        assert path is not None, f"{name} has no search_path of its own"
        schemas = [s.strip() for s in path.removeprefix("search_path=").split(",")]
        assert schemas[0] == "pg_catalog" and schemas[-1] == "pg_temp", (name, schemas)


@pytest.mark.django_db
def test_the_revoked_tables_are_the_append_only_ones() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_proc p ON p.oid = t.tgfoid WHERE p.proname = %s",
            [GUARD_FUNCTION],
        )
        guarded = {row[0] for row in cursor.fetchall()}
    assert guarded == set(APPEND_ONLY_TABLES)


def test_the_deployment_guide_shows_the_role_sql_the_tests_run() -> None:
    assert f"```sql\n{script()}```" in DOCS.read_text()


# ------------------------------------------------- frozen once finished, the import guard (issue 20)
@dataclass
class Finished:
    run: Any  # a finished report run
    running: Any  # a report run still being written
    verification: Any  # a books verification that found differences
    imported: Any  # the import guard's row of an imported coup


def _rows(finished: Finished) -> dict[str, Any]:
    from ledger.models import BooksVerification
    from reports.models import ReportRun
    from tables.models import ImportedRecord

    def every(model: Any) -> list[Any]:
        return sorted(model.objects.values_list(*[f.attname for f in model._meta.concrete_fields]))

    return {
        "runs": every(ReportRun),
        "verifications": every(BooksVerification),
        "imports": every(ImportedRecord),
    }


@pytest.fixture
def finished(app_role, played) -> Finished:
    import datetime as dt

    from django.utils import timezone

    from ledger.models import BooksVerification
    from reports.models import ReportRun
    from tables.models import ImportedRecord

    now = timezone.now()
    day = dt.date(2026, 12, 1)
    common = {"kind": "levy", "start": day, "end": day, "format": "csv", "requested_label": "scheduler"}
    run = ReportRun.objects.create(
        **common,
        requested_at=now,
        status="finished",
        file="reports/levy.csv",
        sha256="a" * 64,
        row_count=3,
        started_at=now,
        finished_at=now,
    )
    running = ReportRun.objects.create(**common, requested_at=now, status="running", started_at=now)
    verification = BooksVerification.objects.create(
        started_at=now, finished_at=now, status="differences", difference_count=1
    )
    imported = ImportedRecord.objects.create(
        coup=played.coup, table=played.coup.shoe.session.table, record_id="T1-shoe1-coup1", imported_at=now
    )
    return Finished(run, running, verification, imported)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("sql", "target", "sqlstate"),
    [
        (
            "UPDATE reports_reportrun SET sha256 = repeat('b', 64) WHERE id = {run}",
            "reports_reportrun",
            RESTRICT_VIOLATION,
        ),
        (
            "UPDATE reports_reportrun SET status = 'running', finished_at = NULL WHERE id = {run}",
            "reports_reportrun",
            RESTRICT_VIOLATION,
        ),
        ("DELETE FROM reports_reportrun WHERE id = {run}", "reports_reportrun", INSUFFICIENT_PRIVILEGE),
        ("DELETE FROM reports_reportrun WHERE id = {running}", "reports_reportrun", INSUFFICIENT_PRIVILEGE),
        (
            "UPDATE ledger_booksverification SET status = 'ok', difference_count = 0 "
            "WHERE id = {verification}",
            "ledger_booksverification",
            RESTRICT_VIOLATION,
        ),
        (
            "DELETE FROM ledger_booksverification WHERE id = {verification}",
            "ledger_booksverification",
            INSUFFICIENT_PRIVILEGE,
        ),
        (
            "DELETE FROM tables_importedrecord WHERE id = {imported}",
            "tables_importedrecord",
            INSUFFICIENT_PRIVILEGE,
        ),
        (
            "UPDATE tables_importedrecord SET record_id = 'other' WHERE id = {imported}",
            "tables_importedrecord",
            INSUFFICIENT_PRIVILEGE,
        ),
    ],
)
def test_finished_runs_verifications_and_the_import_guard_are_not_the_app_roles_to_change(
    app_role, finished, sql: str, target: str, sqlstate: str
) -> None:
    before = _rows(finished)
    ids = {
        "run": finished.run.pk,
        "running": finished.running.pk,
        "verification": finished.verification.pk,
        "imported": finished.imported.pk,
    }
    error = refused(app_role, [(sql.format(**ids), ())])
    assert error.sqlstate == sqlstate
    assert (
        f"{target} is append-only"
        if sqlstate == RESTRICT_VIOLATION
        else f"permission denied for table {target}"
    ) in str(error)
    assert _rows(finished) == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "UPDATE reports_reportrun SET sha256 = repeat('b', 64) WHERE id = %s",
            "reports_reportrun is append-only once finished",
        ),
        ("DELETE FROM reports_reportrun WHERE id = %s", "reports_reportrun is append-only: DELETE refused"),
    ],
)
def test_the_triggers_refuse_it_to_a_role_that_has_the_privilege(finished, sql: str, message: str) -> None:
    """The owner (this test's own connection) has every privilege: the trigger still refuses."""
    before = _rows(finished)
    with pytest.raises(IntegrityError, match=message), connection.cursor() as cursor:
        cursor.execute(sql, [finished.run.pk])
    assert _rows(finished) == before


@pytest.mark.django_db(transaction=True)
def test_a_run_in_progress_still_moves_as_the_app_role(app_role, finished) -> None:
    with app_role.connect() as conn, conn.transaction():
        conn.execute("UPDATE reports_reportrun SET rows_done = 7 WHERE id = %s", (finished.running.pk,))
    finished.running.refresh_from_db()
    assert finished.running.rows_done == 7

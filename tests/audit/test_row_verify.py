"""The rows against the events that bound them, both ways (audit.row_verify; issue 20 §1): every
way the services write the game and the money leaves every row bound, ``verify_audit`` and the
nightly task name a row that is not, and the rows written before the upgrade are bound once by
the migration.

The tampering itself, as the application's role and as a superuser, is tests/security/
test_row_tamper.py; this module edits rows as the test's own connection (the triggers off where
they would refuse)."""

from __future__ import annotations

import importlib
import io
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from audit.anchors import anchor_publish
from audit.chain_walk import chain_walk, chain_walk_orm
from audit.keys import audit_keys
from audit.models import GLOBAL_CHAIN, AuditEvent, ChainVerification
from audit.row_verify import RowsReport, rows_verify, rows_verify_since
from audit.rows import bound_models, bound_when
from audit.tasks import audit_chain_verify_task
from ledger.models import Transaction
from tables import services
from tables.models import Bet, Coup, CoupStep, ShoeCard
from tables.services import Caller
from tests.audit.rows import bound_by, row_changed, row_gone, row_unbound, superuser_sql
from tests.review.history import History, play_clean
from tests.tables.play import K, open_floor, play, step

pytestmark = pytest.mark.django_db


def bound_rows() -> int:
    """How many rows the bound tables hold that must be bound (a report run once finished)."""
    total = 0
    for model in bound_models():
        rows = model._base_manager.all()
        when = bound_when(model)
        total += (rows.filter(when) if when is not None else rows).count()
    return total


def clean() -> RowsReport:
    report = rows_verify()
    assert [str(d) for d in report.differences] == []
    assert report.rows == sum(m._base_manager.count() for m in bound_models())
    assert report.tables == len(bound_models())
    return report


def verify(*args: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    try:
        call_command("verify_audit", *args, stdout=out, stderr=io.StringIO())
    except CommandError as error:
        return error.returncode, out.getvalue().splitlines()
    return 0, out.getvalue().splitlines()


# ----------------------------------------------------------------- every writer leaves rows bound


def test_a_settled_corrected_and_approved_history_is_bound_row_by_row(history: History) -> None:
    report = clean()
    assert report.rows == bound_rows()
    assert report.bindings >= report.rows


def test_amended_bets_and_cards_are_bound(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=300).coup
    step(floor, coup, K.BET, seat=2, amount=100)
    step(floor, coup, K.BETS_CLOSED)
    step(floor, coup, K.CARD_TO_PLAYER, card="2H")
    services.step_amend(
        actor=croupier, coup=coup, index=2, amendment=services.Amendment(amount=120), reason="typed 100"
    )
    services.step_amend(
        actor=croupier, coup=coup, index=4, amendment=services.Amendment(card="3H"), reason="it was a 3"
    )
    assert Bet.objects.filter(coup=coup).count() == 2
    assert ShoeCard.objects.filter(coup=coup).count() == 2
    clean()


def test_a_banco_that_withdraws_the_bets_and_a_bank_withdrawn_are_bound(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    step(floor, coup, K.BET, seat=2, amount=50)
    step(floor, coup, K.BANCO, callers=(Caller(seat=3),))
    withdrawn = Bet.objects.filter(coup=coup).order_by("pk").values_list("withdrawn", flat=True)
    assert list(withdrawn) == [True, False]
    clean()
    services.coup_void(actor=_pit_boss(table), coup=coup, reason="misdeal")
    nobody = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    services.coup_bank_withdraw(actor=croupier, coup=nobody)
    clean()


def _pit_boss(table: Any) -> Any:
    from tests.factories import UserFactory

    boss = UserFactory(username="voiding-boss", roles=["pit_boss"])
    from tables.models import CasinoStaff

    CasinoStaff.objects.create(user=boss, casino=table.casino)
    return boss


def test_an_import_batched_and_record_by_record_is_bound(croupier, table) -> None:
    from tests.tables.test_import_coups import DATA, run

    _, err, code = run(DATA / "coups.jsonl", table, croupier)
    assert code == 1  # the examples hold one line that is refused on purpose
    assert "13 coups imported" in err
    assert Coup.objects.count() == 13
    clean()


def test_the_older_games_are_bound(game_table, croupier) -> None:
    from older_games import services as svc
    from tests.older_games.coups import landsknecht_steps, macao_steps
    from tests.older_games.coups import play as game_play

    _, session, _ = game_table("macao", players=3)
    game_play(croupier, session, macao_steps())
    _, session, players = game_table("landsknecht", players=2)
    svc.game_fund_collect(actor=croupier, session=session)
    game_play(croupier, session, landsknecht_steps(players))
    clean()


def test_the_fast_walk_hashes_the_bindings_as_the_definition_does(history: History) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the fast walk is PostgreSQL's")
    chains = sorted(set(AuditEvent.objects.values_list("chain", flat=True)))
    for chain in chains:
        fast = list(chain_walk(chain=chain, from_seq=1, keys=audit_keys()))
        assert fast == list(chain_walk_orm(chain=chain, from_seq=1, keys=audit_keys()))
        assert [e.computed for e in fast] == [e.hash for e in fast]
    assert AuditEvent.objects.exclude(rows=None).count() > 20


# ------------------------------------------------------------------------------ differences named


def test_a_column_changed_is_named_with_the_event_that_bound_it(history: History) -> None:
    card = ShoeCard.objects.filter(coup=history.clean, card="2H").get()
    superuser_sql("UPDATE tables_shoecard SET card = %s WHERE id = %s", ["2S", card.pk])
    report = rows_verify()
    assert [str(d) for d in report.differences] == [row_changed("tables_shoecard", card.pk, "card")]


def test_a_row_deleted_and_a_row_inserted_are_named(history: History) -> None:
    bet = Bet.objects.filter(coup=history.clean).order_by("pk").first()
    assert bet is not None
    event = bound_by("tables_bet", bet.pk)
    superuser_sql("DELETE FROM tables_bet WHERE id = %s", [bet.pk])
    step_row = CoupStep.objects.filter(coup=history.clean).order_by("-index").first()
    assert step_row is not None
    superuser_sql(
        "INSERT INTO tables_coupstep (coup_id, \"index\", kind, payload, actor_id, created_at, violations, "
        "idempotency_key) SELECT coup_id, 99, 'bet', payload, actor_id, created_at, violations, '' "
        "FROM tables_coupstep WHERE id = %s",
        [step_row.pk],
    )
    forged = CoupStep.objects.get(coup=history.clean, index=99)
    assert [str(d) for d in rows_verify().differences] == [
        row_gone("tables_bet", bet.pk, event),
        row_unbound("tables_coupstep", forged.pk),
    ]


def test_a_coup_changed_between_two_steps_is_named_though_the_next_step_binds_it_again(
    croupier, table
) -> None:
    """The next step binds the coup as it then is; what it found when it locked the coup says the
    coup had changed since the step before, with no event."""
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=300).coup
    before = bound_by("tables_coup", coup.pk)
    superuser_sql("UPDATE tables_coup SET bank = 30 WHERE id = %s", [coup.pk])
    step(floor, coup, K.BET, seat=2, amount=10)
    after = bound_by("tables_coup", coup.pk)
    assert after.seq > before.seq
    assert [str(d) for d in rows_verify().differences] == [
        f"tables_coup row {coup.pk}: column bank changed between event seq {before.seq} of chain "
        f"{before.chain} and event seq {after.seq} of chain {after.chain}, outside the application"
    ]


def test_verify_audit_names_the_rows_and_fails(history: History) -> None:
    tax = history.clean.tax
    superuser_sql("UPDATE tables_banktax SET amount = 1 WHERE id = %s", [tax.pk])
    code, out = verify("--full")
    assert code == 1
    assert "rows that differ: 1" in out
    assert f"  ROW {row_changed('tables_banktax', tax.pk, 'amount')}" in out
    code, out = verify()  # no anchor: the whole chains, and so the whole rows
    assert code == 1
    assert f"  ROW {row_changed('tables_banktax', tax.pk, 'amount')}" in out


def test_verify_audit_says_how_many_rows_it_checked_when_all_is_well(history: History) -> None:
    code, out = verify("--full")
    assert code == 0
    rows = sum(m._base_manager.count() for m in bound_models())
    line = next(x for x in out if x.startswith("rows bound to events:"))
    assert line.startswith(f"rows bound to events: {rows} rows of {len(bound_models())} table(s), ")
    assert line.endswith("bindings checked (every row of every bound table, both ways)")


def test_the_incremental_check_reads_the_rows_of_the_events_past_the_anchors(
    croupier, table, settings, tmp_path
) -> None:
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    floor = open_floor(croupier, table)
    old = play_clean(floor)  # the banker wins: he keeps the bank for the next
    anchor_publish()
    new = play(
        floor,
        bank=390,  # the bank he kept, at least
        bets=[(3, 50)],
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )
    old_bet, new_bet = (Bet.objects.filter(coup=c).order_by("pk").first() for c in (old, new))
    assert old_bet is not None and new_bet is not None
    superuser_sql("UPDATE tables_bet SET amount = 49 WHERE id IN (%s, %s)", [old_bet.pk, new_bet.pk])
    code, out = verify()
    assert code == 1
    # the new coup's bet was bound past the anchors: found at once; the old one is the full run's
    assert f"  ROW {row_changed('tables_bet', new_bet.pk, 'amount')}" in out
    assert f"  ROW {row_changed('tables_bet', old_bet.pk, 'amount')}" not in out
    code, out = verify("--full")
    assert code == 1
    assert f"  ROW {row_changed('tables_bet', old_bet.pk, 'amount')}" in out
    assert f"  ROW {row_changed('tables_bet', new_bet.pk, 'amount')}" in out
    bound_old = bound_by("tables_bet", old_bet.pk)
    since = rows_verify_since({bound_old.chain: bound_old.seq})
    assert [str(d) for d in since.differences] == [row_changed("tables_bet", new_bet.pk, "amount")]


def test_the_nightly_task_stores_a_row_difference_with_the_chain_that_bound_it(history: History) -> None:
    tax = history.clean.tax
    event = bound_by("tables_banktax", tax.pk)
    superuser_sql("UPDATE tables_banktax SET amount = amount + 1 WHERE id = %s", [tax.pk])
    result = audit_chain_verify_task.delay().get()
    assert result["ok"] is False
    stored = ChainVerification.objects.get(chain=event.chain)
    assert (stored.ok, stored.broken_count, stored.first_broken_seq) == (False, 1, event.seq)
    assert stored.first_broken_reason == f"rows: {row_changed('tables_banktax', tax.pk, 'amount')}"


# ------------------------------------------------------------------------------- the upgrade


def test_rows_written_before_the_upgrade_are_bound_once_by_the_migration(history: History) -> None:
    """As if the rows had been written by a release before bindings: every event's rows taken
    away, the migrations bind each row as it stands, 500 to an event of the global chain (tables
    0030 the tables bound first, 0036 the floor's: seats, spectators, bank turns and shares, shoes)."""
    superuser_sql("UPDATE audit_auditevent SET rows = NULL", [])
    unbound = rows_verify()
    assert unbound.difference_count == bound_rows() > 40
    assert {d.problem for d in unbound.differences} == {"unbound"}
    for name in ("0030_bind_existing_rows", "0036_bind_floor_rows"):
        migration = importlib.import_module(f"tables.migrations.{name}")
        with transaction.atomic():
            migration.bind_existing(apps, _Editor())
    baseline = AuditEvent.objects.filter(action="audit.rows.baseline").order_by("seq")
    assert {e.chain for e in baseline} == {GLOBAL_CHAIN}
    counted: dict[str, int] = {}
    for event in baseline:
        after, rows = event.after or {}, event.rows or []
        counted[after["table"]] = counted.get(after["table"], 0) + after["rows"]
        assert len(rows) == after["rows"] <= 500
    assert counted == {
        m._meta.db_table: m._base_manager.count() for m in bound_models() if m._base_manager.exists()
    }
    assert [str(d) for d in rows_verify().differences] == []


class _Editor:
    connection = connection


def test_the_transactions_of_a_history_are_all_bound(history: History) -> None:
    events = AuditEvent.objects.exclude(rows=None)
    bound = {r[1] for e in events for r in e.rows or () if r[0] == "ledger_transaction"}
    assert bound == set(Transaction.objects.values_list("pk", flat=True))

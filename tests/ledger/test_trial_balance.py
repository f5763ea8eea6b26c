"""``manage.py trial_balance``, the admin and the beat schedule."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.admin import site
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.urls import reverse

from chemin_de_fer.engine.coup import Outcome
from ledger.models import Account, Transaction
from ledger.services import cage_buy_in
from tests.factories import UserFactory
from tests.ledger.builders import rig

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("trial_balance", *args, stdout=out, stderr=err)
    except CommandError as error:
        return error.returncode, out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def played():
    r = rig("casino", players=2, chips=100)
    banker, p1 = r.players
    r.play(banker, 40, Outcome.BANKER, [(p1, 40)])  # levy 2
    return r


def test_json_output_is_exactly_the_documented_shape() -> None:
    r = played()
    code, out, _ = run("--casino", str(r.casino.pk), "--json")
    report = json.loads(out)
    assert code == 0 and set(report) == {"accounts", "debits", "credits", "markers"}
    assert report["markers"] == 0
    assert all(set(a) == {"account", "kind", "balance"} for a in report["accounts"])
    balances = {a["kind"]: a["balance"] for a in report["accounts"] if a["kind"] != "player"}
    assert balances == {"bank": 78, "cage": -200, "levy": 2, "reserve": 0}
    assert report["debits"] == report["credits"] == 200
    assert sorted(a["balance"] for a in report["accounts"] if a["kind"] == "player") == [60, 60]


def test_human_output_is_an_aligned_table() -> None:
    r = played()
    code, out, _ = run("--casino", str(r.casino.pk))
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["account", "kind", "debit", "credit"]
    assert lines[-1] == "balanced"
    total = lines[-2].split()
    assert total == ["total", "200", "200"]
    widths = {len(line) for line in lines[2:-3] if line.strip()}
    assert max(widths) <= len(lines[1])  # every row within the rule


def test_markers_are_the_credits_players_owe() -> None:
    """Issue 9 §2: a player who lost more than he held at a table that lets players borrow owes a
    marker; accounting sees it in the trial balance (JSON and table)."""
    r = rig("casino", players=2, chips=10)
    banker, p1 = r.players
    cage_buy_in(casino=r.casino, player=banker, amount=100, actor=r.actor, key="more")
    r.play(banker, 40, Outcome.BANKER, [(p1, 40)])  # P2 held 10 and lost 40: he owes 30
    code, out, _ = run("--casino", str(r.casino.pk), "--json")
    report = json.loads(out)
    # debits: banker 70, bank 78, levy 2; credits: the cage's 120 in circulation and P2's marker
    assert (code, report["markers"], report["debits"], report["credits"]) == (0, 30, 150, 150)
    code, out, _ = run("--casino", str(r.casino.pk))
    assert (code, out.splitlines()[-2:]) == (0, ["markers: players owe the house 30", "balanced"])


def test_all_casinos_by_default_and_unknown_casino() -> None:
    played(), played()
    code, out, _ = run("--json")
    assert code == 0 and json.loads(out)["debits"] == 400
    assert run("--casino", "999999")[0] == 1


@pytest.mark.postgres
def test_a_tampered_balance_fails_with_exit_1() -> None:
    r = played()
    with connection.cursor() as cursor:
        # the account guard refuses this to the application's role (tests/security); a superuser
        # can switch triggers off, and only the check sees what he did
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE ledger_account SET balance = balance + 5 WHERE kind = 'levy'")
        cursor.execute("SET LOCAL session_replication_role = origin")
    code, out, err = run("--casino", str(r.casino.pk))
    assert code == 1
    assert "NOT BALANCED" in out and "debits 205 != credits 200" in err
    assert "balance 7 != entries 2" in err


def test_admin_is_read_only(client) -> None:
    played()
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    txn = Transaction.objects.filter(kind="coup_settlement").first()
    assert txn is not None
    # the series and the fee-hour markers are the game's since they moved to tables
    for app, name in [
        ("ledger", "transaction"),
        ("ledger", "entry"),
        ("ledger", "account"),
        ("tables", "series"),
        ("tables", "feehour"),
    ]:
        model_admin = next(a for m, a in site._registry.items() if m._meta.label_lower == f"{app}.{name}")
        assert model_admin.search_fields and model_admin.list_filter
        assert client.get(reverse(f"admin:{app}_{name}_changelist")).status_code == 200
        assert client.get(reverse(f"admin:{app}_{name}_add")).status_code == 403
    page = client.get(reverse("admin:ledger_transaction_change", args=[txn.pk]))
    assert page.status_code == 200 and b"Save" not in page.content
    account = Account.objects.first()
    assert account is not None
    assert (
        client.post(reverse("admin:ledger_account_delete", args=[account.pk]), {"post": "yes"}).status_code
        == 403
    )


def test_the_hourly_fee_task_is_on_the_beat_schedule() -> None:
    from casino.celery import app
    from tables import tasks  # what the worker's autodiscovery imports (the fee tasks are the game's)

    entry = app.conf.beat_schedule["ledger-bill-due-hourly-fees"]
    assert entry["task"] == "ledger.bill_due_hourly_fees"
    for task in (tasks.bill_due_hourly_fees, tasks.bill_hourly_fees):
        assert app.tasks[task.name].run == task.run

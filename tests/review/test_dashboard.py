"""The dashboard's figures for a known history, its filters and pages, and the audit verification
asked for on demand (a Celery task run once the request has committed)."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent, ChainVerification
from audit.services import audit_record
from chemin_de_fer.engine.odds import profile_odds
from chemin_de_fer.engine.profiles import CASINO
from ledger.models import BooksVerification
from ledger.services.books import books_verification_start
from review.selectors.dashboard import hold_vs_expected, open_tables
from tables import services
from tables.engine_bridge import coup_record_id
from tables.gaming_day import Period, casino_calendar
from tables.models import BankTax
from tables.services.rollups import rollups_refresh
from tables.tasks import books_verify_task
from tests.factories import CasinoFactory
from tests.review.history import play_flagged
from tests.tables.play import play

pytestmark = pytest.mark.django_db


def test_the_numbers_for_a_known_history(client, pit_boss, history, table) -> None:
    services.shoe_close(actor=history.floor.croupier, shoe=history.floor.shoe, reason="shoe damaged")
    client.force_login(pit_boss)
    response = client.get(reverse("review:dashboard"))
    assert response.status_code == 200
    data = response.context["data"]

    # croupier: 3 coups, 14 + 12 + 9 steps of the game, one of them confirmed against the rules
    [rate] = data.rates
    assert (rate.username, rate.coups, rate.steps, rate.wrong_steps) == ("croupier", 3, 35, 1)
    assert rate.rate == Fraction(1, 3)

    # hold: levy 10 + 20 on covered 200 + 400 + 100, beside the engine's 6-deck expectation
    [hold] = data.hold
    assert (hold.table, hold.coups, hold.covered, hold.levy) == (table, 3, 700, 30)
    assert hold.hold == Fraction(30, 700)
    expected = profile_odds(CASINO, decks=6).expected_levy_per_unit
    # kept in the rollups to a millionth of a chip (tables.TableDay.expected_levy_micro)
    assert hold.expected_levy == Fraction(round(expected * 700 * 10**6), 10**6)
    assert abs(hold.expected - expected) < Fraction(1, 10**8) and 0.0225 < float(expected) < 0.0235
    assert hold.difference == Fraction(30, 700) - hold.expected

    [flagged] = data.flagged.object_list
    assert flagged == history.flagged
    assert [(s.index, s.violations) for s in flagged.wrong_steps] == [(11, ["BANKER_SHOULD_DRAW"])]
    [alarm] = data.alarms.object_list
    assert (alarm.kind, alarm.detail) == ("early_reshuffle", "closed after 19 of 312 cards (shoe damaged)")
    assert data.queue_count == 0

    html = response.content.decode()
    assert 'data-testid="corrections-waiting">0<' in html
    assert "BANKER_SHOULD_DRAW" in html and "reshuffled before 5/6 dealt" in html
    # the shares in the page's language (core.numbers), a no-break space before the sign
    points = f"{float(hold.difference) * 100:+.3f} pt"
    assert "33.3\xa0%" in html and "4.286\xa0%" in html and f">{points}<" in html
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    html = client.get(reverse("review:dashboard")).content.decode()
    assert "33,3\xa0%" in html and "4,286\xa0%" in html and f">{points.replace('.', ',')}<" in html


def test_open_tables_show_the_shoe_the_banker_and_the_bank(client, accountant, awaiting, table) -> None:
    client.force_login(accountant)
    response = client.get(reverse("review:dashboard"))
    data = response.context["data"]
    [row] = data.open_tables
    # 3 burnt + 6 cards of coup 1 + 5 of coup 2 + the 4C its correction took from the shoe
    assert (row.table, row.shoe.number, row.cards_dealt, row.cards_left) == (table, 1, 15, 297)
    assert not row.shoe.stop_reached
    assert (row.banker.display_name, row.bank, row.required_minimum) == ("Player 1", 400, 780)
    # restored and awaiting approval: no longer in play (tables.models.UNFINISHED_COUP_STATES, the
    # one definition the croupier's screen and the API use), shown beside it as awaiting approval
    assert row.coup_in_play is None and row.awaiting_approval == [awaiting.flagged]
    assert 'data-testid="awaiting-approval">coup 2 · awaiting approval<' in response.content.decode()
    assert data.queue_count == 1


def test_open_tables_cost_the_same_queries_for_one_table_as_for_five(
    croupier, table, django_assert_num_queries
) -> None:
    from tests.factories import CroupierAssignmentFactory, TableFactory
    from tests.tables.play import open_floor

    tables = [table, *(TableFactory(casino=table.casino) for _ in range(4))]
    for n, t in enumerate(tables):
        CroupierAssignmentFactory(user=croupier, table=t)
        floor = open_floor(croupier, t, banker_seat=None if n == 2 else 1)
        if n in (1, 3):
            play_flagged(floor)
    with django_assert_num_queries(11):  # the tables, then the table now's ten
        [one] = open_tables(table=table)
    with django_assert_num_queries(11):
        five = open_tables()
    assert one.table == table and sorted(t.pk for t in tables) == sorted(row.table.pk for row in five)
    assert {row.table.pk for row in five if row.coup_in_play is not None} == {tables[1].pk, tables[3].pk}


def test_filters_by_period_and_table(client, pit_boss, history, table, other_table) -> None:
    client.force_login(pit_boss)
    # the casino's gaming days (06:00 cut-off): before 06:00 the night is still the previous day's
    yesterday = (casino_calendar(table.casino).today(timezone.now()) - dt.timedelta(days=1)).isoformat()
    data = client.get(reverse("review:dashboard"), {"start": yesterday, "end": yesterday}).context["data"]
    assert (data.rates, data.hold, list(data.flagged.object_list)) == ([], [], [])
    data = client.get(reverse("review:dashboard"), {"table": other_table.pk}).context["data"]
    assert (data.table, data.rates, data.hold, data.open_tables) == (other_table, [], [], [])
    data = client.get(reverse("review:dashboard"), {"table": table.pk}).context["data"]
    assert [h.table for h in data.hold] == [table]
    bad = client.get(reverse("review:dashboard"), {"start": "2026-02-10", "end": "2026-02-01"})
    assert bad.status_code == 200 and "The period starts after it ends." in bad.content.decode()
    assert bad.context["data"].period == Period.last_days()


def test_flagged_coups_and_alarms_are_paginated_newest_first(client, pit_boss, awaiting, monkeypatch) -> None:
    monkeypatch.setattr("review.selectors.dashboard.DASHBOARD_PAGE_SIZE", 1)
    newer = play_flagged(awaiting.floor, bank=780, bets=((2, 100),))
    client.force_login(pit_boss)
    table_id = awaiting.floor.table.pk
    page1 = client.get(reverse("review:dashboard"), {"table": table_id})
    page2 = client.get(reverse("review:dashboard"), {"table": table_id, "flagged_page": 2})
    assert list(page1.context["data"].flagged.object_list) == [newer]
    assert list(page2.context["data"].flagged.object_list) == [awaiting.flagged]
    html = page1.content.decode()
    assert f'href="?table={table_id}&amp;flagged_page=2#flagged"' in html


def test_hold_weights_the_expectation_by_the_stakes_of_each_shoe_size(croupier, pit_boss, table) -> None:
    from tests.tables.play import open_floor

    floor = open_floor(croupier, table)  # 6 decks
    play(floor, bank=200, bets=[(2, 200)], cards=("2H", "AS", "3C", "2D"), player="draw", player_card="9H",
         banker="draw", banker_card="5S")  # fmt: skip
    services.shoe_close(actor=croupier, shoe=floor.shoe, reason="new shoe")
    services.shoe_start(actor=croupier, session=floor.session, decks=8, burnt_cards=["2C", "3C", "4C"])
    play(floor, bank=390, bets=[(2, 100)], cards=("2H", "AS", "3C", "2D"), player="draw", player_card="9H",
         banker="draw", banker_card="5S")  # fmt: skip
    today = casino_calendar(table.casino).today(timezone.now())  # a gaming day, not the calendar's
    rollups_refresh()  # the hold is read from the rollups
    [row] = hold_vs_expected(period=Period(today, today))
    six, eight = (profile_odds(CASINO, decks=d).expected_levy_per_unit for d in (6, 8))
    assert (row.covered, row.levy) == (300, 15)
    # kept to a millionth of a chip (tables.TableDay.expected_levy_micro)
    assert row.expected_levy == Fraction(round((200 * six + 100 * eight) * 10**6), 10**6)


# ------------------------------------------------------------------------------ audit verification
def test_verify_on_demand_stores_and_shows_the_result(
    client, pit_boss, django_capture_on_commit_callbacks
) -> None:
    with transaction.atomic():
        audit_record(actor=None, action="test.event")
    client.force_login(pit_boss)  # a login event: seq 2
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(reverse("review:audit_verify"), HTTP_HX_REQUEST="true")
    assert len(callbacks) == 1  # the task is enqueued only once the request's transaction commits
    assert not ChainVerification.objects.exists()
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="card audit-panel" id="audit"')
    assert 'data-testid="audit-pending">A verification asked for at' in html
    callbacks[0]()  # the commit: the task runs in-process (no broker)
    verification = ChainVerification.objects.get()
    assert (verification.ok, verification.checked, verification.head_seq) == (True, 3, 3)
    assert verification.requested_by == pit_boss
    assert list(AuditEvent.objects.order_by("seq").values_list("action", flat=True))[-2:] == [
        "audit.chainverification.request",
        "audit.chainverification.record",
    ]
    html = client.get(reverse("review:dashboard")).content.decode()
    assert "audit-pending" not in html
    assert (
        f"verified up to seq 3 at {timezone.localtime(verification.finished_at):%Y-%m-%d %H:%M:%S}:" in html
    )
    assert '<strong class="ok">OK</strong>' in html and "asked by pitboss" in html
    assert 'data-testid="audit-length">4<' in html  # the stored result is itself audited


def test_a_casinos_broken_chain_is_shown_even_when_another_chain_verified_later(
    client, pit_boss, table
) -> None:
    with transaction.atomic():
        audit_record(actor=None, action="test.event", casino=table.casino)
        audit_record(actor=None, action="test.event")
    now = timezone.now()
    common = {"checked": 1, "head_seq": 1, "head_hash": "a" * 64}
    ChainVerification.objects.create(
        chain=table.casino_id, started_at=now, finished_at=now, ok=False, broken_count=1,
        first_broken_seq=1, first_broken_reason="content does not match its hash", **common,
    )  # fmt: skip
    later = now + dt.timedelta(minutes=1)
    ChainVerification.objects.create(chain=0, started_at=later, finished_at=later, ok=True, **common)
    client.force_login(pit_boss)
    html = client.get(reverse("review:dashboard")).content.decode()
    assert '<strong class="broken">broken at seq 1</strong>' in html
    assert f"(the chain of casino {table.casino_id})" in html
    assert 'data-testid="audit-chains">2 chains: one per casino, and the global one' in html


@pytest.mark.postgres  # the edit bypasses the append-only triggers the PostgreSQL way
def test_a_broken_chain_is_shown_where_it_breaks(
    client, pit_boss, django_capture_on_commit_callbacks
) -> None:
    with transaction.atomic():
        for n in range(4):
            audit_record(actor=None, action=f"test.event.{n}")
    with connection.cursor() as cursor:  # a database administrator's edit, triggers bypassed
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE audit_auditevent SET action = 'forged' WHERE seq = 3")
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")
    client.force_login(pit_boss)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("review:audit_verify"))
    assert response["Location"] == reverse("review:dashboard") + "#audit"
    response = client.get(response["Location"])
    verification = ChainVerification.objects.get()
    assert (verification.ok, verification.first_broken_seq, verification.broken_count) == (False, 3, 1)
    html = response.content.decode()
    assert '<strong class="broken">broken at seq 3</strong>' in html
    assert "content does not match its hash" in html


def test_the_nightly_task_stores_its_result_too() -> None:
    from audit.tasks import audit_chain_verify_task

    with transaction.atomic():
        audit_record(actor=None, action="test.event")
    assert audit_chain_verify_task.delay().get() == {
        "ok": True,
        "checked": 1,
        "head_seq": 1,
        "heads": {"0": 1},
    }
    verification = ChainVerification.objects.get()
    assert (verification.requested_by, verification.head_seq, verification.ok) == (None, 1, True)
    last = AuditEvent.objects.order_by("-seq").first()
    assert last is not None and last.actor_label == "system"


# ----------------------------------------------------------------------------- books verification
def test_the_books_panel_shows_the_last_verification(client, pit_boss, awaiting) -> None:
    client.force_login(pit_boss)
    html = client.get(reverse("review:dashboard")).content.decode()
    assert '<section class="card books-panel" id="books"' in html
    assert 'data-testid="books-verification">\n      \n      never verified' in html
    # a levy written behind the services' back: the engine knows none, and no event binds it
    tax = BankTax.objects.create(coup=awaiting.flagged, basis=400, amount=20)
    books_verify_task.delay()
    run = BooksVerification.objects.get()
    html = client.get(reverse("review:dashboard")).content.decode()
    assert (
        f"2 coups, 8 postings, 8 accounts checked at {timezone.localtime(run.finished_at):%Y-%m-%d %H:%M:%S}:"
        in html
    )
    assert '<strong class="broken">2 differences</strong>' in html and "nightly run" in html
    coup = awaiting.flagged
    record_id = coup_record_id(coup)
    assert record_id == f"T{coup.shoe.table_id}-session{coup.shoe.session_id}-shoe1-coup{coup.number}"
    assert (
        f"<li><strong>coup {coup.pk} ({record_id})</strong> [levy]: "
        "engine no levy; BankTax 20 on covered 400</li>" in html
    )
    assert (
        f"<li><strong>tables_banktax row {tax.pk}</strong> [audit row]: "
        "no audit event binds this row (written outside the application)</li>" in html
    )
    books_verification_start()
    html = client.get(reverse("review:dashboard")).content.decode()
    assert 'data-testid="books-running">A verification started at' in html


def test_a_reader_of_some_casinos_sees_the_count_not_the_differences(
    client, pit_boss, group_auditor, awaiting
) -> None:
    """The books are verified for every casino at once and a difference names a coup or an
    account: a pit boss of one casino among several is told how many, not which (issue 20, §4)."""
    CasinoFactory(name="Across the road")
    BankTax.objects.create(coup=awaiting.flagged, basis=400, amount=20)  # the levy's and the row's
    books_verify_task.delay()
    client.force_login(pit_boss)
    html = client.get(reverse("review:dashboard")).content.decode()
    assert '<strong class="broken">2 differences</strong>' in html
    listed, elsewhere = 'data-testid="books-differences"', 'data-testid="books-differences-elsewhere"'
    assert elsewhere in html and listed not in html
    client.force_login(group_auditor)
    html = client.get(reverse("review:dashboard")).content.decode()
    assert listed in html and elsewhere not in html


def test_the_audit_panel_shows_the_newest_anchor_and_the_last_full_verification(
    client, pit_boss, settings, tmp_path
) -> None:
    """Issue 20: how much of the trail is vouched for outside the database, and since when."""
    from audit.tasks import audit_anchor_task, audit_chain_verify_task

    client.force_login(pit_boss)
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    with transaction.atomic():
        audit_record(actor=None, action="test.event")
    html = client.get(reverse("review:dashboard")).content.decode()
    assert "no signed anchor: nothing of the trail is vouched for outside the database" in html
    assert 'data-testid="audit-full">never<' in html
    anchored = audit_anchor_task.delay().get()
    audit_chain_verify_task()
    verification = ChainVerification.objects.get()
    html = client.get(reverse("review:dashboard")).content.decode()
    at = dt.datetime.strptime(anchored["at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
    head = AuditEvent.objects.order_by("-seq").values_list("seq", flat=True).first()
    # anchored before the anchor file was recorded and the verification recorded its own event
    assert head is not None and anchored["seq"] == head - 2
    said = f"seq {anchored['seq']} signed at {timezone.localtime(at):%Y-%m-%d %H:%M:%S}, 0\xa0minutes ago"
    assert f'data-testid="audit-anchor">{said}<' in html
    full = f"{timezone.localtime(verification.finished_at):%Y-%m-%d %H:%M:%S}, 0\xa0minutes ago"
    assert f'data-testid="audit-full">{full}<' in html

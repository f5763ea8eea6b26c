"""Landsknecht's reserve fund goes back to those who paid into it when play ends (RULES.md §11):
the session's close posts it, by the house's rule, checked by the offline judge, audited, and
``verify_books`` re-derives it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditEvent
from ledger.models import Account, Entry, Transaction
from ledger.selectors import player_available
from older_games import services as svc
from tables import services
from tables.models import GameCoup, TableSession
from tables.money.books import books_verify

pytestmark = pytest.mark.django_db


def _chips(table, players) -> list[int]:
    return [player_available(casino=table.casino, player=p) for p in players]


def _punters_win_with_the_fund(croupier, session, players) -> GameCoup:
    """a banks 50, b covers 30, the fund answers for 20; the punters' rank comes again first."""
    _a, b, _c = players
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    for payload in (
        {"kind": "stake", "amount": 50},
        {"kind": "cover", "player": svc.player_key(b), "amount": 30},
        {"kind": "close"},
        {"kind": "card", "card": "5H"},  # the banker's
        {"kind": "card", "card": "KS"},  # the punters'
        {"kind": "card", "card": "KD"},  # the punters' rank again: they win
    ):
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    assert (coup.state, coup.outcome) == (GameCoup.State.SETTLED, "punters")
    return coup


def test_the_close_returns_the_fund_to_its_payers_by_the_house_rule(game_table, croupier) -> None:
    table, session, players = game_table("landsknecht", players=3)
    svc.game_fund_collect(actor=croupier, session=session)
    _punters_win_with_the_fund(croupier, session, players)
    assert svc.fund_balance(table) == 50  # 30 in dues, 20 won from the banker
    assert _chips(table, players) == [940, 1020, 990]
    planned = svc.fund_return_planned(session)
    keys = [svc.player_key(p) for p in players]
    assert planned is not None
    # 50 in proportion to 10, 10, 10: 16 each and the two chips left one each to the first payers
    assert planned["returned"] == [
        {"player": keys[0], "amount": 17},
        {"player": keys[1], "amount": 17},
        {"player": keys[2], "amount": 16},
    ]
    services.table_session_close(actor=croupier, session=session, reason="end of play")
    assert svc.fund_balance(table) == 0
    assert _chips(table, players) == [957, 1037, 1006]
    txn = Transaction.objects.get(kind=Transaction.Kind.FUND_RETURN)
    assert txn.idempotency_key == f"fund-return:{session.pk}"
    assert sorted(Entry.objects.filter(transaction=txn).values_list("amount", flat=True)) == [-50, 16, 17, 17]
    after = AuditEvent.objects.get(action="tables.game_fund.return").after
    assert after is not None and after["record"]["rule"] == "proportional"
    assert after["verdict"]["violations"] == [] and after["transaction"] == txn.pk
    report = books_verify()
    assert [str(d) for d in report.differences] == []


def test_the_equal_rule_is_the_house_s_other_choice(game_table, croupier) -> None:
    """The record says which rule returned the fund; every player pays the same due at a session,
    so on the floor the two rules give the same shares (they differ offline, tests/tables/rules)."""
    _table, session, players = game_table(
        "landsknecht", players=3, settings={"min_stake": 10, "fund_due": 10, "fund_return": "equal"}
    )
    svc.game_fund_collect(actor=croupier, session=session)
    _punters_win_with_the_fund(croupier, session, players)
    services.table_session_close(actor=croupier, session=session)
    txn = Transaction.objects.get(kind=Transaction.Kind.FUND_RETURN)
    assert sorted(Entry.objects.filter(transaction=txn).values_list("amount", flat=True)) == [-50, 16, 17, 17]
    after = AuditEvent.objects.get(action="tables.game_fund.return").after
    assert after is not None and after["record"]["rule"] == "equal"


def test_a_close_with_a_coup_open_is_refused_and_the_fund_stays(game_table, croupier) -> None:
    table, session, players = game_table("landsknecht", players=2)
    svc.game_fund_collect(actor=croupier, session=session)
    svc.game_coup_start(actor=croupier, session=session)
    before = (svc.fund_balance(table), _chips(table, players), AuditEvent.objects.count())
    with pytest.raises(ValidationError, match="coup"):
        services.table_session_close(actor=croupier, session=session)
    assert (svc.fund_balance(table), _chips(table, players), AuditEvent.objects.count()) == before
    assert not Transaction.objects.filter(kind=Transaction.Kind.FUND_RETURN).exists()
    assert TableSession.objects.get(pk=session.pk).closed_at is None


def test_an_empty_fund_posts_nothing_and_the_table_closes(game_table, croupier) -> None:
    _table, session, _players = game_table(
        "landsknecht", players=2, settings={"min_stake": 10, "fund_due": 0}
    )
    services.table_session_close(actor=croupier, session=session)
    assert not Transaction.objects.filter(kind=Transaction.Kind.FUND_RETURN).exists()
    assert TableSession.objects.get(pk=session.pk).closed_at is not None
    assert not AuditEvent.objects.filter(action="tables.game_fund.return").exists()


def test_the_next_session_returns_only_its_own_dues(game_table, croupier) -> None:
    """Dues are paid per session: the second session's fund goes to its own payers only."""
    table, session, players = game_table("landsknecht", players=3)
    svc.game_fund_collect(actor=croupier, session=session)
    services.table_session_close(actor=croupier, session=session)
    assert svc.fund_balance(table) == 0 and _chips(table, players) == [1000, 1000, 1000]
    again = services.table_session_open(actor=croupier, table=table)
    for n, player in enumerate(players[:2], 1):
        services.seat_take(actor=croupier, session=again, player=player, number=n)
    svc.game_fund_collect(actor=croupier, session=again)
    assert svc.fund_paid_in(again) == [(svc.player_key(players[0]), 10), (svc.player_key(players[1]), 10)]
    services.table_session_close(actor=croupier, session=again)
    assert _chips(table, players) == [1000, 1000, 1000]
    assert Transaction.objects.filter(kind=Transaction.Kind.FUND_RETURN).count() == 2
    assert Account.objects.get(kind=Account.Kind.FUND, table=table).balance == 0
    assert [str(d) for d in books_verify().differences] == []


@pytest.mark.postgres
def test_a_tampered_fund_return_is_named_by_the_books(game_table, croupier) -> None:
    from tests.security.test_books_tamper import as_superuser

    table, session, players = game_table("landsknecht", players=2)
    svc.game_fund_collect(actor=croupier, session=session)
    services.table_session_close(actor=croupier, session=session)
    txn = Transaction.objects.get(kind=Transaction.Kind.FUND_RETURN)
    a, b = (Account.objects.get(kind=Account.Kind.PLAYER, player=p) for p in players)
    for pk, delta in ((a.pk, 5), (b.pk, -5)):
        as_superuser(
            "UPDATE ledger_entry SET amount = amount + %s WHERE transaction_id = %s AND account_id = %s",
            [delta, txn.pk, pk],
        )
        as_superuser("UPDATE ledger_account SET balance = balance + %s WHERE id = %s", [delta, pk])
    found = sorted((str(d) for d in books_verify().differences), key=lambda d: "[audit]" not in d)
    a_key, b_key = (svc.player_key(p) for p in players)
    # the posting's audit event no longer matches it, the fund's rule no longer gives it, and the
    # two entries are not what their audit event bound
    from tests.audit.rows import books_line, row_changed

    assert len(found) == 4
    assert found[0].startswith(f"transaction {txn.pk} (fund_return fund-return:{session.pk}) [audit]")
    assert found[1] == (
        f"transaction {txn.pk} (fund-return:{session.pk}) [fund return]: takes 20 from the fund of "
        f"{table.name} and gives [player {players[0].pk} +15, player {players[1].pk} +5], not what its "
        f"payers' dues give: [{{'player': '{a_key}', 'amount': 10}}, {{'player': '{b_key}', 'amount': 10}}]"
    )
    edited = Entry.objects.filter(transaction=txn, account__in=[a, b]).order_by("pk")
    assert found[2:] == [books_line(row_changed("ledger_entry", e.pk, "amount")) for e in edited]

"""``verify_books`` re-derives the older games' coups and the reserve fund's dues: a clean history
verifies, and what a database superuser changes behind the application's back (an entry, a step,
a posting on a void coup, a due) is named (triggers bypassed as in tests/security/test_books_tamper.py)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from ledger.models import Account, Entry, Transaction
from older_games import services as svc
from older_games.selectors import game_coup_record_id
from tables.models import GameCoup, GameStep
from tables.money.books import books_verify
from tests.audit.rows import books_line, row_changed
from tests.older_games.coups import GameHistory
from tests.security.test_books_tamper import as_superuser

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def differences() -> list[str]:
    report = books_verify()
    assert report.game_coups == 5
    return [str(d) for d in report.differences]


def subject(coup: GameCoup) -> str:
    return f"game coup {coup.pk} ({game_coup_record_id(coup)})"


def player_account(player) -> Account:
    return Account.objects.get(kind=Account.Kind.PLAYER, player=player)


def test_a_clean_history_of_every_game_verifies(games: GameHistory) -> None:
    assert differences() == []
    kinds = sorted(Transaction.objects.filter(game_coup=games.tie).values_list("kind", flat=True))
    assert kinds == ["game_settlement", "pool_in", "pool_out"]
    out = io.StringIO()
    call_command("verify_books", stdout=out)
    printed = out.getvalue().splitlines()
    assert "game coups checked: 5" in printed and printed[-1] == "books OK"


def test_an_entry_moved_between_two_players_is_named(games: GameHistory) -> None:
    """The banker of the Macao coup paid 30 to b and 20 to c; rewritten as 20 and 30, balances too."""
    coup = games.macao
    _a, b, c = games.players["macao"]
    txn = Transaction.objects.get(game_coup=coup, kind="game_settlement")
    kb, kc = player_account(b), player_account(c)
    before = dict(Entry.objects.filter(transaction=txn).values_list("account_id", "amount"))
    assert (before[kb.pk], before[kc.pk]) == (30, 20)
    for pk, delta in ((kb.pk, -10), (kc.pk, 10)):
        as_superuser(
            "UPDATE ledger_entry SET amount = amount + %s WHERE transaction_id = %s AND account_id = %s",
            [delta, txn.pk, pk],
        )
        as_superuser("UPDATE ledger_account SET balance = balance + %s WHERE id = %s", [delta, pk])
    found = [d for d in differences() if "[game settlement]" in d]
    gaps = sorted(
        [(kb.name, f"{kb.name}: engine +30, ledger +20"), (kc.name, f"{kc.name}: engine +20, ledger +30")]
    )
    assert found == [
        f"{subject(coup)} [game settlement]: game_settlement #{txn.pk}: " + "; ".join(g for _, g in gaps)
    ]


def test_a_step_rewritten_is_named(games: GameHistory) -> None:
    """The banker's 5 rewritten as a 9: the replay now gives the banker the coup, not the ledger."""
    coup = games.macao
    step = GameStep.objects.get(coup=coup, index=3)
    as_superuser(
        "UPDATE tables_gamestep SET payload = %s WHERE id = %s", ['{"kind": "deal", "card": "9D"}', step.pk]
    )
    found = differences()
    assert (
        found[0]
        == f"{subject(coup)} [game settlement]: the coup's record is not the record of its recorded steps"
    )
    assert found[1].startswith(f"{subject(coup)} [game settlement]: game_settlement #")
    # and the row is no longer what its audit event bound
    assert found[2:] == [books_line(row_changed("tables_gamestep", step.pk, "payload"))]


def test_an_illegal_step_is_named(games: GameHistory) -> None:
    coup = games.landsknecht
    step = GameStep.objects.get(coup=coup, index=1)
    as_superuser("UPDATE tables_gamestep SET payload = %s WHERE id = %s", ['{"kind": "close"}', step.pk])
    found = differences()
    assert len(found) == 2
    assert found[0].startswith(
        f"{subject(coup)} [game settlement]: the game's machine cannot replay the recorded steps: "
    )
    assert found[1] == books_line(row_changed("tables_gamestep", step.pk, "payload"))


def test_a_pool_posting_erased_is_named(games: GameHistory) -> None:
    coup = games.tie
    txn = Transaction.objects.get(game_coup=coup, kind="pool_out")
    for pk, amount in Entry.objects.filter(transaction=txn).values_list("account_id", "amount"):
        as_superuser("UPDATE ledger_account SET balance = balance - %s WHERE id = %s", [amount, pk])
    as_superuser("DELETE FROM ledger_entry WHERE transaction_id = %s", [txn.pk])
    as_superuser("DELETE FROM ledger_transaction WHERE id = %s", [txn.pk])
    as_superuser(
        "DELETE FROM audit_auditevent WHERE object_type = 'ledger.transaction' AND object_id = %s",
        [str(txn.pk)],
    )
    assert differences() == [
        f"{subject(coup)} [game settlement]: "
        "the coup is settled but the ledger has no pool_out posting for it"
    ]


def test_a_void_coup_given_the_settlement_of_another_is_named(games: GameHistory) -> None:
    txn = Transaction.objects.get(game_coup=games.macao, kind="game_settlement")
    as_superuser("UPDATE ledger_transaction SET game_coup_id = %s WHERE id = %s", [games.void.pk, txn.pk])
    found = differences()
    assert (
        f"{subject(games.void)} [game settlement]: "
        f"the coup is void but the ledger has postings for it (#{txn.pk})" in found
    )
    assert (
        f"{subject(games.macao)} [game settlement]: "
        "the coup is settled but the ledger has no game_settlement posting for it"
    ) in found


def test_a_fund_due_changed_is_named(games: GameHistory) -> None:
    txn = Transaction.objects.filter(kind="fund_due").order_by("pk").first()
    assert txn is not None
    as_superuser("UPDATE ledger_entry SET amount = amount * 2 WHERE transaction_id = %s", [txn.pk])
    for pk, amount in Entry.objects.filter(transaction=txn).values_list("account_id", "amount"):
        as_superuser("UPDATE ledger_account SET balance = balance + %s WHERE id = %s", [amount // 2, pk])
    found = [d for d in differences() if "[fund due]" in d]
    player = games.players["landsknecht"][0]
    assert len(found) == 1
    assert found[0].startswith(f"transaction {txn.pk} ({txn.idempotency_key}) [fund due]: moves [")
    assert found[0].endswith(
        f"not 10 from player {player.pk} into the fund of {games.landsknecht.table.name}"
    )


def test_a_coup_with_a_step_taken_back_verifies(game_table, croupier) -> None:
    from tests.older_games.coups import macao_steps

    _t, session, _players = game_table("macao", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "2H"})
    svc.game_step_undo(actor=croupier, coup=coup, reason="it was the 9 of hearts")
    for payload in macao_steps():
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == (GameCoup.State.SETTLED, 8)
    report = books_verify()
    assert report.game_coups == 1 and [str(d) for d in report.differences] == []
    from older_games.review import game_coup_review

    steps = game_coup_review(coup).steps
    assert [(s.index, s.kind, s.undone) for s in steps[:3]] == [
        (1, "deal", True),
        (2, "undo", True),
        (3, "deal", False),
    ]
    assert steps[1].detail == "deal · 2H · it was the 9 of hearts"

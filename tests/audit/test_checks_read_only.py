"""The checks the embedded beat runs beside the tables (core/embedded_beat.py: the chains' daily
verification, the books'), paused half-way through their walk: a croupier's or a cashier's write
commits meanwhile, at once, on SQLite too (the check holds no write lock: SQLite has one writer),
and what the check then finds is what one snapshot held (a posting committed while it read the
rows is not named "no audit event binds this row")."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection

from audit import row_verify, selectors
from audit.tasks import audit_chain_verify_task
from ledger.models import BooksVerification
from ledger.services import cage_buy_in
from tables.tasks import books_verify_task
from tests.factories import CasinoFactory, PlayerFactory

pytestmark = pytest.mark.django_db(transaction=True)

#: how long a write may take while a check runs: far less than SQLite's busy timeout (20 s), which
#: is how long it would wait behind a check that held the write lock
WRITE_WITHIN = 5.0


class Pause:
    """Holds the check at a point of its walk until the test has written."""

    def __init__(self) -> None:
        self.reached, self.resume = threading.Event(), threading.Event()

    def wrap(self, walk: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
        def paused(*args: Any, **kwargs: Any) -> Iterator[Any]:
            items = walk(*args, **kwargs)
            first = next(items, None)
            if not self.reached.is_set():
                self.reached.set()
                self.resume.wait(30)
            if first is not None:
                yield first
            yield from items

        return paused


def _in_thread(target: Callable[[], Any], out: list[Any]) -> threading.Thread:
    def run() -> None:
        try:
            out.append(target())
        except BaseException as exc:  # reported by the test; a thread must not die silently
            out.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _buy_in_while_paused(pause: Pause, check: Callable[[], Any], casino: Any, player: Any) -> Any:
    """Run ``check`` in a thread; once it is paused, buy chips at the cage (a posting, its entries
    and its event, committed) in another; then let the check finish. The check's result."""
    checked: list[Any] = []
    checker = _in_thread(check, checked)
    try:
        assert pause.reached.wait(30), checked
        bought: list[Any] = []
        buyer = _in_thread(
            lambda: cage_buy_in(actor=None, casino=casino, player=player, amount=500, key="while-checked"),
            bought,
        )
        buyer.join(WRITE_WITHIN)
        assert not buyer.is_alive(), "the write waited for the check: it holds the database's write lock"
        assert len(bought) == 1 and not isinstance(bought[0], BaseException), bought
    finally:
        pause.resume.set()
        checker.join(60)
    assert len(checked) == 1 and not isinstance(checked[0], BaseException), checked
    return checked[0]


@pytest.fixture
def cage() -> tuple[Any, Any]:
    casino = CasinoFactory()
    player = PlayerFactory(casino=casino)
    cage_buy_in(actor=None, casino=casino, player=player, amount=1000, key="before")  # bound rows
    return casino, player


@pytest.mark.parametrize("where", ["the chains' walk", "the rows' walk"])
def test_the_chains_verification_lets_the_tables_write_and_reads_one_snapshot(
    cage: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    pause = Pause()
    if where == "the chains' walk":
        monkeypatch.setattr(selectors, "chain_walk_orm", pause.wrap(selectors.chain_walk_orm))
        monkeypatch.setattr(selectors, "chain_walk", pause.wrap(selectors.chain_walk))
    else:
        monkeypatch.setattr(row_verify, "_rows_in_order", pause.wrap(row_verify._rows_in_order))

    result = _buy_in_while_paused(pause, lambda: audit_chain_verify_task.apply().get(), *cage)

    assert result["ok"] is True, result


def test_the_books_verification_lets_the_tables_write_and_reads_one_snapshot(
    cage: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    pause = Pause()
    monkeypatch.setattr(row_verify, "_rows_in_order", pause.wrap(row_verify._rows_in_order))

    result = _buy_in_while_paused(pause, lambda: books_verify_task.apply().get(), *cage)

    assert (result["skipped"], result["ok"], result["differences"]) == (False, True, 0), result
    assert BooksVerification.objects.get().status == BooksVerification.Status.OK

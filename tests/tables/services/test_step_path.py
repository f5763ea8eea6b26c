"""The path of a chemin de fer step through the code, held as it was designed (docs/architecture.md,
"The path of one coup step"): the step and amendment services ask the engine one question through
``chemin_de_fer.engine.entry`` (the betting order, a spectator's turn, the banco's winner and his
suivi are its rulings, not the service's) and reach the money only through ``tables.money.floor``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.imports import imports_of

ROOT = Path(__file__).resolve().parents[3]
STEP_SERVICES = ["tables/services/coups.py", "tables/services/amends.py"]
#: the engine's rulings on an entry: asked through entry.entry_judge, never by a step service
RULINGS = {"chemin_de_fer.engine.order", "chemin_de_fer.engine.settlement"}


@pytest.mark.parametrize("service", STEP_SERVICES)
def test_a_step_service_asks_the_engines_rulings_only_through_the_entry_judge(service: str) -> None:
    imported = set(imports_of(ROOT / service))
    assert not imported & RULINGS, f"{service} imports {sorted(imported & RULINGS)}"


@pytest.mark.parametrize("service", STEP_SERVICES)
def test_a_step_service_reaches_the_money_only_through_the_floors_money(service: str) -> None:
    imported = imports_of(ROOT / service)
    money = sorted(m for m in imported if m.startswith(("tables.money", "ledger")))
    assert money in ([], ["tables.money"]), f"{service} reaches the money through {money}"


def test_the_step_service_asks_the_entry_judge() -> None:
    assert "chemin_de_fer.engine.entry" in imports_of(ROOT / "tables/services/coups.py")


@pytest.mark.parametrize(
    "path",
    [
        "tables/services/import_batch.py",
        "tables/money/banks.py",
        "tables/money/settlement.py",
        "tables/money/books.py",
    ],
)
def test_the_importer_the_live_money_and_the_books_check_share_the_money_rules(path: str) -> None:
    """One owner per money rule (tables/money/rules.py): the batched importer, the live services and
    the books check all ask it."""
    source = (ROOT / path).read_text()
    assert "from tables.money.rules import" in source or "from tables.money import rules" in source

"""The ledger knows accounting only: no module under ledger/ (commands, admin and migrations
included) imports the game floor. Its foreign keys name the floor's models by label
("tables.Casino"); the game's money rules are tables/money/'s."""

from __future__ import annotations

import ast
from pathlib import Path

import ledger

PACKAGE = Path(ledger.__file__).resolve().parent
BANNED = "tables"


def _package(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])


def _imports(path: Path, package: str) -> list[str]:
    """Every module ``path`` imports, relative imports resolved against ``package``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):  # imports inside functions count too
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.append(module)
            names += [f"{module}.{a.name}" for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.append(node.args[0].value)
    return names


def test_no_module_of_the_ledger_imports_the_game_floor() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) >= 15  # models, services/*, selectors, sql, fees, admin, command, migrations
    offenders = [
        (str(path.relative_to(PACKAGE)), name)
        for path in modules
        for name in _imports(path, _package(path))
        if name.split(".")[0] == BANNED
    ]
    assert offenders == []


def test_the_scan_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The check itself: each way of importing the floor is caught."""
    sample = tmp_path / "sample.py"
    sources = [
        "import tables.models",
        "from tables.models import Casino",
        "from tables import money",
        "def f():\n    from tables.money import banks",
        "import importlib\nimportlib.import_module('tables.models')",
    ]
    for source in sources:
        sample.write_text(source + "\n")
        assert any(name.split(".")[0] == BANNED for name in _imports(sample, "ledger.services")), source
    sample.write_text("from . import posting\nfrom ..models import Account\n")
    assert _imports(sample, "ledger.services") == [
        "ledger.services",
        "ledger.services.posting",
        "ledger.models",
        "ledger.models.Account",
    ]

"""The rules engine imports nothing from Django (nor from the rest of the project)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import tables.rules

PACKAGE = Path(tables.rules.__file__).resolve().parent
ALLOWED_PROJECT_PREFIX = "tables.rules"
#: every package of the project (apps, configuration, tests), found on disk so that a new app is
#: covered without editing this test
PROJECT_PACKAGES = frozenset(
    p.name for p in PACKAGE.parents[1].iterdir() if p.is_dir() and (p / "__init__.py").exists()
)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_the_project_packages_are_all_known() -> None:
    assert {"tables", "ledger", "audit", "casino", "core", "review", "reports", "tests"} <= PROJECT_PACKAGES


def test_no_module_of_the_engine_imports_django_or_the_project() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 8
    offenders = []
    for path in modules:
        for name in _imports(path):
            top = name.split(".")[0]
            if top in {"django", "rest_framework", "celery"}:
                offenders.append((path.name, name))
            if top in PROJECT_PACKAGES and not name.startswith(ALLOWED_PROJECT_PREFIX):
                offenders.append((path.name, name))
    assert offenders == []


def test_importing_the_whole_engine_loads_no_django() -> None:
    names = [f"tables.rules.{p.stem}" for p in sorted(PACKAGE.glob("*.py")) if p.stem != "__init__"]
    code = (
        "import importlib, sys\n"
        f"for n in {names!r}: importlib.import_module(n)\n"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    root = PACKAGE.parents[1]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "[]"

"""Every game's engine is pure: it imports nothing from Django, nor from the project but the
pure kernel every engine shares (core.cards, core.sentence, core.records) and its own wing's
engine. Dataclasses in, verdicts out: an auditor re-checks a history without the database."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.imports import imports_of

ROOT = Path(__file__).resolve().parents[1]
#: each engine, and what it may import of the project besides itself
ENGINES = {
    "chemin_de_fer/engine": ("chemin_de_fer.engine",),
    "older_games/engine": ("older_games.engine",),
}
#: the pure kernel the engines share (no Django either)
KERNEL = ("core.cards", "core.sentence", "core.records")
#: every package of the project (apps, configuration, tests), found on disk so that a new app is
#: covered without editing this test
PROJECT_PACKAGES = frozenset(p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists())


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).glob("*.py"))


def test_the_project_packages_are_all_known() -> None:
    assert {"tables", "ledger", "audit", "casino", "core", "review", "reports", "tests"} <= PROJECT_PACKAGES
    assert {"chemin_de_fer", "older_games", "access"} <= PROJECT_PACKAGES


@pytest.mark.parametrize("folder", sorted(ENGINES))
def test_no_module_of_an_engine_imports_django_or_the_rest_of_the_project(folder: str) -> None:
    modules = _modules(folder)
    assert len(modules) >= 5
    allowed = (*ENGINES[folder], *KERNEL)
    offenders = [
        (path.name, name)
        for path in modules
        for name in imports_of(path)
        if name.split(".")[0] in {"django", "rest_framework", "celery"}
        or (name.split(".")[0] in PROJECT_PACKAGES and not name.startswith(allowed))
    ]
    assert offenders == []


def test_the_shared_kernel_imports_nothing_of_the_project_but_itself() -> None:
    offenders = [
        (module, name)
        for module in KERNEL
        for name in imports_of(ROOT / (module.replace(".", "/") + ".py"))
        if name.split(".")[0] in PROJECT_PACKAGES | {"django", "rest_framework", "celery"}
        and not name.startswith(KERNEL)
    ]
    assert offenders == []


def test_importing_every_engine_loads_no_django() -> None:
    names = [*KERNEL] + [
        f"{folder.replace('/', '.')}.{p.stem}"
        for folder in ENGINES
        for p in _modules(folder)
        if p.stem != "__init__"
    ]
    code = (
        "import importlib, sys\n"
        f"for n in {names!r}: importlib.import_module(n)\n"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "[]"
    assert len(names) >= 20  # the scan found the engines

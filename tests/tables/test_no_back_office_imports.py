"""The game floor does not depend on the back office: no module under tables/ imports review/ or
reports/ (they read the floor; the floor must work, and be tested, without them)."""

from __future__ import annotations

import ast
from pathlib import Path

import tables
from tests.imports import imports_of

PACKAGE = Path(tables.__file__).resolve().parent
BACK_OFFICE = {"review", "reports"}


def test_no_module_of_the_game_floor_imports_the_back_office() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) >= 30  # the scan did find the package
    offenders = [
        (str(path.relative_to(PACKAGE)), name)
        for path in modules
        for name in imports_of(path)
        if name.split(".")[0] in BACK_OFFICE
    ]
    assert offenders == []


def test_no_module_of_the_game_floor_names_the_back_office_in_a_dotted_path() -> None:
    # include("review.urls"), import_module("reports.exports"), a mock.patch target...: a string
    # reaches the back office as surely as an import statement does.
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                top = node.value.split(".")[0]
                if top in BACK_OFFICE and "." in node.value and " " not in node.value:
                    offenders.append((str(path.relative_to(PACKAGE)), node.value))
    assert offenders == []

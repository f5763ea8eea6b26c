"""What a module imports, read from its source (the architecture's tests: tests/test_architecture.py,
tests/test_engines_pure.py, tests/tables/test_no_back_office_imports.py)."""

from __future__ import annotations

import ast
from pathlib import Path


def imports_of(path: Path) -> list[str]:
    """Every module ``path`` imports by an absolute import, at its top or inside a function."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names

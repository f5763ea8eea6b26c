"""The house's floors: every app imports only apps on floors below it (so no two apps import each
other), the floor reaches a game's wing only through the registry (tables.games), and every import
the code makes is counted: at the top of a module, inside a function, or as a dotted path in a
string (an ``include("...")``, a setting, a ``mock.patch`` target). docs/architecture.md draws it.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: each app's floor: an app may import only apps on a lower floor (the same floor: neither imports
#: the other). A new app is refused below until it is given its floor here.
FLOORS = {
    "core": 0,  # the kernel: errors, HTTP kit, outbox, the pure cards, sentences and records
    "audit": 1,  # the trail every write appends to
    "chemin_de_fer": 1,  # chemin de fer's pure engine (its records are still the floor's tables)
    "ledger": 2,  # the chips, by double entry
    "tables": 3,  # the floor: casinos, tables, seats, players, staff, chemin de fer; the games' seam
    "access": 4,  # signing in, tokens, who the user is
    "compliance": 4,  # cash-transaction compliance: the cage asks it around every posting
    "cage": 5,  # the cashier's desk
    "review": 6,  # the pit boss's back office
    "reports": 7,  # accounting's exports
    # a game's wing: its engine up to its screens on the floor and its pages in the back office
    # (in the back office's frame); nothing imports it, the floor and the back office ask it
    # through tables.games (the wings are named in settings.GAME_WINGS)
    "older_games": 7,  # Macao, Landsknecht, old baccarat
    "casino": 8,  # the project: settings, URLs, the demo
}
#: the wings: only the registry (a dotted path in settings.GAME_WINGS) names them below them
WINGS = {"older_games"}
#: where the wings are named by their dotted paths: the settings, which load them
REGISTRY = {"casino/settings/base.py"}


def _app_modules() -> list[Path]:
    skip = {"tests", "bench", "migrations", ".venv", "node_modules"}
    return [
        path
        for app in FLOORS
        for path in sorted((ROOT / app).rglob("*.py"))
        if not skip & set(path.relative_to(ROOT).parts)
    ]


def _is_module_path(text: str) -> bool:
    """A dotted path to a module of the project (``"older_games.wing.OlderGames"``), not a model
    label (``"tables.Coup"``), an audit action (``"tables.coup.step"``) or a permission."""
    parts = text.split(".")
    for n in range(2, len(parts) + 1):
        where = ROOT.joinpath(*parts[:n])
        if where.with_suffix(".py").is_file() or (where / "__init__.py").is_file():
            return True
    return False


def _named(path: Path) -> list[tuple[str, str]]:
    """(app named, how): every import statement, and every string constant that is a dotted path
    into an app (``"older_games.wing.OlderGames"``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name.split(".")[0], a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module.split(".")[0], node.module))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            top = text.split(".")[0]
            if top in FLOORS and " " not in text and "/" not in text and _is_module_path(text):
                found.append((top, f"string {text!r}"))
    return found


@pytest.fixture(scope="module")
def imports() -> dict[str, list[tuple[str, str, str]]]:
    """app -> [(module path, app it names, how)] for every app-to-app import."""
    edges: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for path in _app_modules():
        app = path.relative_to(ROOT).parts[0]
        for other, how in _named(path):
            if other in FLOORS and other != app:
                edges[app].append((str(path.relative_to(ROOT)), other, how))
    return edges


def test_every_app_has_a_floor() -> None:
    apps = {p.name for p in ROOT.iterdir() if (p / "apps.py").exists() or (p / "engine").is_dir()}
    assert apps - set(FLOORS) == set()
    assert len(_app_modules()) > 200  # the scan found the code


def test_no_app_imports_an_app_on_its_floor_or_above(imports) -> None:
    upward = [
        (module, other, how)
        for app, found in imports.items()
        for module, other, how in found
        if FLOORS[other] >= FLOORS[app] and not (other in WINGS and module in REGISTRY)
    ]
    assert upward == []


def test_no_two_apps_import_each_other(imports) -> None:
    pairs = {(app, other) for app, found in imports.items() for _m, other, _h in found}
    assert sorted((a, b) for a, b in pairs if (b, a) in pairs) == []


def test_the_floor_names_no_wing_but_through_the_registry(imports) -> None:
    below = {app for app, floor in FLOORS.items() if floor < min(FLOORS[w] for w in WINGS)}
    assert {"core", "audit", "ledger", "tables"} <= below
    named = [
        (module, how)
        for app, found in imports.items()
        if app in below | {"cage", "access", "review", "reports"}
        for module, other, how in found
        if other in WINGS
    ]
    assert named == []


def test_the_registry_names_every_wing() -> None:
    from django.conf import settings

    from tables.games import known_games, wings

    assert {path.split(".")[0] for path in settings.GAME_WINGS} == WINGS | {"tables"}
    assert known_games() == ("chemin-de-fer", "landsknecht", "macao", "old-baccarat")
    assert len(wings()) == len(settings.GAME_WINGS)


#: where the older games may be named: their wing, the models (the choice and its constraint) and
#: the demo's data
NAMES_THE_OLDER_GAMES = ("older_games/", "tables/models.py", "casino/management/commands/load_demo.py")


def test_nothing_outside_a_wing_branches_on_the_older_games() -> None:
    pattern = re.compile(
        r"\bOLDER_GAMES\b|\bGame\.(MACAO|LANDSKNECHT|OLD_BACCARAT)\b|\"(macao|landsknecht|old-baccarat)\""
    )
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _app_modules()
        if not str(path.relative_to(ROOT)).startswith(NAMES_THE_OLDER_GAMES)
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
    assert len(_app_modules()) > 200

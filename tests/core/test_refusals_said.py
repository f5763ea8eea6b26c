"""Every refusal the services raise is a ``said(...)`` sentence (core/sentence.py, docs/i18n.md),
never a plain English string: a plain string is English on the French and Russian screens too (a
club table's second share of a bank said "This spectator already has a share of this bank." in
English on every screen). ``said`` keeps the English text word for word (the API, the audit trail
and the tests read what they read before) and lets a screen say it in its language.

This reads (``ast``) every application module of the apps whose refusals reach a screen and fails
on a ``ValidationError`` (or ``InsufficientChips``, one of its kind) raised with a string constant
or an f-string, naming each by file and line. Left out: migrations, the management commands
(``CommandError`` and what they print are for an operator's terminal) and the importer's modules,
whose refusals are the import's JSON lines (machine output: English by design).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
APPS = ("tables", "older_games", "cage", "compliance", "review", "reports", "access", "ledger")
#: the importer's refusals go to its JSON lines, in English by design
IMPORTER = {Path("tables/services/imports.py"), Path("tables/services/import_batch.py")}
#: the exceptions a screen shows the message of (InsufficientChips is a ValidationError)
REFUSALS = ("ValidationError", "InsufficientChips")


def application_modules() -> Iterator[Path]:
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT)
            parts = relative.parts
            if "migrations" in parts or ("management" in parts and "commands" in parts):
                continue
            if relative in IMPORTER:
                continue
            yield relative


def _callee(call: ast.Call) -> str:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return ""


def plain_refusals(source: str, filename: str) -> list[str]:
    """``file:line: text`` of each refusal built from a plain string in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call) or not node.args or not _callee(node).endswith(REFUSALS):
            continue
        first = node.args[0]
        plain = isinstance(first, ast.Constant) and isinstance(first.value, str)
        if plain or isinstance(first, ast.JoinedStr):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(first)[:100]}")
    return found


def test_the_scan_sees_plain_strings_and_f_strings_and_lets_said_pass() -> None:
    source = (
        "from django.core.exceptions import ValidationError as DjangoValidationError\n"
        "raise ValidationError('Nobody holds the bank.')\n"
        "raise ValidationError(f'Coup {n} is already settled.')\n"
        "raise DjangoValidationError(\n    'This table has no shoe in play.'\n)\n"
        "raise ledger.InsufficientChips(f'{who} has only {n} chips.')\n"
        "raise ValidationError(said('Nobody holds the bank.'))\n"
        "raise ValidationError(said('Coup {number} is already settled.', number=n))\n"
        "raise ValidationError(refusal)\n"
        "raise ValidationError({'amount': said('A share is refused.')})\n"
    )
    assert [line.split(":")[1] for line in plain_refusals(source, "x.py")] == ["2", "3", "4", "7"]


def test_the_apps_modules_are_read() -> None:
    modules = set(application_modules())
    assert Path("tables/services/banks.py") in modules and Path("ledger/services/cage.py") in modules
    assert not modules & IMPORTER
    assert not [m for m in modules if "migrations" in m.parts or "commands" in m.parts]


def test_no_refusal_is_a_plain_english_string() -> None:
    found = [
        hit
        for module in application_modules()
        for hit in plain_refusals((ROOT / module).read_text(encoding="utf-8"), str(module))
    ]
    assert not found, (
        "raise these with said(pattern, **values) (core/sentence.py, docs/i18n.md) so that a "
        "screen says them in its language, then `make messages`, translate, `make compilemessages`:\n"
        + "\n".join(found)
    )

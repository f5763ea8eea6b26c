"""A sentence built from values that a screen can say again in its own language.

The engines and the services say why they refuse in English, and English is what the API answers,
the audit trail records and the tests read (docs/i18n.md). A sentence built from values (``only 200
of the bank is left to cover``) cannot be looked up in a catalogue once built, so it is built with
:func:`said`: the result *is* the English sentence (a ``str``: every caller that formats, compares,
logs or serialises it sees exactly the text it saw before), and it keeps its pattern and its values,
so a screen translates the pattern and puts the values back in (``tables.wording.say``).

``said`` also marks the pattern for the catalogue: ``makemessages`` extracts the first argument of
``said(...)`` as it does ``gettext_noop``'s (core/management/commands/makemessages.py adds the
keyword), so the engines stay free of Django (tests/chemin_de_fer/engine/test_purity.py).

A value is said as it is (a number, a name), or as what it stands for:

- a :class:`Sentence` (a clause built the same way), said again in the screen's language;
- a :class:`Card` (a card code): the code in English (``5H``, as the API always said it), its
  symbol on a screen (``5♥``);
- a :class:`Word` (a code with a label: a step kind, a phase, a profile): the code in English, its
  label on a screen;
- a :class:`Listing` of such values, joined with commas.

Pure: no Django, no other project package.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any


class Sentence(str):
    """An English sentence (the ``str`` itself) with the pattern and the values it was built from."""

    pattern: str
    values: Mapping[str, Any]

    def __new__(cls, pattern: str, values: Mapping[str, Any]) -> Sentence:
        text = super().__new__(cls, pattern.format(**values) if values else pattern)
        text.pattern = pattern
        text.values = dict(values)
        return text

    def __reduce__(self) -> tuple[Any, ...]:  # a plain copy keeps its pattern (pickle, deepcopy)
        return (Sentence, (self.pattern, self.values))


def said(pattern: str, /, **values: Any) -> Sentence:
    """The English sentence ``pattern.format(**values)``, remembering both (marks ``pattern`` for
    the catalogue: see the module docstring)."""
    return Sentence(pattern, values)


class Card(str):
    """A card code in a sentence: said as the code in English, as its symbol on a screen."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card, (str(self),))


class Word(str):
    """A code in a sentence that a screen says with its label: ``kind`` names the labels'
    table (``"step"``, ``"phase"``, ``"profile"``, … in tables.wording.WORD_LABELS)."""

    kind: str

    def __new__(cls, value: str, kind: str) -> Word:
        word = super().__new__(cls, value)
        word.kind = kind
        return word

    def __reduce__(self) -> tuple[Any, ...]:
        return (Word, (str(self), self.kind))


class Listing(str):
    """Values joined with ``sep`` (a comma) in English; each said on its own on a screen."""

    items: tuple[Any, ...]
    sep: str

    def __new__(cls, items: Iterable[Any], sep: str = ", ") -> Listing:
        kept = tuple(items)
        listing = super().__new__(cls, sep.join(str(i) for i in kept))
        listing.items = kept
        listing.sep = sep
        return listing

    def __reduce__(self) -> tuple[Any, ...]:
        return (Listing, (self.items, self.sep))


def why(exc: BaseException) -> str:
    """Why ``exc`` refused, as it was raised: its :class:`Sentence` kept (``str(exc)`` would make a
    plain copy of it), else its text."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, str) else str(exc)


def shown(value: object) -> str:
    """A JSON value as a record wrote it (``"10"``, ``10.5``, ``true``, ``null``), for a sentence
    that says which field is malformed (every game's strict reader, RULES.md §11)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not from JSON (a caller's own object): its repr
        return repr(value)

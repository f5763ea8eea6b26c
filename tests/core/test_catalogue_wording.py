# ruff: noqa: RUF001  (Russian words: Cyrillic letters that look Latin are meant)
"""The catalogues' wording where a rule can be read off the text (docs/i18n.md): French puts a space
before a colon, a semicolon, a question or an exclamation mark; Russian names a person without a
past tense that says he (a player, a croupier or a pit boss may be a woman: "Mme Leroy поставил 50"
reads wrong); and the Russian words the floor corrected."""

from __future__ import annotations

import re
from pathlib import Path

import polib
import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def _catalogue(lang: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"))


def _said(entry: polib.POEntry) -> list[str]:
    return [entry.msgstr] if not entry.msgid_plural else list(entry.msgstr_plural.values())


#: a mark of French punctuation glued to the word before it, followed by a space or the end (not a
#: time "21:00", a code "coup:41", a placeholder's format "{value!r}")
GLUED = re.compile(r"[^\s\u00a0\u202f(«]([:;?!])(?=\s|$)")


def test_french_puts_a_space_before_its_colons() -> None:
    glued = [
        (entry.msgid, said)
        for entry in _catalogue("fr").translated_entries()
        for said in _said(entry)
        if GLUED.search(said)
    ]
    assert glued == []


#: a person a sentence names (a player, a punter, a banker, a user who did something)
PERSON = r"(?:\{(?:who|name|player|punter|banker|user|winner|loser)(?:![rs])?\}|%\((?:who|name|player)\)s)"
#: a Russian past tense (masculine) next to that person: "{punter} покрыл", "подал <strong>%(who)s"
HE_DID = re.compile(
    rf"{PERSON}\s+(?:уже\s+|не\s+)?[а-яё]+(?:л|лся|ёл)(?![а-яё])"
    rf"|(?<![а-яё])[а-яё]+(?:л|лся|ёл)\s+(?:<strong[^>]*>)?{PERSON}",
    re.IGNORECASE,
)


def test_russian_names_a_person_without_saying_he() -> None:
    he = [
        (entry.msgid, said)
        for entry in _catalogue("ru").translated_entries()
        for said in _said(entry)
        if HE_DID.search(said)
    ]
    assert he == []


def test_the_rule_finds_a_verb_that_says_he() -> None:
    assert HE_DID.search("{punter} покрыл дважды")
    assert HE_DID.search("Исправление подал <strong>%(who)s</strong>")
    assert HE_DID.search("%(name)s выиграл (фишки)") and HE_DID.search("{punter} уже согласился")
    assert not HE_DID.search("{punter}: двойное покрытие") and not HE_DID.search("Банкомёт ({who}) прикупил")
    assert GLUED.search("Sabot 1: 1 coup") and not GLUED.search("Sabot 1 : 1 coup à 21:00, « coup:41 »")


@pytest.mark.parametrize(
    ("msgid", "russian"),
    [
        # the advice box: "(по оставшимся картам этого шуза)", the dative after "по"
        ("this shoe's remaining cards", "оставшимся картам этого шуза"),
        # an older game's outcome when the stakes went both ways or a pooled tie shared them
        # (docs/games/old_baccarat.md): not "поровну" (equally)
        ("split", "выигрыш разделён"),
        # under a punter's name on the croupier's screen: "ставка 50", whoever bets
        ("staked", "ставка"),
    ],
)
def test_the_corrected_russian_words(msgid: str, russian: str) -> None:
    (entry,) = [e for e in _catalogue("ru") if e.msgid == msgid and e.msgctxt is None]
    assert entry.msgstr == russian

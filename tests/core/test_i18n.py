"""The translation catalogues (locale/{fr,ru}/LC_MESSAGES): complete, not fuzzy, their committed
.mo compiled from the .po as it is, the placeholders kept, and every string the code marks present
(docs/i18n.md). What to run when one fails: ``make messages``, translate, ``make compilemessages``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.apps import apps
from django.conf import settings

from chemin_de_fer.engine.profiles import BUILTIN
from core.screen_words import DISPLAYED_CHOICES, SCREEN_WORDS
from reports.kinds import KINDS

ROOT = Path(settings.BASE_DIR)
LANGUAGES = ["fr", "ru"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
FIX = "run `make messages`, translate the entries named, then `make compilemessages` (docs/i18n.md)"


def catalogue(lang: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"))


def key(entry: polib.POEntry | polib.MOEntry) -> tuple[str | None, str]:
    return (entry.msgctxt, entry.msgid)


def test_the_languages_offered_are_english_french_and_russian_english_first() -> None:
    assert settings.LANGUAGE_CODE == "en"
    assert [code for code, _ in settings.LANGUAGES] == ["en", "fr", "ru"]
    assert settings.LOCALE_PATHS == [ROOT / "locale"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_entry_is_translated_and_none_is_fuzzy_or_obsolete(lang: str) -> None:
    po = catalogue(lang)
    assert not po.metadata_is_fuzzy, f"{lang}: the header is fuzzy (msgfmt would drop its plural forms)"
    untranslated = [e.msgid for e in po.untranslated_entries()]
    fuzzy = [e.msgid for e in po.fuzzy_entries()]
    obsolete = [e.msgid for e in po.obsolete_entries()]
    assert not untranslated, f"{lang}: {len(untranslated)} untranslated ({FIX}): {untranslated[:20]}"
    assert not fuzzy, f"{lang}: {len(fuzzy)} fuzzy ({FIX}): {fuzzy[:20]}"
    assert not obsolete, f"{lang}: obsolete entries left: {obsolete[:20]}"
    assert len(po) > 400  # the screens' strings are all there, not a stub


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_keep_the_placeholders_of_their_source(lang: str) -> None:
    wrong = []
    for entry in catalogue(lang).translated_entries():
        if entry.msgid_plural:
            wanted = set(PLACEHOLDER.findall(entry.msgid_plural))
            # a singular may spell its one out ("1 deck" → "%(n)s jeu" both fine): the plural decides
            forms = entry.msgstr_plural.values()
            if any(set(PLACEHOLDER.findall(form)) - wanted for form in forms):
                wrong.append(entry.msgid)
        elif sorted(PLACEHOLDER.findall(entry.msgstr)) != sorted(PLACEHOLDER.findall(entry.msgid)):
            wrong.append(entry.msgid)
    assert not wrong, f"{lang}: placeholders differ from the source: {wrong}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_plural_entry_has_each_form_its_language_counts(lang: str) -> None:
    """A plural entry short of a form (Russian counts four: one, few, many and the fractions) makes
    ``msgfmt --check`` refuse the catalogue, and the missing form falls back to English on screen."""
    po = catalogue(lang)
    header = re.search(r"nplurals\s*=\s*(\d+)", po.metadata["Plural-Forms"])
    assert header is not None, f"{lang}: the header names no nplurals"
    wanted = int(header.group(1))
    short = {
        e.msgid: len(e.msgstr_plural)
        for e in po.translated_entries()
        if e.msgid_plural and len(e.msgstr_plural) != wanted
    }
    assert short == {}, f"{lang}: plural entries without their {wanted} forms ({FIX}): {short}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_committed_mo_is_the_po_compiled(lang: str) -> None:
    """The .mo files are committed (no gettext needed to run the site): each must say exactly what
    its .po says, or the screens show yesterday's words."""
    po = catalogue(lang)
    mo = polib.mofile(str(ROOT / "locale" / lang / "LC_MESSAGES" / "django.mo"))
    compiled = {key(e): (e.msgstr, dict(e.msgstr_plural)) for e in mo if e.msgid}
    source = {
        key(e): (e.msgstr, {int(n): s for n, s in e.msgstr_plural.items()}) for e in po.translated_entries()
    }
    stale = sorted(str(k) for k in source.keys() ^ compiled.keys())
    stale += sorted(str(k) for k in source.keys() & compiled.keys() if source[k] != compiled[k])
    assert not stale, f"{lang}: django.mo is stale, run `make compilemessages`: {stale[:20]}"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext (xgettext) is not installed")
def test_every_string_marked_in_the_code_is_in_the_catalogues(tmp_path: Path) -> None:
    """makemessages run on a scratch copy of the project: the strings the code and templates mark
    now, against the catalogues. A page added with {% translate %} strings fails here until its
    strings are translated."""
    copy = tmp_path / "project"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "var", "staticfiles", "tests", "bench", "test-artifacts", "*cache*", "*.mo"
        ),
    )
    command = (
        "import django; django.setup(); "
        "from django.conf import settings; settings.LOCALE_PATHS = [settings.BASE_DIR / 'locale']; "
        "from django.core.management import call_command; "
        "call_command('makemessages', locale=['fr'], add_location='file', no_obsolete=True, verbosity=0)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.test", "PYTHONPATH": str(copy)}
    subprocess.run([sys.executable, "-c", command], cwd=copy, check=True, env=env)
    marked = {key(e) for e in polib.pofile(str(copy / "locale" / "fr" / "LC_MESSAGES" / "django.po"))}
    for lang in LANGUAGES:
        known = {key(e) for e in catalogue(lang)}
        missing = sorted(str(k) for k in marked - known)
        assert not missing, (
            f"{lang}: {len(missing)} marked strings not in the catalogue ({FIX}): {missing[:20]}"
        )


def test_every_choice_label_shown_on_a_screen_is_in_the_screen_words() -> None:
    words = set(SCREEN_WORDS)
    for model, field in DISPLAYED_CHOICES:
        labels = [str(label) for _, label in apps.get_model(model)._meta.get_field(field).choices]
        missing = [label for label in labels if label not in words]
        assert not missing, f"{model}.{field}: add {missing} to core/screen_words.py"
    assert {p.name for p in BUILTIN.values()} <= words
    assert {k.title for k in KINDS.values()} <= words  # the reports page's form and its history

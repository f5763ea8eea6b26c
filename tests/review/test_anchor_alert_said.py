"""An anchor problem that reaches the pit boss (the README's default: ``var/db.sqlite3`` deleted, its
anchor file kept, ``make run`` again) is a sentence with its numbers that his pages say in his
language (audit.anchors.AnchorProblem.said, review.wording), never the verifier's English internals:
the hashes and the anchors' times stay in ``verify_audit --anchors``'s output (English)."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape

from audit import anchors as anchors_module
from audit.anchor_file import SIGNED, Anchor, anchor_signature
from audit.anchors import ANCHOR_TAIL_DELETED, ANCHORS_REASON, anchor_append, anchor_make
from audit.keys import audit_key_current
from audit.models import AuditEvent, ChainVerification
from audit.services import audit_record
from audit.tasks import audit_chain_verify_task
from core.sentence import Sentence
from review.models import Alert, AlertKind
from review.services import alerts_raise
from review.templatetags import review_words
from review.wording import ALERT_AUDIT_BREAK_CASINO, AUDIT_ANCHORS_REASON, alert_summary, audit_reason

pytestmark = pytest.mark.django_db

#: what the old database's anchors said: its chains had reached seq 57
OLD_SEQ, OLD_HASH = 57, "ab" * 32

#: the French and Russian the report proposes for the catalogue (locale/ is the translators'): put
#: in for these tests, so the pages can be checked for English left over
PROPOSED = {
    "fr": {
        AUDIT_ANCHORS_REASON: "ancres : {reason}",
        ANCHOR_TAIL_DELETED: (
            "fin de chaîne supprimée : la ligne d'ancre {line} indique une tête au n° {anchored}, la "
            "tête de la base de données est au n° {head} : les événements {first} à {last} manquent"
        ),
    },
    "ru": {
        AUDIT_ANCHORS_REASON: "привязки: {reason}",
        ANCHOR_TAIL_DELETED: (
            "конец цепочки удалён: строка привязки {line} указывает голову на записи № {anchored}, "
            "а в базе данных голова на записи № {head}: событий с {first} по {last} нет"  # noqa: RUF001
        ),
    },
}


def old_anchor(chain: int) -> Anchor:
    """An anchor the deleted database's chain ``chain`` had: further on, another hash, signed."""
    made = anchor_make(chain=chain)
    fields = {**made.as_dict(), "seq": OLD_SEQ, "hash": OLD_HASH}
    _, key = audit_key_current()
    return dataclasses.replace(
        made, seq=OLD_SEQ, hash=OLD_HASH, sig=anchor_signature({k: fields[k] for k in SIGNED}, key)
    )


@pytest.fixture
def database_deleted(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table) -> int:
    """A new database (a few events on the global chain and on the table's casino's) beside the
    anchor file of the one deleted before it; the alerts raised. The casino's id."""
    monkeypatch.setattr(anchors_module, "_NOTED", set())
    path = tmp_path / "db.sqlite3.anchors.jsonl"
    settings.AUDIT_ANCHOR_FILE = str(path)
    casino = table.casino
    with transaction.atomic():
        audit_record(actor=None, action="test.event", after={"n": 1})
        for n in range(3):
            audit_record(actor=None, action="test.casino", after={"n": n}, casino=casino)
    anchor_append([old_anchor(0), old_anchor(casino.pk)], path)
    audit_chain_verify_task.delay().get()
    alerts_raise(now=timezone.now())
    return casino.pk


def head(chain: int) -> int:
    """The chain's head when it was verified (raising the alerts writes events after it)."""
    seq = ChainVerification.objects.get(chain=chain).head_seq
    assert seq is not None
    return seq


def test_the_alert_stores_the_problem_as_a_sentence_with_its_numbers(database_deleted: int) -> None:
    casino = database_deleted
    top = head(casino)
    alert = Alert.objects.get(kind=AlertKind.AUDIT_BREAK, casino_id=casino)
    problem = ANCHOR_TAIL_DELETED.format(line=2, anchored=OLD_SEQ, head=top, first=top + 1, last=OLD_SEQ)
    assert alert.summary == ALERT_AUDIT_BREAK_CASINO.format(
        casino=casino, seq=top + 1, count=1, reason=f"{ANCHORS_REASON}{problem}"
    )
    assert OLD_HASH not in alert.summary and len(alert.summary) < 300  # never cut

    # said again on a page: every part a msgid, the numbers its values
    read = alert_summary(alert.summary)
    assert isinstance(read, Sentence) and read.pattern == ALERT_AUDIT_BREAK_CASINO
    anchors = read.values["reason"]
    assert isinstance(anchors, Sentence) and anchors.pattern == AUDIT_ANCHORS_REASON
    said = anchors.values["reason"]
    assert isinstance(said, Sentence) and said.pattern == ANCHOR_TAIL_DELETED
    assert dict(said.values) == {
        "line": "2", "anchored": str(OLD_SEQ), "head": str(top), "first": str(top + 1), "last": str(OLD_SEQ),
    }  # fmt: skip

    # the dashboard's audit panel reads the stored verification's reason the same way
    stored = ChainVerification.objects.get(chain=casino)
    assert stored.first_broken_reason == f"{ANCHORS_REASON}{problem}"
    reason = audit_reason(stored.first_broken_reason)
    assert isinstance(reason, Sentence) and reason.pattern == AUDIT_ANCHORS_REASON
    assert reason.values["reason"].pattern == ANCHOR_TAIL_DELETED


def test_the_technical_detail_stays_in_verify_audit_s_output(database_deleted: int) -> None:
    casino = database_deleted
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_audit", anchors=settings.AUDIT_ANCHOR_FILE, stdout=out, stderr=io.StringIO())
    # the head now (raising the alerts wrote events since the verification)
    top = AuditEvent.objects.filter(chain=casino).order_by("-seq").values_list("seq", flat=True)[0]
    [line] = [
        line
        for line in out.getvalue().splitlines()
        if line.startswith(f"  chain {casino} (casino {casino}): ")
    ]
    assert "tail deleted: anchor line 2 (at " in line
    assert f"says head seq {OLD_SEQ} hash {OLD_HASH}, the database's head is seq {top} hash " in line
    assert line.endswith(f"events {top + 1}..{OLD_SEQ} are missing")


def page(client, pit_boss, lang: str, url: str) -> str:
    client.force_login(pit_boss)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("url", ["review:alerts", "review:dashboard"])
def test_the_english_page_says_the_english_sentence(
    client, pit_boss, database_deleted: int, url: str
) -> None:
    casino = database_deleted
    top = head(casino)
    problem = ANCHOR_TAIL_DELETED.format(line=2, anchored=OLD_SEQ, head=top, first=top + 1, last=OLD_SEQ)
    html = page(client, pit_boss, "en", reverse(url))
    assert escape(f"anchors: {problem}") in html
    if url == "review:alerts":
        summary = ALERT_AUDIT_BREAK_CASINO.format(
            casino=casino, seq=top + 1, count=1, reason=f"anchors: {problem}"
        )
        assert escape(summary) in html
    assert OLD_HASH not in html and "tail deleted: anchor line 2 (at" not in html


def translated(lang: str) -> Callable[[str], str]:
    def gettext(msgid: str) -> str:
        return PROPOSED[lang].get(msgid) or translation.gettext(msgid)

    return gettext


@pytest.mark.parametrize("lang", ["fr", "ru"])
@pytest.mark.parametrize("url", ["review:alerts", "review:dashboard"])
def test_the_french_and_russian_pages_say_it_in_their_language(
    client, pit_boss, database_deleted: int, monkeypatch: pytest.MonkeyPatch, lang: str, url: str
) -> None:
    casino = database_deleted
    top = head(casino)
    asked: list[str] = []
    gettext = translated(lang)

    def spy(msgid: str) -> str:
        asked.append(msgid)
        return gettext(msgid)

    monkeypatch.setattr(review_words, "gettext", spy)
    html = page(client, pit_boss, lang, reverse(url))

    # every part of the sentence is asked of the catalogue: the page says none of it as stored
    assert {AUDIT_ANCHORS_REASON, ANCHOR_TAIL_DELETED} <= set(asked)
    if url == "review:alerts":
        assert ALERT_AUDIT_BREAK_CASINO in asked
    with translation.override(lang):
        said = gettext(AUDIT_ANCHORS_REASON).format(
            reason=gettext(ANCHOR_TAIL_DELETED).format(
                line=2, anchored=OLD_SEQ, head=top, first=top + 1, last=OLD_SEQ
            )
        )
    assert escape(said) in html
    # no English of the anchor problem, no hash, none of the verifier's internals
    for english in ("tail deleted", "anchor line", "the database's head", "are missing", "anchors: "):
        assert english not in html and escape(english) not in html, english
    assert OLD_HASH not in html

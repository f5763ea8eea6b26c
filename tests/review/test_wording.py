"""The pit boss's pages say what the floor's scan stored in English in their own language
(review/wording.py): an alert's summary, a ledger account's name, read back out of the stored text
(tables.wording.Stored) and said again (tables.wording.say). The stored text itself stays English:
the audit trail records it, the exports carry it."""

from __future__ import annotations

import pytest
from django.utils import timezone, translation

from core.sentence import Sentence
from review.forms import RejectForm
from review.models import Alert, AlertKind
from review.services import alerts_raise
from review.templatetags.review_words import alert_summary as alert_summary_filter
from review.wording import (
    ALERT_AUDIT_ANCHOR_FILE,
    ALERT_AUDIT_BREAK,
    ALERT_AUDIT_BREAK_CASINO,
    ALERT_BIG_WIN,
    ALERT_BIG_WIN_BANK,
    ALERT_ERROR_RATE,
    ALERT_ERROR_RATE_BEFORE,
    ALERT_ERROR_RATE_SAID,
    ALERT_FLAGGED,
    ALERT_GAME_UNFINISHED,
    ALERT_SHOE_ALARM,
    ALERT_UNFINISHED,
    alert_summary,
)
from tables.wording import ALARM_EARLY, account_name, say
from tests.review.alerting import broken_verification

COUP = {"table": "Salon · Rouge", "shoe": 2, "coup": 7, "id": 41}
SUMMARIES = [
    (ALERT_FLAGGED, COUP),
    (ALERT_SHOE_ALARM, {"table": "Salon", "shoe": 1, "started": "2026-12-01 21:00", "kind": "impossible card",
                        "detail": "AS seen 3 times; a 2-deck shoe holds 2"}),
    (ALERT_UNFINISHED, {**COUP, "minutes": 20, "state": "awaiting correction"}),
    (ALERT_GAME_UNFINISHED, {"table": "Macao 1", "game": "Macao", "number": 3, "minutes": 16, "steps": 4}),
    (ALERT_AUDIT_BREAK, {"seq": 12, "count": 1, "reason": "prev_hash does not match"}),
    (ALERT_AUDIT_BREAK_CASINO, {"casino": 3, "seq": 12, "count": 2, "reason": "hash (recomputed) differs"}),
    (ALERT_AUDIT_ANCHOR_FILE, {"reason": "anchor file var/db.anchors.jsonl is missing; anchors were "
                                         "written to it from 2026-12-01T00:00:00.000000Z (event seq 9 of "
                                         "the global chain)"}),
    (ALERT_BIG_WIN_BANK, {**COUP, "who": "Anna", "amount": 60000}),
    (ALERT_BIG_WIN, {**COUP, "who": "Anna", "amount": 60000}),
    (ALERT_ERROR_RATE, {"user": "croupier", "wrong": 3, "coups": 6, "rate": "50.0 %"}),
    # an alert stored before the summary said "their": still read back, and said in the page's words
    (ALERT_ERROR_RATE_BEFORE, {"user": "croupier", "wrong": 3, "coups": 6, "rate": "50.0 %"}),
]  # fmt: skip


@pytest.mark.parametrize(("pattern", "values"), SUMMARIES)
def test_every_summary_the_scan_stores_is_read_back_whole(pattern: str, values: dict[str, object]) -> None:
    stored = pattern.format(**values)
    read = alert_summary(stored)
    if pattern in (ALERT_ERROR_RATE, ALERT_ERROR_RATE_BEFORE):
        # said with its counts in the page's plural (test_the_error_rate_alert_counts_in_the_plural…)
        assert isinstance(read, Sentence) and read == stored and read.pattern == ALERT_ERROR_RATE_SAID
        return
    assert isinstance(read, Sentence) and read == stored and read.pattern == pattern
    assert {k: str(v) for k, v in read.values.items()} == {k: str(v) for k, v in values.items()}


@pytest.mark.parametrize("pattern", [ALERT_ERROR_RATE, ALERT_ERROR_RATE_BEFORE])
def test_the_error_rate_alert_counts_in_the_plural_and_writes_its_rate_as_the_page_does(pattern: str) -> None:
    """docs/i18n.md: "100,0 %" in French and Russian, a no-break space before the sign; "1 step",
    "2 steps", never "step(s)"; the stored text stays English, as the scan wrote it."""
    one = pattern.format(user="croupier", wrong=1, coups=1, rate="100.0 %")
    two = pattern.format(user="croupier", wrong=2, coups=5, rate="40.0 %")
    assert alert_summary(one) == one and alert_summary(two) == two  # the stored English, whole
    with translation.override("en"):
        said_one, said_two = alert_summary_filter(one), alert_summary_filter(two)
    assert said_one == "croupier: 1 step against the rules in their last coup, 100.0\xa0%"
    assert said_two == "croupier: 2 steps against the rules in their last 5 coups, 40.0\xa0%"
    for lang in ("fr", "ru"):
        with translation.override(lang):
            said_one, said_two = alert_summary_filter(one), alert_summary_filter(two)
            assert said_one.endswith("100,0\xa0%") and said_two.endswith("40,0\xa0%"), (lang, said_one)
            if translation.gettext(ALERT_ERROR_RATE_SAID) != ALERT_ERROR_RATE_SAID:  # once translated
                assert "(s)" not in said_one + said_two and "всего" not in said_one + said_two


def test_a_shoe_alarm_s_summary_holds_its_detail_said_again_too() -> None:
    detail = ALARM_EARLY.format(dealt=19, size=312, reason="damaged (water)")
    stored = ALERT_SHOE_ALARM.format(
        table="Salon", shoe=1, started="2026-12-01 21:00", kind="reshuffled before 5/6 dealt", detail=detail
    )
    with translation.override("fr"):
        said = say(alert_summary(stored), translation.gettext)
    assert said == (
        "Salon · sabot 1 du 2026-12-01 21:00 : sabot rebattu avant les 5/6 "
        "(fermé après 19 cartes sur 312 (damaged (water)))"
    )
    assert alert_summary("worded before these patterns") == "worded before these patterns"


def test_the_alerts_the_scan_raises_are_said_in_the_page_s_language(awaiting) -> None:
    broken_verification(seq=9)
    alerts_raise(now=timezone.now())
    flagged = Alert.objects.get(kind=AlertKind.FLAGGED_COUP)
    coup = awaiting.flagged
    table = coup.shoe.table.name
    assert flagged.summary == f"{table} · shoe 1 coup 2 (#{coup.pk}) was played against the rules"  # stored
    with translation.override("ru"):
        assert (
            alert_summary_filter(flagged.summary)
            == f"{table} · шуз 1, коуп 2 (№ {coup.pk}): сыгран против правил"
        )
    audit = Alert.objects.get(kind=AlertKind.AUDIT_BREAK)
    with translation.override("fr"):
        assert alert_summary_filter(audit.summary) == (
            "La chaîne d'audit est rompue au n° 9 (événements : 1) : "
            "prev_hash does not match the previous event's hash"  # the verifier's own words, as stored
        )


def test_an_account_s_stored_name_is_said_with_its_kind_translated() -> None:
    with translation.override("fr"):
        assert (
            say(account_name("player: Anna Petrova (#12)"), translation.gettext)
            == "joueur : Anna Petrova (#12)"
        )
        assert say(account_name("fund: Lansquenet 1 (Cercle)"), translation.gettext) == (
            "fonds de réserve : Lansquenet 1 (Cercle)"
        )


@pytest.mark.parametrize(
    ("lang", "placeholder"),
    [("en", "Why the correction is wrong"), ("fr", "Pourquoi la correction est fausse"),
     ("ru", "Почему исправление неверно")],
)  # fmt: skip
def test_the_reject_form_s_placeholder_is_in_the_page_s_language(lang: str, placeholder: str) -> None:
    with translation.override(lang):
        assert f'placeholder="{placeholder}"' in str(RejectForm()["reason"])

# ruff: noqa: RUF001  (Unicode digits and Russian words are meant)
"""A number a screen's form sends, read strictly (core.form_numbers.form_count): ``²`` or ``①``
(``str.isdigit()`` true, ``int()`` refuses) was a 500, and ``abc`` or ``-1`` as the withdrawal's
``expected_step`` was read as "no step given", skipping the stale-screen check. Each is a 400 with
nothing written; the pit's live part refuses a ``?table=`` that is no id the same way."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.conf import settings
from django.urls import reverse

from core.form_numbers import form_count
from tables.models import Coup
from tests.tables.play import Floor, row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db

NOT_COUNTS = ["²", "①", "١٢", "１２", "abc", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "9" * 19, "\u00b9"]


def _open_coup(client: Any, floor: Floor) -> Coup:
    answer = client.post(reverse("floor:coup_start", args=[floor.table.pk]), {"amount": 150}, **HTMX)
    assert answer.status_code == 200
    return Coup.objects.latest("pk")


@pytest.mark.parametrize("expected", NOT_COUNTS)
def test_a_withdrawal_s_step_that_is_no_count_is_refused(floor, table, as_croupier, expected) -> None:
    coup = _open_coup(as_croupier, floor)
    url = reverse("floor:coup_withdraw", args=[table.pk, coup.pk])
    before = row_counts()
    answer = as_croupier.post(url, {"expected_step": expected}, **HTMX)
    assert answer.status_code == 400
    assert "The screen did not say which step it showed: reload it." in answer.content.decode()
    assert row_counts() == before and Coup.objects.get(pk=coup.pk).state == Coup.State.OPEN


def test_a_stale_withdrawal_is_still_a_conflict_and_a_right_one_is_done(floor, table, as_croupier) -> None:
    coup = _open_coup(as_croupier, floor)
    url = reverse("floor:coup_withdraw", args=[table.pk, coup.pk])
    before = row_counts()
    stale = as_croupier.post(url, {"expected_step": str(coup.step_count + 1)}, **HTMX)
    assert stale.status_code == 409 and row_counts() == before
    assert as_croupier.post(url, {"expected_step": str(coup.step_count)}, **HTMX).status_code == 200
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.WITHDRAWN


def test_a_withdrawal_without_its_step_is_taken_as_before(floor, table, as_croupier) -> None:
    coup = _open_coup(as_croupier, floor)
    answer = as_croupier.post(reverse("floor:coup_withdraw", args=[table.pk, coup.pk]), {}, **HTMX)
    assert answer.status_code == 200 and Coup.objects.get(pk=coup.pk).state == Coup.State.WITHDRAWN


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_the_refusal_is_said_in_the_screen_s_language(floor, table, as_croupier, lang) -> None:
    coup = _open_coup(as_croupier, floor)
    as_croupier.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    answer = as_croupier.post(
        reverse("floor:coup_withdraw", args=[table.pk, coup.pk]), {"expected_step": "²"}, **HTMX
    )
    said = {
        "fr": "L'écran n'a pas indiqué quelle étape il affichait : rechargez-le.",
        "ru": "Экран не сообщил, какой шаг он показывал: обновите его.",
    }[lang]
    assert answer.status_code == 400
    assert said in unescape(answer.content.decode())


# ---------------------------------------------------------------------- the pit's live part
@pytest.mark.parametrize("table_id", ["²", "①", "abc", "-1", "9" * 5000])
def test_the_live_pit_refuses_a_table_that_is_no_id(as_pit_boss, table, table_id) -> None:
    answer = as_pit_boss.get(reverse("review:dashboard_live"), {"table": table_id}, **HTMX)
    assert answer.status_code == 400


def test_the_live_pit_still_shows_one_table_or_all(as_pit_boss, table) -> None:
    live = reverse("review:dashboard_live")
    assert as_pit_boss.get(live, {"table": str(table.pk)}, **HTMX).status_code == 200
    assert as_pit_boss.get(live, {"table": "999999"}, **HTMX).status_code == 200  # no such table: all
    assert as_pit_boss.get(live, **HTMX).status_code == 200


# ------------------------------------------------------------------------------ the rule itself
@pytest.mark.parametrize("text", [*NOT_COUNTS, "", None, 5])
def test_only_ascii_digits_are_a_count(text) -> None:
    assert form_count(text) is None


@pytest.mark.parametrize(("text", "count"), [("0", 0), ("7", 7), ("007", 7), ("9" * 18, 10**18 - 1)])
def test_ascii_digits_are_read(text, count) -> None:
    assert form_count(text) == count

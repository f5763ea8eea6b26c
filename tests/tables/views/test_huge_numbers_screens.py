# ruff: noqa: RUF001  (Russian words are meant)
"""A number too large for the database on any of the croupier's forms (a bank of 23 digits typed
on the tablet; an id or a seat beyond any row): a 400 with a sentence and nothing written. It was
a 500 (SQLite: ``OverflowError`` converting the int; PostgreSQL: ``integer out of range``)."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.conf import settings
from django.urls import reverse

from tables.models import Coup
from tests.tables.play import Floor, row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db

#: 23 digits (what the sweep typed), a chip past PostgreSQL's ``integer``, an id past ``bigint``
HUGE = ["9" * 23, "2147483648", "9223372036854775808"]


def _coup(client: Any, floor: Floor) -> Coup:
    started = client.post(reverse("floor:coup_start", args=[floor.table.pk]), {"amount": 150}, **HTMX)
    assert started.status_code == 200
    return Coup.objects.latest("pk")


#: (url name, whether it needs a coup in play, the form's fields with ``{n}`` where the number goes)
FORMS = [
    ("floor:coup_start", False, {"amount": "{n}"}),
    ("floor:seat_take", False, {"number": "{n}", "new_name": "Zoé"}),
    ("floor:seat_take", False, {"number": "5", "player": "{n}"}),
    ("floor:spectator_join", False, {"player": "{n}"}),
    ("floor:bank_share", False, {"spectator": "{n}", "amount": "10"}),
    ("floor:bank_offer", False, {"seat": "{n}"}),
    ("floor:coup_step", True, {"kind": "bet", "punter": "seat-2", "amount": "{n}", "expected_step": "1"}),
    ("floor:coup_step", True, {"kind": "bet", "punter": "seat-2", "amount": "10", "expected_step": "{n}"}),
]


@pytest.mark.parametrize("number", HUGE)
@pytest.mark.parametrize(("name", "in_coup", "fields"), FORMS)
def test_a_number_too_large_for_the_database_is_refused(
    floor, table, as_croupier, name, in_coup, fields, number
) -> None:
    args: list[Any] = [table.pk]
    if in_coup:
        args.append(_coup(as_croupier, floor).pk)
    before = row_counts()
    coups = list(Coup.objects.values_list("pk", "state", "step_count", "bank"))
    posted = {key: value.format(n=number) for key, value in fields.items()}
    answer = as_croupier.post(reverse(name, args=args), posted, **HTMX)
    assert answer.status_code == 400, answer.content.decode()[:500]
    assert row_counts() == before
    assert list(Coup.objects.values_list("pk", "state", "step_count", "bank")) == coups


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "At most 2,147,483,647 chips."),
        ("fr", "Au plus 2 147 483 647 jetons."),
        ("ru", "Не больше 2 147 483 647 фишек."),
    ],
)
def test_the_bank_too_large_is_said_in_the_screen_s_language(floor, table, as_croupier, lang, said) -> None:
    as_croupier.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    before = row_counts()
    answer = as_croupier.post(reverse("floor:coup_start", args=[table.pk]), {"amount": "9" * 23}, **HTMX)
    assert answer.status_code == 400
    assert said in unescape(answer.content.decode()).replace("\u202f", " ").replace("\xa0", " ")
    assert row_counts() == before


def test_a_step_number_too_large_says_the_screen_must_be_reloaded(floor, table, as_croupier) -> None:
    coup = _coup(as_croupier, floor)
    answer = as_croupier.post(
        reverse("floor:coup_step", args=[table.pk, coup.pk]),
        {"kind": "bet", "punter": "seat-2", "amount": "10", "expected_step": "9" * 23},
        **HTMX,
    )
    assert answer.status_code == 400
    assert "The screen did not say which step it showed: reload it." in answer.content.decode()

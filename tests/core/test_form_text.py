"""NUL or a lone surrogate in a posted form (core.middleware.ControlCharactersMiddleware): refused
with 400 before any view reads it, nothing written, on every HTML form, the REST API's JSON rule
(core.parsers.UnstorableText) for the screens. It was a 500 on PostgreSQL (``DataError: PostgreSQL
text fields cannot contain NUL``) and stored as sent on SQLite: a shoe closed "because a\\x00b"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, QueryDict
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils.datastructures import MultiValueDict

from audit.models import AuditEvent
from core.middleware import (
    UNSTORABLE_FIELD_DETAIL,
    ControlCharactersMiddleware,
    control_character_in_query,
    unstorable_in_form,
)
from tables.models import Coup, Shoe, TableSession, VoidRequest
from tests.factories import UserFactory
from tests.tables.play import coup_with_bets, open_floor, row_counts, void_limit_set

pytestmark = pytest.mark.django_db
HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}
NUL = "a\x00b"


def _as(user: Any, lang: str = "") -> Client:
    client = Client()
    client.force_login(user)
    if lang:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    return client


def _refused_page(answer: Any, title: str = "Bad request") -> None:
    assert answer.status_code == 400
    assert answer["Content-Type"].startswith("text/html")
    assert f"<h1>{title}</h1>" in answer.content.decode()


# ------------------------------------------------------------------------ the croupier's screens
@pytest.mark.parametrize("where", ["shoe_close", "session_close"])
def test_a_nul_in_a_croupier_s_reason_is_refused_and_nothing_changes(croupier, table, where) -> None:
    floor = open_floor(croupier, table)
    client = _as(croupier)
    before = row_counts()
    answer = client.post(reverse(f"floor:{where}", args=[table.pk]), {"reason": NUL})
    _refused_page(answer)
    assert row_counts() == before
    assert Shoe.objects.get(pk=floor.shoe.pk).state == Shoe.State.OPEN
    assert TableSession.objects.get(pk=floor.session.pk).closed_at is None
    # the same form, printable, is taken
    assert client.post(reverse("floor:shoe_close", args=[table.pk]), {"reason": "ab"}).status_code == 303
    assert Shoe.objects.get(pk=floor.shoe.pk).state != Shoe.State.OPEN


def test_a_nul_in_a_step_s_field_name_or_value_is_refused(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = coup_with_bets(floor, (2, 100))
    client = _as(croupier)
    url = reverse("floor:coup_step", args=[table.pk, coup.pk])
    before = row_counts()
    for data in (
        {"kind": "bet", "punter": "seat-3", "amount": "50", "expected_step": str(coup.step_count), "x": NUL},
        {"kind": "bet", "punter": "seat-3", "amount": "50", "expected_step": str(coup.step_count), NUL: "1"},
    ):
        _refused_page(client.post(url, data, **HTMX))
    assert row_counts() == before


def test_an_htmx_refusal_replaces_the_whole_page(croupier, table) -> None:
    open_floor(croupier, table)
    answer = _as(croupier).post(reverse("floor:shoe_close", args=[table.pk]), {"reason": NUL}, **HTMX)
    _refused_page(answer)
    assert (answer["HX-Retarget"], answer["HX-Reswap"]) == ("body", "innerHTML")


@pytest.mark.parametrize(
    ("lang", "title"), [("fr", "Requête incorrecte"), ("ru", "Неверный запрос")]
)
def test_the_400_page_is_in_the_screen_s_language(croupier, table, lang, title) -> None:
    open_floor(croupier, table)
    client = _as(croupier, lang)  # a login is audited: counted from here
    before = row_counts()
    answer = client.post(reverse("floor:shoe_close", args=[table.pk]), {"reason": NUL})
    assert answer.status_code == 400 and title in answer.content.decode()
    assert row_counts() == before


def test_a_multipart_form_is_checked_too(croupier, table) -> None:
    floor = open_floor(croupier, table)
    client = _as(croupier)
    before = row_counts()
    # the test client posts a dict as multipart/form-data
    answer = client.post(reverse("floor:shoe_close", args=[table.pk]), data={"reason": NUL})
    _refused_page(answer)
    assert row_counts() == before and Shoe.objects.get(pk=floor.shoe.pk).state == Shoe.State.OPEN
    urlencoded = client.post(
        reverse("floor:shoe_close", args=[table.pk]),
        "reason=a%00b",
        content_type="application/x-www-form-urlencoded",
    )
    _refused_page(urlencoded)
    assert row_counts() == before and Shoe.objects.get(pk=floor.shoe.pk).state == Shoe.State.OPEN


# --------------------------------------------------------------------------- the pit boss's pages
def test_a_nul_in_a_void_s_or_a_refusal_s_reason_is_refused(client, croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    client.force_login(pit_boss)
    before = row_counts()
    _refused_page(client.post(reverse("review:coup_void", args=[coup.pk]), {"reason": NUL}))
    assert row_counts() == before and not VoidRequest.objects.exists()
    client.post(reverse("review:coup_void", args=[coup.pk]), {"reason": "misdeal"})
    asked = VoidRequest.objects.get()
    client.force_login(UserFactory(username="marc", roles=["pit_boss"], casinos=[table.casino]))
    before = row_counts()  # after the login, which is audited
    _refused_page(client.post(reverse("review:void_refuse", args=[asked.pk]), {"reason": NUL}))
    assert row_counts() == before
    assert VoidRequest.objects.get(pk=asked.pk).state == asked.state
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.OPEN


def test_a_nul_in_a_lockout_s_username_is_refused(pit_boss) -> None:
    cache.clear()
    client = _as(pit_boss)
    events = AuditEvent.objects.count()
    _refused_page(client.post(reverse("review:lockout_lift"), {"username": "bob\x00"}))
    assert AuditEvent.objects.count() == events and not AccessAttempt.objects.exists()


# --------------------------------------------------------------------------------------- the API
def test_an_api_form_with_a_nul_is_a_400_problem(croupier, table) -> None:
    client = Client()
    answer = client.post("/api/v1/auth/token/", {"username": "croupier", "password": NUL})
    assert answer.status_code == 400 and answer["Content-Type"] == "application/problem+json"
    assert json.loads(answer.content) == {
        "type": "urn:chemin:problem:bad_request",
        "title": "Bad Request",
        "status": 400,
        "detail": UNSTORABLE_FIELD_DETAIL,
        "instance": "/api/v1/auth/token/",
        "code": "bad_request",
    }


# ------------------------------------------------------------------------------- the rule itself
def _posted(fields: dict[str, str]) -> Any:
    request = RequestFactory().post("/anywhere/", {})
    posted = QueryDict(mutable=True)
    for key, value in fields.items():
        posted[key] = value
    request._post, request._files = posted, MultiValueDict()  # type: ignore[attr-defined]
    return request


@pytest.mark.parametrize(
    "fields",
    [{"reason": "a\x00b"}, {"a\x00": "b"}, {"reason": "\ud800"}, {"reason": "x\udfffy"}, {"\udc80": "1"}],
)
def test_nul_and_lone_surrogates_are_unstorable(fields) -> None:
    request = _posted(fields)
    assert unstorable_in_form(request)
    answer = ControlCharactersMiddleware(lambda r: HttpResponse("reached"))(request)
    assert answer.status_code == 400


@pytest.mark.parametrize(
    "fields", [{"reason": "two\nlines\tand a tab"}, {"reason": "é€🂡"}, {"reason": ""}, {}]
)
def test_printable_text_newlines_and_tabs_pass(fields) -> None:
    request = _posted(fields)
    assert not unstorable_in_form(request)
    assert ControlCharactersMiddleware(lambda r: HttpResponse("reached"))(request).content == b"reached"


def test_a_lone_surrogate_in_a_query_is_refused() -> None:
    request = RequestFactory().get("/anywhere/")
    query = QueryDict(mutable=True)
    query["q"] = "\ud800"
    request.GET = query  # type: ignore[assignment]
    assert control_character_in_query(request)

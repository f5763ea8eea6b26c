"""The pit boss's pages for a void above the casino's limit (issue 20, item 5b): the void asked on
the coup's page waits there and in the queue; a second pit boss approves or refuses it there; the
asker is told why he cannot."""

from __future__ import annotations

import html as markup

import pytest
from django.conf import settings
from django.urls import reverse

from older_games import services as game_coups
from tables.models import Coup, GameCoup, VoidRequest
from tests.factories import UserFactory
from tests.tables.play import coup_with_bets, open_floor, row_counts, void_limit_set

pytestmark = pytest.mark.django_db

WAITS = markup.escape(
    "240 chips at stake, above this casino's limit of 100 for one pit boss: the void waits for a "
    "second pit boss, who approves or refuses it."
)  # as the page writes it (the apostrophe escaped)


@pytest.fixture
def second_boss(table):
    return UserFactory(username="marc", roles=["pit_boss"], casinos=[table.casino])


def test_a_void_asked_waits_and_a_second_pit_boss_approves_it(
    client, croupier, table, pit_boss, second_boss
) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    client.force_login(pit_boss)
    page = reverse("review:coup", args=[coup.pk])
    answer = client.post(reverse("review:coup_void", args=[coup.pk]), {"reason": "misdeal"}, follow=True)
    html = answer.content.decode()
    assert WAITS in html and 'data-testid="void-request"' in html
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.OPEN
    # the asker sees why he does not decide, and no buttons
    assert "You asked for this void: a second pit boss decides it." in html
    assert 'data-testid="void-approve"' not in html and 'data-testid="void-open"' not in html
    asked = VoidRequest.objects.get()
    before = row_counts()
    refused = client.post(reverse("review:void_approve", args=[asked.pk]))
    assert refused.status_code == 403 and "You asked for this void" in refused.content.decode()
    assert row_counts() == before
    # the second pit boss finds it in the queue and on the coup's page
    client.force_login(second_boss)
    queue = client.get(reverse("review:queue")).content.decode()
    assert 'data-testid="void-row"' in queue and page in queue
    html = client.get(page).content.decode()
    assert 'data-testid="void-approve"' in html and 'data-testid="void-refuse"' in html
    done = client.post(reverse("review:void_approve", args=[asked.pk]), follow=True)
    assert done.redirect_chain == [(page, 302)]
    assert "Void approved: the coup is voided." in done.content.decode()
    assert Coup.objects.get(pk=coup.pk).state == Coup.State.VOID
    assert 'data-testid="void-row"' not in client.get(reverse("review:queue")).content.decode()


def test_a_refusal_without_a_reason_is_shown_again_with_why(
    client, croupier, table, pit_boss, second_boss
) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    client.force_login(pit_boss)
    client.post(reverse("review:coup_void", args=[coup.pk]), {"reason": "misdeal"})
    asked = VoidRequest.objects.get()
    client.force_login(second_boss)
    before = row_counts()
    blank = client.post(reverse("review:void_refuse", args=[asked.pk]), {"reason": "  "})
    assert blank.status_code == 400 and "Say why the void is refused." in blank.content.decode()
    assert row_counts() == before
    done = client.post(
        reverse("review:void_refuse", args=[asked.pk]), {"reason": "the deal was fine"}, follow=True
    )
    assert "Void refused: the coup goes on." in done.content.decode()
    asked.refresh_from_db()
    assert (asked.state, Coup.objects.get(pk=coup.pk).state) == (VoidRequest.State.REFUSED, Coup.State.OPEN)


def test_the_pages_say_it_in_french(client, croupier, table, pit_boss) -> None:
    void_limit_set(table, 100)
    coup = coup_with_bets(open_floor(croupier, table), (2, 240))
    client.force_login(pit_boss)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    client.post(reverse("review:coup_void", args=[coup.pk]), {"reason": "misdeal"})
    html = client.get(reverse("review:coup", args=[coup.pk])).content.decode()
    assert WAITS not in html
    assert markup.escape("240 jetons en jeu, au-delà de la limite de 100 de ce casino") in html
    assert markup.escape("Vous avez demandé cette annulation : un second chef de partie en décide.") in html


def test_an_older_game_s_void_waits_on_its_page(
    client, game_table, table, croupier, pit_boss, second_boss
) -> None:
    void_limit_set(table, 50)
    _t, session, _players = game_table("macao", players=3)
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    client.force_login(pit_boss)
    client.post(reverse("review:game_coup_void", args=[coup.pk]), {"reason": "called away"})
    assert GameCoup.objects.get(pk=coup.pk).state == GameCoup.State.OPEN
    asked = VoidRequest.objects.get()
    client.force_login(second_boss)
    html = client.get(reverse("review:game_coup", args=[coup.pk])).content.decode()
    assert 'data-testid="void-approve"' in html
    client.post(reverse("review:void_approve", args=[asked.pk]))
    assert GameCoup.objects.get(pk=coup.pk).state == GameCoup.State.VOID

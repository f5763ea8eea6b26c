"""The pit boss's review of the older games: the live pit shows each table's game and an older
game's open coup (number, steps, minutes since its last step), a table's coups page by page, a
coup's review (steps with who and when, hands, outcome, postings, record, the offline verdict),
voiding an open coup with a reason, and the unfinished-coup alert for a game coup."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from older_games import review as game_review
from older_games import services as svc
from older_games.selectors import game_coup_record_id
from review.models import Alert, AlertKind
from review.services import alerts_raise
from tables.models import GameCoup
from tests.older_games.coups import GameHistory, macao_steps, play

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_the_live_pit_shows_the_game_and_the_open_game_coup(client, pit_boss, croupier, games: GameHistory):
    svc.game_step_record(actor=croupier, coup=games.open, payload={"kind": "deal", "card": "7C"})
    GameCoup.objects.filter(pk=games.open.pk).update(created_at=timezone.now() - dt.timedelta(minutes=90))
    client.force_login(pit_boss)
    answer = client.get(reverse("review:dashboard_live"))
    assert answer.status_code == 200
    rows = {r.open.table.pk: r for r in answer.context["live"].tables}
    macao = rows[games.open.table_id]
    assert macao.pages_url == reverse("review:game_coups", args=[games.open.table_id])
    assert macao.game_coup is not None
    assert (macao.game_coup.coup.pk, macao.game_coup.coup.number, macao.game_coup.steps) == (
        games.open.pk,
        3,
        1,
    )
    assert macao.minutes_since_last_step == macao.game_coup.minutes_since_last_step == 0
    assert macao.coups_last_hour == 2  # the settled coup and the void one (the open one began 90 min ago)
    landsknecht = rows[games.landsknecht.table_id]
    assert landsknecht.game_coup is None and landsknecht.coups_last_hour == 1
    html = answer.content.decode()
    assert (
        f'href="{reverse("review:game_coup", args=[games.open.pk])}" data-testid="game-coup-in-play"' in html
    )
    assert "coup 3 · 1 step<" in html
    banker = games.open.banker
    assert f'data-testid="game-banker">{banker.display_name}<' in html
    assert f'href="{reverse("review:game_coups", args=[games.tie.table_id])}"' in html
    assert 'data-testid="game">Old baccarat<' in html and 'data-testid="game">Macao<' in html
    dashboard = client.get(reverse("review:dashboard")).content.decode()
    assert 'data-testid="game-tables"' in dashboard
    assert reverse("review:game_coups", args=[games.landsknecht.table_id]) in dashboard


def test_a_tables_coups_page_by_page(client, accountant, croupier, game_table, monkeypatch) -> None:
    monkeypatch.setattr("older_games.review_views.GAME_COUPS_PAGE_SIZE", 2)
    table, session, _players = game_table("macao", players=3)
    coups = [play(croupier, session, macao_steps()) for _ in range(3)]
    client.force_login(accountant)  # the accountant reads, as on the dashboard
    first = client.get(reverse("review:game_coups", args=[table.pk]))
    assert first.status_code == 200
    assert [c.number for c in first.context["page"].object_list] == [3, 2]
    html = first.content.decode()
    assert reverse("review:game_coup", args=[coups[2].pk]) in html and "?page=2" in html
    second = client.get(reverse("review:game_coups", args=[table.pk]), {"page": 2})
    assert [c.number for c in second.context["page"].object_list] == [1]
    assert client.get(reverse("review:game_coups", args=[table.pk + 1000])).status_code == 404


def test_a_settled_coups_review(client, pit_boss, croupier, games: GameHistory) -> None:
    coup = games.tie
    client.force_login(pit_boss)
    answer = client.get(reverse("review:game_coup", args=[coup.pk]))
    assert answer.status_code == 200
    review = answer.context["review"]
    assert review.record_id == game_coup_record_id(coup)
    assert [(s.index, s.kind, s.actor) for s in review.steps][:3] == [
        (1, "stake", "croupier"),
        (2, "stake", "croupier"),
        (3, "cut", "croupier"),
    ]
    a, b, c = games.players["tie"]
    assert review.steps[0].detail == f"{b.display_name} · 20"
    assert dict(review.net) == {a.display_name: 10, c.display_name: -10}
    assert sorted(p.transaction.kind for p in review.postings) == ["game_settlement", "pool_in", "pool_out"]
    assert all(sum(line.amount for line in p.lines) == 0 for p in review.postings)
    assert review.verdict is not None and review.verdict["violations"] == []
    assert review.judge_agrees is True
    html = answer.content.decode()
    for testid in ("record", "verdict", "postings", "game-steps", "hands", "judge-agrees"):
        assert f'data-testid="{testid}"' in html, testid
    assert 'data-testid="void-form"' not in html  # a settled coup is not voided


def test_the_pit_boss_voids_an_open_coup_with_a_reason(client, pit_boss, games: GameHistory) -> None:
    client.force_login(pit_boss)
    url = reverse("review:game_coup_void", args=[games.open.pk])
    page = client.get(reverse("review:game_coup", args=[games.open.pk])).content.decode()
    assert 'data-testid="void-form"' in page and f'action="{url}"' in page
    assert 'data-testid="next-steps"' in page
    events = AuditEvent.objects.count()
    refused = client.post(url, {"reason": "   "})
    assert refused.status_code == 400 and 'data-testid="error"' in refused.content.decode()
    assert GameCoup.objects.get(pk=games.open.pk).state == GameCoup.State.OPEN
    assert AuditEvent.objects.count() == events
    done = client.post(url, {"reason": "player called away"})
    assert done.status_code == 302 and done["Location"] == reverse("review:game_coup", args=[games.open.pk])
    voided = GameCoup.objects.get(pk=games.open.pk)
    assert (voided.state, voided.void_reason) == (GameCoup.State.VOID, "player called away")
    assert AuditEvent.objects.filter(action="tables.game_coup.void", object_id=str(voided.pk)).exists()
    again = client.post(url, {"reason": "twice"})
    assert again.status_code == 409


@pytest.mark.parametrize(("persona", "status"), [("accountant", 403), ("croupier", 403), ("outsider", 403)])
def test_only_a_pit_boss_voids(client, request, games: GameHistory, persona, status) -> None:
    client.force_login(request.getfixturevalue(persona))
    answer = client.post(reverse("review:game_coup_void", args=[games.open.pk]), {"reason": "x"})
    assert answer.status_code == status
    assert GameCoup.objects.get(pk=games.open.pk).state == GameCoup.State.OPEN


@pytest.mark.parametrize("persona", ["croupier", "outsider"])
def test_others_do_not_see_the_game_pages(client, request, games: GameHistory, persona) -> None:
    client.force_login(request.getfixturevalue(persona))
    assert client.get(reverse("review:game_coup", args=[games.macao.pk])).status_code == 403
    assert client.get(reverse("review:game_coups", args=[games.macao.table_id])).status_code == 403


def test_an_open_game_coup_past_the_threshold_is_an_alert(client, pit_boss, games: GameHistory) -> None:
    now = timezone.now()
    alerts_raise(now=now + dt.timedelta(minutes=14))
    assert not Alert.objects.filter(kind=AlertKind.UNFINISHED_COUP).exists()
    alerts_raise(now=now + dt.timedelta(minutes=16))
    [alert] = Alert.objects.filter(kind=AlertKind.UNFINISHED_COUP)
    table = games.open.table
    assert (alert.subject_key, alert.table_id, alert.coup_id) == (f"gamecoup:{games.open.pk}", table.pk, None)
    assert alert.summary == f"{table.name} · Macao coup 3 unfinished for 16 min (0 steps)"
    assert alert.game_coup_id == games.open.pk
    alerts_raise(now=now + dt.timedelta(minutes=30))
    assert Counter(Alert.objects.values_list("kind", flat=True))[AlertKind.UNFINISHED_COUP] == 1
    client.force_login(pit_boss)
    html = client.get(reverse("review:alerts")).content.decode()
    assert f'href="{reverse("review:game_coup", args=[games.open.pk])}" data-testid="alert-game-coup"' in html


def test_the_review_selector_shows_a_void_coup_without_verdict(games: GameHistory) -> None:
    review = game_review.game_coup_review(games.void)
    assert review.verdict is None and review.judge_agrees is None and review.postings == []
    assert [(s.kind, s.detail) for s in review.steps] == [("deal", "2C")]

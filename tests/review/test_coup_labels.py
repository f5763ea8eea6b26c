"""Two sessions of one table on one day both play a "shoe 1, coup 1": the pit boss's queue,
dashboard, coup pages and alerts name each coup so that they never read alike (its id goes with
its table, shoe and number: templates/review/_coup_label.html, review.wording's alert patterns)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.models import Alert, AlertKind
from review.services import alerts_raise
from tables import services
from tables.models import Coup
from tests.review.history import play_flagged
from tests.tables.play import open_floor

pytestmark = pytest.mark.django_db


def _label(coup: Coup) -> str:
    return f"{coup.shoe.table.name} · shoe {coup.shoe.number} · coup {coup.number} (#{coup.pk})"


def test_two_sessions_coups_never_share_a_label(croupier, pit_boss, table) -> None:
    first_floor = open_floor(croupier, table)
    first = play_flagged(first_floor)
    services.table_session_close(actor=croupier, session=first_floor.session)
    second = play_flagged(open_floor(croupier, table))
    assert (first.shoe.number, first.number) == (second.shoe.number, second.number) == (1, 1)
    assert first.shoe.session_id != second.shoe.session_id

    alerts_raise(now=timezone.now())
    summaries = sorted(Alert.objects.filter(kind=AlertKind.FLAGGED_COUP).values_list("summary", flat=True))
    # sorted as text on both sides: coup #999 and #1000 sort the other way round as text
    assert summaries == sorted(
        [
            f"{table.name} · shoe 1 coup 1 (#{first.pk}) was played against the rules",
            f"{table.name} · shoe 1 coup 1 (#{second.pk}) was played against the rules",
        ]
    )

    boss = Client()
    boss.force_login(pit_boss)
    dashboard = boss.get(reverse("review:dashboard")).content.decode()
    assert _label(first) in dashboard and _label(second) in dashboard
    for coup in (first, second):
        page = boss.get(reverse("review:coup", args=[coup.pk])).content.decode()
        assert f"<h1>{_label(coup)}</h1>" in page
    alerts = boss.get(reverse("review:alerts")).content.decode()
    assert f"(#{first.pk}) was played against the rules" in alerts
    assert f"(#{second.pk}) was played against the rules" in alerts


def test_the_queue_names_each_restored_coup_apart(croupier, pit_boss, table) -> None:
    coups = []
    for _ in range(2):
        floor = open_floor(croupier, table)
        coup = play_flagged(floor)
        services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
        services.table_session_close(actor=croupier, session=floor.session)
        coups.append(coup)
    boss = Client()
    boss.force_login(pit_boss)
    queue = boss.get(reverse("review:queue")).content.decode()
    for coup in coups:
        assert f'<a href="{reverse("review:coup", args=[coup.pk])}">{_label(coup)}</a>' in queue

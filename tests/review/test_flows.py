"""Money passed between players through the database (docs/flows.md): a night played through the
real services where player 2 stands on 5 against player 1's bank six times (the worse choice) and
loses each time; the alert scan raises one money-flow alert above the casino's flow threshold,
the pit boss sees it on the alerts page and its evidence, compliance on its page; a croupier and
another casino's pit boss do not."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.models import Alert, AlertKind, AlertSettings
from review.selectors.flows import flow_duels, flow_evidence, flow_pair_totals
from review.services import alerts_raise
from tables.flows import pair_flows
from tables.gaming_day import casino_calendar
from tables.models import CoupStep
from tests.factories import CasinoFactory, UserFactory
from tests.tables.play import Floor, open_floor, play

pytestmark = pytest.mark.django_db

SUITS = "HDS"


def _launder(floor: Floor, coups: int = 6) -> list[int]:
    """Player 2 bets 100 against player 1's bank, stands on 5 (draw is the better choice on a
    nearly full shoe) against a banker's 7, and loses: 100 chips a coup from 2 to 1."""
    bank, played = 200, []
    for i in range(coups):
        s = SUITS[i % 3]
        coup = play(
            floor,
            bank=bank,
            bets=[(2, 100)],
            cards=(f"2{s}", f"K{s}", f"3{s}", f"7{s}"),
            player="stand",
            banker="stand",
        )
        reveal = CoupStep.objects.get(coup=coup, kind=CoupStep.Kind.REVEAL)
        bank = reveal.payload["verdict"]["settlement"]["next_bank_min"]
        played.append(coup.pk)
    return played


@pytest.fixture
def laundered(croupier, table) -> tuple[Floor, list[int]]:
    floor = open_floor(croupier, table, seats=(1, 2, 3), chips=5_000)
    return floor, _launder(floor)


def _flow_alerts() -> list[Alert]:
    return list(Alert.objects.filter(kind=AlertKind.MONEY_FLOW))


@pytest.mark.parametrize(("threshold", "raised"), [(599, True), (600, False), (601, False)])
def test_the_alert_one_chip_below_at_and_above_the_flow(
    laundered, table, threshold: int, raised: bool
) -> None:
    floor, coups = laundered
    AlertSettings.objects.create(casino=table.casino, flow_threshold=threshold)
    before = Alert.objects.count()
    now = timezone.now()  # one instant for the scan and the expected period, even across midnight
    alerts_raise(now=now)
    alerts = _flow_alerts()
    if not raised:
        assert alerts == [] and Alert.objects.count() == before
        return
    [alert] = alerts
    p1, p2 = floor.players[1], floor.players[2]
    # the factory casino's calendar: UTC, the gaming day ending at 06:00 (before it, yesterday's)
    today = casino_calendar(table.casino).today(now)
    first = today.fromordinal(today.toordinal() - 6)
    assert alert.subject_key == f"flow:{table.casino_id}:{p2.pk}>{p1.pk}:{first}:{today}"
    assert (alert.casino_id, alert.table_id, alert.coup_id) == (table.casino_id, table.pk, coups[-1])
    assert alert.summary.startswith(
        f"Player 2 passed 600 chips to Player 1 (gaming days {first} to {today}): "
    )
    assert "at 6 option point(s), honest play" in alert.summary
    # the database's grouped totals are the pure pair flows of the duels it reads
    duels = flow_duels(casino=table.casino, first=first, last=today)
    assert (
        flow_pair_totals(casino=table.casino, first=first, last=today)
        == pair_flows(duels)
        == {(p1.pk, p2.pk): 600}
    )
    evidence = flow_evidence(subject=alert.subject_key)
    assert evidence is not None
    assert (evidence.winner, evidence.loser, evidence.flow) == (p1, p2, 600)
    assert [c.coup.pk for c in evidence.coups] == coups
    assert [c.loser_net for c in evidence.coups] == [100] * 6
    assert (evidence.spread.points, evidence.spread.wrong) == (6, 6)
    assert evidence.spread.beyond(Fraction(4), 5)
    # a second scan finds it raised already
    assert alerts_raise(now=timezone.now()) == [] and len(_flow_alerts()) == 1


def test_the_default_threshold_raises_nothing_on_a_small_flow(laundered) -> None:
    alerts_raise(now=timezone.now())
    assert _flow_alerts() == []


@pytest.fixture
def raised(laundered, table) -> Alert:
    AlertSettings.objects.create(casino=table.casino, flow_threshold=500)
    alerts_raise(now=timezone.now())
    [alert] = _flow_alerts()
    return alert


def _get(user, url: str):
    client = Client()
    client.force_login(user)
    return client.get(url)


def test_the_pit_boss_sees_the_alert_and_its_evidence(raised, laundered, pit_boss) -> None:
    _, coups = laundered
    page = _get(pit_boss, reverse("review:alerts")).content.decode()
    evidence_url = reverse("review:flow_alert", args=[raised.pk])
    assert evidence_url in page and "money passed between players" in page
    answer = _get(pit_boss, evidence_url)
    assert answer.status_code == 200
    html = answer.content.decode()
    for pk in coups:  # each coup, with a link to its review page
        assert f'data-testid="flow-coup-{pk}"' in html
        assert reverse("review:coup", args=[pk]) in html
    assert 'data-testid="flow">600<' in html


def test_compliance_sees_it_on_its_page(raised, compliance_officer) -> None:
    page = _get(compliance_officer, reverse("review:compliance")).content.decode()
    assert f'data-testid="flow-alert-{raised.pk}"' in page
    answer = _get(compliance_officer, reverse("review:flow_alert", args=[raised.pk]))
    assert answer.status_code == 200
    assert reverse("review:coup", args=[raised.coup_id]) not in answer.content.decode()  # the pit boss's page


def test_in_french_and_russian(raised, pit_boss) -> None:
    client = Client()
    client.force_login(pit_boss)
    for lang, words in (
        (
            "fr",
            ("Argent passé entre joueurs", "Player 2 a passé 600 jetons à Player 1", "Flux par jour de jeu"),
        ),
        ("ru", ("Деньги, переданные между игроками", "Player 2 передал 600 фишек игроку Player 1", "Против")),
    ):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
        html = client.get(reverse("review:flow_alert", args=[raised.pk])).content.decode()
        assert all(w in html for w in words), lang


def test_a_croupier_and_another_casinos_pit_boss_do_not(raised, croupier) -> None:
    stranger = UserFactory(username="elsewhere", roles=["pit_boss"], casinos=[CasinoFactory()])
    url = reverse("review:flow_alert", args=[raised.pk])
    assert _get(croupier, url).status_code == 403
    assert _get(stranger, url).status_code == 404
    assert f'data-testid="alert-{raised.pk}"' not in _get(stranger, reverse("review:alerts")).content.decode()
    assert Alert.objects.get(pk=raised.pk).is_open  # nothing changed

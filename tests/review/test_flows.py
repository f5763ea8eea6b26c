"""Money passed between players through the database (docs/flows.md): a night played through the
real services where player 2 stands on 5 against player 1's bank six times (the worse choice) and
loses each time; the alert scan raises one money-flow alert above the casino's flow threshold,
the pit boss sees it on the alerts page and its evidence, compliance on its page; a croupier and
another casino's pit boss do not.

And the banker's variant: a night where player 1, banking, stands on 3 against a nine (the worse
choice) every time player 2 bets and draws against everybody else, losing 1 200 chips to him;
the banker's test alone raises the alert, and the evidence page shows his two shares."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.models import Alert, AlertKind, AlertSettings
from review.selectors.flows import flow_choices, flow_duels, flow_evidence, flow_pair_totals
from review.services import alerts_raise
from tables import services
from tables.flows import MIN_POINTS, Discrimination, pair_flows
from tables.gaming_day import casino_calendar
from tables.models import CoupStep
from tables.selectors import bank_rotation
from tests.factories import CasinoFactory, UserFactory
from tests.tables.play import Floor, held_bank_turn, open_floor, play

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
        (
            "ru",
            (
                "Деньги, переданные между игроками",
                "Передача фишек от игрока Player 2 игроку Player 1 — 600",  # no verb that says he or she
                "Против",
            ),
        ),
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


# ------------------------------------------------------------------- a banker who favours a punter
#: the suits the banker scenario deals from in turn: a 6-deck shoe holds six of each card, and no
#: card is dealt twice in one coup, so seventeen coups over four suits use each card five times at
#: most (the shoe alarm would otherwise raise its own alert)
BANK_SUITS = "HDSC"
#: the partner's stakes in the five coups the banker plays wrong against him: one large bet and four
#: small ones (see _favour)
FAVOURED_STAKES = (50, 50, 1000, 50, 50)
#: the other punter's stake in each of the banker's twelve other coups
OTHER_STAKE = 80


def _bank_back(floor: Floor, *, to: int = 1, via: int = 4) -> None:
    """Seat ``to`` lost the bank: the others refuse it in turn until seat ``via`` takes it and passes
    it at once; then the passed bank goes round again to ``to`` (the previous banker is left out of
    a rotation, so the bank needs one holder in between)."""
    for taker in (via, to):
        while True:
            rotation = bank_rotation(session=floor.session)
            assert rotation is not None and rotation.offer_to is not None
            number = rotation.offer_to.number
            services.bank_offer_answer(
                actor=floor.croupier, session=floor.session, seat=rotation.offer_to, accept=number == taker
            )
            if number == taker:
                break
        if taker == via:
            services.bank_pass(actor=floor.croupier, session=floor.session)


def _favour(floor: Floor) -> tuple[list[int], list[int]]:
    """Player 1 banks seventeen coups with an option point for him in each: his three against the
    punter's face-up nine, where drawing is the better choice (about 7 % of the stake on this shoe).

    - twelve times player 3 bets ``OTHER_STAKE`` (the hand: ace and king, draws a nine, 0): the
      banker draws a five, 8, and wins;
    - five times player 2 bets (``FAVOURED_STAKES``; the hand: king and queen, draws a nine, 9):
      the banker stands on his three, the worse choice, and loses the stake to him. A lost bank
      goes round and comes back to player 1 (``_bank_back``).

    Player 2's and player 3's own draws are the tableau's (0 and 1 draw), never a choice: their
    play is clean. Returns the coups against player 2 and the others."""
    favoured, others = [], []
    big = iter(FAVOURED_STAKES)
    for i in range(17):
        s = BANK_SUITS[i % 4]
        minimum = held_bank_turn(floor).required_minimum
        if i % 7 in (2, 5):  # coups 2, 5, 9, 12, 16: against the partner
            stake = next(big)
            coup = play(
                floor,
                bank=max(minimum, stake),
                bets=[(2, stake)],
                cards=(f"K{s}", f"3{s}", f"Q{s}", f"J{s}"),
                player="draw",
                player_card=f"9{s}",
                banker="stand",
            )
            favoured.append(coup.pk)
            _bank_back(floor)
        else:
            coup = play(
                floor,
                bank=max(minimum, OTHER_STAKE),
                bets=[(3, OTHER_STAKE)],
                cards=(f"A{s}", f"3{s}", f"T{s}", f"Q{s}"),
                player="draw",
                player_card=f"9{s}",
                banker="draw",
                banker_card=f"5{s}",
            )
            others.append(coup.pk)
    return favoured, others


@pytest.fixture
def favoured(croupier, table) -> tuple[Floor, list[int], list[int]]:
    floor = open_floor(croupier, table, seats=(1, 2, 3, 4), chips=5_000)
    return (floor, *_favour(floor))


def test_a_banker_who_plays_worse_only_when_one_punter_bets(favoured, table) -> None:
    """The flow threshold one chip above, at and below player 1's 1 200 chips to player 2: the
    scan raises the money-flow alert only below, and the banker's test alone raises it."""
    floor, against_partner, others = favoured
    p1, p2, p3 = floor.players[1], floor.players[2], floor.players[3]
    now = timezone.now()  # one instant for the scans and the expected period, even across midnight
    today = casino_calendar(table.casino).today(now)
    first = today.fromordinal(today.toordinal() - 6)
    # player 1 lost 1 200 chips to player 2 and won 960 from player 3 (80 a coup, twelve coups)
    duels = flow_duels(casino=table.casino, first=first, last=today)
    assert (
        flow_pair_totals(casino=table.casino, first=first, last=today)
        == pair_flows(duels)
        == {(p2.pk, p1.pk): 1200, (p1.pk, p3.pk): 960}
    )
    limits = AlertSettings.objects.create(casino=table.casino, flow_threshold=1201)
    for threshold in (1201, 1200):
        limits.flow_threshold = threshold
        limits.save(update_fields=["flow_threshold"])
        assert alerts_raise(now=now) == [], threshold
        assert Alert.objects.count() == 0, threshold
    limits.flow_threshold = 1199
    limits.save(update_fields=["flow_threshold"])
    [alert] = alerts_raise(now=now)
    assert [alert] == _flow_alerts()
    assert alert.subject_key == f"flow:{table.casino_id}:{p1.pk}>{p2.pk}:{first}:{today}"
    last_met = against_partner[-1]
    assert (alert.casino_id, alert.table_id, alert.coup_id) == (table.casino_id, table.pk, last_met)
    # the banker's test raised it, alone: the summary is its wording
    assert alert.summary == (
        f"Player 1 passed 1200 chips to Player 2 (gaming days {first} to {today}): banking, the worse "
        "choice at 5 of 5 option point(s) when Player 2 bet, 0 of 12 otherwise"
    )
    evidence = flow_evidence(subject=alert.subject_key)
    assert evidence is not None
    assert (evidence.winner, evidence.loser, evidence.flow) == (p2, p1, 1200)
    assert [c.coup.pk for c in evidence.coups] == against_partner
    assert [c.loser_net for c in evidence.coups] == list(FAVOURED_STAKES)
    assert [[(c.side, c.wrong) for c in row.points] for row in evidence.coups] == [[("banker", True)]] * 5
    assert evidence.discrimination == Discrimination(facing=5, wrong_facing=5, others=12, wrong_others=0)
    # pooled share 5/17: variance 5/17 * 12/17 * (1/5 + 1/12) = 1/17, so z = sqrt(17), above 4
    assert evidence.discrimination.z == pytest.approx(math.sqrt(17), rel=1e-12)
    assert evidence.discrimination.beyond(Fraction(4), MIN_POINTS)
    # the expectation test alone does not flag him: five worse choices, but one bet of 1 000 chips
    # weighs nearly all of it, and one point is no evidence (z about 3.6, below 4)
    assert (evidence.spread.points, evidence.spread.wrong) == (5, 5)
    assert not evidence.spread.beyond(Fraction(4), MIN_POINTS)
    assert evidence.spread.z is not None and 3.5 < evidence.spread.z < 3.7
    # the partner's own play is clean: he never had a choice (the tableau drew for him on 0 and 1),
    # nor did player 3
    choices = [c for cc in flow_choices(against_partner + others) for c in cc.choices()]
    assert {c.chooser for c in choices} == {p1.pk}
    assert [c.opponent for c in choices if c.wrong] == [p2.pk] * 5
    assert list(Alert.objects.all()) == [alert]  # no other alert: the night is otherwise unremarkable
    # a second scan finds it raised already
    assert alerts_raise(now=now) == [] and _flow_alerts() == [alert]


def test_the_banker_evidence_on_the_page(favoured, table, pit_boss) -> None:
    _, against_partner, _ = favoured
    AlertSettings.objects.create(casino=table.casino, flow_threshold=1000)
    alerts_raise(now=timezone.now())
    [alert] = _flow_alerts()
    client = Client()
    client.force_login(pit_boss)
    url = reverse("review:flow_alert", args=[alert.pk])
    for lang, words in (
        (
            "en",
            (
                "banking, the worse choice at 5 of 5 option point(s) when Player 2 bet, 0 of 12 otherwise",
                'data-testid="banker-shares">5 / 5 · otherwise 0 / 12<',
            ),
        ),
        (
            "fr",
            (
                "en tenant la banque, le moins bon choix à 5 de 5 point(s) d&#x27;option quand Player 2 "
                "pontait, 0 de 12 sinon",
                'data-testid="banker-shares">5 / 5 · sinon 0 / 12<',
            ),
        ),
        (
            "ru",
            (
                "держа банк, худший выбор в 5 из 5 точек выбора при ставках игрока Player 2, "
                "в остальных — 0 из 12",
                'data-testid="banker-shares">5 / 5 · в остальных 0 / 12<',
            ),
        ),
    ):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
        html = client.get(url).content.decode()
        assert all(w in html for w in words), lang
        for pk in against_partner:
            assert f'data-testid="flow-coup-{pk}"' in html

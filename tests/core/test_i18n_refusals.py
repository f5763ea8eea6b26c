# ruff: noqa: RUF001  (Russian words: Cyrillic letters that look Latin are meant)
"""The refusals of the floor, the cage and compliance, and a few screen words, as a French or
Russian screen shows them (docs/i18n.md): no English sentence left where a QA sweep found one.

Each refusal stays English where it is raised (the API's and the audit trail's words: the last
test of each group says so); the screens say it in their language, its values as the page writes
them (chips grouped, names as typed)."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from cage import services as cage
from chemin_de_fer.engine.machine import Move
from compliance import services as compliance
from compliance.models import CashReport
from core.cards import CardError, parse_card
from core.errors import validation_messages
from tables import services
from tables.models import Coup
from tests.cage.conftest import key, new_player
from tests.factories import (
    CroupierAssignmentFactory,
    PlayerFactory,
    TableFactory,
    UserFactory,
    builtin_profile,
)
from tests.review.history import play_flagged
from tests.tables.play import Floor, open_floor, step

pytestmark = pytest.mark.django_db
HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI environ for the test client
LANGS = ["fr", "ru"]


def _client(user: Any, lang: str) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    return client


def _text(response: Any) -> str:
    return unescape(response.content.decode())


def _bet_in_play(floor: Floor) -> Coup:
    """Seat 1 banks 100, seat 2 bets 100: a coup being played."""
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=100).coup
    step(floor, coup, Move.BET, seat=2, amount=100)
    return coup


# ---------------------------------------------------------------------------------- the floor
LEAVING = {
    "fr": ("Ce joueur a une mise dans le coup en cours.", "Le banquier ne peut pas partir pendant un coup."),
    "ru": ("У этого игрока есть ставка в текущем коупе.", "Банкомёт не может уйти во время коупа."),
}


@pytest.mark.parametrize("lang", LANGS)
def test_leaving_a_seat_during_a_coup_is_refused_in_the_screen_s_language(croupier, table, lang) -> None:
    floor = open_floor(croupier, table)
    _bet_in_play(floor)
    client = _client(croupier, lang)
    punter, banker = floor.seats[2], floor.seats[1]
    bettor = client.post(reverse("floor:seat_leave", args=[table.pk, punter.pk]), **HTMX)
    assert bettor.status_code == 400
    assert f"<p>{LEAVING[lang][0]}</p>" in _text(bettor)
    holding = client.post(reverse("floor:seat_leave", args=[table.pk, banker.pk]), **HTMX)
    assert holding.status_code == 400
    assert f"<p>{LEAVING[lang][1]}</p>" in _text(holding)
    assert "coup being played" not in _text(bettor) and "cannot leave" not in _text(holding)


SEATING = {
    "fr": {
        "taken": "La place 2 est prise.",
        "seated": "Player 3 a déjà une place à cette table.",
        "standing": "Sam suit le jeu debout en spectateur : enregistrez d’abord son départ.",
        "seated, standing": "Player 3 a une place à cette table.",
        "numbered": "Les places de cette table sont numérotées de 1 à {count}.",
    },
    "ru": {
        "taken": "Место 2 занято.",
        "seated": "Player 3 уже сидит за этим столом.",
        "standing": "Sam стоит у стола зрителем: сначала отметьте уход игрока.",
        "seated, standing": "Player 3 сидит за этим столом.",
        "numbered": "Места за этим столом пронумерованы от 1 до {count}.",
    },
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_seating_refusals_are_said_in_the_screen_s_language(croupier, table, lang) -> None:
    """Seat N is taken, already seated, standing as a spectator: built from values (said), each
    said again in the page's language with the player's name as typed."""
    floor = open_floor(croupier, table)
    sam = PlayerFactory(casino=table.casino, display_name="Sam")
    services.spectator_join(actor=croupier, session=floor.session, player=sam)
    seated = floor.seats[3].player
    client = _client(croupier, lang)
    seat = reverse("floor:seat_take", args=[table.pk])
    said = SEATING[lang]
    posts = {
        "taken": (seat, {"number": 2, "new_name": "Ann"}),
        "seated": (seat, {"number": 7, "player": seated.pk}),
        "standing": (seat, {"number": 7, "player": sam.pk}),
        "seated, standing": (reverse("floor:spectator_join", args=[table.pk]), {"player": seated.pk}),
        "numbered": (seat, {"number": table.seat_count + 1, "new_name": "Ann"}),
    }
    for what, (url, data) in posts.items():
        response = client.post(url, data, **HTMX)
        assert response.status_code == 400, what
        assert f"<p>{said[what].format(count=table.seat_count)}</p>" in _text(response), what


def test_the_floor_s_refusals_stay_english_where_they_are_raised(croupier, table) -> None:
    floor = open_floor(croupier, table)
    _bet_in_play(floor)
    with pytest.raises(ValidationError) as bettor:
        services.seat_leave(actor=croupier, seat=floor.seats[2])
    assert validation_messages(bettor.value) == ["This player has a bet in the coup being played."]
    with pytest.raises(ValidationError) as taken:
        services.seat_take(
            actor=croupier, session=floor.session, player=PlayerFactory(casino=table.casino), number=2
        )
    assert validation_messages(taken.value) == ["Seat 2 is taken."]


# ----------------------------------------------------------------------------------- the cage
ABOVE_LIMIT = {
    "fr": "Un achat porte au plus sur 10\xa0000\xa0000 jetons à la fois.",
    "ru": "За одну покупку — не более 10\xa0000\xa0000 фишек.",
}
NO_NUMBER = {
    "fr": "Saisissez le numéro du document (40 caractères au plus).",
    "ru": "Введите номер документа (не более 40 символов).",
}
NO_TYPE = {
    "fr": "Choisissez le type de la pièce d'identité.",
    "ru": "Выберите тип документа, удостоверяющего личность.",
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_cage_s_refusals_are_said_in_the_screen_s_language(cashier, table, lang) -> None:
    """A buy-in above the cage's limit (the limit as the page writes chips), a document half
    given: refused in the row, in the page's language."""
    casino = table.casino
    dupont = new_player(casino=casino, display_name="M. Dupont")
    client = _client(cashier, lang)
    url = reverse("cage:buy_in", args=[casino.pk])
    forms = [
        ({"amount": "10000001"}, ABOVE_LIMIT[lang]),
        ({"amount": "100", "document_type": "passport", "document_number": ""}, NO_NUMBER[lang]),
        ({"amount": "100", "document_type": "", "document_number": "12AB34567"}, NO_TYPE[lang]),
    ]
    for form, refusal in forms:
        response = client.post(url, {"player": dupont.pk, "key": key(), **form}, **HTMX)
        assert response.status_code == 400, form
        # in the row, or next to the document's field when the row asks for it again
        assert f"<p>{refusal}</p>" in _text(response), form


MEMBERSHIP_TAKEN = {
    "fr": "Ce numéro de membre est déjà utilisé dans ce casino.",
    "ru": "Этот номер карты клуба уже используется в этом казино.",
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_membership_number_used_twice_is_refused_in_the_screen_s_language(cashier, table, lang) -> None:
    new_player(casino=table.casino, display_name="M. Dupont", membership_number="M-1001")
    client = _client(cashier, lang)
    response = client.post(
        reverse("cage:player_new", args=[table.casino.pk]),
        {"display_name": "Mme Roy", "membership_number": "M-1001"},
    )
    assert response.status_code == 400
    assert f"<p>{MEMBERSHIP_TAKEN[lang]}</p>" in _text(response)


def test_the_cage_s_refusals_stay_english_where_they_are_raised(cashier, table) -> None:
    casino = table.casino
    dupont = new_player(casino=casino, display_name="M. Dupont")
    with pytest.raises(ValidationError) as above:
        cage.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=10_000_001, key=key())
    assert above.value.message_dict == {"amount": ["A buy-in moves at most 10000000 chips at once."]}
    with pytest.raises(ValidationError) as half:
        compliance.document_parse("passport", "")
    assert half.value.message_dict == {
        "document_number": ["Type the document's number (at most 40 characters)."]
    }
    services.player_create(actor=None, casino=casino, display_name="Mme Roy", membership_number="M-1")
    with pytest.raises(ValidationError) as twice:
        services.player_create(actor=None, casino=casino, display_name="M. Roy", membership_number="M-1")
    assert validation_messages(twice.value) == ["This membership number is already used in this casino."]


@pytest.mark.parametrize(
    ("lang", "refusal"),
    [("fr", "Déjà déposée par compliance le "), ("ru", "Отчёт уже подан (compliance, ")],
)
def test_a_report_filed_twice_is_refused_in_the_screen_s_language(
    cashier, compliance_officer, table, lang, refusal
) -> None:
    dupont = new_player(casino=table.casino, display_name="M. Dupont")
    passport = compliance.DocumentIn("passport", "12AB34567")
    cage.cage_buy_in(
        actor=cashier, casino=table.casino, player=dupont, amount=10_001, key=key(), document=passport
    )
    report = CashReport.objects.get()
    compliance.cash_report_file(actor=compliance_officer, report=report)
    again = _client(compliance_officer, lang).post(reverse("review:cash_report_file", args=[report.pk]))
    assert again.status_code == 409
    assert refusal in _text(again) and "Already filed" not in _text(again)


# ------------------------------------------------------------------------------------- a card
CARD_HINT = {
    "en": "bad card 'zz': a card is a rank (A, 2-9, T or 10, J, Q, K) and a suit (S, H, D, C), e.g. 9H",
    "fr": "carte invalide 'zz' : une carte s’écrit avec sa valeur (A, 2–9, T ou 10, J pour valet, Q pour "
    "dame, K pour roi) puis sa couleur (S ♠, H ♥, D ♦, C ♣), p. ex. 9h pour 9♥",
    "ru": "неверная карта 'zz': карта пишется достоинством (A, 2–9, T или 10, J — валет, Q — дама, "
    "K — король) и мастью (S ♠, H ♥, D ♦, C ♣), например 9h — это 9♥",
}


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_a_typed_card_that_is_none_says_what_a_card_looks_like(croupier, table, lang) -> None:
    floor = open_floor(croupier, table)
    coup = _bet_in_play(floor)
    step(floor, coup, Move.BETS_CLOSED)
    coup.refresh_from_db()
    response = _client(croupier, lang).post(
        reverse("floor:coup_step", args=[table.pk, coup.pk]),
        {"kind": "card_to_player", "card": "zz", "expected_step": coup.step_count},
        **HTMX,
    )
    assert response.status_code == 400
    assert f"<p>{CARD_HINT[lang]}</p>" in _text(response)


def test_the_api_s_card_refusal_keeps_its_english_start() -> None:
    with pytest.raises(CardError) as refused:
        parse_card("zz")
    assert str(refused.value) == CARD_HINT["en"]
    assert str(refused.value).startswith("bad card 'zz'")


# ------------------------------------------------------------------------------- screen words
FLOOR_RESTORE = {
    "fr": "<li>Le banquier reste : Le banquier doit tirer à 5 contre la troisième carte du joueur, 6♦ : "
    "le tableau interdit de rester.</li>",
    "ru": "<li>Банкомёт стоит: Банкомёт должен взять карту на 5 против третьей карты игрока 6♦: "
    "таблица запрещает стоять.</li>",
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_restore_screen_s_violation_takes_its_language_s_colon(croupier, table, lang) -> None:
    """"Le banquier reste : Le banquier doit…": the colon belongs to the translated sentence."""
    play_flagged(open_floor(croupier, table))
    page = _text(_client(croupier, lang).get(reverse("floor:table", args=[table.pk])))
    assert FLOOR_RESTORE[lang] in page


@pytest.mark.parametrize(
    ("lang", "button", "state"), [("fr", "Ouvrir", "En cours"), ("ru", "Открыть", "Идёт")]
)
def test_the_queue_s_open_button_is_a_verb_not_the_coup_s_state(croupier, table, lang, button, state) -> None:
    """A pit boss who submitted the correction himself may not approve it: his queue row offers
    "Open" (the coup's page), the verb, not the state word "Open" (a coup in play)."""
    boss = UserFactory(username="bosscroupier", roles=["pit_boss", "croupier"])
    CroupierAssignmentFactory(user=boss, table=table)
    coup = play_flagged(open_floor(croupier, table))
    services.correction_submit(actor=boss, coup=coup, cards=["4C"])
    page = _text(_client(boss, lang).get(reverse("review:queue")))
    link = f'<a class="button button-secondary" href="{reverse("review:coup", args=[coup.pk])}">'
    assert f"{link}{button}</a>" in page
    assert f"{link}{state}</a>" not in page


CARDS_OUT = {
    "en": ("<strong>0</strong> cards out", "<strong>1</strong> card out", "<strong>2</strong> cards out"),
    "fr": (
        "<strong>0</strong> carte sortie",
        "<strong>1</strong> carte sortie",
        "<strong>2</strong> cartes sorties",
    ),
    "ru": (
        "сдано <strong>0</strong> карт",
        "сдана <strong>1</strong> карта",
        "сдано <strong>2</strong> карты",
    ),
}


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_the_cards_out_of_the_shoe_are_counted_with_a_plural(croupier, lang) -> None:
    table = TableFactory(profile=builtin_profile("classic"))  # no card burnt: the count starts at 0
    CroupierAssignmentFactory(user=croupier, table=table)
    floor = open_floor(croupier, table, burnt=())
    client = _client(croupier, lang)
    shown = []
    coup = _bet_in_play(floor)
    step(floor, coup, Move.BETS_CLOSED)
    shown.append(_text(client.get(reverse("floor:table", args=[table.pk]))))
    for card in ("9H", "AS"):
        step(floor, coup, Move.CARD_TO_PLAYER if card == "9H" else Move.CARD_TO_BANKER, card=card)
        shown.append(_text(client.get(reverse("floor:table", args=[table.pk]))))
    for page, said in zip(shown, CARDS_OUT[lang], strict=True):
        assert said in page

# ruff: noqa: RUF001  (Russian words: Cyrillic letters that look Latin are meant)
"""The screens in French and Russian (core/locale.py, docs/i18n.md): the language switch, the main
pages of every persona translated with no English navigation left, and the API still English."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.urls import reverse

from tables import services
from tests.review.history import awaiting  # noqa: F401  (fixture)
from tests.tables.play import open_floor

pytestmark = pytest.mark.django_db

#: the English labels of the navigation and the top bar, as they appear between tags ("Tables",
#: "Corrections" and "Exports" are French words too: the Russian pages are checked for those)
ENGLISH_NAV = [">My table<", ">Dashboard<", ">Cage<", ">Log out<"]
ENGLISH_NAV_RU = [*ENGLISH_NAV, ">Tables<", ">Corrections<", ">Exports<"]


def no_english_nav(html: str, lang: str) -> None:
    for label in ENGLISH_NAV_RU if lang == "ru" else ENGLISH_NAV:
        assert label not in html, label


def _page(client, user, url: str, lang: str | None) -> str:
    client.force_login(user)
    if lang:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_english_is_the_default_and_the_browser_s_language_is_not_asked(client, croupier) -> None:
    response = client.get(reverse("login"), headers={"accept-language": "fr-FR,fr;q=0.9"})
    html = response.content.decode()
    assert response["Content-Language"] == "en"
    assert '<html lang="en">' in html
    assert ">Log in</h1>" in html


def test_the_switch_posts_the_language_and_the_next_page_is_french(client, croupier) -> None:
    client.force_login(croupier)
    home = client.get(reverse("home")).content.decode()
    assert 'action="/i18n/setlang/"' in home
    assert 'name="language" value="fr"' in home and 'name="language" value="ru"' in home

    response = client.post(reverse("set_language"), {"language": "fr", "next": reverse("home")})

    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
    html = client.get(reverse("home")).content.decode()
    assert '<html lang="fr">' in html
    assert ">Déconnexion</button>" in html
    assert "Session ouverte au nom de" in html
    assert ">Log out<" not in html


def test_the_switch_needs_its_csrf_token(croupier) -> None:
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(croupier)
    response = strict.post(reverse("set_language"), {"language": "fr", "next": "/"})
    assert response.status_code == 403
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


def test_an_unknown_language_cookie_falls_back_to_english(client, croupier) -> None:
    html = _page(client, croupier, reverse("home"), "de")
    assert '<html lang="en">' in html and ">Log out<" in html


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("fr", ["Ma table", "Déconnexion", "Mises, dans l'ordre de parole", "Reste à couvrir", "Banco"]),
        ("ru", ["Мой стол", "Выйти", "Ставки в порядке очереди", "Осталось покрыть", "Банко"]),
    ],
)
def test_the_croupier_s_table_in_the_middle_of_the_betting(client, croupier, table, lang, expected) -> None:
    floor = open_floor(croupier, table)
    services.coup_start(actor=croupier, session=floor.session, amount=200)

    html = _page(client, croupier, reverse("floor:table", args=[table.pk]), lang)

    for text in expected:
        assert text in html, text
    no_english_nav(html, lang)
    assert "Left to cover" not in html and "Bets, in betting order" not in html


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("fr", ["Corrections en attente de validation", "Valider", "Rejeter", "Tableau de bord"]),
        ("ru", ["Исправления, ждущие утверждения", "Утвердить", "Отклонить", "Сводка"]),
    ],
)
def test_the_pit_boss_s_queue(client, pit_boss, awaiting, lang, expected) -> None:  # noqa: F811
    html = _page(client, pit_boss, reverse("review:queue"), lang)
    for text in expected:
        assert text in html, text
    no_english_nav(html, lang)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("fr", ["Tel qu'enregistré, étape par étape", "en attente de validation", "devait tirer"]),
        ("ru", ["Как записано, шаг за шагом", "ждёт утверждения", "Банкомёт должен был взять карту."]),
    ],
)
def test_a_coup_s_review(client, pit_boss, awaiting, lang, expected) -> None:  # noqa: F811
    html = _page(client, pit_boss, reverse("review:coup", args=[awaiting.flagged.pk]), lang)
    for text in expected:
        assert text in html, text
    assert "As recorded, step by step" not in html


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("fr", ["Tableau de bord de la salle", "Tables ouvertes", "Journal d'audit", "Toutes les tables"]),
        ("ru", ["Сводка по залу", "Открытые столы", "Журнал аудита", "Все столы"]),
    ],
)
def test_the_dashboard(client, accountant, awaiting, lang, expected) -> None:  # noqa: F811
    html = _page(client, accountant, reverse("review:dashboard"), lang)
    for text in expected:
        assert text in html, text
    no_english_nav(html, lang)


#: the reports page (issue "runs"): the Generate form (its report kinds and periods), the history
#: of runs (the older immediate downloads are gone, tests/reports/test_exports.py)
EXPORTS_PAGE = {
    "fr": [
        ">Rapports comptables</h1>",
        ">Générer un rapport</h2>",
        ">Cagnotte (prélèvement au pourcentage)</option>",
        ">Produit brut des jeux</option>",
        ">Depuis le début du mois</option>",
        ">Générer</button>",
        ">Rapports générés</h2>",
        "Aucun rapport généré pour l'instant.",
    ],
    "ru": [
        ">Бухгалтерские отчёты</h1>",
        ">Сформировать отчёт</h2>",
        ">Сбор (процентный налог)</option>",
        ">Выигрыш казино</option>",
        ">С начала месяца</option>",
        ">Сформировать</button>",
        ">Сформированные отчёты</h2>",
        "Сформированных отчётов пока нет.",
    ],
}
#: the page's English headings and report titles, none of which may be left on a translated page
EXPORTS_PAGE_ENGLISH = [
    ">Accounting reports<",
    ">Generate a report<",
    ">Levy (percentage tax)<",
    ">House win<",
    ">Generate<",
    ">Reports generated<",
    ">Immediate downloads<",
    ">Percentage-tax report<",
]


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_the_exports(client, accountant, lang) -> None:
    html = _page(client, accountant, reverse("review:exports"), lang)
    for text in EXPORTS_PAGE[lang]:
        assert text in html, text
    for english in EXPORTS_PAGE_ENGLISH:
        assert english not in html, english
    no_english_nav(html, lang)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "fr",
            "Le rapport Cagnotte (prélèvement au pourcentage) porte sur un seul casino : envoyez la "
            "table ou le casino "
            "(son identifiant) concerné.",
        ),
        (
            "ru",
            "Отчёт Сбор (процентный налог) строится по одному казино: укажите стол или казино "
            "(его идентификатор), к которому он относится.",
        ),
    ],
)
def test_the_old_export_url_refuses_in_the_users_language(client, accountant, lang, expected) -> None:
    """The old immediate download's URL, now asking for a run: a per-casino report without a
    table or a casino is refused, saying so in the user's language."""
    client.force_login(accountant)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.post(reverse("review:export", args=["percentage-tax"]), {})
    assert response.status_code == 400
    assert response.content.decode() == expected + "\n"


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("fr", [">Séances</h2>", ">Coups joués</h2>", "de jeu</span>", "0 h 00</span>", "<td>Place 1<"]),
        ("ru", [">Сессии</h2>", ">Сыгранные коупы</h2>", "в игре<", "0 ч 00 мин</span>", "<td>Место 1<"]),
    ],
)
def test_the_player_page(client, accountant, awaiting, lang, expected) -> None:  # noqa: F811
    """The figures' words and the seat are the screen's (the selector gives numbers)."""
    banker = awaiting.flagged.banker
    html = _page(client, accountant, reverse("review:player", args=[banker.pk]), lang)
    for text in expected:
        assert text in html, text
    assert "<td>seat 1</td>" not in html and " min</span> played" not in html
    no_english_nav(html, lang)


@pytest.mark.parametrize(("lang", "title"), [("fr", ">Graphiques</h1>"), ("ru", ">Графики</h1>")])
def test_the_charts_are_drawn_with_decimal_points_in_every_language(
    client,
    accountant,
    awaiting,  # noqa: F811
    lang,
    title,
) -> None:
    """French and Russian write 12,5 for 12.5: an SVG coordinate written so is no number, and the
    bars are drawn nowhere (templates/review/_bar_chart.html turns localization off)."""
    html = _page(client, accountant, reverse("review:charts"), lang)
    assert title in html
    coordinates = re.findall(r"<(?:rect|line) ([^>]*)>", html)
    assert len(coordinates) > 24  # a day's bars, an hour's bars, their grid lines
    for attributes in coordinates:
        for name, value in re.findall(r'\b(x|y|x1|x2|y1|y2|width|height)="([^"]*)"', attributes):
            assert re.fullmatch(r"-?\d+(\.\d+)?", value), f"{name}={value!r}"
    no_english_nav(html, lang)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("fr", ["La caisse", "Nouveau joueur", "Inscrire", "Acheter", "Rembourser"]),
        ("ru", ["Касса", "Новый игрок", "Зарегистрировать", "Купить", "Выплатить"]),
    ],
)
def test_the_cage(client, cashier, table, lang, expected) -> None:
    from tests.factories import PlayerFactory

    PlayerFactory(casino=table.casino, display_name="Alice")
    html = _page(client, cashier, reverse("cage:players", args=[table.casino.pk]), lang)
    for text in expected:
        assert text in html, text
    no_english_nav(html, lang)


@pytest.mark.parametrize(("lang", "title"), [("fr", "Connexion"), ("ru", "Вход")])
def test_the_login_page(client, lang, title) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    html = client.get(reverse("login")).content.decode()
    assert f">{title}</h1>" in html
    assert ">Log in</h1>" not in html


def test_the_api_answers_in_english_whatever_the_cookie(client, croupier) -> None:
    english = client.get("/api/v1/me/")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    french_cookie = client.get("/api/v1/me/")
    assert english.status_code == french_cookie.status_code == 401
    assert french_cookie.json() == english.json()
    assert french_cookie["Content-Language"] == "en"


def test_a_refusal_on_the_croupier_s_screen_is_translated_but_the_service_s_words_stay_english(
    client, croupier, table
) -> None:
    """The refusal is English in the service (audit, API); the screen translates it when shown."""
    from tables.wording import AMEND_NEEDS_REASON

    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=200).coup
    client.force_login(croupier)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    url = reverse("floor:coup_amend", args=[table.pk, coup.pk, 1])

    posted = {"expected_step": coup.step_count, "amount": 300, "reason": ""}

    response = client.post(url, posted, headers={"hx-request": "true"})

    assert response.status_code == 400
    html = response.content.decode()
    assert "Indiquez pourquoi l&#x27;étape est corrigée" in html
    assert AMEND_NEEDS_REASON == "Say why the step is amended (e.g. 'typed 50 for 500')."  # the service's

"""Every page at a phone's and a tablet's width, for every persona who can reach it (issue 11 §4).

The pages are not listed by hand: every URL pattern of the URL conf is walked (django.urls
resolvers), its parameters filled with ids of a demo-like floor (laid out as ``load_demo`` does,
then a coup played, one flagged and restored, one in its betting, one waiting for its cards, the
alerts raised and one acknowledged, a report generated and one waiting), and each persona GETs it. A
pattern answering a page (200, HTML) is opened in Chromium at 390x844 and at 1024x768, and the
page itself must not
scroll sideways (``document.documentElement.scrollWidth <= window.innerWidth``; a wide table scrolls
inside its own box). An htmx fragment answered to a plain GET (the dashboard's live part, a report
run's row) has no <head>: it is checked with the site's stylesheets added, as it is shown in the page
that polls it. On every persona's pages every control is at least 44x44 px (its folded
<details> opened first, so what they hold is measured too): links, buttons, fields, selects,
summaries, the card picker's ranks and suits and the labels of checkboxes and radios, a link inside a
sentence too (the pit boss's player in "Bank 500 · banker Anna · played …"). Both sides are measured,
to the pixel: a coup's number alone in its cell (11 px wide), the Russian "коуп" (40 px) and the card
picker's thirteen ranks (43.8 px each at 1024 px) were as high as they should be and too narrow.
On a phone the dashboard and the reports page show every cell of their tables in sight (their
tables stack into labelled rows, review.css ``.grid-stack``) and a finished report's "Download"
in the window.

A pattern no persona could open fails the test, unless it is POST-only (405 to every persona
logged in: an action, not a page), redirects a persona to a page (checked as itself: /cage/ with
one casino, an htmx fragment's URL opened without htmx), answers a file to download (an
attachment: a report run's file) or is listed in ``EXCLUDED`` with its reason: so a page added
later is covered the day it is merged, or the test says which id it needs (``id_sources``) or why it
should be excluded.

The phone's pages are shown in Russian (the longest words), the tablet's in English. Screenshots
of every page go to var/screenshots/ (gitignored): ``persona-WxH-lang-page.png``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connections
from django.templatetags.static import static
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from cage import services as cage
from chemin_de_fer.engine.machine import Move
from compliance.services import DocumentIn
from ledger.services import cage_buy_in
from older_games import services as game_coups
from review.models import Alert
from review.services import alert_acknowledge, alerts_raise
from tables import services
from tables.models import Coup, GameCoup, Player, Table
from tests.browser.test_croupier_flow import PASSWORD
from tests.factories import (
    CasinoFactory,
    CroupierAssignmentFactory,
    PlayerFactory,
    TableFactory,
    UserFactory,
    builtin_profile,
)
from tests.reports.runs import runs_finished_and_waiting
from tests.review.history import play_clean, play_flagged
from tests.tables.play import open_floor, step

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
#: size → (width, height, language): the phone in Russian, whose words run longest, the narrowest
#: screen with the longest words; the tablet in English, the default
SIZES = {"phone": (390, 844, "ru"), "tablet": (1024, 768, "en")}
#: the personas (username → roles); "anonymous" is not logged in
PERSONAS: dict[str, list[str] | None] = {
    "anonymous": None,
    "croupier": ["croupier"],
    "pitboss": ["pit_boss"],
    "accountant": ["accountant"],
    "cashier": ["cashier"],
    "compliance": ["compliance"],
}
#: patterns that are not pages for staff, by the start of their route, with the reason
EXCLUDED: dict[str, str] = {
    "admin/": "Django's admin: the superuser's desk tool, not styled by us",
    "api/": "the REST API and its schema/docs answer JSON (or Swagger UI's own page)",
    "healthz": "liveness probe, JSON",
    "favicon.ico": "the site's icon (a redirect to the static SVG), not a page",
    "readyz": "readiness probe, JSON",
    "i18n/setlang/": "the language switch's POST target (a GET only redirects)",
    "review/alerts/<id:pk>/flows/": (
        "a money-flow alert's evidence needs a pair of players who passed chips: played and checked "
        "at a tablet's and a phone's width in tests/browser/test_flow_alert.py"
    ),
}
#: controls a person touches, on every persona's pages: each at least 44x44 px (WCAG 2.5.5); a
#: label counts when it is a checkbox's or a radio's (the label is what the finger hits: the box
#: itself is 22 px, or hidden behind a button-like label)
TOUCH_CONTROLS = (
    "a[href], button, .button, select, summary, label, .rank-btn, .suit-btn, .card-btn, .choice-btn, "
    ".nav-link, input:not([type=hidden]):not([type=checkbox]):not([type=radio])"
)
#: the smallest side a control may have: 44 px, less what a browser's sub-pixel layout takes off
#: a box sized to exactly 44 (a hundredth); 43.8 px is too small (the card picker's ranks were)
MIN_TOUCH = 43.99
#: the visible controls of TOUCH_CONTROLS narrower or lower than MIN_TOUCH, described with their
#: width x height. No allowance for a link inside a sentence: the pit boss touches a player's name
#: in "Bank 500 · banker Anna · played …" as he touches any other link (a 20 px high one was missed).
SMALL_CONTROLS_JS = """([sel, least]) => {
    const touched = (e) => e.tagName !== 'LABEL' || ['checkbox', 'radio'].includes(e.control?.type);
    const px = (n) => Math.round(n * 10) / 10;
    return [...document.querySelectorAll(sel)]
        .filter(e => touched(e) && e.offsetParent !== null && !e.closest('.sr-only'))
        .filter(e => { const r = e.getBoundingClientRect(); return r.height < least || r.width < least; })
        .map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`
            + ` "${(e.innerText || e.value || '').trim().slice(0, 30)}"`
            + ` ${px(e.getBoundingClientRect().width)}x${px(e.getBoundingClientRect().height)}px`);
}"""
#: every folded <details> opened, so that the controls they hold are measured too
OPEN_DETAILS_JS = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"
#: the pages whose tables stack on a phone (review.css .grid-stack): the pit boss's dashboard (and
#: its live part) and the reports page with its history
PHONE_WHOLE_PAGES = ("review:dashboard", "review:dashboard_live", "review:exports")
#: on such a page at a phone's width: the table cells not wholly in the window (a cell is in sight
#: without scrolling sideways, the page's or its table's), the stacked cells without their
#: column's label, and whether every "Download" of a finished report is visible in the window. A
#: stacked table's headings are hidden the screen-reader way (a 1 px box that clips them): not
#: in sight, not counted
PHONE_CELLS_JS = """() => {
    const w = window.innerWidth;
    const clipped = (e) => {
        for (let p = e.parentElement; p && p.tagName !== 'TABLE'; p = p.parentElement) {
            const box = p.getBoundingClientRect();
            if (box.width <= 1 && getComputedStyle(p).overflow === 'hidden') return true;
        }
        return false;
    };
    const shown = (e) => e.offsetParent !== null && e.getBoundingClientRect().width > 1 && !clipped(e);
    const name = (c) => `${c.closest('table').dataset.testid}: "${c.innerText.trim().slice(0, 25)}"`;
    const cells = [...document.querySelectorAll('table td, table th')].filter(shown);
    const out = cells.map(c => [c, c.getBoundingClientRect()])
        .filter(([, r]) => r.left < -0.5 || r.right > w + 0.5)
        .map(([c, r]) => `${name(c)} ${Math.round(r.left)}..${Math.round(r.right)}px`);
    const unlabelled = [...document.querySelectorAll('.grid-stack td')]
        .filter(c => !c.dataset.label).map(name);
    const downloads = [...document.querySelectorAll('[data-testid=report-run-download]')].map(d => {
        const r = d.getBoundingClientRect();
        return shown(d) && r.left >= -0.5 && r.right <= w + 0.5;
    });
    return [out, unlabelled, downloads];
}"""
#: the page's width and the elements sticking out past the window's right edge (outside a
#: .table-scroll box), to say in the failure what to fix
WIDTH_JS = """() => {
    const w = window.innerWidth;
    const out = [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > w + 0.5 && !e.closest('.table-scroll'))
        .map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`
            + `(${Math.round(e.getBoundingClientRect().right)}px)`);
    return [document.documentElement.scrollWidth, w, out.slice(-4)];
}"""
#: the stylesheets a fragment is shown under in its page (templates/base.html, review/base.html)
FRAGMENT_STYLES = ("css/app.css", "css/review.css")
PARAM = re.compile(r"<(?:(?P<conv>\w+):)?(?P<name>\w+)>")


@dataclass
class Pattern:
    route: str  # the whole route, e.g. "table/<id:table_id>/"
    name: str  # namespaced name, for messages
    urls: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # parameters no id source could fill
    statuses: dict[str, set[int]] = field(default_factory=dict)  # url → statuses over personas


def url_patterns() -> list[Pattern]:
    """Every route of the URL conf, resolvers walked (namespaces joined with ':')."""
    found: list[Pattern] = []

    def walk(entries: list[Any], prefix: str, namespace: str) -> None:
        for entry in entries:
            if isinstance(entry, URLResolver):
                ns = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
                walk(entry.url_patterns, prefix + str(entry.pattern), ns)
            elif isinstance(entry, URLPattern):
                found.append(Pattern(route=prefix + str(entry.pattern), name=namespace + (entry.name or "?")))

    walk(get_resolver().url_patterns, "", "")
    return found


def excluded(route: str) -> str | None:
    return next((why for start, why in EXCLUDED.items() if route.startswith(start)), None)


def id_sources(data: dict[str, Any]) -> dict[str, list[Any]]:
    """The values a route's parameter takes, by its name (``pk``: by the segment before it)."""
    coups = [data["flagged"].pk, data["clean"].pk]
    return {
        "table_id": list(Table.objects.order_by("pk").values_list("pk", flat=True)),
        "casino_id": [data["casino"].pk],
        "player_id": [data["player"].pk],
        "players/pk": [data["player"].pk],
        # a finished run (its row, its file) and one waiting for a worker (its row polls)
        "run_id": [data["report"].pk, data["waiting_report"].pk],
        "coup_id": coups,
        "coups/pk": coups,
        "kind": ["coups"],
    }


def model_ids(segment: str) -> list[Any]:
    """A parameter nobody declared: the first two rows of the model its path segment names
    (``alerts/<id:pk>/`` → a model called ``…alert``), so a new page finds its ids itself."""
    singular = segment[:-1] if segment.endswith("s") else segment
    singular = singular.replace("-", "").replace("_", "")
    for model in apps.get_models():
        if (model._meta.model_name or "").endswith(singular):
            ids = list(model._default_manager.order_by("pk").values_list("pk", flat=True)[:2])
            if ids:
                return ids
    return []


def concrete_urls(pattern: Pattern, sources: dict[str, list[Any]]) -> None:
    """Fill ``pattern.urls`` (one URL per value of its first multi-valued parameter, the first
    value of the others), or ``pattern.missing``."""
    route = pattern.route.lstrip("^").rstrip("$")
    choices: list[tuple[str, list[Any]]] = []
    for match in PARAM.finditer(route):
        name = match["name"]
        before = route[: match.start()].rstrip("/").rsplit("/", 1)[-1]
        values = sources.get(f"{before}/{name}") or sources.get(name)
        if values is None and (name == "pk" or name.endswith("_id")):
            values = model_ids(before if name == "pk" else name[: -len("_id")])
        if not values:
            pattern.missing.append(name)
            values = [0]  # a POST-only route answers 405 before it looks anything up
        choices.append((match.group(0), values))
    variants = max((len(v) for _, v in choices), default=1)
    for i in range(variants):
        url = route
        for token, values in choices:
            url = url.replace(token, str(values[min(i, len(values) - 1)]), 1)
        pattern.urls.append("/" + url)


@pytest.fixture
def floor(transactional_db) -> dict[str, Any]:
    """As load_demo lays it out: one casino, a table of each built-in profile, the staff, the
    croupier on shift at every table. Then at the casino table a clean coup and a flagged one
    restored (awaiting the pit boss), at the home table a coup in its betting with every seat
    taken, the classic table open between coups, the club table closed; and a second classic
    table whose coup waits for its first card (the card picker: its thirteen ranks in one row).
    The floor's scan raises its alerts (the flagged coup, the croupier's error rate), the pit boss
    acknowledges one; a levy report is generated (written, its file kept) and a coup-record report
    waits for a worker."""
    casino = CasinoFactory(name="Casino de Démonstration")
    tables = {
        slug: TableFactory(
            casino=casino,
            name=f"{slug.title()} table",
            profile=builtin_profile(slug),
            seat_count=12 if slug == "casino" else 9,
        )
        for slug in ("casino", "classic", "club", "home")
    }
    users = {
        name: UserFactory(username=name, roles=roles, casinos=[casino])
        for name, roles in PERSONAS.items()
        if roles
    }
    croupier = users["croupier"]
    for table in tables.values():
        CroupierAssignmentFactory(user=croupier, table=table)
    awaiting = open_floor(croupier, tables["casino"])
    clean = play_clean(awaiting)
    flagged = play_flagged(awaiting)
    services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
    # above the casino's limit, another pit boss's void of it waits for the persona (its panel)
    casino.void_second_approval_above = 100
    casino.save(update_fields=["void_second_approval_above"])
    asker = UserFactory(username="secondboss", roles=["pit_boss"], casinos=[casino])
    services.coup_void(actor=asker, coup=flagged, reason="La restauration est douteuse, à revoir ensemble")
    betting = open_floor(croupier, tables["home"], seats=(1, 2, 3, 4, 5, 6, 7, 8, 9), spectators=2)
    services.coup_start(actor=croupier, session=betting.session, amount=500)
    open_floor(croupier, tables["classic"])
    dealing = TableFactory(
        casino=casino, name="Cards table", profile=builtin_profile("classic"), seat_count=9
    )
    CroupierAssignmentFactory(user=croupier, table=dealing)
    cards = open_floor(croupier, dealing)
    dealt = services.coup_start(actor=croupier, session=cards.session, amount=200).coup
    step(cards, dealt, Move.BET, seat=2, amount=100)
    step(cards, dealt, Move.BETS_CLOSED)
    assert Coup.objects.get(pk=flagged.pk).state == Coup.State.AWAITING_APPROVAL
    # the older games' screen (older_games.views): a Macao coup in progress (its card picker and
    # the players' controls), a Macao table after a settled coup (what it paid, the recent coups),
    # a Landsknecht table between coups with its fund dues unpaid
    games = {}
    for game, house in (
        ("macao", {"unit": 10}),
        ("macao-2", {"unit": 10}),
        ("landsknecht", {"min_stake": 10, "fund_due": 10}),
    ):
        games[game] = TableFactory(
            casino=casino,
            name=f"{game.title()} 1",
            seat_count=9,
            game=game.removesuffix("-2"),
            game_settings=house,
        )
        CroupierAssignmentFactory(user=croupier, table=games[game])
        session = services.table_session_open(actor=croupier, table=games[game])
        for number in (1, 2, 3, 4):
            seated = PlayerFactory(casino=casino, display_name=f"Владимир Игроков-{game}-{number}")
            cage_buy_in(casino=casino, player=seated, amount=1000, actor=croupier, key=f"layout:{seated.pk}")
            services.seat_take(actor=croupier, session=session, player=seated, number=number)
        if game == "macao":
            coup = game_coups.game_coup_start(actor=croupier, session=session).coup
            for card in ("9H", "TD", "4S"):
                game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": card})
        if game == "macao-2":
            coup = game_coups.game_coup_start(actor=croupier, session=session).coup
            steps = [{"kind": "deal", "card": c} for c in ("9H", "8S", "5D", "2C")] + [{"kind": "stand"}] * 4
            for payload in steps:
                game_coups.game_step_record(actor=croupier, coup=coup, payload=payload)
            assert GameCoup.objects.get(pk=coup.pk).state == GameCoup.State.SETTLED
    player = Player.objects.filter(house=False).order_by("pk").first()
    # at the cage, a buy-in above the day's report threshold by an identified player: compliance's
    # page has a logged move and a report to file, with its "Mark filed" button
    assert player is not None
    cage.cage_buy_in(
        actor=users["cashier"],
        casino=casino,
        player=player,
        amount=10_001,
        key="layout:compliance",
        document=DocumentIn("passport", "12AB34567"),
    )

    now = timezone.now()
    alerts_raise(now=now)
    alerts = list(Alert.objects.order_by("pk"))
    assert len(alerts) >= 2, alerts  # one stays open (the live list), one goes to the history table
    alert_acknowledge(
        actor=users["pitboss"],
        alert=alerts[-1],
        note="Replayed with the croupier; the bank was paid right, nothing owed",
        now=now,
    )

    report, waiting = runs_finished_and_waiting(casino)
    return {
        "casino": casino,
        "games": games,
        "clean": clean,
        "flagged": flagged,
        "player": player,
        "report": report,
        "waiting_report": waiting,
    }


def _login(context: Any, base: str, username: str) -> None:
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")
    page.close()


def _answer(context: Any, url: str) -> tuple[int, str]:
    """What ``url`` answers, redirects not followed: its status and its kind: "page" (HTML with a
    <head>), "fragment" (HTML without: an htmx fragment), "file" (an attachment) or "other"."""
    answer = context.request.get(url, max_redirects=0)
    if answer.status != 200:
        return answer.status, "other"
    if "text/html" in answer.headers.get("content-type", ""):
        return 200, "page" if "<html" in answer.text()[:500].lower() else "fragment"
    return 200, "file" if "attachment" in answer.headers.get("content-disposition", "") else "other"


def _slug(url: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", url.lower()).strip("-") or "home"


def test_every_page_fits_a_phone_and_a_tablet(floor, live_server, browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    base = live_server.url
    sources = id_sources(floor)
    patterns = [p for p in url_patterns() if not excluded(p.route)]
    for pattern in patterns:
        concrete_urls(pattern, sources)
    whole_on_phone = {reverse(name) for name in PHONE_WHOLE_PAGES}

    try:
        overflows: list[str] = []
        small_controls: list[str] = []
        cut_cells: list[str] = []  # on a phone, the dashboard's and the reports' cells out of sight
        downloads_seen: dict[str, list[bool]] = {}  # persona → each Download on the reports page
        visited: dict[str, set[str]] = {}  # persona → pages seen
        downloads: set[str] = set()  # URLs answering a file (an attachment), not a page
        not_opened: list[str] = []  # a page that answered 200 when asked, but not when opened
        for persona, roles in PERSONAS.items():
            state = None
            answers: dict[str, tuple[int, str]] | None = None  # url → (status, _answer's kind)
            for size, (width, height, lang) in SIZES.items():
                viewport = {"width": width, "height": height}
                context = browser.new_context(viewport=viewport, storage_state=state)
                if roles and state is None:
                    _login(context, base, persona)
                    state = context.storage_state()
                context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": lang, "url": base}])
                page = context.new_page()
                if answers is None:
                    # What every URL answers the persona, asked once, at the first size: most of the
                    # requests answer 403, 405 or a redirect, and that does not change with the
                    # window. The pages are then opened at every size, and must answer 200 there too.
                    answers = {url: _answer(context, base + url) for p in patterns for url in p.urls}
                    for pattern in patterns:
                        for url in pattern.urls:
                            if roles:  # anonymous: the log-in redirect says nothing of the page
                                pattern.statuses.setdefault(url, set()).add(answers[url][0])
                    downloads |= {url for url, (_status, kind) in answers.items() if kind == "file"}
                for url, (_status, kind) in answers.items():
                    if kind not in ("page", "fragment"):
                        continue
                    opened = page.goto(base + url)
                    page.wait_for_load_state("load")
                    if opened is None or opened.status != 200:
                        not_opened.append(f"{persona} {size} {url}: {opened.status if opened else None}")
                        continue
                    if kind == "fragment":  # an htmx fragment: shown under its page's stylesheets
                        for css in FRAGMENT_STYLES:
                            page.add_style_tag(url=base + static(css))
                    visited.setdefault(persona, set()).add(url)
                    scroll_width, inner_width, sticking_out = page.evaluate(WIDTH_JS)
                    if scroll_width > inner_width:
                        overflows.append(
                            f"{persona} {size} {url}: scrollWidth {scroll_width} > {inner_width}"
                            f" ({', '.join(sticking_out)})"
                        )
                    if size == "phone" and url in whole_on_phone:
                        out, unlabelled, shown = page.evaluate(PHONE_CELLS_JS)
                        cut_cells += [f"{persona} {url}: {c}" for c in out]
                        cut_cells += [f"{persona} {url}: {c} has no data-label" for c in unlabelled]
                        if url == reverse("review:exports"):
                            downloads_seen[persona] = shown
                    shot = SCREENSHOTS / f"{persona}-{width}x{height}-{lang}-{_slug(url)}.png"
                    page.screenshot(path=str(shot), full_page=True)
                    page.evaluate(OPEN_DETAILS_JS)
                    small = page.evaluate(SMALL_CONTROLS_JS, [TOUCH_CONTROLS, MIN_TOUCH])
                    small_controls += [f"{persona} {size} {url}: {s}" for s in small]
                context.close()
    finally:
        # as in test_croupier_flow: the ORM calls above, made under Playwright's greenlet, opened a
        # connection of their own that the test database's teardown would find still open
        connections.close_all()

    assert not not_opened, "pages that did not answer 200 when opened:\n" + "\n".join(not_opened)
    assert not overflows, "pages scroll sideways:\n" + "\n".join(overflows)
    assert not small_controls, "controls under 44 px:\n" + "\n".join(small_controls)
    assert not cut_cells, "on a phone, cells out of sight (or unlabelled):\n" + "\n".join(cut_cells)
    # the finished report's Download, visible in a phone's window, for both who read the reports;
    # compliance's history lists only the cash kinds (none run here): its reports page, no download
    assert downloads_seen == {"pitboss": [True], "accountant": [True], "compliance": []}, downloads_seen

    seen = set().union(*visited.values())
    uncovered = []
    for pattern in patterns:
        if any(url in seen or url in downloads for url in pattern.urls):
            continue
        statuses = set().union(*pattern.statuses.values())
        if statuses == {405}:
            continue  # POST-only (to every persona logged in): an action, not a page
        if any(300 <= status < 400 for status in statuses):
            continue  # sends a persona on to a page (checked on its own), e.g. an htmx fragment's URL
        uncovered.append(
            f"{pattern.name} /{pattern.route} answered {sorted(statuses)}"
            + (f"; no id for {pattern.missing}: add it to id_sources()" if pattern.missing else "")
        )
    assert not uncovered, (
        "URL patterns no persona could open (give them data in the floor fixture or id_sources(), "
        "or exclude them in EXCLUDED with a reason):\n" + "\n".join(uncovered)
    )
    # the pages every persona must have seen, whatever else is added later
    casino = floor["casino"].pk
    assert {"/", "/table/", "/review/", "/review/queue/", f"/cage/{casino}/"} <= seen
    # the pages merged with the alerts, charts, player page and report runs, with their ids
    report = floor["report"].pk
    assert {
        reverse("review:dashboard_live"),
        reverse("review:alerts"),
        reverse("review:charts"),
        reverse("review:player", args=[floor["player"].pk]),
        reverse("review:exports"),
        reverse("review:report_run", args=[report]),
        reverse("review:report_run", args=[floor["waiting_report"].pk]),
    } <= visited["pitboss"]
    assert {reverse("review:exports"), reverse("review:report_run", args=[report])} <= visited["accountant"]
    assert reverse("review:report_run_file", args=[report]) in downloads
    assert "/accounts/login/" in visited["anonymous"]
    assert reverse("review:compliance") in visited["compliance"]
    # the older games' screen, a coup in play and between coups, for the croupier and the pit boss
    game_pages = {reverse("floor:game", args=[t.pk]) for t in floor["games"].values()}
    assert game_pages <= visited["croupier"] and game_pages <= visited["pitboss"]

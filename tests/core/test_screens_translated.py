# ruff: noqa: RUF001  (Russian words: Cyrillic letters that look Latin are meant)
"""Every screen in French and in Russian, and not one English phrase, code or card code left on it
(issue 13, section 4: "words, not codes, in every language").

The pages are not listed by hand: every URL pattern of the URL conf is walked as
tests/browser/test_layout.py walks it (its ``url_patterns``/``concrete_urls``), with ids of a floor
that shows everything, and each persona (croupier, pit boss, accountant, cashier) GETs each one with
Django's test client (no browser: fast, on SQLite and PostgreSQL alike). The floor: a coup played
clean, one flagged and restored (awaiting the pit boss), one flagged and not restored yet (the
restore screen), one in its betting, one at the player's option (the advice), one whose step history
holds bets, the cards, a typo amended and a step against the rules confirmed (and, at a table of one
deck per seated player, an ace seen once too often: a shoe alarm), a shoe ended early (another),
the alerts raised and one acknowledged, a report generated and one waiting; the older games' screen
with a Macao coup in play and one settled, a Landsknecht coup with its covers, cards and a step
taken back, an old baccarat coup being dealt, a Landsknecht table with its fund dues unpaid. On top
of the pages, what only a POST shows: the confirm panel of a step against the rules, the restore
screen's preview, and the refusals of the engines and of the services as the screens show them
(a bet above the bank, a cover above the stake, an amendment that changes nothing).

For each page in ``fr`` and ``ru`` the visible text is taken (``<script>``/``<style>`` dropped,
tags become spaces; the ``title``, ``aria-label``, ``placeholder`` and ``alt`` attributes count as
text) and the test fails, naming the page and the phrase, when it holds:

- an English msgid of the catalogue. Only entries whose translation differs from the msgid count;
  each msgid is cut at its placeholders and tags into fragments, and a fragment counts when it has
  at least two words or a word of 8+ letters (so "Coup", "Macao", "banco" or a lone "Open" never
  do: they are the same word in French, or too short to tell a French page from an English one).
  A fragment that is also part of a translation of that language is left out (words said the same
  in both languages: "Punto Banco", "banco suivi", "Chemin de Fer"). Fragments are matched whole,
  on word boundaries, ignoring case (a sentence capitalised by ``capfirst`` is still found);
- a violation code (``BANKER_SHOULD_STAND``: ``\\b[A-Z]{3,}(?:_[A-Z]+)+\\b``) or a step kind, state or
  setting as the code names it (``banker_draw``: ``\\b[a-z]{2,}(?:_[a-z0-9]+)+\\b``);
- a raw card code (``9S``, ``TD``: ``\\b(?:10|[2-9TJQKA])[SHDC]\\b``; the screens print ``9♠``);
- an English outcome, phase or state word as the engine and the models store it (``banker``,
  ``player``, ``tie``, ``punters``, ``betting``, ``open``, ``awaiting_approval``, ``void``, …:
  "coup 1 · Open" is a coup's state leaking as the model's English label);
- an English sentence the catalogue does not know at all (one built in Python and never marked):
  one of ENGLISH_ONLY's words, English words that are no French or Russian word ("the", "by",
  "from", "card", …), reported with the text around it.

What is legitimately not translated is taken out of the text before it is read, and only that: the
names staff typed (players, tables, the casino), the usernames, the reasons and notes typed in the
floor below (a free text is shown as typed), the brand "Chemin de Fer" in the top bar and the
EN / FR / RU buttons (each language's own name, on purpose), and the coup record and the offline
judge's verdict on the older games' coup page (``<pre class="rv-json">``: the interchange format of
docs/coup-record.md, English keys and card codes by specification, shown verbatim for the pit boss
to compare with what was exported), and what a page sets as code (``<code>``: a record's id, a
hash, a command's name such as ``validate_coups``, typed as it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polib
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from chemin_de_fer.engine.machine import Move
from ledger.services import cage_buy_in
from older_games import services as game_coups
from reports.models import ReportRun
from review.models import Alert
from review.services import alert_acknowledge, alerts_raise
from tables import services
from tables.models import Casino, Coup, GameCoup, Player, Table
from tables.services.amends import Amendment
from tests.browser.test_layout import Pattern, concrete_urls, excluded, url_patterns
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
from tests.tables.play import Floor, open_floor, step

pytestmark = pytest.mark.django_db

LANGUAGES = ("fr", "ru")
ROOT = Path(settings.BASE_DIR)
#: the personas who walk the pages (username → roles): usernames no language has a word for
PERSONAS = {
    "croupier_anne": ["croupier"],
    "chef_marc": ["pit_boss"],
    "compta_lea": ["accountant"],
    "caisse_paul": ["cashier"],
}
#: what the staff type on the floor below and the screens show as typed
TYPED = (
    "sabot abîmé",
    "frappe 5♥ pour 6♥",
    "rejoué avec le croupier, rien à payer",
    "mauvaise carte",
)
#: the brand in the top bar and on every page's title: the product's name, French in every language
BRAND = "Chemin de Fer"

VIOLATION_CODE = re.compile(r"\b[A-Z]{3,}(?:_[A-Z]+)+\b")
#: a step kind, a state or a setting as the code names it (``banker_draw``, ``awaiting_approval``)
SNAKE_CODE = re.compile(r"\b[a-z]{2,}(?:_[a-z0-9]+)+\b")
CARD_CODE = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")
#: the engine's outcomes and phases and the models' states, as stored (never a screen's word)
ENGLISH_WORDS = re.compile(
    r"(?<![\w-])(?:banker|player|tie|punters|stand-?off|split|undecided|declaring|betting|dealing|"
    r"player_to_act|playing|open|awaiting_correction|awaiting_approval|bank_withdrawn|settled|void|closed)"
    r"(?![\w-])",
    re.IGNORECASE,
)
#: English words that are no French or Russian word: a sentence built in Python and never marked for
#: the catalogue has some ("bank 100 by …", "cards from the shoe: …", "the minimum bet is 10")
ENGLISH_ONLY = re.compile(
    r"(?<![\w'’-])(?:the|of|by|with|from|was|is|and|his|must|cannot|not|no|only|bets|shoe|card|cards|bad)(?![\w'’-])",
    re.IGNORECASE,
)
PLACEHOLDER_OR_TAG = re.compile(r"%\(\w+\)[sd]|%[sd]|\{[^{}]*\}|<[^>]*>")
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
#: attributes whose value is read out or shown
TEXT_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")


# ------------------------------------------------------------------------------------- the text
class _VisibleText(HTMLParser):
    """The text a reader meets: the text between tags and the attributes of TEXT_ATTRIBUTES;
    not the scripts and styles, the language switch or the coup records (see the module doc)."""

    SKIPPED = ("script", "style")
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip: list[str] = []  # the open elements whose content is not read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        skipped = (
            tag in self.SKIPPED
            or values.get("data-testid") == "lang-switch"
            or (tag == "pre" and "rv-json" in (values.get("class") or ""))
            or tag == "code"
        )
        if self._skip:
            if tag not in self.VOID:
                self._skip.append(tag)
            return
        if skipped:
            self._skip.append(tag)
            return
        self.parts += [" ", *(f" {values[a]} " for a in TEXT_ATTRIBUTES if values.get(a))]

    def handle_endtag(self, tag: str) -> None:
        if self._skip:
            self._skip.pop()
            return
        self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return re.sub(r"\s+", " ", "".join(parser.parts)).strip()


# ---------------------------------------------------------------------------- the English phrases
def _qualifies(fragment: str) -> bool:
    words = WORD.findall(fragment)
    return len(words) >= 2 or any(len(w) >= 8 for w in words)


def _phrase(fragment: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(w) for w in fragment.split())
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def english_phrases(lang: str) -> dict[str, re.Pattern[str]]:
    """The catalogue's English fragments a page in ``lang`` must not show (module docstring)."""
    po = polib.pofile(str(ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"))
    translations: list[str] = []
    sources: list[str] = []
    for entry in po.translated_entries():
        said = [entry.msgstr] if not entry.msgid_plural else list(entry.msgstr_plural.values())
        translations += said
        if entry.msgid_plural:
            sources += [m for m in (entry.msgid, entry.msgid_plural) if m not in said]
        elif entry.msgstr != entry.msgid:
            sources.append(entry.msgid)
    translated = " ¦ ".join(translations)
    phrases: dict[str, re.Pattern[str]] = {}
    for source in sources:
        for piece in PLACEHOLDER_OR_TAG.split(source):
            fragment = " ".join(piece.split()).strip(" .,:;!?()[]·—–-\"'“”«»…")
            if fragment in phrases or not _qualifies(fragment):
                continue
            pattern = _phrase(fragment)
            if pattern.search(translated):  # said the same in this language
                continue
            phrases[fragment] = pattern
    return phrases


def findings(text: str, phrases: dict[str, re.Pattern[str]]) -> list[str]:
    found = [f"English {phrase!r}" for phrase, pattern in phrases.items() if pattern.search(text)]
    found += [f"violation code {m!r}" for m in sorted(set(VIOLATION_CODE.findall(text)))]
    found += [f"code {m!r}" for m in sorted(set(SNAKE_CODE.findall(text)))]
    found += [f"card code {m!r}" for m in sorted(set(CARD_CODE.findall(text)))]
    found += [f"engine word {m!r}" for m in sorted({m.group(0) for m in ENGLISH_WORDS.finditer(text)})]
    found += [f"English sentence around {_around(text, m)!r}" for m in _first_each(ENGLISH_ONLY, text)]
    return found


def _first_each(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The first match of each different word (case aside), in order."""
    seen: dict[str, re.Match[str]] = {}
    for match in pattern.finditer(text):
        seen.setdefault(match.group(0).lower(), match)
    return sorted(seen.values(), key=lambda m: m.start())


def _around(text: str, match: re.Match[str]) -> str:
    return text[max(match.start() - 30, 0) : match.end() + 30].strip()


def without(text: str, kept: list[str]) -> str:
    """``text`` with every name and typed text of ``kept`` taken out (longest first)."""
    for value in kept:
        text = text.replace(value, " ◦ ")
    return text


# ------------------------------------------------------------------------------------- the floor
@dataclass
class Night:
    casino: Casino
    users: dict[str, Any]
    tables: dict[str, Table]
    coups: dict[str, Coup]
    games: dict[str, Table]
    game_coups: dict[str, GameCoup]
    player: Player
    report: ReportRun
    waiting_report: ReportRun
    #: the screens only a POST shows: (name, persona, url, data)
    posts: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)


def _table(casino: Casino, croupier: Any, name: str, slug: str, seats: int = 9) -> Table:
    table = TableFactory(casino=casino, name=name, profile=builtin_profile(slug), seat_count=seats)
    CroupierAssignmentFactory(user=croupier, table=table)
    return table


def _game_table(
    casino: Casino, croupier: Any, name: str, game: str, house: dict[str, Any]
) -> tuple[Table, Any]:
    table = TableFactory(casino=casino, name=name, seat_count=9, game=game, game_settings=house)
    CroupierAssignmentFactory(user=croupier, table=table)
    session = services.table_session_open(actor=croupier, table=table)
    for number in (1, 2, 3):
        seated = PlayerFactory(casino=casino)
        cage_buy_in(casino=casino, player=seated, amount=1000, actor=croupier, key=f"words:{seated.pk}")
        services.seat_take(actor=croupier, session=session, player=seated, number=number)
    return table, session


def _game_coup(croupier: Any, session: Any, steps: list[dict[str, Any]]) -> GameCoup:
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    for payload in steps:
        game_coups.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    return coup


def _keys(table: Table) -> list[str]:
    seats = table.sessions.get(closed_at__isnull=True).seats.filter(left_at__isnull=True).order_by("number")
    return [game_coups.player_key(s.player_id) for s in seats]


def _step_url(table: Table, coup: Coup) -> str:
    return reverse("floor:coup_step", args=[table.pk, coup.pk])


@pytest.fixture
def night(db) -> Night:
    casino = CasinoFactory(name="Grand Cercle Lumière")
    users = {
        name: UserFactory(username=name, roles=roles, casinos=[casino]) for name, roles in PERSONAS.items()
    }
    croupier = users["croupier_anne"]
    t = {
        "opera": _table(casino, croupier, "Salon Opéra", "casino", seats=12),
        "jaune": _table(casino, croupier, "Salon Jaune", "casino"),
        "bleu": _table(casino, croupier, "Salon Bleu", "home"),
        "vert": _table(casino, croupier, "Salon Vert", "classic"),
        "rouge": _table(casino, croupier, "Salon Rouge", "club"),
        "ferme": _table(casino, croupier, "Salon Fermé", "club"),
    }
    coups: dict[str, Coup] = {}
    # a clean coup, then a flagged one restored: awaiting the pit boss (the table between coups
    # shows the restored result)
    opera = open_floor(croupier, t["opera"])
    coups["clean"] = play_clean(opera)
    coups["flagged"] = play_flagged(opera)
    services.correction_submit(actor=croupier, coup=coups["flagged"], cards=["4C"])
    # a flagged coup not restored yet: the restore screen; a second pit boss asked for its void,
    # above the casino's limit: it waits for chef_marc (the coup's page, the queue)
    coups["to_restore"] = play_flagged(open_floor(croupier, t["jaune"]))
    casino.void_second_approval_above = 100
    casino.save(update_fields=["void_second_approval_above"])
    asker = UserFactory(username="chef_ines", roles=["pit_boss"], casinos=[casino])
    services.coup_void(actor=asker, coup=coups["to_restore"], reason=TYPED[3])
    # a coup in its betting, every seat taken
    bleu = open_floor(croupier, t["bleu"], seats=(1, 2, 3, 4, 5, 6, 7, 8, 9))
    coups["betting"] = services.coup_start(actor=croupier, session=bleu.session, amount=500).coup
    # a shoe ended early (a shoe alarm), a new one, and a coup where the player must draw on 4
    # (standing is against the rules: the confirm panel)
    vert = open_floor(croupier, t["vert"])
    services.shoe_close(actor=croupier, shoe=vert.shoe, reason=TYPED[0])
    services.shoe_start(actor=croupier, session=vert.session, decks=6, burnt_cards=())
    coups["must_draw"] = _deal(vert, bank=100, bets=((2, 50), (3, 50)), cards=("2H", "3S", "2C", "4D"))
    # one deck per seated player: a third ace of spades from two decks (a shoe alarm), the banker's
    # second card mistyped and amended, the player standing on 2 (against the rules, confirmed);
    # then the club's banker is free at 7: the advice
    rouge = open_floor(croupier, t["rouge"], seats=(1, 2))
    coups["history"] = _deal(rouge, bank=10, bets=((2, 10),), cards=("AS", "AS", "AS", "5H"))
    coup = coups["history"]
    coup.refresh_from_db()
    services.step_amend(
        actor=croupier, coup=coup, index=coup.step_count, amendment=Amendment(card="6H"), reason=TYPED[1]
    )
    step(rouge, coup, Move.PLAYER_STAND, confirm=True)
    # the older games
    games: dict[str, Table] = {}
    gcoups: dict[str, GameCoup] = {}
    games["macao"], session = _game_table(casino, croupier, "Macao 1", "macao", {"unit": 10})
    gcoups["macao_open"] = _game_coup(croupier, session, [{"kind": "deal", "card": c} for c in ("9H", "TD")])
    games["macao_done"], session = _game_table(casino, croupier, "Macao 2", "macao", {"unit": 10})
    gcoups["macao_done"] = _game_coup(
        croupier,
        session,
        [*({"kind": "deal", "card": c} for c in ("9H", "8S", "5D")), *[{"kind": "stand"}] * 3],
    )
    games["landsknecht"], session = _game_table(
        casino, croupier, "Lansquenet 1", "landsknecht", {"min_stake": 10, "fund_due": 0}
    )
    keys = _keys(games["landsknecht"])
    gcoups["landsknecht"] = _game_coup(
        croupier,
        session,
        [
            {"kind": "stake", "amount": 50},
            {"kind": "cover", "player": keys[1], "amount": 30},
            {"kind": "close"},
            {"kind": "card", "card": "5H"},
            {"kind": "card", "card": "KS"},
        ],
    )
    game_coups.game_step_undo(actor=croupier, coup=gcoups["landsknecht"], reason=TYPED[3])
    games["dues"], session = _game_table(
        casino, croupier, "Lansquenet 2", "landsknecht", {"min_stake": 10, "fund_due": 10}
    )
    games["old_baccarat"], session = _game_table(
        casino, croupier, "Baccara 1", "old-baccarat", {"min_stake": 10}
    )
    keys = _keys(games["old_baccarat"])
    gcoups["old_baccarat"] = _game_coup(
        croupier,
        session,
        [
            {"kind": "stake", "player": keys[1], "amount": 20},
            {"kind": "stake", "player": keys[2], "amount": 10},
            {"kind": "cut", "player": keys[1]},
            *({"kind": "card", "card": card} for card in ("3H", "2H", "4H")),
        ],
    )
    # the alerts (flagged coups, shoe alarms, the croupier's error rate), one acknowledged
    now = timezone.now()
    alerts_raise(now=now)
    alerts = list(Alert.objects.order_by("pk"))
    assert len(alerts) >= 4, alerts
    alert_acknowledge(actor=users["chef_marc"], alert=alerts[0], note=TYPED[2], now=now)
    # the reports: one written, one waiting for a worker
    report, waiting = runs_finished_and_waiting(casino)
    player = Player.objects.filter(house=False).order_by("pk").first()
    assert player is not None
    night = Night(
        casino=casino,
        users=users,
        tables=t,
        coups={k: Coup.objects.get(pk=c.pk) for k, c in coups.items()},
        games=games,
        game_coups={k: GameCoup.objects.get(pk=c.pk) for k, c in gcoups.items()},
        player=player,
        report=report,
        waiting_report=waiting,
    )
    _posts(night)
    return night


def _deal(floor: Floor, *, bank: int, bets: tuple[tuple[int, int], ...], cards: tuple[str, ...]) -> Coup:
    """A coup with its bets and its first four cards, left at the player's decision."""
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=bank).coup
    for seat, amount in bets:
        step(floor, coup, Move.BET, seat=seat, amount=amount)
    step(floor, coup, Move.BETS_CLOSED)
    for kind, card in zip((Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER) * 2, cards, strict=True):
        step(floor, coup, kind, card=card)
    coup.refresh_from_db()
    return coup


def _posts(night: Night) -> None:
    """The screens only a POST shows; each refused or previewed, nothing written."""
    t, c, croupier = night.tables, night.coups, "croupier_anne"
    betting, history = c["betting"], c["history"]
    night.posts += [
        # the engine refuses a bet above the bank
        (
            "a bet above the bank",
            croupier,
            _step_url(t["bleu"], betting),
            {"kind": "bet", "punter": "seat-2", "amount": 900, "expected_step": betting.step_count},
        ),
        # the player stands on 4: against the rules, the confirm panel
        (
            "a step against the rules",
            croupier,
            _step_url(t["vert"], c["must_draw"]),
            {"kind": "player_stand", "expected_step": c["must_draw"].step_count},
        ),
        # an amendment that changes nothing
        (
            "an amendment that changes nothing",
            croupier,
            reverse("floor:coup_amend", args=[t["rouge"].pk, history.pk, 6]),  # the player's AS
            {"card": "AS", "reason": TYPED[1], "expected_step": history.step_count},
        ),
        # the restore screen's preview, with the card dealt from the shoe
        (
            "the restore preview",
            croupier,
            reverse("floor:coup_restore", args=[t["jaune"].pk, c["to_restore"].pk]),
            {"action": "add", "card": "4C", "cards": ""},
        ),
    ]
    landsknecht = night.game_coups["landsknecht"]
    old = night.game_coups["old_baccarat"]
    keys = _keys(night.games["old_baccarat"])
    night.posts += [
        (
            "an older game's card the shoe holds no more of",
            croupier,
            reverse("floor:game_step", args=[night.games["macao"].pk, night.game_coups["macao_open"].pk]),
            {
                "kind": "deal",
                "player": _keys(night.games["macao"])[2],
                "card": "1X",
                "typed": "",
                "expected_steps": night.game_coups["macao_open"].step_count,
            },
        ),
        (
            "an older game's step out of turn",
            croupier,
            reverse("floor:game_step", args=[night.games["old_baccarat"].pk, old.pk]),
            {"kind": "stake", "player": keys[1], "amount": 10, "expected_steps": old.step_count},
        ),
        (
            "an older game's step refused by the engine",
            croupier,
            reverse("floor:game_step", args=[night.games["landsknecht"].pk, landsknecht.pk]),
            {"kind": "close", "expected_steps": landsknecht.step_count},
        ),
    ]


# ------------------------------------------------------------------------------------- the walk
def _kept(night: Night) -> list[str]:
    """What is shown as typed (module docstring), longest first so a name inside another goes too."""
    names = {BRAND, *TYPED}
    names |= set(Player.objects.values_list("display_name", flat=True))
    names |= set(Table.objects.values_list("name", flat=True))
    names |= set(Casino.objects.values_list("name", flat=True))
    names |= set(get_user_model().objects.values_list("username", flat=True))
    return sorted((n for n in names if n), key=len, reverse=True)


def _sources(night: Night) -> dict[str, list[Any]]:
    coups = [c.pk for c in night.coups.values()]
    return {
        "table_id": [*(t.pk for t in night.tables.values()), *(t.pk for t in night.games.values())],
        "casino_id": [night.casino.pk],
        "player_id": [night.player.pk],
        "players/pk": [night.player.pk],
        "run_id": [night.report.pk, night.waiting_report.pk],
        "coup_id": coups,
        "coups/pk": coups,
        "game-coups/pk": [c.pk for c in night.game_coups.values()],
        "kind": ["coups"],
    }


def _pages(night: Night) -> list[Pattern]:
    patterns = [p for p in url_patterns() if not excluded(p.route)]
    sources = _sources(night)
    for pattern in patterns:
        concrete_urls(pattern, sources)
    return patterns


def _clients(night: Night, lang: str) -> dict[str, Client]:
    clients = {}
    for name in PERSONAS:
        client = Client()
        client.force_login(night.users[name])
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
        clients[name] = client
    return clients


def _is_page(response: Any) -> bool:
    return response.status_code in (200, 400) and "text/html" in response.get("Content-Type", "")


@pytest.fixture(autouse=True)
def _english_after() -> Any:
    """The test client's requests leave the last page's language active in this thread: give the
    next test English back, as it would find it."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_screen_says_its_words_in_the_language_chosen(night: Night, lang: str) -> None:
    phrases = english_phrases(lang)
    kept = _kept(night)
    clients = _clients(night, lang)
    seen: dict[str, set[str]] = {}
    problems: list[str] = []

    def read(page: str, response: Any) -> None:
        assert response["Content-Language"] == lang, page
        text = without(visible_text(response.content.decode()), kept)
        problems.extend(f"{page}: {finding}" for finding in findings(text, phrases))

    for pattern in _pages(night):
        for url in pattern.urls:
            for persona, client in clients.items():
                response = client.get(url)
                if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
                    continue
                seen.setdefault(persona, set()).add(url)
                read(f"{lang} {persona} {url}", response)
    for name, persona, url, data in night.posts:
        response = clients[persona].post(url, data)
        assert _is_page(response), (name, response.status_code)
        read(f"{lang} {persona} POST {url} ({name})", response)

    assert not problems, f"{len(problems)} English words or codes on the {lang} screens:\n" + "\n".join(
        problems
    )
    # the walk reached the screens the issue names, for the personas who use them
    table_pages = {reverse("floor:table", args=[t.pk]) for t in night.tables.values()}
    game_pages = {reverse("floor:game", args=[t.pk]) for t in night.games.values()}
    assert table_pages | game_pages <= seen["croupier_anne"]
    assert {
        reverse("review:queue"),
        reverse("review:dashboard"),
        reverse("review:dashboard_live"),
        reverse("review:alerts"),
        reverse("review:charts"),
        reverse("review:player", args=[night.player.pk]),
        *(reverse("review:coup", args=[c.pk]) for c in night.coups.values()),
        *(reverse("review:game_coup", args=[c.pk]) for c in night.game_coups.values()),
    } <= seen["chef_marc"]
    assert {reverse("review:exports"), reverse("review:report_run", args=[night.report.pk])} <= seen[
        "compta_lea"
    ]
    # the cage (its index sends a cashier of one casino on to that casino's players)
    cage = {reverse("cage:players", args=[night.casino.pk]), reverse("cage:history", args=[night.player.pk])}
    assert cage <= seen["caisse_paul"], sorted(seen["caisse_paul"])


def test_the_check_finds_english_codes_and_card_codes() -> None:
    """The rule itself: what it flags and what it lets through (names, numbers, symbols, words the
    same in both languages)."""
    phrases = english_phrases("fr")
    html = (
        '<p title="Banker wins">Coup 3 : <b>9♥</b> 10♦ — banco</p><script>var x = "Player wins";</script>'
        '<span class="badge">BANKER_SHOULD_STAND</span> 9S <span aria-label="player">·</span>'
        '<pre class="rv-json">{"cards": ["TD"]}</pre>'
    )
    found = findings(without(visible_text(html), ["Jean Dupont"]), phrases)
    assert found == [
        "English 'Banker wins'",
        "violation code 'BANKER_SHOULD_STAND'",
        "card code '9S'",
        "engine word 'Banker'",
        "engine word 'player'",
    ]
    assert findings(visible_text("<p>Jean Dupont · 12 · 10♦ · Casino · Punto Banco</p>"), phrases) == []


# ---------------------------------------------------------------------------- French typography
#: a colon, semicolon, question or exclamation mark with no space before it, followed by a space (so
#: a time "21:00", a code "coup:41" or "heures:minutes" are not read as punctuation): the mark with
#: the two words before it and the two after
FRENCH_UNSPACED = re.compile(r"((?:\S+ ){0,2}\S*[^\s])([:;?!])((?: \S+){0,2})(?=\s|$)")
#: none left: the restore screen's list of violations (tables/views/croupier.py) joins a step's label
#: and what it broke with the catalogue's "{step}: {violation}", whose French is "{step} : {violation}"
FRENCH_UNSPACED_ELSEWHERE: set[str] = set()
#: the charts' bars are titled in Python too (review/views.py: "2026-12-06: hold 5,000 %", "21:00: 3"):
#: their SVGs are left out of this check, as the one above is listed, until those are built in words
CHART = re.compile(r"<svg\b.*?</svg>", re.DOTALL)


def french_unspaced(text: str) -> set[str]:
    """Each unspaced mark in ``text`` (whitespace made single spaces, as visible_text does)."""
    return {"".join(m.groups()) for m in FRENCH_UNSPACED.finditer(" ".join(text.split()))}


@pytest.mark.slow
def test_french_puts_a_space_before_a_colon_on_every_screen(night: Night) -> None:
    """French writes "Sabot 1 : 1 coup", "Banquier : …" (a space before ":", ";", "?", "!"); a colon
    left outside a message in a template ("{% translate 'Shoe' %}: …") reads "Sabot 1: 1 coup"."""
    clients = _clients(night, "fr")
    kept = _kept(night)
    found: dict[str, set[str]] = {}
    for pattern in _pages(night):
        for url in pattern.urls:
            for persona, client in clients.items():
                response = client.get(url)
                if response.status_code == 200 and "text/html" in response.get("Content-Type", ""):
                    text = without(visible_text(CHART.sub("", response.content.decode())), kept)
                    found.setdefault(f"{persona} {url}", set()).update(french_unspaced(text))
    for name, persona, url, data in night.posts:
        text = without(visible_text(clients[persona].post(url, data).content.decode()), kept)
        found.setdefault(f"POST {url} ({name})", set()).update(french_unspaced(text))
    assert set().union(*found.values()) == FRENCH_UNSPACED_ELSEWHERE, {p: f for p, f in found.items() if f}


def test_the_french_typography_check() -> None:
    text = "Sabot 1: 1 coup · Banquier : Anna · 21:00 · coup:41 · Quelle carte ? Oui!"
    assert french_unspaced(text) == {"Sabot 1: 1 coup", "carte ? Oui!"}

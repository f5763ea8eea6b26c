"""Complete shoes on the README's default, through the REST API alone: ``make run`` as a new user
gets it (tests/browser/default_server.py: its settings, SQLite, Celery in-process, ``load_demo``'s
data, Django's development server in another process), played by a real HTTP client
(``urllib.request``) that knows only docs/api.md — the API sibling of
tests/browser/test_default_night.py.

At each of the four chemin de fer demo tables (casino, classic, club, home) the croupier's device
opens the session, seats the four demo players, starts a shoe it holds itself (shuffled with a
fixed seed; the fewest decks the profile allows: 6, and at the club one per seated player; the
casino's burn cards from its top; a stop card 7 to 10 cards from the bottom), gives the first bank
and plays coups until the stop card comes out and the table's answer says the shoe is over. Every
card comes out of the client's shoe in order. The punters bet in the table's betting order (now
and then a banco); the draw/stand decisions are mostly the clean ones, but about one in twelve
is wrong: sent with ``"confirm": true``, flagged, then restored with the next cards of the
client's shoe (``correction/``) and approved by the pit boss. A lost bank is offered in turn
(some refuse, one accepts), some banks are passed, some withdrawn when nobody bets.

The client plays every coup on the pure rules engine beside the API (``tables.rules``: the same
profile's ``Rules``, ``machine.apply``/``next_steps``, ``judge_coup``, ``restore_coup``, the
levy terms) and asserts the API agrees at every step (the steps it offers and the violation each
would carry, the bets, the cards) and at the end of each coup: outcome, totals, flag and
violations, restoration, settlement — each punter's and the banker's chips, the levy — the
bank's continuation or its loss, the shoe's cards and its stop card. It keeps its own account of
every player's chips from the demo buy-in on (the coups' settlements it computed, and the fees a
table charges by the hour or by the seat, which no coup moves: read from the players' chip
history), and in the end compares it chip for chip with ``trial_balance --json`` (and each
player's balance through the API after each table), the levy account with the sum of the levies;
``verify_audit`` and ``verify_books`` pass, and the server's log shows no 5xx answer and no
traceback.

A few requests are wrong on purpose at each table — a step the coup cannot take now, a stale step
number, a bet beyond the bank, a wrong step without ``confirm``, a correction with a card too
many — and each is a problem answer (400/409/422) that changes nothing (the coup read before and
after). Everything else must be 2xx.

The test touches no test database: it reads the server's answers and runs its management commands.
"""

from __future__ import annotations

import json
import random
import re
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from email.message import Message
from http import HTTPStatus
from typing import Any

import pytest

from casino.management.commands.load_demo import DEMO_BUY_IN, DEMO_PLAYERS, DEMO_STAFF
from chemin_de_fer.engine.coup import Outcome, Restored, Settlement
from chemin_de_fer.engine.interchange import restored_to_dict, settlement_to_dict, verdict_to_dict
from chemin_de_fer.engine.judge import Rules, judge_coup, restore_coup
from chemin_de_fer.engine.machine import CoupProgress, Move, Step, apply, new_coup, next_steps, to_record
from chemin_de_fer.engine.order import betting_order, betting_turn
from chemin_de_fer.engine.profiles import BUILTIN, PassedBank
from chemin_de_fer.engine.punters import key_seat_number, seat_key
from chemin_de_fer.engine.settlement import BancoCaller
from core.cards import ALL_CARDS
from core.problems import CONTENT_TYPE, TYPE_PREFIX
from tests.browser.default_server import DefaultServer, default_server

pytestmark = [pytest.mark.default_night, pytest.mark.slow]

V1 = "/api/v1"
SEED = 20_261_201
PROFILES = ("casino", "classic", "club", "home")
WRONG = 0.08  # the share of draw/stand decisions (and cards after a natural) played wrongly
BANCO = 0.08  # a punter calls banco on a declared bank
WITHDRAW = 0.04  # nobody bets on a declared bank: it is withdrawn
PASS = 0.10  # a banker who won or tied passes the bank
REFUSE = 0.3  # a player the bank is offered to refuses it (the last one asked never does)
BANKS = (100, 150, 200, 300, 400, 500, 800, 1000)  # a new bank, at least the required minimum
TOO_BIG = 5_000  # a banker whose continuation grows past this passes the bank
BET_SHARES = (0.1, 0.2, 0.25, 0.5, 1.0)  # of the bank, at most what is left of it
BET = 0.65  # each punter in turn bets
#: the user throttle's documented default is 1200 requests a minute (docs/api.md, "Throttles"):
#: one device playing four tables at machine speed keeps under it, as a well-behaved client would
PACE = (1_100, 61.0)
RECONNECT = 120  # seconds a device keeps resending a request the server dropped
NATURALS = (Move.PLAYER_NATURAL, Move.BANKER_NATURAL)
FEE_KINDS = ("hourly_fee", "card_money")  # ledger transactions a table charges by time or by seat
CARDS = (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DefaultServer]:
    with default_server(tmp_path_factory.mktemp("make-run-api")) as running:
        yield running


# ------------------------------------------------------------------------------------ the client
@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: Message


class Device:
    """One login over HTTP: a token from the token endpoint, JSON bodies, a fresh
    Idempotency-Key for every POST unless one is given (to resend a request)."""

    def __init__(self, url: str, username: str) -> None:
        self.url = url
        self.token = ""
        self.sent: deque[float] = deque()
        self.requests = 0
        self.resent = 0  # requests sent again after the server dropped the connection
        self.waited = 0.0  # seconds spent waiting for answers
        answer = self.call(
            "POST", "/auth/token/", {"username": username, "password": DEMO_STAFF[username][0]}
        )
        assert answer.status == 200, answer
        assert answer.headers.get("Cache-Control") == "no-store"
        self.token = answer.body["token"]

    def _pace(self) -> None:
        limit, window = PACE
        while True:
            now = time.monotonic()
            while self.sent and now - self.sent[0] > window:
                self.sent.popleft()
            if len(self.sent) < limit:
                break
            time.sleep(window - (now - self.sent[0]) + 0.05)
        self.sent.append(time.monotonic())

    def call(self, method: str, path: str, body: Any = None, *, key: str | None = None) -> Answer:
        headers = {"Accept": "application/json"}
        data = None
        if method == "POST":
            data = json.dumps({} if body is None else body).encode()
            headers["Content-Type"] = "application/json"
            if self.token:  # the token endpoint takes no Idempotency-Key
                headers["Idempotency-Key"] = key or uuid.uuid4().hex
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
            self._pace()
        self.requests += 1
        request = urllib.request.Request(self.url + V1 + path, data=data, method=method, headers=headers)
        deadline = time.monotonic() + RECONNECT
        while True:
            started = time.monotonic()
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    return Answer(response.status, json.loads(response.read()), response.headers)
            except urllib.error.HTTPError as error:
                raw = error.read()
                return Answer(error.code, json.loads(raw) if raw else None, error.headers)
            except (urllib.error.URLError, ConnectionError) as lost:
                # no answer heard: ``make run``'s development server restarts when a source file
                # changes (its autoreloader). The client does what docs/api.md asks of it: the
                # same request again, with the same Idempotency-Key (never recorded twice)
                if time.monotonic() > deadline:
                    raise AssertionError(f"{method} {path}: no answer for {RECONNECT} s") from lost
                self.resent += 1
                time.sleep(0.5)
            finally:
                self.waited += time.monotonic() - started

    def get(self, path: str) -> Any:
        answer = self.call("GET", path)
        assert answer.status == 200, (path, answer.status, answer.body)
        return answer.body

    def post(self, path: str, body: Any = None, *, key: str | None = None) -> Any:
        answer = self.call("POST", path, body, key=key)
        assert answer.status in (200, 201), (path, body, answer.status, answer.body)
        return answer.body

    def refused(self, path: str, body: Any, *, status: int, code: str) -> dict[str, Any]:
        """POST what must be refused: a problem document (RFC 9457) with ``status`` and ``code``."""
        answer = self.call("POST", path, body)
        assert answer.status == status, (path, body, answer.status, answer.body)
        assert answer.headers.get("Content-Type") == CONTENT_TYPE, answer.headers.get("Content-Type")
        problem: dict[str, Any] = answer.body
        assert (problem["status"], problem["code"], problem["type"]) == (status, code, TYPE_PREFIX + code)
        assert problem["title"] == HTTPStatus(status).phrase
        assert problem["instance"] == V1 + path
        assert isinstance(problem["detail"], str) and problem["detail"]
        return problem


# ------------------------------------------------------------------------------------ the shoe
class Shoe:
    """The client's own shoe: every card of ``decks`` decks, shuffled; dealt from the top in order.
    The stop card lies ``stop`` cards from the bottom: it comes out with the card that leaves
    ``stop`` cards in the shoe."""

    def __init__(self, decks: int, stop: int, rnd: random.Random) -> None:
        self.cards = list(ALL_CARDS) * decks
        rnd.shuffle(self.cards)
        self.decks, self.stop, self.dealt = decks, stop, 0

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def stop_reached(self) -> bool:
        return self.dealt >= self.size - self.stop

    def next(self) -> str:
        card = self.cards[self.dealt]
        self.dealt += 1
        return card

    def peek(self, count: int) -> tuple[str, ...]:
        return tuple(self.cards[self.dealt : self.dealt + count])


# ------------------------------------------------------------------------------------ the night
@dataclass
class Night:
    """What the client knows of the night: every player's chips, the levy, what it did."""

    chips: dict[str, int] = field(default_factory=lambda: {name: DEMO_BUY_IN for name, _ in DEMO_PLAYERS})
    ids: dict[str, int] = field(default_factory=dict)
    levy: int = 0
    fees: int = 0  # hourly fees and card money the tables charged
    fee_entries: set[int] = field(default_factory=set)  # the chip-history entries counted in ``fees``
    counts: Counter[str] = field(default_factory=Counter)


def _violation(v: Any) -> dict[str, str] | None:
    return None if v is None else {"code": v.code.value, "side": v.side, "detail": v.detail}


def _without_id(verdict: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in verdict.items() if k != "id"}


class TablePlay:
    """One demo table, its croupier's device and the pure engine beside it."""

    def __init__(
        self, night: Night, croupier: Device, pit_boss: Device, summary: dict[str, Any], rnd: random.Random
    ) -> None:
        self.night, self.croupier, self.pit_boss, self.rnd = night, croupier, pit_boss, rnd
        self.id: int = summary["id"]
        self.profile = BUILTIN[summary["profile"]]
        self.rules = Rules.for_profile(self.profile)
        # the demo casino's levy (5 %, rounded down, chip 1) is the casino profile's own
        self.seat_count: int = summary["seat_count"]
        self.seats: dict[int, str] = {}  # seat number -> player's name
        self.shoe: Shoe | None = None
        self.played: set[int] = set()  # bank turns that played a coup (no longer a first coup)
        self.probed = False  # the bad requests of a betting round sent
        self.unconfirmed = False  # a wrong step sent without ``confirm`` once
        self.overfull = False  # a correction sent with a card too many once
        self.replayed = False  # a request resent with its key once

    # ------------------------------------------------------------------------- plumbing
    def path(self, rest: str) -> str:
        return f"/tables/{self.id}/{rest}"

    def table(self) -> dict[str, Any]:
        table: dict[str, Any] = self.croupier.get(self.path(""))
        return table

    def coup_now(self, coup_id: int) -> dict[str, Any]:
        coup: dict[str, Any] = self.croupier.get(f"/coups/{coup_id}/")
        return coup

    def unchanged(
        self, coup: dict[str, Any], path: str, body: dict[str, Any], *, status: int, code: str
    ) -> Any:
        """A request refused with ``status``/``code``: the coup reads the same before and after."""
        before = self.coup_now(coup["id"])
        problem = self.croupier.refused(path, body, status=status, code=code)
        assert self.coup_now(coup["id"]) == before
        self.night.counts["refused"] += 1
        return problem

    def check(self, coup: dict[str, Any], state: CoupProgress) -> None:
        """The API's coup is the engine's: the steps offered (with their violations), bets, cards."""
        assert coup["step_count"] == state.steps
        assert coup["next_steps"] == [
            {"kind": n.kind.value, "violation": _violation(n.violation)} for n in next_steps(state)
        ]
        assert coup["bets"] == [
            {"punter": b.punter, "amount": b.amount, "spectator": b.spectator} for b in state.bets
        ]
        assert coup["cards"] == {"player": list(state.player_cards), "banker": list(state.banker_cards)}
        assert coup["violations"] == [{"step": n, **(_violation(v) or {})} for n, v in state.violations]

    def step(
        self,
        coup: dict[str, Any],
        state: CoupProgress,
        move: Step,
        body: dict[str, Any],
        *,
        confirm: bool = False,
        resend: bool = False,
    ) -> tuple[dict[str, Any], CoupProgress]:
        """Record ``move`` (the API's ``body``) on the API and on the engine; check they agree.
        ``resend``: the answer is taken as lost and the request sent again with the same key."""
        sent = {"step": coup["step_count"], "kind": move.kind.value, **body}
        if confirm:
            sent["confirm"] = True
        path, key = f"/coups/{coup['id']}/steps/", uuid.uuid4().hex
        answer = self.croupier.post(path, sent, key=key)
        if resend:  # the first answer comes back, and nothing is recorded twice
            again = self.croupier.call("POST", path, sent, key=key)
            assert (again.status, again.headers.get("Idempotent-Replayed"), again.body) == (
                201,
                "true",
                answer,
            )
            assert self.coup_now(coup["id"]) == answer["coup"]
            self.night.counts["replayed"] += 1
        state = apply(state, move)
        assert answer["step"]["kind"] == move.kind.value
        assert answer["step"]["index"] == state.steps
        fresh = [v.code.value for n, v in state.violations if n == state.steps]
        assert answer["step"]["violations"] == fresh
        coup = answer["coup"]
        self.check(coup, state)
        self.night.counts["steps"] += 1
        return coup, state

    def affords(self, name: str, amount: int) -> bool:
        """Where players may not borrow (home), a stake must be covered by his own chips."""
        return self.profile.borrowing_allowed or self.night.chips[name] >= amount

    # ------------------------------------------------------------------------- the table
    def open(self) -> None:
        table = self.croupier.post(self.path("session/open/"))
        assert (table["state"], table["seats"], table["shoe"], table["bank"]) == ("open", [], None, None)
        free = self.croupier.get(self.path("players/"))["results"]
        assert sorted(p["display_name"] for p in free) == sorted(name for name, _ in DEMO_PLAYERS)
        numbers = sorted(self.rnd.sample(range(1, self.seat_count + 1), len(free)))
        for number, player in zip(numbers, free, strict=True):
            table = self.croupier.post(self.path("seats/"), {"player": player["id"], "number": number})
            self.seats[number] = player["display_name"]
            self.night.ids[player["display_name"]] = player["id"]
        assert {s["number"]: s["player"]["display_name"] for s in table["seats"]} == self.seats

    def shoe_start(self) -> None:
        profile = self.profile
        decks = len(self.seats) if profile.decks_per_seated_player else min(profile.decks_allowed)
        shoe = Shoe(decks, self.rnd.randint(7, 10), self.rnd)
        burnt = [shoe.next() for _ in range(self.rnd.randint(profile.burn_cards_min, profile.burn_cards_max))]
        table = self.croupier.post(
            self.path("shoe/"), {"decks": decks, "burnt_cards": burnt, "stop_card_position": shoe.stop}
        )
        self.shoe = shoe
        self.check_shoe(table)
        first = self.rnd.choice(sorted(self.seats))
        table = self.croupier.post(self.path("bank/first/"), {"seat": first})
        assert (table["bank"]["seat"], table["bank"]["required_minimum"]) == (first, profile.min_bank)

    def check_shoe(self, table: dict[str, Any]) -> None:
        shoe = self.shoe
        assert shoe is not None and table["shoe"] is not None
        seen = {k: table["shoe"][k] for k in ("decks", "cards_dealt", "cards_left", "stop_card_position")}
        assert seen == {
            "decks": shoe.decks,
            "cards_dealt": shoe.dealt,
            "cards_left": shoe.size - shoe.dealt,
            "stop_card_position": shoe.stop,
        }
        assert (table["shoe"]["stop_reached"], table["shoe"]["alarm"]) == (shoe.stop_reached, False)

    def close(self) -> None:
        table = self.croupier.post(self.path("session/close/"), {"reason": "the shoe is over"})
        assert (table["state"], table["bank"], table["shoe"]) == ("closed", None, None)
        self.fees()
        # the bank and every reserve went back to their owners: each holds what the night says
        for number, name in self.seats.items():
            balance = self.pit_boss.get(f"/players/{self.night.ids[name]}/balance/")
            assert (balance["balance"], balance["reserve"]) == (self.night.chips[name], 0), (number, name)

    def fees(self) -> None:
        """What the table charged its players besides the coups, where it is charged so (by the
        hour, or card money per seated player): no coup's, and not the API's to compute for a
        client. Each player's chip history says it: every such entry counts once."""
        for name in self.seats.values():
            page, more = 1, True
            while more:
                history = self.pit_boss.get(f"/players/{self.night.ids[name]}/history/?page={page}")
                page, more = page + 1, history["next"] is not None
                for entry in history["results"]:
                    if entry["kind"] in FEE_KINDS and entry["entry"] not in self.night.fee_entries:
                        assert (entry["coup"], entry["amount"] < 0) == (None, True), entry
                        self.night.fee_entries.add(entry["entry"])
                        self.night.chips[name] += entry["amount"]
                        self.night.fees -= entry["amount"]

    # ------------------------------------------------------------------------- the bank
    def banker(self, table: dict[str, Any]) -> dict[str, Any]:
        """Somebody holds the bank: offered in turn, some refuse, the last one asked accepts (at
        home only one who can put up the required bank; when nobody can, the first neighbour
        opens a new bank from the minimum)."""
        while table["bank"] is None:
            rotation = table["bank_rotation"]
            seat = rotation["offer_to"]
            if seat is None:
                assert not self.profile.borrowing_allowed, rotation
                first = rotation["order"][0]
                table = self.croupier.post(self.path("bank/new/"), {"seat": first})
                assert (table["bank"]["seat"], table["bank"]["started_how"]) == (first, "new_bank")
                self.night.counts["new banks"] += 1
                break
            name = self.seats[seat]
            last = rotation["candidates"] == [seat]
            accept = self.affords(name, rotation["required_minimum"]) and (last or self.rnd.random() > REFUSE)
            table = self.croupier.post(self.path("bank/offer/"), {"seat": seat, "accept": accept})
            self.night.counts["offers accepted" if accept else "offers refused"] += 1
            if accept:
                assert (table["bank"]["seat"], table["bank"]["required_minimum"]) == (
                    seat,
                    rotation["required_minimum"],
                )
        return table

    def bank_amount(self, minimum: int, banker: str, *, new: bool) -> int:
        wanted = max(minimum, self.rnd.choice(BANKS)) if new else minimum + self.rnd.choice((0, 0, 0, 100))
        if not self.affords(banker, wanted):
            wanted = max(minimum, min(wanted, self.night.chips[banker]))
        return wanted

    def pass_bank(self, table: dict[str, Any]) -> dict[str, Any]:
        continuation = table["bank"]["required_minimum"]
        table = self.croupier.post(self.path("bank/pass/"))
        rotation = table["bank_rotation"]
        assert (table["bank"], rotation["how"]) == (None, "passed")
        # casino, classic, club: the taker sets his own bank; home: at least the continuation
        own = self.profile.passed_bank is PassedBank.OWN_BANK
        assert rotation["required_minimum"] == (self.profile.min_bank if own else continuation)
        self.night.counts["banks passed"] += 1
        return table

    # ------------------------------------------------------------------------- a coup
    def play(self, table: dict[str, Any]) -> dict[str, Any]:
        """One coup (or a bank withdrawn): the table after it."""
        table = self.banker(table)
        assert self.shoe is not None and table["current_coup"] is None
        bank = table["bank"]
        banker_seat, minimum, turn = bank["seat"], bank["required_minimum"], bank["id"]
        banker = self.seats[banker_seat]
        first = turn not in self.played
        amount = self.bank_amount(minimum, banker, new=first)
        answer = self.croupier.post(self.path("coups/"), {"bank": amount})
        coup = answer["coup"]
        assert answer["step"]["kind"] == "bank_declared"
        assert (coup["bank"], coup["banker_seat"], coup["first_coup_of_bank"], coup["state"]) == (
            amount,
            banker_seat,
            first,
            "open",
        )
        state = new_coup(self.rules, minimum_bank=minimum, first_coup_of_bank=first)
        state = apply(state, Step(Move.BANK_DECLARED, amount=amount, punter=seat_key(banker_seat)))
        self.check(coup, state)

        if self.rnd.random() < WITHDRAW:
            return self.withdraw(coup, amount)
        coup, state = self.bets(coup, state, banker_seat)
        coup, state = self.step(coup, state, Step(Move.BETS_CLOSED), {})
        coup, state = self.deal(coup, state)
        outcome, settlement = self.settle(coup, state)
        self.played.add(turn)

        table = self.table()
        shoe = self.shoe
        over = table["shoe"] is None
        if over:  # the shoe is over: its stop card came out in this coup (or its restoration)
            assert shoe.stop_reached, (shoe.dealt, shoe.size, shoe.stop)
        else:
            self.check_shoe(table)
            assert not shoe.stop_reached  # it ends with the coup in which the stop card came out
        if outcome is Outcome.PLAYER:  # the bank is lost: offered in turn from the banker's neighbour
            assert (table["bank"], table["bank_rotation"]["how"]) == (None, "rotation")
            return table
        assert settlement.next_bank_min is not None
        assert (table["bank"]["id"], table["bank"]["required_minimum"]) == (
            turn,
            max(settlement.next_bank_min, self.profile.min_bank),
        )
        if not over and (self.rnd.random() < PASS or table["bank"]["required_minimum"] > TOO_BIG):
            table = self.pass_bank(table)
        return table

    def withdraw(self, coup: dict[str, Any], amount: int) -> dict[str, Any]:
        """Nobody bets: the bank is withdrawn without a deal, the banker keeps it (or passes it)."""
        answer = self.croupier.post(f"/coups/{coup['id']}/withdraw/", {"step": coup["step_count"]})
        assert (answer["step"]["kind"], answer["coup"]["state"], answer["coup"]["next_steps"]) == (
            "bank_withdrawn",
            "withdrawn",
            [],
        )
        self.night.counts["banks withdrawn"] += 1
        table = self.table()
        assert self.shoe is not None
        self.check_shoe(table)
        # a bank in play is never lowered: the next one is at least the bank withdrawn
        assert (table["bank"]["seat"], table["bank"]["required_minimum"]) == (coup["banker_seat"], amount)
        if self.rnd.random() < 0.5:
            table = self.pass_bank(table)
        return table

    def bets(
        self, coup: dict[str, Any], state: CoupProgress, banker_seat: int
    ) -> tuple[dict[str, Any], CoupProgress]:
        """The punters in the table's betting order: bets, or a banco."""
        profile = self.profile
        order = betting_order(
            self.seats, banker_seat=banker_seat, seat_count=self.seat_count, betting_from=profile.betting_from
        )

        def turn(seat: int) -> int:
            return betting_turn(
                seat=seat,
                banker_seat=banker_seat,
                seat_count=self.seat_count,
                betting_from=profile.betting_from,
            )

        def banco(seat: int) -> tuple[dict[str, Any], CoupProgress]:
            self.night.counts["bancos"] += 1
            move = Step(Move.BANCO, callers=(BancoCaller(seat_key(seat), order=turn(seat)),))
            return self.step(coup, state, move, {"callers": [{"seat": seat}]})

        bank = coup["bank"]
        callers = [s for s in order if self.affords(self.seats[s], bank)]
        if callers and self.rnd.random() < BANCO:
            return banco(self.rnd.choice(callers))
        for seat in order:
            if state.uncovered == 0:
                break
            if self.rnd.random() > BET and (state.bets or seat != order[-1]):
                continue
            amount = min(state.uncovered, max(profile.min_bet, int(bank * self.rnd.choice(BET_SHARES))))
            if not self.affords(self.seats[seat], amount):
                continue
            if state.bets and seat in callers and self.rnd.random() < BANCO / 4:
                return banco(seat)  # a later punter takes the whole bank: the earlier bets are withdrawn
            move = Step(Move.BET, amount=amount, punter=seat_key(seat), order=turn(seat))
            resend = not self.replayed and bool(state.bets)
            self.replayed |= resend
            coup, state = self.step(coup, state, move, {"seat": seat, "amount": amount}, resend=resend)
            if not self.probed and state.uncovered > 0:
                self.probe(coup, state, order)
        if not state.bets:  # nobody could: the first who can bets the minimum
            seat = next(s for s in order if self.affords(self.seats[s], profile.min_bet))
            move = Step(Move.BET, amount=profile.min_bet, punter=seat_key(seat), order=turn(seat))
            coup, state = self.step(coup, state, move, {"seat": seat, "amount": profile.min_bet})
        return coup, state

    def probe(self, coup: dict[str, Any], state: CoupProgress, order: list[int]) -> None:
        """Wrong requests, each refused with a problem answer that changes nothing."""
        self.probed = True
        path = f"/coups/{coup['id']}/steps/"
        at = coup["step_count"]
        # a step the coup cannot take now: the hands are revealed while the bets are being made
        self.unchanged(coup, path, {"step": at, "kind": "reveal"}, status=400, code="invalid")
        # a stale step: another device moved the coup on since this one looked
        seat = order[-1]
        stale = {"step": at - 1, "kind": "bet", "seat": seat, "amount": 1}
        problem = self.unchanged(coup, path, stale, status=409, code="coup_conflict")
        assert problem["current_step"] == at
        # a bet beyond what is left of the bank: refused on its amount
        over = {"step": at, "kind": "bet", "seat": seat, "amount": state.uncovered + 1}
        problem = self.unchanged(coup, path, over, status=400, code="invalid")
        assert problem["amount"] == [f"only {state.uncovered} of the bank is left to cover"], problem

    # ------------------------------------------------------------------------- the deal
    def deal(self, coup: dict[str, Any], state: CoupProgress) -> tuple[dict[str, Any], CoupProgress]:
        """The cards from the client's shoe and the decisions, to the reveal: the clean step the
        engine offers, or now and then one that breaks the rules, confirmed."""
        assert self.shoe is not None
        while True:
            options = next_steps(state)
            clean = [o for o in options if o.violation is None]
            wrong = [o for o in options if o.violation is not None]
            natural = [o for o in clean if o.kind in NATURALS]
            # a wrong step may leave only wrong ones (a banker who said "draw" on his natural gets
            # the card he asked for): then the table goes on as it happened
            if wrong and (not clean or self.rnd.random() < WRONG):
                choice, confirm = self.rnd.choice(wrong), True
            else:
                choice, confirm = (natural or [self.rnd.choice(clean)])[0], False
            if choice.kind is Move.REVEAL:
                return self.step(coup, state, Step(Move.REVEAL), {})
            body: dict[str, Any] = {}
            move = Step(choice.kind)
            if choice.kind in CARDS:
                card = self.shoe.next()
                body, move = {"card": card}, Step(choice.kind, card=card)
            if confirm:
                self.night.counts["wrong steps"] += 1
                if not self.unconfirmed:
                    self.unconfirmed = True
                    sent = {"step": coup["step_count"], "kind": choice.kind.value, **body}
                    problem = self.unchanged(
                        coup, f"/coups/{coup['id']}/steps/", sent, status=422, code="confirmation_required"
                    )
                    assert problem["violation"] == _violation(choice.violation)
            coup, state = self.step(coup, state, move, body, confirm=confirm)

    # ------------------------------------------------------------------------- the money
    def settle(self, coup: dict[str, Any], state: CoupProgress) -> tuple[Outcome, Settlement]:
        """The coup revealed: the engine's verdict is the API's; a clean coup is settled, a flagged
        one restored with the shoe's next cards and approved by the pit boss. Its chips go to the
        client's account. Returns the outcome the table plays on with and its settlement."""
        assert self.shoe is not None
        record = to_record(state)
        verdict = judge_coup(record, self.rules)
        assert _without_id(coup["verdict"]) == _without_id(verdict_to_dict(verdict))
        assert coup["flagged"] == verdict.flagged
        self.night.counts["coups"] += 1
        if not verdict.flagged:
            assert coup["state"] == "settled"
            assert verdict.settlement is not None
            self.book(coup, state, verdict.outcome, verdict.settlement)
            return verdict.outcome, verdict.settlement

        self.night.counts["flagged"] += 1
        assert coup["state"] == "awaiting_correction"
        assert coup["restoration"] == restored_to_dict(restore_coup(record, self.rules))
        # the restored game takes its missing cards from the shoe: the next ones of the client's
        restored = restore_coup(replace(record, shoe_next=self.shoe.peek(4)), self.rules)
        assert isinstance(restored, Restored)
        cards = list(restored.extra_cards)
        assert tuple(cards) == self.shoe.peek(len(cards))
        path = f"/coups/{coup['id']}/correction/"
        if not self.overfull and self.shoe.size - self.shoe.dealt > len(cards):
            self.overfull = True
            too_many = [*cards, self.shoe.peek(len(cards) + 1)[-1]]
            problem = self.unchanged(coup, path, {"cards": too_many}, status=400, code="invalid")
            assert "cards" in problem, problem
        answer = self.croupier.post(path, {"cards": cards})
        for _ in cards:
            self.shoe.next()
        judged = judge_coup(replace(record, shoe_next=tuple(cards)), self.rules)
        assert judged.restored == restored and judged.settlement is not None
        step = answer["step"]
        assert (step["kind"], answer["coup"]["state"]) == ("correction", "awaiting_approval")
        assert step["payload"] == {
            "cards": cards,
            "restored": restored_to_dict(restored),
            "settlement": settlement_to_dict(judged.settlement),
        }
        approved = self.pit_boss.post(f"/coups/{coup['id']}/correction/approve/")
        assert (approved["step"]["kind"], approved["coup"]["state"]) == ("correction_approved", "settled")
        assert approved["step"]["payload"]["settlement"] == settlement_to_dict(judged.settlement)
        self.book(coup, state, restored.outcome, judged.settlement)
        return restored.outcome, judged.settlement

    def book(
        self, coup: dict[str, Any], state: CoupProgress, outcome: Outcome, settlement: Settlement
    ) -> None:
        """Each punter's and the banker's chips, and the levy: the house takes its share of a
        banker's win only (the casino: 5 % of the covered stake, rounded down)."""
        expected_tax = self.rules.levy.levy(state.covered, first_coup_of_bank=state.first_coup_of_bank)
        assert settlement.tax == (expected_tax if outcome is Outcome.BANKER else 0)
        assert settlement.banker_net + sum(settlement.punters.values()) + settlement.tax == 0
        for punter, net in settlement.punters.items():
            number = key_seat_number(punter)
            assert number is not None, punter
            self.night.chips[self.seats[number]] += net
        assert coup["banker_seat"] is not None
        self.night.chips[self.seats[coup["banker_seat"]]] += settlement.banker_net
        self.night.levy += settlement.tax
        self.night.counts[f"{outcome.value} wins" if outcome is not Outcome.TIE else "ties"] += 1

    # ------------------------------------------------------------------------- a whole shoe
    def shoe_played(self) -> None:
        self.open()
        self.shoe_start()
        table = self.table()
        while table["shoe"] is not None:
            table = self.play(table)
        assert self.shoe is not None and self.shoe.stop_reached
        self.close()


# ------------------------------------------------------------------------------------ the test
def _balances(server: DefaultServer) -> list[dict[str, Any]]:
    accounts: list[dict[str, Any]] = json.loads(server.manage("trial_balance", "--json").stdout)["accounts"]
    return accounts


def test_complete_shoes_through_the_api_on_the_readmes_default(server: DefaultServer) -> None:
    started = time.monotonic()
    croupier = Device(server.url, "croupier")
    pit_boss = Device(server.url, "pitboss")
    night = Night()
    listed = croupier.get("/tables/")["results"]
    tables = {t["profile"]: t for t in listed if t["game"] == "chemin-de-fer"}
    assert sorted(tables) == sorted(PROFILES)
    rnd = random.Random(SEED)
    for profile in PROFILES:
        TablePlay(night, croupier, pit_boss, tables[profile], rnd).shoe_played()
        print(
            f"\n{profile}: {night.counts['coups']} coups so far, {time.monotonic() - started:.1f} s", end=""
        )
    elapsed = time.monotonic() - started
    counts = night.counts
    waited = croupier.waited + pit_boss.waited
    print(
        f"\n{counts['coups']} coups ({counts['flagged']} flagged and restored, {counts['wrong steps']} wrong "
        f"steps), {counts['banks withdrawn']} banks withdrawn, {counts['banks passed']} passed, "
        f"{counts['bancos']} bancos, {counts['refused']} requests refused on purpose; levy {night.levy}, "
        f"fees {night.fees}; "
        f"{croupier.requests + pit_boss.requests} requests ({waited:.1f} s waiting for answers, "
        f"{croupier.resent + pit_boss.resent} sent again) in {elapsed:.1f} s; {dict(counts)}"
    )

    # every chip where the client's account says, the levy the sum of the levies
    accounts = _balances(server)
    players = {
        re.sub(r"^player: (.*) \(#\d+\)$", r"\1", a["account"]): a["balance"]
        for a in accounts
        if a["kind"] == "player"
    }
    assert players == night.chips
    assert {f"player: {name} (#{night.ids[name]})" for name in night.chips} <= {
        a["account"] for a in accounts
    }
    assert sum(a["balance"] for a in accounts if a["kind"] == "levy") == night.levy > 0
    assert sum(a["balance"] for a in accounts if a["kind"] in ("fee", "card_money")) == night.fees
    assert [a for a in accounts if a["kind"] in ("bank", "reserve") and a["balance"]] == []
    assert counts["flagged"] > 0 and counts["banks withdrawn"] > 0 and counts["banks passed"] > 0

    server.assert_sound()

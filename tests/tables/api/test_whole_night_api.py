"""Issue 9's acceptance, through the REST API only: a whole night at the four demo tables.

From ``load_demo`` data, a device signs in with ``POST /api/v1/auth/token/`` (croupier, cashier,
pit boss) and then does everything with JSON over HTTP: the cashier sells and buys back chips at
the cage, the croupier opens the tables, seats players, starts shoes, hands the bank round and
records 20 coups at each table step by step, and the pit boss voids a coup and rejects, then
approves, a correction. No service or factory is called after ``load_demo``; the database is read
only to assert the outcome.

On the way, each thing the issue asks for: a buy-in and a cash-out (cage), a bet refused for lack
of chips (home: nothing written), a marker (casino: the shortfall is credit on the cage's balance),
a bank nobody takes (home: withdrawn, no coup), an amended typo (club), a void of a coup in play
(club), a passed bank taken at a new amount (classic), a house-bank coup (casino), a correction
rejected after its shoe was closed (classic), and a replayed request that writes nothing twice.

At the end every player's chips are what the cage took and gave and the coups' settlements say,
each table has exactly its 20 settled coups, the ledger balances and the audit chain verifies.
"""

from __future__ import annotations

import io
import random
import uuid
from collections import Counter
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from audit.selectors import audit_chains_verify
from casino.management.commands.load_demo import DEMO_BUY_IN, DEMO_STAFF
from ledger.models import Account, Entry
from ledger.selectors import ledger_drift, trial_balance, unbalanced_transactions
from tables.models import Coup
from tests.problems import problem_body
from tests.tables.play import row_counts

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

V1 = "/api/v1"
RANKS = "A23456789TJQK"
SUITS = "CDHS"
COUPS_PER_TABLE = 20
NATURALS = ("player_natural", "banker_natural")


def written() -> dict[str, int]:
    """Every row a refused request must leave alone (the floor, audit, idempotency, ledger)."""
    return {**row_counts(), "Account": Account.objects.count(), "Entry": Entry.objects.count()}


class Device:
    """A client that knows only the API: a token from the token endpoint, JSON bodies, a fresh
    Idempotency-Key for every POST unless one is given (to resend a request)."""

    def __init__(self, username: str) -> None:
        self.client = APIClient()
        password = DEMO_STAFF[username][0]
        answer = self.client.post(
            f"{V1}/auth/token/", {"username": username, "password": password}, format="json"
        )
        assert answer.status_code == 200, answer.content
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")

    def get(self, path: str) -> Any:
        answer = self.client.get(V1 + path)
        assert answer.status_code == 200, (path, answer.status_code, answer.content[:2000])
        return answer.json()

    def send(self, path: str, body: dict[str, Any] | None = None, *, key: str | None = None) -> Any:
        return self.client.post(
            V1 + path, body or {}, format="json", HTTP_IDEMPOTENCY_KEY=key or uuid.uuid4().hex
        )

    def post(
        self, path: str, body: dict[str, Any] | None = None, *, status: int = 201, key: str | None = None
    ) -> Any:
        answer = self.send(path, body, key=key)
        assert answer.status_code == status, (path, body, answer.status_code, answer.content[:2000])
        return answer.json()

    def refused(self, path: str, body: dict[str, Any] | None, *, status: int) -> Any:
        """POST what must be refused with ``status`` and prove it wrote nothing; the problem
        answer's body without its derived members (tests.problems)."""
        before = written()
        answer = self.send(path, body)
        assert answer.status_code == status, (path, body, answer.status_code, answer.content[:2000])
        assert written() == before
        return problem_body(answer, path=V1 + path)


class Shoe:
    """The cards in the shoe, in the order they come out (shuffled with a fixed seed). A coup that
    needs particular cards takes them out of the shoe; the others get the next ones."""

    def __init__(self, decks: int, seed: int) -> None:
        self.cards = [rank + suit for rank in RANKS for suit in SUITS] * decks
        random.Random(seed).shuffle(self.cards)

    def next(self) -> str:
        return self.cards.pop(0)

    def take(self, card: str) -> str:
        self.cards.remove(card)
        return card


class Night:
    """What the cage and the coups did to each player's chips, kept from the API's answers only."""

    def __init__(self) -> None:
        self.expected: Counter[int] = Counter()
        self.names: dict[int, str] = {}

    def player(self, player: dict[str, Any], chips: int = 0) -> None:
        self.names[player["id"]] = player["display_name"]
        self.expected[player["id"]] += chips


class Table:
    """One demo table, driven by the croupier's device."""

    def __init__(self, night: Night, croupier: Device, cashier: Device, profile: str, *, seed: int) -> None:
        self.night, self.croupier, self.cashier = night, croupier, cashier
        listed = croupier.get("/tables/")["results"]
        self.id = next(t["id"] for t in listed if t["profile"] == profile)
        self.profile = profile
        self.seed = seed
        self.shoe: Shoe | None = None
        self.seats: dict[int, int] = {}  # seat number → player id
        self.never_banks: set[int] = set()  # seats that refuse the bank when it is offered
        self.settled: list[int] = []  # coup ids, in order
        self.house_player: int | None = None

    # ----------------------------------------------------------------------------- the table
    def state(self) -> Any:
        return self.croupier.get(f"/tables/{self.id}/")

    def post(self, path: str, body: dict[str, Any] | None = None, *, status: int = 201) -> Any:
        return self.croupier.post(f"/tables/{self.id}/{path}", body, status=status)

    def open(self) -> None:
        assert self.post("session/open/")["state"] == "open"

    def seat(self, number: int, player: dict[str, Any]) -> None:
        table = self.post("seats/", {"player": player["id"], "number": number})
        assert {s["number"]: s["player"]["id"] for s in table["seats"]}[number] == player["id"]
        self.seats[number] = player["id"]

    def newcomer(self, number: int, name: str, chips: int) -> dict[str, Any]:
        """A new player: registered at the table, bought in at the cage, seated."""
        player = self.post("players/", {"display_name": name})
        self.night.player(player)
        if chips:
            buy_in(self.night, self.cashier, player, chips)
        self.seat(number, player)
        return player

    def shoe_start(self, decks: int, burnt: int = 0) -> None:
        self.shoe = Shoe(decks, seed=self.seed)
        self.seed += 1
        body: dict[str, Any] = {"decks": decks}
        if burnt:
            body["burnt_cards"] = [self.shoe.next() for _ in range(burnt)]
        table = self.post("shoe/", body)
        assert (table["shoe"]["decks"], table["shoe"]["cards_dealt"]) == (decks, burnt)

    # ------------------------------------------------------------------------------ the bank
    def banker_ready(self) -> dict[str, Any]:
        """Somebody holds the bank: the seat the bank is offered to takes it, unless he is one who
        never banks. Answers the table's ``bank``."""
        state = self.state()
        while state["bank"] is None:
            rotation = state["bank_rotation"]
            seat = rotation["offer_to"]
            assert seat is not None, rotation
            state = self.post("bank/offer/", {"seat": seat, "accept": seat not in self.never_banks})
        bank: dict[str, Any] = state["bank"]
        return bank

    # ----------------------------------------------------------------------------- the coups
    def step(self, coup: dict[str, Any], kind: str, **fields: Any) -> dict[str, Any]:
        answer = self.croupier.post(
            f"/coups/{coup['id']}/steps/", {"step": coup["step_count"], "kind": kind, **fields}
        )
        assert answer["step"]["kind"] == kind
        result: dict[str, Any] = answer["coup"]
        return result

    def declare(self, bank: int | None = None) -> dict[str, Any]:
        """The banker declares his bank: ``bank`` or, when that is less, what he must put up."""
        minimum = self.banker_ready()["required_minimum"]
        answer = self.post("coups/", {"bank": max(bank or 0, minimum)})
        assert answer["step"]["kind"] == "bank_declared"
        coup: dict[str, Any] = answer["coup"]
        return coup

    def punter(self) -> int:
        """A seat that may bet now: the first one round the table that does not hold the bank."""
        banker = self.banker_ready()["seat"]
        return next(n for n in sorted(self.seats) if n != banker and n not in self.never_banks)

    def bets(self, coup: dict[str, Any], bank: int, number: int) -> list[tuple[int, int]]:
        """Two punters, in turn round the table, stake a third and a quarter of the bank (at most 300
        and 200): a night's ordinary bets, which never need more than the bank."""
        banker_seat = coup["banker_seat"]
        punters = [n for n in sorted(self.seats) if n != banker_seat and n not in self.never_banks]
        first = punters[number % len(punters)]
        second = punters[(number + 1) % len(punters)]
        return [(first, max(1, min(bank // 3, 300))), (second, max(1, min(bank // 4, 200)))]

    def deal(
        self, coup: dict[str, Any], *, cards: tuple[str, ...] = (), wrong: str | None = None
    ) -> dict[str, Any]:
        """Close the bets and play the coup to its reveal: ``cards`` first (taken out of the shoe),
        then the shoe's next ones; each decision the clean one the coup offers (a natural first),
        except ``wrong``, recorded with ``confirm`` when it comes up (a rule broken at the table)."""
        assert self.shoe is not None
        coup = self.step(coup, "bets_closed")
        planned = list(cards)
        while True:
            offered = {s["kind"]: s["violation"] for s in coup["next_steps"]}
            clean = [k for k, v in offered.items() if v is None]
            natural = [k for k in clean if k in NATURALS]
            card = [k for k in clean if k.startswith("card_to_")]
            if natural:
                coup = self.step(coup, natural[0])
            elif card:
                dealt = self.shoe.take(planned.pop(0)) if planned else self.shoe.next()
                coup = self.step(coup, card[0], card=dealt)
            elif "reveal" in clean:
                coup = self.step(coup, "reveal")
                break
            elif wrong is not None and offered.get(wrong) is not None:
                coup = self.step(coup, wrong, confirm=True)
                wrong = None
            else:
                coup = self.step(coup, clean[0])
        assert not planned, "cards planned for the coup were not dealt"
        return coup

    def coup(
        self,
        *,
        bank: int = 100,
        bets: list[tuple[int, int]] | None = None,
        cards: tuple[str, ...] = (),
        wrong: str | None = None,
        declared: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One whole coup (or the rest of one ``declared`` already); a settled one counts."""
        coup = declared or self.declare(bank)
        if bets is None:
            bets = self.bets(coup, coup["bank"], len(self.settled))
        for seat, amount in bets:
            coup = self.step(coup, "bet", seat=seat, amount=amount)
        coup = self.deal(coup, cards=cards, wrong=wrong)
        if coup["state"] == "settled":
            self.settle(coup)
        return coup

    def settle(self, coup: dict[str, Any], settlement: dict[str, Any] | None = None) -> None:
        """Count a settled coup's chips for its players: its verdict's settlement, or for a restored
        coup the one its approval made final."""
        assert coup["state"] == "settled", coup["state"]
        self.settled.append(coup["id"])
        if settlement is None:
            settlement = coup["verdict"]["settlement"]
        assert settlement is not None
        for punter, net in settlement["punters"].items():
            kind, number = punter.split("-")
            assert kind == "seat", punter
            self.night.expected[self.seats[int(number)]] += net
        if coup["house_bank"]:
            self.house_player = coup["banker"]
        else:
            self.night.expected[coup["banker"]] += settlement["banker_net"]

    def play(self, count: int, **fields: Any) -> None:
        for _ in range(count):
            self.coup(**fields)

    def close(self) -> None:
        """The session closes: the bank in play and every reserve go back to their owners."""
        table = self.post("session/close/", {"reason": "end of the night"}, status=200)
        assert table["state"] == "closed"


def buy_in(night: Night, cashier: Device, player: dict[str, Any], amount: int, key: str | None = None) -> Any:
    receipt = cashier.post("/cage/buy-in/", {"player": player["id"], "amount": amount}, key=key)
    assert (receipt["kind"], receipt["amount"], receipt["player"]["id"]) == ("buy_in", amount, player["id"])
    night.expected[player["id"]] += amount
    return receipt


def balance(device: Device, player_id: int) -> Any:
    return device.get(f"/players/{player_id}/balance/")


# ------------------------------------------------------------------------------ the tables
def casino_night(night: Night, croupier: Device, cashier: Device) -> Table:
    """The casino table (5 % levy, players may borrow, the house may bank): the demo players, a
    newcomer bought in at the cage who plays on credit, and a house-bank coup."""
    table = Table(night, croupier, cashier, "casino", seed=1)
    table.open()
    # the seat picker: the casino's players free to sit here (load_demo's four, bought in already)
    demo = croupier.get(f"/tables/{table.id}/players/")["results"]
    assert [p["display_name"] for p in demo] == ["Comte Orlov", "M. Dupont", "Mme Leroy", "Walk-in"]
    for number, player in enumerate(demo, start=1):
        night.player(player, DEMO_BUY_IN)
        table.seat(number, player)
    table.shoe_start(decks=6, burnt=3)
    assert table.post("bank/first/", {"seat": 1})["bank"]["seat"] == 1

    # a buy-in at the cage, resent (no answer heard): the first receipt comes back, nothing posted twice
    key = uuid.uuid4().hex
    vicomte = table.post("players/", {"display_name": "Vicomte de Crédit"})
    night.player(vicomte)
    receipt = buy_in(night, cashier, vicomte, 200, key=key)
    before = written()
    again = cashier.send("/cage/buy-in/", {"player": vicomte["id"], "amount": 200}, key=key)
    assert (again.status_code, again["Idempotent-Replayed"], again.json()) == (201, "true", receipt)
    assert written() == before
    assert balance(cashier, vicomte["id"])["balance"] == 200
    table.seat(5, vicomte)
    table.never_banks.add(5)

    table.play(5)
    # the marker: the vicomte stakes 500 with 200 chips (casino: borrowing allowed) and loses to a
    # natural 9; the 300 he could not pay is his marker, on the cage's balance
    coup = table.coup(bank=800, bets=[(5, 500)], cards=("TH", "9S", "KC", "TD"))
    verdict = coup["verdict"]
    assert (verdict["outcome"], verdict["settlement"]["punters"]) == ("banker", {"seat-5": -500})
    owed = balance(cashier, vicomte["id"])
    assert (owed["balance"], owed["marker"]) == (-300, 300)
    assert balance(croupier, vicomte["id"])["marker"] == 300  # the croupier on shift reads it too
    table.play(2)

    # the house banks (RULES.md §2): the banker passes, every seat refuses the bank, the house takes it
    state = table.post("bank/pass/", status=200)
    while state["bank_rotation"]["offer_to"] is not None:
        state = table.post("bank/offer/", {"seat": state["bank_rotation"]["offer_to"], "accept": False})
    state = table.post("bank/house/")
    assert (state["bank"]["house"], state["bank"]["seat"], state["bank"]["player"]["display_name"]) == (
        True,
        None,
        "House",
    )
    coup = table.declare(500)
    assert (coup["house_bank"], coup["banker_seat"], coup["bank"]) == (True, None, 500)
    # a bet whose answer was lost, resent with the same key: the first answer, and one bet only
    body = {"step": coup["step_count"], "kind": "bet", "seat": 2, "amount": 200}
    first = croupier.post(f"/coups/{coup['id']}/steps/", body, key="bet-resent-once")
    before = written()
    again = croupier.send(f"/coups/{coup['id']}/steps/", body, key="bet-resent-once")
    assert (again.status_code, again["Idempotent-Replayed"], again.json()) == (201, "true", first)
    assert written() == before
    coup = table.step(first["coup"], "bet", seat=3, amount=100)
    coup = table.deal(coup)
    assert coup["state"] == "settled"
    table.settle(coup)
    table.play(1)  # the house declares each bank afresh
    state = table.post("bank/pass/", status=200)  # the house gives the bank up: it goes round again
    assert (state["bank"], state["bank_rotation"]["how"]) == (None, "rotation")
    table.play(COUPS_PER_TABLE - len(table.settled))
    return table


def newcomers(table: Table, names: list[str], chips: int) -> None:
    for number, name in enumerate(names, start=1):
        table.newcomer(number, name, chips)


def classic_night(night: Night, croupier: Device, cashier: Device, pit_boss: Device) -> Table:
    """The classic table: newcomers bought in at the cage, a passed bank taken at a new amount, and a
    correction the pit boss rejects after its shoe was closed."""
    table = Table(night, croupier, cashier, "classic", seed=100)
    table.open()
    newcomers(table, ["Mlle Arnaud", "M. Besson", "Mme Collet", "M. Daudet"], 3000)
    table.shoe_start(decks=6)
    table.post("bank/first/", {"seat": 1})
    table.play(3)

    # a passed bank at a new amount (RULES.md §7): the banker wins a natural, passes a continuation
    # he need not keep, and the next taker sets his own bank from the profile minimum
    won = table.coup(bank=200, cards=("TH", "9S", "KC", "TD"))
    assert won["verdict"]["outcome"] == "banker"
    continuation = table.state()["bank"]["required_minimum"]
    assert continuation > 200
    passed = table.post("bank/pass/", status=200)
    rotation = passed["bank_rotation"]
    assert (passed["bank"], rotation["how"], rotation["required_minimum"]) == (None, "passed", 1)
    taker = table.post("bank/offer/", {"seat": rotation["offer_to"], "accept": True})["bank"]
    coup = table.post("coups/", {"bank": 60})["coup"]
    assert (coup["bank"], coup["banker_seat"], coup["first_coup_of_bank"]) == (60, taker["seat"], True)
    coup = table.step(coup, "bet", seat=next(n for n in table.seats if n != taker["seat"]), amount=40)
    table.settle(table.deal(coup))
    table.play(2)

    # the banker stands on 5 against a third card 6 (he had to draw): recorded as it happened
    # (confirmed), the coup waits for its correction; the croupier restores it with the next card
    flagged = table.coup(
        bets=[(table.punter(), 100)], cards=("TH", "3S", "2C", "2H", "6D"), wrong="banker_stand"
    )
    assert (flagged["state"], flagged["flagged"]) == ("awaiting_correction", True)
    assert flagged["restoration"] == {"needs_cards": 1}
    assert table.shoe is not None
    card = table.shoe.take("4C")
    restored = croupier.post(f"/coups/{flagged['id']}/correction/", {"cards": [card]})["coup"]
    assert restored["state"] == "awaiting_approval"
    queue = pit_boss.get("/corrections/")["results"]
    assert [(c["coup"], c["correction"]["kind"]) for c in queue] == [(flagged["id"], "correction")]
    table.play(1)
    # the shoe ends and a new one starts; then the pit boss rejects the correction, late
    assert table.post("shoe/close/", {"reason": "stop card"}, status=200)["shoe"] is None
    table.shoe_start(decks=6)
    rejected = pit_boss.post(f"/coups/{flagged['id']}/correction/reject/", {"reason": "recount the shoe"})
    assert rejected["coup"]["state"] == "awaiting_correction"
    # the card the first correction took is the shoe's record: restored again from it, nothing asked
    again = croupier.post(f"/coups/{flagged['id']}/correction/", {"cards": []})
    assert (again["step"]["payload"]["cards"], again["coup"]["state"]) == (["4C"], "awaiting_approval")
    approved = pit_boss.post(f"/coups/{flagged['id']}/correction/approve/")
    assert (approved["step"]["kind"], approved["coup"]["state"]) == ("correction_approved", "settled")
    table.settle(approved["coup"], settlement=approved["step"]["payload"]["settlement"])
    table.play(COUPS_PER_TABLE - len(table.settled))
    return table


def club_night(night: Night, croupier: Device, cashier: Device, pit_boss: Device) -> Table:
    """The club table (one deck per seated player): a typo amended before the reveal and a coup in
    play voided by the pit boss."""
    table = Table(night, croupier, cashier, "club", seed=200)
    table.open()
    newcomers(table, ["Dr Faure", "Mme Garnier", "M. Hubert", "Mlle Izard"], 3000)
    table.shoe_start(decks=4)
    table.post("bank/first/", {"seat": 1})
    table.play(4)

    # the croupier typed 15 for a bet of 150: amended before the reveal, the original kept
    coup = table.declare(400)
    seat = table.punter()
    typo = croupier.post(
        f"/coups/{coup['id']}/steps/", {"step": coup["step_count"], "kind": "bet", "seat": seat, "amount": 15}
    )
    amended = croupier.post(
        f"/coups/{coup['id']}/steps/{typo['step']['index']}/amend/",
        {"amount": 150, "reason": "typed 15 for 150", "step": typo["coup"]["step_count"]},
    )
    assert (amended["step"]["kind"], amended["step"]["supersedes"]) == ("amend", typo["step"]["index"])
    assert amended["coup"]["bets"] == [{"punter": f"seat-{seat}", "amount": 150, "spectator": False}]
    coup = table.deal(amended["coup"])
    assert abs(coup["verdict"]["settlement"]["punters"][f"seat-{seat}"]) == 150
    table.settle(coup)
    table.play(5)

    # the pit boss voids a coup in play: stakes returned, the card dealt stays dealt
    coup = table.declare(300)
    coup = table.step(coup, "bet", seat=table.punter(), amount=100)
    coup = table.step(coup, "bets_closed")
    assert table.shoe is not None
    coup = table.step(coup, "card_to_player", card=table.shoe.next())
    croupier.refused(f"/coups/{coup['id']}/void/", {"reason": "mine"}, status=403)
    voided = pit_boss.post(f"/coups/{coup['id']}/void/", {"reason": "the shoe jammed"})
    assert (voided["coup"]["state"], voided["step"]["payload"]) == (
        "void",
        {"reason": "the shoe jammed", "was": "open"},
    )
    table.play(COUPS_PER_TABLE - len(table.settled))
    return table


def home_night(night: Night, croupier: Device, cashier: Device) -> Table:
    """The home table (no borrowing): a bet refused for lack of chips, and a bank nobody takes."""
    table = Table(night, croupier, cashier, "home", seed=300)
    table.open()
    newcomers(table, ["Tante Jeanne", "Oncle Paul", "Cousin Marc", "Mamie Rose"], 2000)
    poor = table.newcomer(5, "Petit Louis", 50)
    table.never_banks.add(5)
    table.shoe_start(decks=6)
    table.post("bank/first/", {"seat": 1})
    table.play(3)

    # Petit Louis bets 80 with 50 chips: refused when made (home: no borrowing), nothing written
    coup = table.declare(100)
    refused = croupier.refused(
        f"/coups/{coup['id']}/steps/",
        {"step": coup["step_count"], "kind": "bet", "seat": 5, "amount": 80},
        status=400,
    )
    assert refused == {"code": "invalid", "detail": "Petit Louis has only 50 chips; a bet of 80 is refused."}
    coup = table.step(coup, "bet", seat=5, amount=50)  # what he has is taken
    table.settle(table.deal(coup))
    assert balance(croupier, poor["id"])["balance"] == night.expected[poor["id"]]
    table.play(4)

    # a bank nobody takes (RULES.md §7): withdrawn without a coup; the banker declares it again
    coup = table.declare(100)
    withdrawn = croupier.post(f"/coups/{coup['id']}/withdraw/", {"step": coup["step_count"]})
    assert (withdrawn["coup"]["state"], withdrawn["step"]["kind"]) == ("withdrawn", "bank_withdrawn")
    again = table.declare(100)
    assert (again["bank"], again["first_coup_of_bank"]) == (coup["bank"], coup["first_coup_of_bank"])
    table.coup(declared=again)
    table.play(COUPS_PER_TABLE - len(table.settled))
    return table


def test_a_whole_night_through_the_api_only() -> None:
    call_command("load_demo", "--force", stdout=io.StringIO())
    croupier, cashier, pit_boss = Device("croupier"), Device("cashier"), Device("pitboss")
    night = Night()
    tables = {
        "casino": casino_night(night, croupier, cashier),
        "classic": classic_night(night, croupier, cashier, pit_boss),
        "club": club_night(night, croupier, cashier, pit_boss),
        "home": home_night(night, croupier, cashier),
    }
    # besides its 20 settled coups, the club has its voided coup and home its withdrawn bank
    others = {"casino": {}, "classic": {}, "club": {"void": 1}, "home": {"withdrawn": 1}}
    for profile, table in tables.items():
        table.close()
        coups = Coup.objects.filter(shoe__table_id=table.id)
        states = Counter(coups.values_list("state", flat=True))
        assert states == {"settled": COUPS_PER_TABLE, **others[profile]}
        assert sorted(coups.filter(state="settled").values_list("pk", flat=True)) == sorted(table.settled)
        assert len(table.settled) == COUPS_PER_TABLE
    # the casino's house-bank coups: the house banked them, from no seat
    house = tables["casino"].house_player
    assert Coup.objects.filter(banker_id=house, bank_turn__seat__isnull=True).count() == 2

    # the end of the night at the cage: Comte Orlov cashes in all he holds, and not a chip more
    ids = {name: pk for pk, name in night.names.items()}
    orlov = ids["Comte Orlov"]
    held = balance(cashier, orlov)["balance"]
    refused = cashier.refused("/cage/cash-out/", {"player": orlov, "amount": held + 1}, status=400)
    assert refused == {
        "code": "invalid",
        "detail": f"Comte Orlov has only {held} chips; a cash-out of {held + 1} is refused.",
    }
    receipt = cashier.post("/cage/cash-out/", {"player": orlov, "amount": held})
    assert (receipt["kind"], receipt["amount"], receipt["balance"]) == ("cash_out", held, 0)
    night.expected[orlov] -= held
    latest = cashier.get(f"/players/{orlov}/history/")["results"][0]
    assert (latest["kind"], latest["amount"], latest["balance_after"]) == ("cash_out", -held, 0)

    # every player's chips: what the cage sold and bought back, and what the coups' settlements say
    chips = {night.names[pk]: balance(cashier, pk) for pk in night.expected}
    assert {name: c["balance"] for name, c in chips.items()} == {
        night.names[pk]: n for pk, n in night.expected.items()
    }
    assert {name: c["reserve"] for name, c in chips.items()} == dict.fromkeys(chips, 0)  # all returned
    # the same, as figures (the shoes are shuffled with fixed seeds: the night is the same every run)
    assert {name: c["balance"] for name, c in chips.items()} == {
        "Comte Orlov": 0, "M. Dupont": 9374, "Mme Leroy": 11190, "Walk-in": 9620, "Vicomte de Crédit": -300,
        "Mlle Arnaud": 2828, "M. Besson": 4765, "Mme Collet": 2171, "M. Daudet": 2236,
        "Dr Faure": 3106, "Mme Garnier": 3521, "M. Hubert": 2866, "Mlle Izard": 2507,
        "Tante Jeanne": 1803, "Oncle Paul": 1800, "Cousin Marc": 2395, "Mamie Rose": 2002, "Petit Louis": 50,
    }  # fmt: skip
    assert {name for name, c in chips.items() if c["marker"]} == {"Vicomte de Crédit"}
    assert chips["Vicomte de Crédit"]["marker"] == 300

    # the books: every transaction balances, every account is the sum of its entries, the trial
    # balance shows the vicomte's marker; the audit chain verifies
    books = trial_balance()
    assert books.balanced and books.markers == 300
    assert ledger_drift() == [] and unbalanced_transactions() == []
    assert all(report.ok for report in audit_chains_verify())  # every chain

"""Verifying the books (``python manage.py verify_books``; docs/ledger.md, "Verifying the books").

The game's half: every coup's money is re-derived from its recorded steps by the rules engine —
the settlement as played, or as restored by each correction — and compared, account by account,
with what the ledger posted for it (the final settlement, each provisional settlement, each
reversal) and with its ``BankTax``. The hourly fees are compared with their ``FeeHour`` rows and
the card money with the seats it was charged for. The ledger's half (balances against entries,
entries against zero, postings against their audit events) is ledger/books.py; ``books_verify``
runs both.

Nothing here writes. Coups are walked in id order ``COUP_CHUNK`` at a time, with a handful of
queries per chunk (steps, bets, postings, entries, levies, accounts), so a verification of years of
history uses the memory of one chunk.

How a settlement becomes entries is the posting code's own rule (``settlement_entries``: punters,
levy, the bank, the banker's reserve above the house limit or for the uncovered part); a posting
made after the coup's bank had moved on settles the banker's side against his player account
(``to_banker_wallet``), so both forms are accepted for provisional settlements, reversals and
approvals. The engine's verdict, not the ledger, says what each punter and the levy get.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
from django.db.models import Q, TextField
from django.db.models.functions import Cast

from chemin_de_fer.engine.coup import Settlement
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import CoupProgress
from chemin_de_fer.engine.punters import seat_key, spectator_key
from ledger.books import CHUNK, BooksReport, Difference, bound_rows_check, chips, ledger_books_check
from ledger.models import PER_CASINO_KINDS, Account, Entry, Transaction
from tables.engine_bridge import coup_record_id, coup_replay, coup_verdict, snapshot_rules
from tables.games import wings
from tables.models import (
    BankTax,
    Bet,
    Coup,
    CoupStep,
    FeeHour,
    FeePosting,
    Seat,
)
from tables.money.rules import CoupAccounts, settlement_entries, to_banker_wallet

#: coups verified per round of queries
COUP_CHUNK = 500

TKind = Transaction.Kind
Kind = Account.Kind
Step = CoupStep.Kind


class _Pk:
    """An account as ``settlement_entries`` reads it: its id only (no model instance per coup)."""

    __slots__ = ("pk",)

    def __init__(self, pk: int) -> None:
        self.pk = pk


def _account(pk: int) -> Account:
    return cast(Account, _Pk(pk))


@dataclass
class AccountBook:
    """The accounts one chunk of coups may name, by what they are."""

    names: dict[int, str] = field(default_factory=dict)
    by_owner: dict[tuple[int, str, int | None, int | None], int] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, *, casinos: set[int], players: set[int], tables: set[int], ids: set[int]) -> AccountBook:
        book = cls()
        found = Account.objects.filter(
            Q(player_id__in=players)
            | Q(table_id__in=tables)
            | Q(casino_id__in=casinos, kind__in=PER_CASINO_KINDS)
            | Q(pk__in=ids)
        ).values_list("id", "casino_id", "kind", "player_id", "table_id", "name")
        for pk, casino_id, kind, player_id, table_id, name in found:
            book.names[pk] = name
            book.by_owner[(casino_id, kind, player_id, table_id)] = pk
        return book

    def find(self, casino: int, kind: str, *, player: int | None = None, table: int | None = None) -> int:
        """The account's id; for one never opened, a negative stand-in named "no ... account"
        (an entry the engine expects on it then shows as a difference)."""
        pk = self.by_owner.get((casino, kind, player, table))
        if pk is not None:
            return pk
        label = (
            f"no {kind} account"
            + (f" of player {player}" if player else "")
            + (f" of table {table}" if table else "")
        )
        if label not in self.missing:
            self.missing[label] = -(len(self.missing) + 1)
            self.names[self.missing[label]] = label
        return self.missing[label]

    def name(self, pk: int) -> str:
        return self.names.get(pk, f"account {pk}")


class _StepRow:
    """A recorded step as the engine bridge reads it (``game_rows``, ``coup_replay``): a CoupStep's
    columns without a model instance, its payload parsed by orjson (the ORM's instances and JSON
    decoding cost as much as the replay itself)."""

    __slots__ = ("corrects_id", "index", "kind", "payload", "pk", "supersedes_id")

    def __init__(
        self, pk: int, index: int, kind: str, payload: str, supersedes_id: int | None, corrects_id: int | None
    ):
        self.pk, self.index, self.kind = pk, index, kind
        self.payload: dict[str, Any] = orjson.loads(payload)
        self.supersedes_id, self.corrects_id = supersedes_id, corrects_id


@dataclass
class _CoupFacts:
    coup: Coup
    rows: list[CoupStep] = field(default_factory=list)  # _StepRow, read as CoupStep
    punters: dict[str, int] = field(default_factory=dict)  # engine punter key -> player id
    txns: list[dict[str, Any]] = field(default_factory=list)
    tax: tuple[int, int] | None = None  # BankTax (basis, amount)


_RULES: dict[str, Rules] = {}


def _rules(coup: Coup) -> Rules:
    """The coup's compiled rules, shared by every coup played under the same profile (compiling
    one per coup would cost more than its replay)."""
    key = json.dumps(coup.rules["profile"], sort_keys=True)
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = snapshot_rules(coup.rules)
    coup._engine_rules = rules  # what tables.engine_bridge.coup_rules memoises
    return rules


class _CoupCheck:
    """The checks of one coup, its differences added to the report."""

    def __init__(
        self, facts: _CoupFacts, book: AccountBook, entries: dict[int, dict[int, int]], report: BooksReport
    ):
        self.facts, self.book, self.entries, self.report = facts, book, entries, report
        coup = facts.coup
        self.coup = coup
        self.subject = f"coup {coup.pk} ({coup_record_id(coup)})"
        table, casino = coup.shoe.table_id, coup.shoe.table.casino_id
        if coup.banker.house:  # the house banks with the cage's money (docs/rules.md §2)
            reserve = wallet = book.find(casino, Kind.CAGE)
        else:
            reserve = book.find(casino, Kind.RESERVE, player=coup.banker_id)
            wallet = book.find(casino, Kind.PLAYER, player=coup.banker_id)
        self.accounts = CoupAccounts(
            by_spec={},
            punters={},
            bank=_account(book.find(casino, Kind.BANK, table=table)),
            reserve=_account(reserve),
            wallet=_account(wallet),
            levy=_account(book.find(casino, Kind.LEVY)),
        )

    def differ(self, check: str, detail: str) -> None:
        self.report.add(Difference(self.subject, check, detail))

    # ---------------------------------------------------------------------------------- entries
    def settlement_forms(self, settlement: Settlement) -> list[dict[int, int]] | None:
        """The entries a posting of ``settlement`` makes: against the bank in play, or against
        the banker's player account once the bank has moved on."""
        casino = self.coup.shoe.table.casino_id
        unknown = sorted(set(settlement.punters) - set(self.facts.punters))
        if unknown:
            self.differ("settlement", f"the engine settles punter(s) {', '.join(unknown)}, who placed no bet")
            return None
        self.accounts.punters = {
            key: _account(self.book.find(casino, Kind.PLAYER, player=self.facts.punters[key]))
            for key in settlement.punters
        }
        try:
            in_play = settlement_entries(
                settlement=settlement,
                accounts=self.accounts,
                uncovered_to_reserve=self.coup._engine_rules.profile.uncovered_to_reserve,
                house_limit=self.coup.rules["house_limit"],
            )
        except ValueError as error:
            self.differ("settlement", f"the engine's settlement cannot be posted: {error}")
            return None
        return [in_play, to_banker_wallet(in_play, self.accounts)]

    def compare(self, txn: dict[str, Any], what: str, forms: list[dict[int, int]]) -> None:
        actual = self.entries.get(txn["id"], {})
        if actual in forms:
            return

        def gaps(expected: dict[int, int]) -> list[str]:
            return [
                f"{self.book.name(pk)}: engine {chips(expected.get(pk, 0))}, "
                f"ledger {chips(actual.get(pk, 0))}"
                for pk in sorted(set(expected) | set(actual), key=lambda pk: (self.book.name(pk), pk))
                if expected.get(pk, 0) != actual.get(pk, 0)
            ]

        closest = min((gaps(form) for form in forms), key=len)
        self.differ("settlement", f"{what} #{txn['id']}: " + "; ".join(closest))

    # ------------------------------------------------------------------------------------ coup
    def run(self) -> None:
        coup, rows = self.coup, self.facts.rows
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for txn in self.facts.txns:
            by_kind.setdefault(txn["kind"], []).append(txn)
        finals = by_kind.get(TKind.COUP_SETTLEMENT, [])
        provisionals = by_kind.get(TKind.COUP_PROVISIONAL, [])
        reversals = by_kind.get(TKind.COUP_REVERSAL, [])
        settled = coup.state == Coup.State.SETTLED

        if settled and not finals:
            self.differ("settlement", "the coup is settled but the ledger has no settlement for it")
        if not settled and finals:
            self.differ(
                "settlement", f"the coup is {coup.state} but the ledger settled it (#{finals[0]['id']})"
            )
        if coup.state in (Coup.State.OPEN, Coup.State.WITHDRAWN) and (provisionals or reversals):
            self.differ(
                "settlement", f"the coup is {coup.state} but the ledger has provisional postings for it"
            )
        corrected = any(r.kind == Step.CORRECTION for r in rows)
        if not (finals or provisionals or reversals or self.facts.tax or settled or corrected):
            return  # nothing was paid and nothing should have been (no correction either): no replay

        _rules(coup)
        try:
            state = coup_replay(coup, rows)
        except Exception as error:  # a step the engine refuses: the record itself is damaged
            self.differ("settlement", f"the engine cannot replay the recorded steps: {error}")
            return
        self.provisionals(state, provisionals, reversals)
        expected_tax = self.final(state, finals[0] if finals else None) if settled else None
        self.levy(expected_tax)

    def verdict_settlement(self, state: CoupProgress, cards: tuple[str, ...], what: str) -> Settlement | None:
        try:
            settlement = coup_verdict(self.coup, state, shoe_next=cards).settlement
        except Exception as error:
            self.differ("settlement", f"the engine cannot judge the {what}: {error}")
            return None
        if settlement is None:
            self.differ("settlement", f"the engine finds no settlement for the {what} (bets above the bank)")
        return settlement

    def provisionals(
        self, state: CoupProgress, provisionals: list[dict[str, Any]], reversals: list[dict[str, Any]]
    ) -> None:
        corrections = [r for r in self.facts.rows if r.kind == Step.CORRECTION]
        if len(corrections) != len(provisionals):
            self.differ(
                "settlement",
                f"{len(corrections)} correction(s) recorded but "
                f"{len(provisionals)} provisional settlement(s) posted",
            )
        for correction, txn in zip(corrections, provisionals, strict=False):
            cards = tuple(correction.payload.get("cards", []))
            settlement = self.verdict_settlement(state, cards, f"correction at step {correction.index}")
            forms = self.settlement_forms(settlement) if settlement is not None else None
            if forms is not None:
                self.compare(
                    txn, f"provisional settlement of the correction at step {correction.index}", forms
                )
        by_id = {t["id"]: t for t in provisionals}
        reversed_ids = {t["reverses_id"] for t in reversals}
        live = [t["id"] for t in provisionals if t["id"] not in reversed_ids]
        if self.coup.state == Coup.State.AWAITING_APPROVAL:
            if not provisionals or live != [provisionals[-1]["id"]]:
                self.differ(
                    "settlement",
                    "awaiting approval: the latest provisional settlement should stand alone, "
                    f"standing: {live or 'none'}",
                )
        elif live:
            self.differ(
                "settlement", f"the coup is {self.coup.state} but provisional settlement(s) {live} stand"
            )
        for txn in reversals:
            original = by_id.get(txn["reverses_id"])
            if original is None:
                self.differ(
                    "settlement",
                    f"reversal #{txn['id']} reverses #{txn['reverses_id']}, not a provisional of this coup",
                )
                continue
            negated = {pk: -a for pk, a in self.entries.get(original["id"], {}).items()}
            self.compare(
                txn, f"reversal of #{original['id']}", [negated, to_banker_wallet(negated, self.accounts)]
            )

    def final(self, state: CoupProgress, txn: dict[str, Any] | None) -> tuple[int, int] | None:
        """Check the final settlement; the levy (basis, amount) the engine says it carries."""
        rows = self.facts.rows
        approved = [r for r in rows if r.kind == Step.CORRECTION_APPROVED]
        if approved:
            correction = next((r for r in rows if r.pk == approved[-1].corrects_id), None)
            if correction is None:
                self.differ("settlement", "the approval names no correction of this coup")
                return None
            cards = tuple(correction.payload.get("cards", []))
            what = f"correction approved at step {approved[-1].index}"
            settlement = self.verdict_settlement(state, cards, what)
        else:
            what = "coup as played"
            try:
                verdict = coup_verdict(self.coup, state)
            except Exception as error:
                self.differ("settlement", f"the engine cannot judge the coup as played: {error}")
                return None
            if verdict.violations:
                codes = ", ".join(sorted({v.code.value for v in verdict.violations}))
                self.differ("settlement", f"settled without a correction, but the engine finds: {codes}")
            settlement = verdict.settlement
        if settlement is None:
            return None
        if txn is not None:
            forms = self.settlement_forms(settlement)
            if forms is not None:
                self.compare(txn, f"final settlement ({what})", forms)
        return (settlement.covered, settlement.tax) if settlement.tax else None

    def levy(self, expected: tuple[int, int] | None) -> None:
        recorded = self.facts.tax
        if recorded == expected:
            return
        engine = f"levy {expected[1]} on covered {expected[0]}" if expected else "no levy"
        ledger = f"BankTax {recorded[1]} on covered {recorded[0]}" if recorded else "no BankTax"
        self.differ("levy", f"engine {engine}; {ledger}")


def _coup_chunks(chunk: int) -> Iterator[list[Coup]]:
    last = 0
    while True:
        coups = list(
            Coup.objects.filter(pk__gt=last)
            .select_related("shoe__table", "banker")
            .only(
                "id", "number", "state", "rules_snapshot", "first_coup_of_bank", "banker_id", "banker__house",
                "shoe__number", "shoe__table_id", "shoe__table__casino_id",
            )
            .order_by("pk")[:chunk]
        )  # fmt: skip
        if not coups:
            return
        yield coups
        last = coups[-1].pk


def _check_coups(coups: list[Coup], report: BooksReport) -> None:
    facts = {c.pk: _CoupFacts(coup=c) for c in coups}
    ids = list(facts)
    for coup_id, *columns in (
        CoupStep.objects.filter(coup_id__in=ids)
        .annotate(text=Cast("payload", TextField()))
        .order_by("coup_id", "index")
        .values_list("coup_id", "id", "index", "kind", "text", "supersedes_id", "corrects_id")
    ):
        facts[coup_id].rows.append(cast(CoupStep, _StepRow(*columns)))
    players: set[int] = {c.banker_id for c in coups}
    for coup_id, seat_number, seat_player, spectator_id, spectator_player in Bet.objects.filter(
        coup_id__in=ids
    ).values_list("coup_id", "seat__number", "seat__player_id", "spectator_id", "spectator__player_id"):
        if seat_number is not None:
            facts[coup_id].punters[seat_key(seat_number)] = seat_player
            players.add(seat_player)
        else:
            facts[coup_id].punters[spectator_key(spectator_id)] = spectator_player
            players.add(spectator_player)
    coup_kinds = [TKind.COUP_SETTLEMENT, TKind.COUP_PROVISIONAL, TKind.COUP_REVERSAL]
    txn_ids: list[int] = []
    for txn in (
        Transaction.objects.filter(coup_id__in=ids, kind__in=coup_kinds)
        .order_by("pk")
        .values("id", "coup_id", "kind", "reverses_id")
    ):
        facts[txn["coup_id"]].txns.append(dict(txn))
        txn_ids.append(txn["id"])
    entries: dict[int, dict[int, int]] = {}
    for txn_id, account_id, amount in Entry.objects.filter(transaction_id__in=txn_ids).values_list(
        "transaction_id", "account_id", "amount"
    ):
        entries.setdefault(txn_id, {})[account_id] = amount
    for coup_id, basis, amount in BankTax.objects.filter(coup_id__in=ids).values_list(
        "coup_id", "basis", "amount"
    ):
        facts[coup_id].tax = (basis, amount)
    book = AccountBook.load(
        casinos={c.shoe.table.casino_id for c in coups},
        players=players,
        tables={c.shoe.table_id for c in coups},
        ids={pk for e in entries.values() for pk in e},
    )
    for coup in coups:
        _CoupCheck(facts[coup.pk], book, entries, report).run()


def coup_books_check(report: BooksReport, *, chunk: int = COUP_CHUNK) -> None:
    """Every coup's postings and levy against the engine's settlement of its recorded steps."""
    for coups in _coup_chunks(chunk):
        _check_coups(coups, report)
        report.coups += len(coups)


# ------------------------------------------------------------------------- fees and card money


def kind_chunks(kind: str, chunk: int) -> Iterator[tuple[list[dict[str, Any]], dict[int, dict[int, int]]]]:
    """The transactions of ``kind`` in id order, a chunk at a time, with their entries."""
    last = 0
    while True:
        txns: list[dict[str, Any]] = [
            dict(row)
            for row in Transaction.objects.filter(kind=kind, pk__gt=last)
            .order_by("pk")
            .values("id", "casino_id", "idempotency_key")[:chunk]
        ]
        if not txns:
            return
        entries: dict[int, dict[int, int]] = {t["id"]: {} for t in txns}
        for txn_id, account_id, amount in Entry.objects.filter(transaction_id__in=list(entries)).values_list(
            "transaction_id", "account_id", "amount"
        ):
            entries[txn_id][account_id] = amount
        yield txns, entries
        last = txns[-1]["id"]


def _accounts_of(entries: dict[int, dict[int, int]]) -> dict[int, tuple[str, int | None, str]]:
    ids = {pk for e in entries.values() for pk in e}
    return {
        pk: (kind, player, name)
        for pk, kind, player, name in Account.objects.filter(pk__in=ids).values_list(
            "id", "kind", "player_id", "name"
        )
    }


def _links_check(
    report: BooksReport, txns: list[dict[str, Any]], named: dict[int, tuple[int, str | None]], check: str
) -> None:
    """Each fee or card-money posting has its ``FeePosting`` (what the reports read), naming the
    session (and hour) its key names."""
    links = {
        txn_id: (session_id, hour)
        for txn_id, session_id, hour in FeePosting.objects.filter(
            transaction_id__in=[t["id"] for t in txns]
        ).values_list("transaction_id", "session_id", "hour_start")
    }
    for txn in txns:
        subject = f"transaction {txn['id']} ({txn['idempotency_key']})"
        link = links.get(txn["id"])
        if link is None:
            report.add(Difference(subject, check, "no FeePosting ties it to its session"))
            continue
        session_id, hour = link
        linked = (session_id, hour.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if hour else None)
        if txn["id"] in named and named[txn["id"]] != linked:
            report.add(
                Difference(subject, check, f"its FeePosting names {linked}, its key {named[txn['id']]}")
            )


_FEE_KEY = re.compile(r"^hourly_fee:session:(?P<session>\d+):(?:table|player:\d+):(?P<hour>.+)$")


def fee_books_check(report: BooksReport, *, chunk: int = CHUNK) -> None:
    """Hourly fees: each posting takes from players what the fee account receives and is linked to
    the session and hour its key names (``FeePosting``), and each billed hour (``FeeHour``) totals
    what its postings charged."""
    charged: dict[tuple[int, str], int] = {}
    for txns, entries in kind_chunks(TKind.HOURLY_FEE, chunk):
        accounts = _accounts_of(entries)
        keyed: dict[int, tuple[int, str | None]] = {}
        for txn in txns:
            if named := _FEE_KEY.match(txn["idempotency_key"]):
                keyed[txn["id"]] = (int(named["session"]), named["hour"])
        _links_check(report, txns, keyed, "fee")
        for txn in txns:
            subject = f"transaction {txn['id']} ({txn['idempotency_key']})"
            named = _FEE_KEY.match(txn["idempotency_key"])  # tables.money.fees._fee_key
            moved = entries[txn["id"]]
            fee = {pk: a for pk, a in moved.items() if accounts.get(pk, ("",))[0] == Kind.FEE}
            paid = {pk: a for pk, a in moved.items() if accounts.get(pk, ("",))[0] == Kind.PLAYER}
            if len(fee) != 1 or len(fee) + len(paid) != len(moved) or any(a >= 0 for a in paid.values()):
                report.add(
                    Difference(
                        subject, "fee", "an hourly fee moves chips from players to the fee account only"
                    )
                )
            if named is None:
                report.add(Difference(subject, "fee", "its key names no session and hour"))
                continue
            hour = (int(named["session"]), named["hour"])
            charged[hour] = charged.get(hour, 0) + sum(fee.values())
    for session_id, hour_start, total in (
        FeeHour.objects.order_by("pk")
        .values_list("session_id", "hour_start", "total")
        .iterator(chunk_size=chunk)
    ):
        label = hour_start.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # as the keys name it
        posted = charged.get((session_id, label), 0)
        if posted != total:
            report.add(
                Difference(
                    f"fee hour of session {session_id} at {label}",
                    "fee",
                    f"FeeHour total {total}, postings charged {posted}",
                )
            )


def card_money_books_check(report: BooksReport, *, chunk: int = CHUNK) -> None:
    """Card money: each charge takes from the player its key names, who sat at that session, gives
    it to the card money account, and is linked to that session (``FeePosting``)."""
    for txns, entries in kind_chunks(TKind.CARD_MONEY, chunk):
        accounts = _accounts_of(entries)
        named: dict[int, tuple[int, int]] = {}
        for txn in txns:
            parts = txn["idempotency_key"].split(":")  # card_money:session:S:player:P
            if len(parts) == 5 and parts[2].isdigit() and parts[4].isdigit():
                named[txn["id"]] = (int(parts[2]), int(parts[4]))
        _links_check(report, txns, {t: (s, None) for t, (s, _) in named.items()}, "card money")
        seated = set(
            Seat.objects.filter(session_id__in={s for s, _ in named.values()})
            .values_list("session_id", "player_id")
            .distinct()
        )
        for txn in txns:
            subject = f"transaction {txn['id']} ({txn['idempotency_key']})"
            if txn["id"] not in named:
                report.add(Difference(subject, "card money", "its key names no session and player"))
                continue
            session_id, player_id = named[txn["id"]]
            moved = entries[txn["id"]]
            shape = sorted((accounts.get(pk, ("", None, ""))[:2], a) for pk, a in moved.items())
            house = [a for (kind, _), a in shape if kind == Kind.CARD_MONEY]
            paid = [a for (kind, player), a in shape if kind == Kind.PLAYER and player == player_id]
            if len(shape) != 2 or len(house) != 1 or len(paid) != 1 or house[0] <= 0:
                report.add(
                    Difference(
                        subject,
                        "card money",
                        f"card money moves chips from player {player_id} to the card money account only",
                    )
                )
            if (session_id, player_id) not in seated:
                report.add(
                    Difference(subject, "card money", f"player {player_id} never sat at session {session_id}")
                )


# ------------------------------------------------------------------ the older games' coups and dues


def books_verify(report: BooksReport | None = None) -> BooksReport:
    """The whole verification: the ledger's half, every coup (chemin de fer's and the older
    games'), the fees, the card money, the reserve fund dues, and every bound row against its
    audit event."""
    report = report if report is not None else BooksReport()
    ledger_books_check(report)
    for wing in wings():  # each game's coups (chemin de fer's, the older games', their funds)
        for check in wing.books_checks():
            check(report)
    fee_books_check(report)
    card_money_books_check(report)
    bound_rows_check(report)
    return report

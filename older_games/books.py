"""Verifying the books of the older games (``verify_books``; docs/ledger.md): every coup's
postings against its recorded steps replayed by its game, and Landsknecht's reserve fund (its
dues and its return at the close). The floor's verification asks them through the game's wing
(tables.games); the account book and the chunked reads are the floor's (tables.money.books)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson
from django.db.models import TextField
from django.db.models.functions import Cast

from ledger.books import CHUNK, BooksReport, Difference, chips
from ledger.models import Account, Entry, Transaction
from older_games.engine import game_play
from older_games.engine.game_play import FUND, POOL, StepRefused
from older_games.selectors import game_coup_record_id
from older_games.services import coup_parties, coup_state, fund_paid_in, key_player_id, settlement_entries
from tables.models import GameCoup, GameStep, Seat, Table, TableSession
from tables.money.books import COUP_CHUNK, AccountBook, kind_chunks

TKind = Transaction.Kind
Kind = Account.Kind


def _game_coup_chunks(chunk: int) -> Iterator[list[GameCoup]]:
    last = 0
    while True:
        coups = list(GameCoup.objects.filter(pk__gt=last).select_related("table").order_by("pk")[:chunk])
        if not coups:
            return
        yield coups
        last = coups[-1].pk


class _GameCoupCheck:
    """The checks of one older game's coup against its recorded steps, replayed by its game's
    machine (older_games.engine.game_play): a settled coup has exactly the postings the settlement of
    the replay gives (older_games.services.settlement_entries, the posting code's own
    rule), and keeps the replay's record; a void or open coup has none."""

    def __init__(
        self,
        coup: GameCoup,
        steps: list[dict[str, Any]],
        txns: list[dict[str, Any]],
        book: AccountBook,
        entries: dict[int, dict[int, int]],
        report: BooksReport,
    ):
        self.coup, self.steps, self.txns, self.book, self.entries = coup, steps, txns, book, entries
        self.report = report
        self.subject = f"game coup {coup.pk} ({game_coup_record_id(coup)})"

    def differ(self, detail: str) -> None:
        self.report.add(Difference(self.subject, "game settlement", detail))

    def account_of(self, key: str) -> int:
        casino, table = self.coup.table.casino_id, self.coup.table_id
        if key == FUND:
            return self.book.find(casino, Kind.FUND, table=table)
        if key == POOL:
            return self.book.find(casino, Kind.POOL, table=table)
        return self.book.find(casino, Kind.PLAYER, player=key_player_id(key) or 0)

    def run(self) -> None:
        coup = self.coup
        posted = {t["kind"]: t for t in self.txns}
        if len(posted) != len(self.txns):  # the unique constraint forbids it: only a superuser could
            self.differ(f"{len(self.txns)} postings of {len(posted)} kinds")
        if coup.state != GameCoup.State.SETTLED:
            if self.txns:
                ids = ", ".join(f"#{t['id']}" for t in self.txns)
                self.differ(f"the coup is {coup.state} but the ledger has postings for it ({ids})")
            return
        if len(self.steps) != coup.step_count:
            self.differ(f"the coup counts {coup.step_count} steps but {len(self.steps)} are recorded")
        play = game_play.play_for(coup.game)
        try:
            state = coup_state(coup, self.steps)
        except Exception as error:  # a step the machine refuses: the record itself is damaged
            self.differ(f"the game's machine cannot replay the recorded steps: {error}")
            return
        if not play.finished(state):
            self.differ("the coup is settled but its recorded steps do not finish it")
            return
        if play.record(state) != coup.record:
            self.differ("the coup's record is not the record of its recorded steps")
        expected = settlement_entries(play.transfers(state), self.account_of)
        for kind in sorted(set(expected) | set(posted)):
            txn = posted.get(kind)
            if txn is None:
                self.differ(f"the coup is settled but the ledger has no {kind} posting for it")
                continue
            if kind not in expected:
                self.differ(f"{kind} #{txn['id']}: the replayed settlement makes no such posting")
                continue
            actual, want = self.entries.get(txn["id"], {}), expected[kind]
            if actual != want:
                name = self.book.name
                gaps = [
                    f"{name(pk)}: engine {chips(want.get(pk, 0))}, ledger {chips(actual.get(pk, 0))}"
                    for pk in sorted(set(want) | set(actual), key=lambda pk: (name(pk), pk))
                    if want.get(pk, 0) != actual.get(pk, 0)
                ]
                self.differ(f"{kind} #{txn['id']}: " + "; ".join(gaps))


def _check_game_coups(coups: list[GameCoup], report: BooksReport) -> None:
    ids = [c.pk for c in coups]
    steps: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    for coup_id, text in (
        GameStep.objects.filter(coup_id__in=ids)
        .annotate(text=Cast("payload", TextField()))
        .order_by("coup_id", "index")
        .values_list("coup_id", "text")
    ):
        steps[coup_id].append(orjson.loads(text))
    txns: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    for txn in (
        Transaction.objects.filter(game_coup_id__in=ids).order_by("pk").values("id", "game_coup_id", "kind")
    ):
        txns[txn["game_coup_id"]].append(dict(txn))
    entries: dict[int, dict[int, int]] = {}
    for txn_id, account_id, amount in Entry.objects.filter(
        transaction_id__in=[t["id"] for ts in txns.values() for t in ts]
    ).values_list("transaction_id", "account_id", "amount"):
        entries.setdefault(txn_id, {})[account_id] = amount
    players = set()
    for c in coups:
        try:  # the seating and every player its steps name (an old baccarat newcomer who joined)
            keys = coup_parties(c, steps[c.pk])
        except StepRefused:  # an undo with nothing to take back: the replay names the damage
            keys = [c.seating.get("banker", ""), *c.seating.get("punters", ())]
        players |= {pid for key in keys if (pid := key_player_id(key)) is not None}
    book = AccountBook.load(
        casinos=set(),
        players=players,
        tables={c.table_id for c in coups},
        ids={pk for e in entries.values() for pk in e},
    )
    for coup in coups:
        _GameCoupCheck(coup, steps[coup.pk], txns[coup.pk], book, entries, report).run()


def game_coup_books_check(report: BooksReport, *, chunk: int = COUP_CHUNK) -> None:
    """Every older game's coup's postings against its recorded steps replayed by its game."""
    for coups in _game_coup_chunks(chunk):
        _check_game_coups(coups, report)
        report.game_coups += len(coups)


def _fund_chunks(
    kind: str, key: re.Pattern[str], chunk: int
) -> Iterator[
    tuple[
        list[dict[str, Any]],
        dict[int, dict[int, int]],
        dict[int, Any],
        dict[int, re.Match[str]],
        dict[int, TableSession],
    ]
]:
    """The reserve fund's postings of ``kind``, a chunk at a time, with what their checks read: the
    accounts their entries move (id -> kind, player, table), each posting's key as ``key`` reads
    it (the session, the player), and those sessions with their tables."""
    for txns, entries in kind_chunks(kind, chunk):
        accounts = {
            pk: (account_kind, player, table)
            for pk, account_kind, player, table in Account.objects.filter(
                pk__in={pk for e in entries.values() for pk in e}
            ).values_list("id", "kind", "player_id", "table_id")
        }
        named = {t["id"]: m for t in txns if (m := key.match(t["idempotency_key"]))}
        sessions = {
            s.pk: s
            for s in TableSession.objects.filter(
                pk__in={int(m["session"]) for m in named.values()}
            ).select_related("table")
        }
        yield txns, entries, accounts, named, sessions


_FUND_DUE_KEY = re.compile(r"^fund-due:(?P<session>\d+):(?P<player>\d+)$")


def fund_due_books_check(report: BooksReport, *, chunk: int = CHUNK) -> None:
    """Landsknecht's fund dues: each posting takes exactly the table's due from the player its key
    names, who sat at that session, into that table's reserve fund, once per player and session."""
    for txns, entries, accounts, named, sessions in _fund_chunks(TKind.FUND_DUE, _FUND_DUE_KEY, chunk):
        seated = set(
            Seat.objects.filter(session_id__in=sessions).values_list("session_id", "player_id").distinct()
        )
        for txn in txns:
            subject = f"transaction {txn['id']} ({txn['idempotency_key']})"
            match = named.get(txn["id"])
            session = sessions.get(int(match["session"])) if match else None
            if match is None or session is None:
                report.add(Difference(subject, "fund due", "its key names no session and player"))
                continue
            player_id, table = int(match["player"]), session.table
            if (session.pk, player_id) not in seated:
                report.add(
                    Difference(subject, "fund due", f"player {player_id} never sat at session {session.pk}")
                )
            if table.game != Table.Game.LANDSKNECHT:
                report.add(Difference(subject, "fund due", f"{table.name} is not a Landsknecht table"))
                continue
            try:
                due = game_play.play_for(table.game).settings(table.game_settings or {}).fund_due
            except StepRefused as error:
                report.add(Difference(subject, "fund due", f"{table.name}'s house settings: {error}"))
                continue
            moved = sorted((accounts.get(pk, ("?", None, None)), a) for pk, a in entries[txn["id"]].items())
            want = sorted([((Kind.FUND, None, table.pk), due), ((Kind.PLAYER, player_id, None), -due)])
            if moved != want:
                shown = ", ".join(
                    f"{kind} {'player ' + str(p) if p else 'table ' + str(t)} {chips(a)}"
                    for (kind, p, t), a in moved
                )
                report.add(
                    Difference(
                        subject,
                        "fund due",
                        f"moves [{shown}], not {due} from player {player_id} into the fund of {table.name}",
                    )
                )


_FUND_RETURN_KEY = re.compile(r"^fund-return:(?P<session>\d+)$")


def fund_return_books_check(report: BooksReport, *, chunk: int = CHUNK) -> None:
    """Landsknecht's fund returns: each posting empties the fund of the session's table by what
    it held and gives each player who paid dues at that session what the house's rule gives him
    (the game's own ``fund_return``, as the close posted it)."""
    for txns, entries, accounts, named, sessions in _fund_chunks(TKind.FUND_RETURN, _FUND_RETURN_KEY, chunk):
        for txn in txns:
            subject = f"transaction {txn['id']} ({txn['idempotency_key']})"
            match = named.get(txn["id"])
            session = sessions.get(int(match["session"])) if match else None
            if session is None:
                report.add(Difference(subject, "fund return", "its key names no session"))
                continue
            table = session.table
            moved: dict[tuple[str, int | None, int | None], int] = {
                accounts.get(pk, ("?", None, None)): a for pk, a in entries[txn["id"]].items()
            }
            fund = moved.pop((str(Kind.FUND), None, table.pk), 0)
            try:
                play = game_play.play_for(table.game)
                record = play.fund_return(
                    play.settings(table.game_settings or {}), fund_paid_in(session), -fund
                )
            except StepRefused as error:
                report.add(Difference(subject, "fund return", f"{table.name}: {error}"))
                continue
            want = {(Kind.PLAYER, key_player_id(r["player"]), None): r["amount"] for r in record["returned"]}
            if fund >= 0 or moved != want:
                shown = ", ".join(
                    f"{k} {p or t} {chips(a)}" for (k, p, t), a in sorted(moved.items(), key=str)
                )
                report.add(
                    Difference(
                        subject,
                        "fund return",
                        f"takes {-fund} from the fund of {table.name} and gives [{shown}], "
                        f"not what its payers' dues give: {record['returned']}",
                    )
                )

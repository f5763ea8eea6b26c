"""The batched writer behind ``import_coups``: many records in one transaction, the same rows.

Importing record by record through the tablet's services (``imports.coup_import``) costs about 275
SQL queries a coup: every step locks the table, shoe and coup rows again, replays the coup from its
rows, checks the croupier's shift, counts the shoe's cards… (docs/benchmarks.md, "import_coups").
Here the table is locked once for a chunk of records, the floor's state (session, shoe and its
cards, bank turn, seats, the accounts involved with their balances) is read once, and each record
is played in memory through the same engine calls and the same money rules as the services, in the
same order:

- the engine: ``new_coup``/``apply`` on each step the services would record (historical coups),
  ``coup_verdict`` at the reveal, ``coup_restore`` for a correction;
- the ledger: the same postings (keys, kinds, entries from tables/money/rules.py, memos, the
  same refusals when chips are short), balances moved by their net in one UPDATE;
- the audit chain: the same events, in the same order, with the same content, recorded with
  ``audit_record`` (appended at COMMIT, as every transaction's; with one COPY when they are many);
  every row an event binds is bound by the values this writer sends (``audit.rows.RowWritten``,
  as the steps' own writes are), not read back at COMMIT: the rows are new, and nothing but this
  writer changes them before the COMMIT.

The rows are then written with one bulk INSERT a model (their ids taken from the sequences
beforehand, so that every event and posting can name them as it is built).

A record that names a player not at the table yet has him created, bought in (at the cage, with
``ledger.cage_buy_in``'s account opening and posting, and as that does, without the cage desk's
compliance check) and seated or standing here, before the record is played, as the record-at-a-time
path does it (``imports._Importer``, the same rows and events in the same order). Only what that
path does beyond it (the imported banker moving over, a seat already taken, card money at a
club, no ``buy_in``, a player who may not be registered) goes to the services
(``imports._newcomers_import``), after the batch has written what it holds. What this writer does
not handle at all it leaves to the record-at-a-time path (``coup_import``), after writing what it
holds: a shoe to start, a banco suivi, a club bank share —
rare in a history — and each time the state is read afresh afterwards. A record the services would
refuse is refused here with the same message, and nothing of it is kept
(``_Batch.mark``/``rewind``).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.db.models import Model, Q
from django.utils import timezone

from audit.rows import RowSpec, RowWritten
from audit.services import audit_pending_mark, audit_pending_rewind, audit_record, rows_copy
from audit.snapshot import model_snapshot
from chemin_de_fer.engine.coup import CoupRecord, NeedsCards, Restored, Settlement, Verdict, Violation
from chemin_de_fer.engine.interchange import restored_to_dict, settlement_to_dict, verdict_to_dict
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import CoupProgress, IllegalStep, Move, Step, apply, new_coup, record_steps
from chemin_de_fer.engine.order import SPECTATOR_TURN, betting_turn
from chemin_de_fer.engine.profiles import BUILTIN, LevyMode, Profile, Side
from chemin_de_fer.engine.punters import key_seat_number, seat_key, spectator_key
from chemin_de_fer.engine.settlement import BancoCaller, LevyTerms, banco_winner
from core.model_kit import model_new
from ledger.models import Account, Entry, Transaction
from ledger.services import Posting, postings_check
from ledger.services.accounts import account_name
from ledger.sql import accounts_lock, entries_post
from tables.engine_bridge import (
    banker_key,
    coup_restore,
    coup_verdict,
    rules_snapshot,
    snapshot_rules,
)
from tables.lifecycle import coup_state_set, shoe_transition_check
from tables.models import (
    BankShare,
    BankTax,
    BankTurn,
    Bet,
    Coup,
    CoupStep,
    ImportedRecord,
    Player,
    RuleProfile,
    Seat,
    SessionPause,
    Shoe,
    ShoeCard,
    Spectator,
    Table,
    TableSession,
    rules_digest,
)
from tables.money import rules as money_rules
from tables.money.banks import bank_holder_id
from tables.permissions import check_works_for, is_croupier_at
from tables.perms import ADD_PLAYER
from tables.services.rules_snapshots import rules_snapshot_keep

Kind = Account.Kind
TKind = Transaction.Kind
IMPORT_PREFIX = "IMP-"
BANKER_NAME = "banker"
#: the imported banker's membership number: outside the punters' ``IMP-<name>`` numbers, so that a
#: punter a record names ``banker`` is a player of his own, not the importer's banker (tables
#: imported before this kept ``IMP-banker``: that player is now the punter named ``banker``)
BANKER_NUMBER = "IMP:banker"


class NeedsServices(Exception):
    """This record needs what only the record-at-a-time services do (create or seat a player,
    start a shoe, open an account…): flush and hand it over to ``coup_import``."""


class _Ids:
    """Primary keys taken from a model's sequence ahead of the INSERT, a block at a time (a block
    not used up leaves a gap, as a rolled-back INSERT does)."""

    def __init__(self, model: type[Model]) -> None:
        self.table = model._meta.db_table
        self.free: list[int] = []
        self.block = 64

    def take(self) -> int:
        if not self.free:
            self.free = sorted(ids_reserve(self.table, self.block), reverse=True)
            self.block = min(self.block * 2, 4096)
        return self.free.pop()


def _transaction_start() -> dt.datetime | None:
    """PostgreSQL's ``now()``: when this database transaction started (None on SQLite)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        started: dt.datetime = cursor.fetchone()[0]
        return started


def ids_reserve(table: str, count: int) -> list[int]:
    """``count`` primary keys of ``table`` that no other INSERT will take, for rows written later.

    PostgreSQL: ``nextval`` of the table's sequence. SQLite (``make run``): the table's id is an
    AUTOINCREMENT key (Django's), which never goes below the ``sqlite_sequence`` mark SQLite keeps
    per table; raising that mark by ``count`` reserves the block, as ``nextval`` does, and the
    transaction already holds the database's write lock (BEGIN IMMEDIATE), so no other writer
    reads the mark in between."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, count]
            )
            return [row[0] for row in cursor.fetchall()]
        quoted = connection.ops.quote_name(table)
        cursor.execute(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = %s), 0), "
            f"coalesce((SELECT max(id) FROM {quoted}), 0))",
            [table],
        )
        top = int(cursor.fetchone()[0])
        cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [top + count, table])
        if cursor.rowcount == 0:  # the table never had a row
            cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, top + count])
        return list(range(top + 1, top + count + 1))


@dataclass
class _Coup:
    """A coup being played in memory: its row, its rows to come, its engine state."""

    row: Coup
    progress: CoupProgress
    steps: list[CoupStep] = field(default_factory=list)
    bets: list[Bet] = field(default_factory=list)
    punters: dict[str, Player] = field(default_factory=dict)  # every bet's punter key → player


class _Batch:
    """The floor's state of one table, held in memory for a chunk of records, and the rows to
    write. Built inside the chunk's transaction, after the table's row lock."""

    def __init__(self, *, actor: Any, table: Table, buy_in: int) -> None:
        self.actor = actor
        self.table = table
        self.casino = table.casino
        self.buy_in = buy_in
        self.table_profile = RuleProfile.objects.get(pk=table.profile_id)
        self.profiles: dict[str, Profile] = {}
        self.rules: dict[str, Rules] = {}
        self.snapshots: set[str] = set()  # the rules snapshots this batch has written or found
        # a record's terms (profile, chip unit, house limit) -> its rules snapshot and digest
        self.terms: dict[tuple[str, int, int | None], tuple[dict[str, Any], str]] = {}
        self.may_register: bool | None = None  # setup.player_create's checks, asked once
        # a ledger transaction's posted_at is the database's time at its INSERT (db_default
        # Now()): on PostgreSQL the start of this database transaction, read once and written as
        # that same value, so that the row is known as written and bound by its values like the
        # others (audit.rows.RowWritten); on SQLite Now() is the statement's, read back at COMMIT
        self.posted_at = _transaction_start()
        self.reset_rows()
        self.reload()

    # ------------------------------------------------------------------------------- state
    @property
    def _shoe(self) -> Shoe:
        assert self.shoe is not None
        return self.shoe

    @property
    def open_session(self) -> TableSession:
        assert self.session is not None
        return self.session

    def reset_rows(self) -> None:
        self.coups: list[Coup] = []
        self.steps: list[CoupStep] = []
        self.bets: list[Bet] = []
        self.cards: list[ShoeCard] = []
        self.taxes: list[BankTax] = []
        self.turns_new: list[BankTurn] = []
        self.shoes_new: list[Shoe] = []
        self.txns: list[Transaction] = []
        self.entries: list[Entry] = []
        self.records: list[ImportedRecord] = []
        self.players_new: list[Player] = []
        self.accounts_new: list[Account] = []
        self.seats_new: list[Seat] = []
        self.spectators_new: list[Spectator] = []
        self.moved: dict[int, int] = {}  # account id → net chips moved since the last write

    def reload(self) -> None:
        """Read the table's state afresh (at the start, and after the services wrote)."""
        self.active = False
        # ids taken from now on come after whatever the services just created: at a table, ids
        # follow creation order (the ledger reads "a later coup" and "the bank's last banker" so)
        # (bets, cards and levies too: each is bound to its audit event by id, as the services do)
        self.ids = {
            model: _Ids(model)
            for model in (
                Coup,
                CoupStep,
                Transaction,
                BankTurn,
                Shoe,
                Bet,
                ShoeCard,
                BankTax,
                Player,
                Account,
                Seat,
                Spectator,
                Entry,
            )
        }
        self.shoe: Shoe | None = None
        self.shoe_loaded: Shoe | None = None
        self.shoe_dirty = False  # the open shoe read here was closed (saved by ``write``)
        self.shoe_seen: Counter[str] = Counter()
        self.shoe_dealt = self.coup_number = self.shoe_number = 0
        self.turn: BankTurn | None = None
        self.turn_loaded: BankTurn | None = None
        self.turn_dirty = False  # the open turn read here was changed (saved by ``write``)
        self.session = (
            TableSession.objects.select_for_update().filter(table=self.table, closed_at__isnull=True).first()
        )
        if self.session is None or not is_croupier_at(self.actor, self.table):
            return
        if audit_pending_mark() is None:
            return  # events appended at once: a refused record's could not be taken back
        session = self.session
        if (
            SessionPause.objects.filter(session=session, ended_at__isnull=True).exists()
            or Coup.objects.filter(shoe__session=session, state=Coup.State.OPEN).exists()
            or BankShare.objects.filter(turn__session=session, withdrawn__isnull=True).exists()
        ):
            return  # the services say what is wrong (or know what to do)
        self.shoe = self.shoe_loaded = (
            Shoe.objects.select_for_update().filter(table=self.table, state=Shoe.State.OPEN).first()
        )
        if self.shoe is not None:
            seen = list(ShoeCard.objects.filter(shoe=self.shoe).values_list("card", flat=True))
            self.shoe_seen = Counter(seen)
            self.shoe_dealt = len(seen)
            coups = Coup.objects.filter(shoe=self.shoe).values_list("number", flat=True)
            self.coup_number = max(coups, default=0)
        shoes = Shoe.objects.filter(session=session).values_list("number", flat=True)
        self.shoe_number = max(shoes, default=0)  # the session's last shoe
        self.turn = self.turn_loaded = (
            BankTurn.objects.select_related("seat", "player")
            .filter(session=session, ended_at__isnull=True)
            .first()
        )
        self.seats = {
            s.player_id: s
            for s in Seat.objects.filter(session=session, left_at__isnull=True).select_related("player")
        }
        self.standing = {
            s.player_id: s
            for s in Spectator.objects.filter(session=session, left_at__isnull=True).select_related("player")
        }
        self.players = {
            p.membership_number: p
            for p in Player.objects.filter(
                Q(membership_number__startswith=IMPORT_PREFIX) | Q(membership_number=BANKER_NUMBER),
                casino=self.casino,
            )
        }
        owners = {s.player_id for s in self.seats.values()} | set(self.standing)
        if self.turn is not None:
            owners.add(self.turn.player_id)
        found = accounts_lock(
            self.casino.pk,
            {Kind.BANK: {self.table.pk}, Kind.LEVY: set(), Kind.PLAYER: owners, Kind.RESERVE: owners},
        )
        self.accounts = {(a.kind, a.player_id or a.table_id): a for a in found}
        self.by_pk = {a.pk: a for a in found}
        bank = self.accounts.get((Kind.BANK, self.table.pk))
        self.holder = bank_holder_id(bank=bank) if bank is not None else None
        # what each player has at stake in coups being played elsewhere (bet_check_affordable)
        self.staked: Counter[int] = Counter()
        for seat_player, standing_player, amount in Bet.objects.filter(
            coup__state=Coup.State.OPEN, withdrawn=False
        ).values_list("seat__player_id", "spectator__player_id", "amount"):
            self.staked[seat_player or standing_player] += amount
        self.active = True

    def mark(self) -> dict[str, Any]:
        """What a refused record must leave as it found."""
        return {
            "audit": audit_pending_mark(),
            "lens": {k: len(getattr(self, k)) for k in _ROW_LISTS},
            "moved": dict(self.moved),
            "balances": {pk: a.balance for pk, a in self.by_pk.items()},
            "holder": self.holder,
            "shoe": (self.shoe, Counter(self.shoe_seen), self.shoe_dealt, self.coup_number, self.shoe_number),
            "shoe_fields": _shoe_fields(self.shoe_loaded),
            "shoe_dirty": self.shoe_dirty,
            "turn": self.turn,
            "turn_fields": _turn_fields(self.turn),
            "loaded_fields": _turn_fields(self.turn_loaded),
            "turn_dirty": self.turn_dirty,
            # the people a record brought (newcomers): forgotten with it
            "people": (dict(self.players), dict(self.seats), dict(self.standing)),
            "accounts": (dict(self.accounts), dict(self.by_pk)),
        }

    def rewind(self, mark: dict[str, Any]) -> None:
        audit_pending_rewind(mark["audit"])
        for name, n in mark["lens"].items():
            del getattr(self, name)[n:]
        self.moved = mark["moved"]
        for pk, balance in mark["balances"].items():
            self.by_pk[pk].balance = balance
        self.holder = mark["holder"]
        self.shoe, self.shoe_seen, self.shoe_dealt, self.coup_number, self.shoe_number = mark["shoe"]
        _shoe_restore(self.shoe_loaded, mark["shoe_fields"])
        self.shoe_dirty = mark["shoe_dirty"]
        self.turn = mark["turn"]
        _turn_restore(self.turn, mark["turn_fields"])
        _turn_restore(self.turn_loaded, mark["loaded_fields"])
        self.turn_dirty = mark["turn_dirty"]
        self.players, self.seats, self.standing = mark["people"]
        self.accounts, self.by_pk = mark["accounts"]

    # ------------------------------------------------------------------------------- writing
    def write(self) -> None:
        """Insert what the records played so far wrote (their audit events wait for the COMMIT)."""
        if self.turn_dirty and self.turn_loaded is not None:  # first: one open bank a session
            self.turn_loaded.save(update_fields=["ended_at", "end_reason", "required_minimum"])
            self.turn_dirty = False
        if self.shoe_dirty and self.shoe_loaded is not None:  # first: one open shoe a table
            self.shoe_loaded.save(update_fields=["state", "closed_at", "close_reason", "early_reshuffle"])
            self.shoe_dirty = False
        rows_copy(Player, self.players_new)
        # opened empty, as accounts_lock opens them: the entries below move their balances
        rows_copy(Account, [_account_opened(a) for a in self.accounts_new])
        rows_copy(Seat, self.seats_new)
        rows_copy(Spectator, self.spectators_new)
        BankTurn.objects.bulk_create(self.turns_new)
        Shoe.objects.bulk_create(self.shoes_new)
        for model, objs in (
            (Coup, self.coups),
            (CoupStep, self.steps),
            (Bet, self.bets),
            (ShoeCard, self.cards),
            (BankTax, self.taxes),
            (Transaction, self.txns),
            (ImportedRecord, self.records),
        ):
            rows_copy(model, objs)
        entries_post(  # which moves the balances by self.moved
            [(e.transaction_id, e.account_id, e.amount) for e in self.entries],
            ids=[e.pk for e in self.entries],
        )
        self.reset_rows()
        if self.turn is not None and self.turn is not self.turn_loaded:
            self.turn_loaded = self.turn  # written now: later changes to it are UPDATEs
        self.shoe_loaded = self.shoe

    # ------------------------------------------------------------------------------- one record
    def fits(self, record: CoupRecord) -> bool:
        """Whether this record can be played here (else NeedsServices): everyone it names is at the
        table, the shoe can hold its cards, every account it may move is open."""
        return self.floor_fits(record) and self._people_fit(record)

    def floor_fits(self, record: CoupRecord) -> bool:
        """Whether the table itself lets this record be played here: the batch is active, its shoe
        is the session's imported one, and the record is no banco suivi. When this holds and only
        ``fits`` fails, what is missing is people (a player to create, seat, stand or buy in):
        the services seat them and the record is still played here (imports._record_import)."""
        if not self.active or self.shoe is None or record.banco_suivi:
            return False  # (a banco suivi: the services replay its claim)
        shoe = self.shoe
        # (a shoe that does not hold the record's cards is changed by coup_import)
        return shoe.imported and shoe.stop_card_position is None and shoe.session_id == self.open_session.pk

    def _people_fit(self, record: CoupRecord) -> bool:
        banker = self.players.get(BANKER_NUMBER)
        if banker is None or banker.pk not in self.seats:
            return False
        for bet in record.bets:
            player = self.players.get(_number(bet.punter))
            if player is None or player.pk not in (self.standing if bet.spectator else self.seats):
                return False
        return self._accounts_fit(record, banker)

    def _accounts_fit(self, record: CoupRecord, banker: Player) -> bool:
        """Every account the record may move is open (and locked by the batch)."""
        bankers = {banker.pk} | ({self.turn.player_id} if self.turn is not None else set())
        wanted = [(Kind.BANK, self.table.pk), (Kind.LEVY, None)]
        wanted += [(kind, pk) for pk in bankers for kind in (Kind.PLAYER, Kind.RESERVE)]
        wanted += [(Kind.PLAYER, self._player(b.punter).pk) for b in record.bets]
        return all(key in self.accounts for key in wanted)

    def _player(self, name: str) -> Player:
        return self.players[_number(name)]

    def _account(self, kind: str, owner: int | None = None) -> Account:
        return self.accounts[(kind, owner)]

    def profile(self, slug: str) -> Profile:
        """``imports.record_profile``, once a slug."""
        if slug not in self.profiles:
            row = RuleProfile.objects.filter(slug=slug).first()
            if row is not None:
                self.profiles[slug] = row.as_engine()
            elif slug in BUILTIN:
                self.profiles[slug] = BUILTIN[slug]
            else:
                raise ValidationError(f"unknown profile {slug!r}")
        return self.profiles[slug]

    def coup_import(
        self, *, record: CoupRecord, record_id: str, verdict: Verdict, profile: Profile
    ) -> tuple[Coup, bool]:
        """Play one record (``floor_fits`` said the table can): what ``imports.coup_import`` does,
        newcomers created, bought in and seated or standing first (NeedsServices where only the
        services know how)."""
        where = self._seat_punters(record)
        banker = self.players.get(BANKER_NUMBER)
        if banker is None or banker.pk not in self.seats:
            raise NeedsServices  # (the services create or seat him)
        banker_seat = self.seats[banker.pk]
        if banker_seat in set(where.values()) or not self._accounts_fit(record, banker):
            raise NeedsServices
        self._shoe_for(record)
        turn = self.turn
        holding = self._account(Kind.BANK, self.table.pk).balance
        if (
            turn is None
            or turn.seat_id != banker_seat.pk
            or turn.required_minimum > record.bank
            or holding > record.bank
        ):
            if turn is not None:
                self._bank_turn_end(turn, BankTurn.End.PASSED)
            turn = self._bank_turn_open(banker_seat, minimum=profile.min_bank)
        terms = (record.profile, record.chip_unit, record.house_limit)
        found = self.terms.get(terms)
        if found is None:  # most records of a history are played under the same terms
            snapshot = rules_snapshot(
                profile=profile,
                levy=LevyTerms.for_profile(profile, chip_unit=record.chip_unit),
                house_limit=record.house_limit,
            )
            found = self.terms[terms] = (snapshot, rules_digest(snapshot))
        coup = self._coup_start(turn, record, *found)
        for step in record_steps(record, banker=seat_key(banker_seat.number))[1:]:
            self._step(coup, step, where)
        restoration = verdict.restored
        restored = coup.row.state == Coup.State.AWAITING_CORRECTION and isinstance(restoration, Restored)
        if restored and isinstance(restoration, Restored):
            self._correction(coup, list(restoration.extra_cards))
        self.records.append(
            model_new(
                ImportedRecord,
                coup_id=coup.row.pk,
                table_id=self.table.pk,
                record_id=record_id,
                imported_at=timezone.now(),
            )
        )
        return coup.row, restored

    def _audit(self, **event: Any) -> None:
        """``audit_record`` by the actor, on this casino's chain: what ``chain_of`` finds from each
        target this batch writes (all of the table's casino), given rather than walked to."""
        audit_record(actor=self.actor, casino=self.casino.pk, **event)

    # ------------------------------------------------------------------------------- the people
    def _seat_punters(self, record: CoupRecord) -> dict[str, Seat | Spectator]:
        """``imports._Importer.seat_punters``: every punter of the record seated or standing,
        created and bought in first if new; punter name → Seat or Spectator."""
        where: dict[str, Seat | Spectator] = {}
        for bet in record.bets:
            if bet.punter in where:
                continue
            player = self._person(bet.punter)
            where[bet.punter] = self._stand(player) if bet.spectator else self._sit(player, bet.punter)
        return where

    def _person(self, name: str) -> Player:
        """``imports._Importer.player``: the imported player of that name, or a new one
        (``setup.player_create``) who buys ``buy_in`` chips at once (``ledger.cage_buy_in``)."""
        number = _number(name)
        player = self.players.get(number)
        if player is not None:
            if (Kind.PLAYER, player.pk) not in self.accounts:  # not at the table: his chips, locked
                self._accounts_lock({Kind.PLAYER: {player.pk}})
            return player
        display = name[:80].strip()
        # the services' own refusals (no name, no permission) and what they do with no buy-in
        # (an account opened later, by whichever posting needs it) are theirs to say and do
        if not display or number.strip() != number or not self.buy_in or not self._may_register():
            raise NeedsServices
        player = Player(
            pk=self.ids[Player].take(), casino=self.casino, display_name=display, membership_number=number
        )
        self.players_new.append(player)
        self.players[number] = player
        self._audit(action="tables.player.create", target=player, after=model_snapshot(player))
        # ledger.cage_buy_in: the cage's account and the player's (opened), then the posting
        cage = self.accounts.get((Kind.CAGE, None)) or self._accounts_lock({Kind.CAGE: set()})
        wallet = Account(
            pk=self.ids[Account].take(),
            casino_id=self.casino.pk,
            kind=Kind.PLAYER,
            player_id=player.pk,
            table_id=None,
            name=account_name(self.casino, Kind.PLAYER, player, None),
            opened_at=timezone.now(),
        )
        self._audit(action="ledger.account.open", target=wallet, after=model_snapshot(wallet))
        self.accounts_new.append(wallet)
        self.accounts[(Kind.PLAYER, player.pk)] = self.by_pk[wallet.pk] = wallet
        amount = self.buy_in
        entries = {cage.pk: -amount, wallet.pk: amount}
        self._post(TKind.BUY_IN, f"import:buy-in:{player.pk}", entries, f"buy-in {player}")
        return player

    def _may_register(self) -> bool:
        """Whether ``setup.player_create`` lets the actor register players at this casino."""
        if self.may_register is None:
            try:
                if not self.actor.has_perm(ADD_PLAYER):
                    raise PermissionDenied
                check_works_for(self.actor, self.casino.pk)
            except PermissionDenied:
                self.may_register = False
            else:
                self.may_register = True
        return self.may_register

    def _accounts_lock(self, owners: dict[str, set[int]]) -> Account:
        """Lock one more account (``ledger.sql.accounts_lock``), as the services' posting that
        first needs it does; NeedsServices if it is not open (the services open it)."""
        found = accounts_lock(self.casino.pk, owners)
        if len(found) != 1:
            raise NeedsServices
        account = found[0]
        self.accounts[(account.kind, account.player_id or account.table_id)] = account
        self.by_pk[account.pk] = account
        return account

    def _sit(self, player: Player, name: str) -> Seat:
        """``imports._Importer._sit`` then ``floor.seat_take`` (imported: no one-table check)."""
        current = self.seats.get(player.pk)
        if current is not None:
            return current
        occupied = {s.number for s in self.seats.values()}
        seat_count = self.table.seat_count
        number = key_seat_number(name)
        if number is not None and 1 <= number <= seat_count:
            wanted = number
            if wanted in occupied:  # the imported banker moves over, or the record is refused
                raise NeedsServices
        else:
            free = [n for n in range(1, seat_count + 1) if n not in occupied]
            if not free:
                raise NeedsServices
            wanted = free[0]
        if (
            len(self.seats) >= self.table_profile.seats_max
            or player.pk in self.standing
            or self.table_profile.levy_mode == LevyMode.CARD_MONEY  # card money on seating
        ):
            raise NeedsServices
        seat = Seat(
            pk=self.ids[Seat].take(),
            session=self.session,
            player=player,
            number=wanted,
            joined_at=timezone.now(),
        )
        self.seats_new.append(seat)
        self.seats[player.pk] = seat
        self._audit(
            action="tables.seat.take", target=seat, after=model_snapshot(seat), rows=[RowWritten(seat)]
        )
        return seat

    def _stand(self, player: Player) -> Spectator:
        """``imports._Importer._stand`` then ``floor.spectator_join`` (imported)."""
        present = self.standing.get(player.pk)
        if present is not None:
            return present
        if player.pk in self.seats:
            raise NeedsServices  # (refused by the services: he is seated)
        spectator = Spectator(
            pk=self.ids[Spectator].take(), session=self.session, player=player, joined_at=timezone.now()
        )
        self.spectators_new.append(spectator)
        self.standing[player.pk] = spectator
        self._audit(
            action="tables.spectator.join",
            target=spectator,
            after=model_snapshot(spectator),
            rows=[RowWritten(spectator)],
        )
        return spectator

    # ------------------------------------------------------------------------------- the shoe
    def _shoe_for(self, record: CoupRecord) -> None:
        """``imports._Importer.shoe_for``: the open imported shoe, or the next one when this record
        would show a card once more than it holds (``shoes.shoe_close``, ``shoes.shoe_start``)."""
        shoe = self.shoe
        assert shoe is not None
        needed = Counter(record.player.cards + record.banker.cards + record.shoe_next)
        if all(self.shoe_seen[c] + n <= shoe.decks for c, n in needed.items()):
            return
        before = model_snapshot(shoe)
        shoe_transition_check(shoe=shoe, to=Shoe.State.CLOSED)
        shoe.state, shoe.closed_at, shoe.close_reason = Shoe.State.CLOSED, timezone.now(), _NEXT_SHOE
        if shoe is self.shoe_loaded:
            self.shoe_dirty = True
        self._audit(
            action="tables.shoe.close",
            target=shoe,
            before=before,
            after=model_snapshot(shoe),
            rows=[RowWritten(shoe)],
        )
        self.shoe_number += 1
        new = Shoe(
            pk=self.ids[Shoe].take(),
            session=self.session,
            table=self.table,
            number=self.shoe_number,
            decks=IMPORT_DECKS,
            shuffled_at=timezone.now(),
            burnt_cards=[],
            state=Shoe.State.OPEN.value,
            imported=True,
        )
        self.shoes_new.append(new)
        self.shoe, self.shoe_seen, self.shoe_dealt, self.coup_number = new, Counter(), 0, 0
        self._audit(action="tables.shoe.start", target=new, after=model_snapshot(new), rows=[RowWritten(new)])

    # ------------------------------------------------------------------------------- the bank
    def _bank_turn_end(self, turn: BankTurn, reason: str) -> None:
        """``banks.bank_turn_end`` (no bank shares: ``reload`` leaves those to the services)."""
        before = model_snapshot(turn)
        turn.ended_at, turn.end_reason = timezone.now(), reason
        self._mark_turn_changed(turn)
        self.turn = None  # nobody holds the bank
        self._bank_close(turn)
        self._audit(
            action=f"tables.bank.{reason}",
            target=turn,
            before=before,
            after=model_snapshot(turn),
            rows=[RowWritten(turn)],
        )

    def _mark_turn_changed(self, turn: BankTurn) -> None:
        if turn is self.turn_loaded:
            self.turn_dirty = True

    def _bank_turn_open(self, seat: Seat, *, minimum: int) -> BankTurn:
        """``banks._open_turn`` of an imported bank."""
        turn = BankTurn(
            pk=self.ids[BankTurn].take(),
            session=self.session,
            player=seat.player,
            seat=seat,
            started_at=timezone.now(),
            started_how=BankTurn.Start.IMPORTED,
            required_minimum=minimum,
            rotation_from=seat,
        )
        self.turns_new.append(turn)
        self.turn = turn
        self._audit(
            action="tables.bank.take", target=turn, after=model_snapshot(turn), rows=[RowWritten(turn)]
        )
        return turn

    def _bank_after_coup(self, coup: _Coup, *, outcome: str, next_bank_min: int | None) -> None:
        """``banks.bank_after_coup`` for the coup just played (its bank has not moved on)."""
        turn = self.turn
        assert turn is not None and turn.pk == coup.row.bank_turn_id
        if outcome == "player":
            self._bank_turn_end(turn, BankTurn.End.LOST)
            return
        minimum = max(next_bank_min or 0, self.table_profile.min_bank)
        if minimum != turn.required_minimum:
            before = {"required_minimum": turn.required_minimum}  # the field changed (row_update_audited)
            turn.required_minimum = minimum
            self._mark_turn_changed(turn)
            self._audit(
                action="tables.bank.continue",
                target=turn,
                before=before,
                after={"required_minimum": minimum},
                rows=[RowWritten(turn)],
            )

    # ------------------------------------------------------------------------------- the ledger
    def _check_holder(self, bank: Account, banker: Player) -> None:
        """``banks.bank_check_holder``, on the holder this chunk keeps."""
        money_rules.bank_holder_check(
            holder_id=self.holder if bank.balance != 0 else None,
            banker=banker,
            bank_balance=bank.balance,
            table_name=self.table.name,
        )

    def _bank_close(self, turn: BankTurn) -> None:
        """``banks.bank_close`` of the bank ending."""
        banker = turn.player
        bank = self._account(Kind.BANK, self.table.pk)
        wallet, reserve = self._account(Kind.PLAYER, banker.pk), self._account(Kind.RESERVE, banker.pk)
        self._check_holder(bank, banker)
        side = money_rules.BankSide(bank=bank, wallet=wallet, reserve=reserve)
        entries = money_rules.bank_close_entries(side)
        if not entries:
            return
        memo = money_rules.bank_close_memo(side, banker=banker, table_name=self.table.name)
        self._post(TKind.BANK_CLOSE, f"bankturn:{turn.pk}:close", entries, memo)

    def _bank_fund(self, coup: Coup) -> None:
        """``banks.bank_fund`` of a declared bank (no spectators' shares)."""
        banker = coup.banker
        bank = self._account(Kind.BANK, self.table.pk)
        wallet, reserve = self._account(Kind.PLAYER, banker.pk), self._account(Kind.RESERVE, banker.pk)
        self._check_holder(bank, banker)
        increase = money_rules.bank_increase(bank_balance=bank.balance, coup_bank=coup.bank)
        if increase == 0:
            return
        borrowing = self.table_profile.borrowing_allowed  # floor.coup_borrowing: the coup's rules decide
        side = money_rules.BankSide(bank=bank, wallet=wallet, reserve=reserve)
        entries = money_rules.bank_fund_entries(
            side, increase=increase, coup=coup, banker=banker, borrowing=borrowing
        )
        memo = money_rules.bank_fund_memo(coup=coup, banker=banker)
        self._post(TKind.BANK_FUND, f"coup:{coup.pk}:bank", entries, memo, coup=coup, borrowing=borrowing)

    def _coup_settle(self, coup: _Coup, settlement: Settlement, *, key: str, provisional: bool) -> None:
        """``settlement.coup_settle`` of the coup just played (its bank is still in play)."""
        row = coup.row
        banker = row.banker
        punters = money_rules.settlement_punters(settlement=settlement, punters=coup.punters, banker=banker)
        accounts = money_rules.CoupAccounts(
            by_spec={},
            punters={k: self._account(Kind.PLAYER, p.pk) for k, p in punters.items()},
            bank=self._account(Kind.BANK, self.table.pk),
            reserve=self._account(Kind.RESERVE, banker.pk),
            wallet=self._account(Kind.PLAYER, banker.pk),
            levy=self._account(Kind.LEVY),
        )
        entries = money_rules.settlement_entries(
            settlement=settlement,
            accounts=accounts,
            uncovered_to_reserve=coup.progress.rules.profile.uncovered_to_reserve,
            house_limit=row.rules["house_limit"],
        )
        money_rules.settlement_at_stake_check(
            settlement=settlement,
            bank_balance=accounts.bank.balance,
            table_name=self.table.name,
            coup_number=row.number,
        )
        kind = TKind.COUP_PROVISIONAL if provisional else TKind.COUP_SETTLEMENT
        # floor.coup_borrowing: where the coup's rules let players borrow, a shortfall is a marker
        borrowing = coup.progress.rules.profile.borrowing_allowed
        self._post(
            kind,
            key,
            entries,
            money_rules.settlement_memo(settlement, coup_number=row.number),
            coup=row,
            borrowing=borrowing,
        )

    def _post(
        self,
        kind: str,
        key: str,
        entries: dict[int, int],
        memo: str,
        *,
        coup: Coup | None = None,
        borrowing: bool = False,
    ) -> None:
        """``posting.postings_write`` of one posting, on the balances this chunk carries."""
        postings_check(
            casino=self.casino,
            postings=[Posting(kind, key, entries)],
            accounts=self.by_pk,
            overdraft=list(entries) if borrowing else (),
        )
        txn = model_new(
            Transaction,
            id=self.ids[Transaction].take(),
            casino_id=self.casino.pk,
            kind=kind,
            actor_id=self.actor.pk if getattr(self.actor, "is_authenticated", False) else None,
            memo=memo[:300],
            idempotency_key=key,
            coup_id=coup.pk if coup is not None else None,
            **({"posted_at": self.posted_at} if self.posted_at is not None else {}),
        )
        self.txns.append(txn)
        bound: list[RowSpec] = [RowWritten(txn) if self.posted_at is not None else txn]
        for pk, amount in sorted(entries.items()):
            entry = model_new(
                Entry, id=self.ids[Entry].take(), transaction_id=txn.pk, account_id=pk, amount=amount
            )
            self.entries.append(entry)
            bound.append(RowWritten(entry))
            self.by_pk[pk].balance += amount
            self.moved[pk] = self.moved.get(pk, 0) + amount
        if coup is not None and self._account(Kind.BANK, self.table.pk).pk in entries:
            self.holder = coup.banker_id
        self._audit(
            action=f"ledger.transaction.{kind}",
            target=txn,
            after={
                "kind": kind,
                "idempotency_key": key,
                "memo": txn.memo,
                "coup": txn.coup_id,
                "coup_step": None,
                "reverses": None,
                "entries": [
                    {"account": pk, "name": self.by_pk[pk].name, "amount": amount}
                    for pk, amount in sorted(entries.items())
                ],
                "balances_after": {str(pk): self.by_pk[pk].balance for pk in sorted(entries)},
            },
            rows=bound,
        )

    # ------------------------------------------------------------------------------- the coup
    def _rules_snapshot(self, snapshot: dict[str, Any], digest: str) -> str:
        """The snapshot's digest (``rules_digest``), written once a batch (rules_snapshot_keep)."""
        if digest not in self.snapshots:
            rules_snapshot_keep(content=snapshot)
            self.snapshots.add(digest)
        return digest

    def _coup_start(self, turn: BankTurn, record: CoupRecord, snapshot: dict[str, Any], digest: str) -> _Coup:
        """``coups.coup_start`` of a historical coup."""
        rules = self.rules.get(record.profile)
        if rules is None:  # the profile's rules, compiled from the snapshot as coup_rules does
            rules = self.rules[record.profile] = snapshot_rules(snapshot)
        state = new_coup(
            rules,
            minimum_bank=turn.required_minimum,
            house_limit=snapshot["house_limit"],
            first_coup_of_bank=record.first_coup_of_bank,
            historical=True,
        )
        banker = banker_key(turn)
        try:
            state = apply(state, Step(Move.BANK_DECLARED, amount=record.bank, punter=banker))
        except IllegalStep as exc:
            raise ValidationError({"amount": str(exc)}) from None
        # a recorded bank under the profile's minimum is flagged (coups.coup_start)
        declared = [v.code.value for _, v in state.violations]
        now = timezone.now()
        self.coup_number += 1
        shoe = self._shoe
        row = _related(
            model_new(
                Coup,
                id=self.ids[Coup].take(),
                shoe_id=shoe.pk,
                number=self.coup_number,
                banker_id=turn.player.pk,
                bank=record.bank,
                bank_turn_id=turn.pk,
                rules_snapshot_id=self._rules_snapshot(snapshot, digest),
                first_coup_of_bank=record.first_coup_of_bank,
                step_count=1,
                flagged=bool(declared),
                created_at=now,
            ),
            shoe=shoe,
            banker=turn.player,
            bank_turn=turn,
        )
        setattr(row, "_engine_rules", rules)  # noqa: B010 (what engine_bridge.coup_rules memoises)
        self.coups.append(row)
        coup = _Coup(row=row, progress=state)
        payload: dict[str, Any] = {"amount": record.bank, "banker": banker, "minimum": turn.required_minimum}
        payload["historical"] = True
        step = model_new(
            CoupStep,
            id=self.ids[CoupStep].take(),
            coup_id=row.pk,
            index=1,
            kind=CoupStep.Kind.BANK_DECLARED,
            payload=payload,
            actor_id=self.actor.pk,
            created_at=now,
            violations=declared,
        )
        coup.steps.append(step)
        self.steps.append(step)
        self._bank_fund(row)
        self._audit(
            action="tables.coup.start",
            target=row,
            after={
                "shoe": self._shoe.pk,
                "number": row.number,
                "banker": turn.player_id,
                "step": 1,
                **payload,
                **({"violations": declared} if declared else {}),
            },
            rows=[RowWritten(row), RowWritten(step)],
        )
        return coup

    def _bettor(self, coup: _Coup, place: Seat | Spectator) -> tuple[str, Player, bool, int]:
        """``coups._bettor``: the punter key, player, whether standing, betting order."""
        if isinstance(place, Seat):
            banker_seat = coup.row.bank_turn.seat
            assert banker_seat is not None  # an imported history has no house bank
            order = betting_turn(
                seat=place.number,
                banker_seat=banker_seat.number,
                seat_count=self.table.seat_count,
                betting_from=Side(self.table_profile.betting_from),
            )
            return seat_key(place.number), place.player, False, order
        return spectator_key(place.pk), place.player, True, SPECTATOR_TURN

    def _check_affordable(self, coup: _Coup, player: Player, amount: int, *, banco: bool = False) -> None:
        """``floor.bet_check_affordable``: what he has at stake counts (this coup's live bets too)."""
        if coup.progress.rules.profile.borrowing_allowed:
            return
        staked = self.staked[player.pk]
        if not banco:
            staked += sum(b.amount for b in coup.bets if not b.withdrawn and _bet_player_id(b) == player.pk)
        balance = self._account(Kind.PLAYER, player.pk).balance
        money_rules.stake_check(player=player, balance=balance, amount=amount, already_staked=staked)

    def _step(self, coup: _Coup, step: Step, where: dict[str, Seat | Spectator]) -> None:
        """``coups.coup_step_record`` of one recorded step, confirmed."""
        kind = step.kind
        bet_place: Seat | Spectator | None = None
        if kind is Move.BET:
            assert step.punter is not None and step.amount is not None  # record_steps gives both
            place = where[step.punter]
            key, player, standing, order = self._bettor(coup, place)
            self._check_affordable(coup, player, step.amount)
            payload: dict[str, Any] = {
                "punter": key,
                "amount": step.amount,
                "spectator": standing,
                "order": order,
            }
            engine_step = Step(kind, amount=step.amount, punter=key, spectator=standing, order=order)
            bet_place = place
            coup.punters[key] = player
        elif kind is Move.BANCO:
            callers, people = [], []
            for c in step.callers:
                place = where[c.punter]
                key, player, standing, order = self._bettor(coup, place)
                callers.append(BancoCaller(key, spectator=standing, suivi=False, order=order))
                people.append((key, player, place))
            engine_step = Step(kind, callers=tuple(callers))
            winner_key = banco_winner(
                engine_step.callers, banco_suivi=coup.progress.rules.profile.banco_suivi
            ).punter
            winner = next(p for p in people if p[0] == winner_key)
            self._check_affordable(coup, winner[1], coup.row.bank, banco=True)
            payload = {
                "callers": [
                    {"punter": c.punter, "spectator": c.spectator, "suivi": c.suivi, "order": c.order}
                    for c in callers
                ],
                "winner": winner_key,
            }
            bet_place = winner[2]
            coup.punters[winner_key] = winner[1]
        elif kind in (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER):
            engine_step, payload = Step(kind, card=step.card), {"card": step.card}
        else:
            engine_step, payload = Step(kind), {}
        state = coup.progress
        try:
            new_state = apply(state, engine_step)
        except IllegalStep as exc:
            raise ValidationError(str(exc)) from None
        fresh = new_state.violations[len(state.violations) :]
        violation = fresh[0][1] if fresh else None
        verdict = None
        if kind is Move.REVEAL:
            verdict = coup_verdict(coup.row, new_state)
            payload["verdict"] = verdict_to_dict(verdict)
        row = self._step_append(coup, kind.value, payload, violation=violation)
        coup.progress = new_state
        bound: list[RowSpec] = [RowWritten(coup.row), RowWritten(row)]
        if bet_place is not None:
            bound += self._bet_write(coup, bet_place, banco=kind is Move.BANCO, amount=step.amount)
        if step.card is not None:
            role = ShoeCard.Role.PLAYER if kind is Move.CARD_TO_PLAYER else ShoeCard.Role.BANKER
            bound.append(RowWritten(self._card(coup, step.card, role)))
        if verdict is not None and (tax := self._reveal(coup, verdict)) is not None:
            bound.append(RowWritten(tax))
        self._audit(
            action="tables.coup.step",
            target=coup.row,
            after={"index": row.index, "kind": kind.value},  # the step itself: its bound row
            rows=bound,
        )

    def _step_append(
        self,
        coup: _Coup,
        kind: str,
        payload: dict[str, Any],
        *,
        violation: Violation | None = None,
        corrects: CoupStep | None = None,
    ) -> CoupStep:
        """``coups.step_append``."""
        row = coup.row
        index = row.step_count + 1
        step = model_new(
            CoupStep,
            id=self.ids[CoupStep].take(),
            coup_id=row.pk,
            index=index,
            kind=kind,
            payload=payload,
            actor_id=self.actor.pk,
            created_at=timezone.now(),
            violations=[violation.code.value] if violation else [],
            corrects_id=corrects.pk if corrects is not None else None,
        )
        row.step_count, row.flagged = index, row.flagged or violation is not None
        coup.steps.append(step)
        self.steps.append(step)
        return step

    def _bet_write(
        self, coup: _Coup, place: Seat | Spectator, *, banco: bool, amount: int | None
    ) -> list[RowSpec]:
        """``coups._bet_write``: the rows it writes (the bet; a banco, every bet of the coup, all of
        them this batch's: the coup is new), bound by their values."""
        seat, standing = (place, None) if isinstance(place, Seat) else (None, place)
        order = len(coup.bets) + 1
        if banco:
            for bet in coup.bets:
                bet.withdrawn = True
            amount, suivi = coup.row.bank, coup.progress.banco_suivi
        else:
            assert amount is not None
            suivi = False
        bet = _related(
            model_new(
                Bet,
                id=self.ids[Bet].take(),
                coup_id=coup.row.pk,
                seat_id=seat.pk if seat is not None else None,
                spectator_id=standing.pk if standing is not None else None,
                amount=amount,
                banco=banco,
                banco_suivi=suivi,
                betting_order=order,
            ),
            coup=coup.row,
            seat=seat,
            spectator=standing,
        )
        coup.bets.append(bet)
        self.bets.append(bet)
        return [RowWritten(b) for b in coup.bets] if banco else [RowWritten(bet)]

    def _card(self, coup: _Coup, card: str, role: str) -> ShoeCard:
        """``shoes.card_record`` on an imported shoe (``fits`` made sure it holds the card)."""
        self.shoe_dealt += 1
        self.shoe_seen[card] += 1
        seen = model_new(
            ShoeCard,
            id=self.ids[ShoeCard].take(),
            shoe_id=self._shoe.pk,
            position=self.shoe_dealt,
            card=card,
            coup_id=coup.row.pk,
            role=role,
            seen_at=timezone.now(),
        )
        self.cards.append(seen)
        return seen

    def _reveal(self, coup: _Coup, verdict: Verdict) -> BankTax | None:
        """``coups._reveal``: the levy row it writes, if any."""
        row = coup.row
        if verdict.violations:
            coup_state_set(coup=row, to=Coup.State.AWAITING_CORRECTION)
            return None
        settlement = verdict.settlement
        assert settlement is not None
        self._coup_settle(coup, settlement, key=f"coup:{row.pk}:settle", provisional=False)
        tax = None
        if settlement.tax:
            tax = BankTax(
                pk=self.ids[BankTax].take(), coup=row, basis=settlement.covered, amount=settlement.tax
            )
            self.taxes.append(tax)
        coup_state_set(coup=row, to=Coup.State.SETTLED)
        self._bank_after_coup(coup, outcome=verdict.outcome.value, next_bank_min=settlement.next_bank_min)
        return tax

    def _correction(self, coup: _Coup, cards: list[str]) -> None:
        """``corrections.correction_submit`` of the cards the record says came next."""
        row, state = coup.row, coup.progress
        restored = coup_restore(row, state, tuple(cards))
        if isinstance(restored, NeedsCards):
            n = restored.needs_cards
            cards_word = "card" if n == 1 else "cards"
            raise ValidationError(
                {"cards": f"The restored game needs {n} more {cards_word} from the shoe: deal them."}
            )
        if len(restored.extra_cards) < len(cards):
            used = len(restored.extra_cards)
            raise ValidationError(
                {"cards": f"The restored game takes {used} card(s) from the shoe, not {len(cards)}."}
            )
        settlement = coup_verdict(row, state, shoe_next=tuple(cards)).settlement
        if settlement is None:
            raise ValidationError(
                "The bets exceeded the bank: the coup cannot be settled; a pit boss voids it."
            )
        first_wrong = next(s for s in coup.steps if s.violations)
        step = self._step_append(
            coup,
            CoupStep.Kind.CORRECTION,
            {
                "cards": cards,
                "restored": restored_to_dict(restored),
                "settlement": settlement_to_dict(settlement),
            },
            corrects=first_wrong,
        )
        bound: list[RowSpec] = [RowWritten(row), RowWritten(step)]
        for card in restored.extra_cards:
            role = ShoeCard.Role.PLAYER if card in restored.player_cards[2:] else ShoeCard.Role.BANKER
            bound.append(RowWritten(self._card(coup, card, role)))
        self._coup_settle(coup, settlement, key=f"coup:{row.pk}:correction:{step.index}", provisional=True)
        coup_state_set(coup=row, to=Coup.State.AWAITING_APPROVAL)
        self._bank_after_coup(coup, outcome=restored.outcome.value, next_bank_min=settlement.next_bank_min)
        self._audit(
            action="tables.coup.correction_submit",
            target=row,
            after={"index": step.index, "corrects": first_wrong.index, **step.payload},
            rows=bound,
        )


_ROW_LISTS = (
    "coups",
    "steps",
    "bets",
    "cards",
    "taxes",
    "turns_new",
    "shoes_new",
    "txns",
    "entries",
    "records",
    "players_new",
    "accounts_new",
    "seats_new",
    "spectators_new",
)
#: what the services close an imported shoe with (imports._Importer.shoe_for)
_NEXT_SHOE = "imported history: next shoe"
#: the decks of an imported shoe (imports.IMPORT_DECKS)
IMPORT_DECKS = 8


_M = TypeVar("_M", bound=Model)


def _related(obj: _M, **related: Model | None) -> _M:
    """``obj`` (a ``model_new`` row, its relations named by id) with these related objects cached
    on it, as ``Model(**{name: object})`` keeps them: for what reads them later (a bet's seat, a
    coup's bank turn and banker), at a fraction of the ORM's ``__init__``, the import's many rows."""
    for name, value in related.items():
        obj._meta.get_field(name).set_cached_value(obj, value)  # type: ignore[union-attr]
    return obj


def _account_opened(account: Account) -> Account:
    """The row of an account the batch opened, as ``accounts_lock`` inserts it: empty."""
    return Account(
        pk=account.pk,
        casino_id=account.casino_id,
        kind=account.kind,
        player_id=account.player_id,
        table_id=account.table_id,
        name=account.name,
        opened_at=account.opened_at,
        balance=0,
    )


def _shoe_fields(shoe: Shoe | None) -> tuple[Any, ...] | None:
    return None if shoe is None else (shoe.state, shoe.closed_at, shoe.close_reason)


def _shoe_restore(shoe: Shoe | None, fields: tuple[Any, ...] | None) -> None:
    if shoe is not None and fields is not None:
        shoe.state, shoe.closed_at, shoe.close_reason = fields


def _number(name: str) -> str:
    """The membership number of an imported player (``imports._Importer.player``)."""
    return f"{IMPORT_PREFIX}{name}"[:40]


def _bet_player_id(bet: Bet) -> int:
    place = bet.seat if bet.seat is not None else bet.spectator
    assert place is not None  # a bet is made from a seat or by a spectator (bet_seat_xor_spectator)
    return place.player_id


def _turn_fields(turn: BankTurn | None) -> tuple[Any, ...] | None:
    return None if turn is None else (turn.ended_at, turn.end_reason, turn.required_minimum)


def _turn_restore(turn: BankTurn | None, fields: tuple[Any, ...] | None) -> None:
    if turn is not None and fields is not None:
        turn.ended_at, turn.end_reason, turn.required_minimum = fields

"""The chip ledger: double-entry accounts, transactions and entries.

Sign convention (docs/ledger.md): an account's balance is the chips it holds; an entry's amount is
positive when chips go *into* its account and negative when they leave it. Every transaction's
entries sum to zero, so the balances of a casino sum to zero too: the cage is the counterpart of
every chip in circulation and is the one account whose balance is normally negative.

What the database itself guarantees (constraints here, triggers in migration 0002):

- an entry is never zero, a transaction never touches one account twice, a key posts once;
- on PostgreSQL a deferred constraint trigger rejects, at COMMIT, a transaction whose entries do
  not sum to zero or that touches another casino's account;
- transactions and entries are append-only (UPDATE/DELETE/TRUNCATE refused);
  an account's only mutable column is ``balance``, and an account is never deleted;
- a balance never goes below zero, except the cage's and a player account's: a player account
  below zero is the player's marker (chips he owes the house), allowed only by a posting that
  says so (``ledger.services.postings_write``'s ``overdraft``: the game decides, from the rules the
  coup is played under, whether he may borrow).

The ledger imports nothing from the game floor: its foreign keys name the floor's models by label
("tables.Casino"), and the game's money rules (what a coup, a bank or a fee posts) live in
tables/money/.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Now

from core.model_kit import check_constraint, set_only_index, staff_reference, unique_constraint


class AccountKind(models.TextChoices):
    PLAYER = "player"  # the chips a player holds in front of him (not in play)
    BANK = "bank"  # the bank in play at one table
    RESERVE = "reserve"  # a banker's personal reserve (uncovered part, chips above the house limit)
    LEVY = "levy"  # the house's percentage levy on banker wins
    FEE = "fee"  # hourly fees
    CARD_MONEY = "card_money", "card money"  # club card money
    CAGE = "cage"  # counterpart of every chip in circulation
    FUND = "fund", "reserve fund"  # a Landsknecht table's reserve fund, paid in by every player
    POOL = "pool", "tie pool"  # an old baccarat table's pool for tied stakes (empty between coups)


PER_PLAYER_KINDS = (AccountKind.PLAYER, AccountKind.RESERVE)
#: the kinds owned by a table: its bank, and the older games' fund and pool
PER_TABLE_KINDS = (AccountKind.BANK, AccountKind.FUND, AccountKind.POOL)
PER_CASINO_KINDS = (AccountKind.LEVY, AccountKind.FEE, AccountKind.CARD_MONEY, AccountKind.CAGE)
#: the kinds whose balance may be below zero: the cage (every chip in circulation) and a player
#: (his marker, where a posting allowed it)
NEGATIVE_KINDS = (AccountKind.CAGE, AccountKind.PLAYER)


class Account(models.Model):
    Kind = AccountKind

    casino = models.ForeignKey("tables.Casino", on_delete=models.PROTECT, related_name="ledger_accounts")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    player = models.ForeignKey(
        "tables.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_accounts"
    )
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_accounts"
    )
    name = models.CharField(max_length=200)
    balance = models.BigIntegerField(default=0, help_text="maintained by ledger.services only")
    opened_at = models.DateTimeField()

    class Meta:
        ordering = ["casino", "kind", "name"]
        constraints = [
            check_constraint(Q(kind__in=AccountKind.values), "account_kind_valid", "Unknown account kind."),
            check_constraint(
                (Q(kind__in=PER_PLAYER_KINDS) & Q(player__isnull=False, table__isnull=True))
                | (Q(kind__in=PER_TABLE_KINDS) & Q(player__isnull=True, table__isnull=False))
                | (Q(kind__in=PER_CASINO_KINDS) & Q(player__isnull=True, table__isnull=True)),
                "account_owner_matches_kind",
                "Player and reserve accounts name a player; table accounts a table; the others neither.",
            ),
            check_constraint(
                Q(balance__gte=0) | Q(kind__in=NEGATIVE_KINDS),
                "account_balance_not_negative",
                "This account cannot hold fewer than zero chips.",
            ),
            unique_constraint(
                ["casino", "kind", "player"],
                "account_one_per_player_and_kind",
                "This player already has an account of this kind.",
                condition=Q(kind__in=PER_PLAYER_KINDS),
            ),
            unique_constraint(
                ["casino", "kind", "table"],
                "account_one_bank_per_table",
                "This table already has an account of this kind.",
                condition=Q(kind__in=PER_TABLE_KINDS),
            ),
            unique_constraint(
                ["casino", "kind"],
                "account_one_per_casino_and_kind",
                "This casino already has an account of this kind.",
                condition=Q(kind__in=PER_CASINO_KINDS),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class TransactionKind(models.TextChoices):
    BUY_IN = "buy_in", "buy-in at the cage"
    CASH_OUT = "cash_out", "cash-out at the cage"
    BANK_FUND = "bank_fund", "bank declared"
    COUP_SETTLEMENT = "coup_settlement", "coup settlement"
    COUP_PROVISIONAL = "coup_provisional", "provisional coup settlement"
    COUP_REVERSAL = "coup_reversal", "reversal of a provisional settlement"
    BANK_CLOSE = "bank_close", "bank closed"
    RESERVE_RETURN = "reserve_return", "reserve returned"
    HOURLY_FEE = "hourly_fee", "hourly fee"
    CARD_MONEY = "card_money", "card money"
    BANK_SHARE = "bank_share", "a spectator's share of a bank taken out"
    GAME_SETTLEMENT = "game_settlement", "game coup settlement"
    POOL_IN = "pool_in", "tied stakes into the pool"
    POOL_OUT = "pool_out", "the pool shared out"
    FUND_DUE = "fund_due", "reserve fund due"
    FUND_RETURN = "fund_return", "reserve fund returned"


COUP_KINDS = (
    TransactionKind.BANK_FUND,
    TransactionKind.BANK_SHARE,
    TransactionKind.COUP_SETTLEMENT,
    TransactionKind.COUP_PROVISIONAL,
    TransactionKind.COUP_REVERSAL,
)

#: the postings of an older game's coup (Macao, Landsknecht, old baccarat): they name it
GAME_COUP_KINDS = (TransactionKind.GAME_SETTLEMENT, TransactionKind.POOL_IN, TransactionKind.POOL_OUT)


class Transaction(models.Model):
    """One posting: a set of entries that sum to zero. Append-only; a mistake is reversed by a
    new transaction pointing at it (``reverses``), never edited."""

    Kind = TransactionKind
    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True

    casino = models.ForeignKey(
        "tables.Casino", on_delete=models.PROTECT, related_name="ledger_transactions", db_index=False
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # Set by the database (its clock, at the INSERT): the entry trigger accepts entries only while
    # posted_at is not earlier than the current database transaction's start, i.e. only from the
    # database transaction that created their transaction.
    posted_at = models.DateTimeField(db_default=Now())
    actor = staff_reference()
    memo = models.CharField(max_length=300, blank=True, default="")
    idempotency_key = models.CharField(max_length=200, unique=True)
    coup = models.ForeignKey(
        "tables.Coup", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_transactions"
    )
    # the three keys below are empty on most postings: each is indexed where set only (Meta;
    # ``reverses`` by its unique constraint, ``transaction_reversed_once``)
    coup_step = models.ForeignKey(
        "tables.CoupStep", db_index=False, null=True, blank=True, on_delete=models.PROTECT,
        related_name="ledger_transactions",
    )
    reverses = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversals", db_index=False
    )
    game_coup = models.ForeignKey(
        "tables.GameCoup", db_index=False, null=True, blank=True, on_delete=models.PROTECT,
        related_name="ledger_transactions",
    )

    class Meta:
        ordering = ["id"]
        # who may post buy-ins and cash-outs (the cashier role; checked by cage/permissions.py)
        permissions = [("operate_cage", "Can post buy-ins and cash-outs at the cage")]
        constraints = [
            check_constraint(
                Q(kind__in=TransactionKind.values), "transaction_kind_valid", "Unknown transaction kind."
            ),
            check_constraint(
                ~Q(idempotency_key=""), "transaction_key_set", "A transaction needs an idempotency key."
            ),
            check_constraint(
                Q(kind__in=COUP_KINDS, coup__isnull=False) | (~Q(kind__in=COUP_KINDS) & Q(coup__isnull=True)),
                "transaction_coup_matches_kind",
                "Bank and coup postings name their coup; the others none.",
            ),
            check_constraint(
                Q(kind=TransactionKind.COUP_REVERSAL, reverses__isnull=False)
                | (~Q(kind=TransactionKind.COUP_REVERSAL) & Q(reverses__isnull=True)),
                "transaction_reversal_names_original",
                "A reversal names the transaction it reverses (and only a reversal does).",
            ),
            check_constraint(
                ~Q(reverses=F("id")), "transaction_not_self_reversing", "A transaction cannot reverse itself."
            ),
            unique_constraint(
                ["reverses"],
                "transaction_reversed_once",
                "This transaction was already reversed.",
                condition=Q(reverses__isnull=False),
            ),
            unique_constraint(
                ["coup"],
                "transaction_coup_settled_once",
                "This coup is already settled.",
                condition=Q(kind=TransactionKind.COUP_SETTLEMENT),
            ),
            check_constraint(
                Q(kind__in=GAME_COUP_KINDS, game_coup__isnull=False)
                | (~Q(kind__in=GAME_COUP_KINDS) & Q(game_coup__isnull=True)),
                "transaction_game_coup_matches_kind",
                "An older game's coup postings name their coup; the others none.",
            ),
            unique_constraint(
                ["game_coup", "kind"],
                "transaction_game_coup_posted_once",
                "This coup is already settled.",
                condition=Q(kind__in=GAME_COUP_KINDS),
            ),
        ]
        indexes = [
            models.Index(fields=["casino", "kind", "posted_at"], name="ledger_txn_casino_kind_idx"),
            set_only_index("coup_step", "txn_coup_step_set_idx"),
            set_only_index("game_coup", "txn_game_coup_set_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"


class Entry(models.Model):
    #: bound to the audit events that write it (audit.rows: its digest in the event)
    AUDIT_BOUND = True
    transaction = models.ForeignKey(
        Transaction, on_delete=models.PROTECT, related_name="entries", db_index=False
    )
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries", db_index=False)
    amount = models.BigIntegerField(help_text="chips into the account (+) or out of it (-)")

    class Meta:
        ordering = ["transaction", "id"]
        verbose_name_plural = "entries"
        constraints = [
            check_constraint(~Q(amount=0), "entry_amount_not_zero", "An entry moves at least one chip."),
            unique_constraint(
                ["transaction", "account"],
                "entry_one_per_account_per_transaction",
                "A transaction touches each account once.",
            ),
        ]
        indexes = [models.Index(fields=["account", "transaction"], name="ledger_entry_account_idx")]

    def __str__(self) -> str:
        return f"{self.amount:+d} {self.account}"


class BooksVerificationStatus(models.TextChoices):
    RUNNING = "running"
    OK = "ok", "OK"
    DIFFERENCES = "differences"
    ABANDONED = "abandoned"  # a run that never finished (its worker died): the next one replaces it


class BooksVerification(models.Model):
    """One run of ``verify_books`` (the nightly task's, or the command's with ``--record``): what it
    checked and the differences it found, for the pit boss's dashboard beside the audit chain's
    ``ChainVerification``. A row is written RUNNING when a run starts and finished once; at most one
    run is RUNNING at a time (the status guard that keeps a redelivered task from running twice)."""

    Status = BooksVerificationStatus

    requested_by = staff_reference(help_text="empty: the nightly run")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RUNNING)
    coups_checked = models.PositiveBigIntegerField(default=0)
    transactions_checked = models.PositiveBigIntegerField(default=0)
    accounts_checked = models.PositiveBigIntegerField(default=0)
    difference_count = models.PositiveBigIntegerField(default=0)
    differences = models.JSONField(default=list, blank=True, help_text="the first differences found")

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            check_constraint(
                Q(status__in=BooksVerificationStatus.values),
                "booksverification_status_valid",
                "Unknown verification status.",
            ),
            check_constraint(
                Q(status=BooksVerificationStatus.RUNNING, finished_at__isnull=True)
                | (~Q(status=BooksVerificationStatus.RUNNING) & Q(finished_at__gte=F("started_at"))),
                "booksverification_finished_matches_status",
                "A finished verification has a finishing time after its start; a running one none.",
            ),
            check_constraint(
                ~Q(status=BooksVerificationStatus.OK) | Q(difference_count=0),
                "booksverification_ok_without_differences",
                "A verification is OK only when it found no difference.",
            ),
            check_constraint(
                ~Q(status=BooksVerificationStatus.DIFFERENCES) | Q(difference_count__gt=0),
                "booksverification_differences_counted",
                "A verification with differences counts them.",
            ),
            unique_constraint(
                ["status"],
                "booksverification_one_running",
                "A verification of the books is already running.",
                condition=Q(status=BooksVerificationStatus.RUNNING),
            ),
        ]

    def __str__(self) -> str:
        if self.status == BooksVerificationStatus.DIFFERENCES:
            return f"books verified: {self.difference_count} difference(s)"
        return f"books verification: {self.get_status_display()}"

    @property
    def ok(self) -> bool:
        return self.status == BooksVerificationStatus.OK

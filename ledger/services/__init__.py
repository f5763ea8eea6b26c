"""Writes to the chip ledger, by subject: ``posting`` (the one way chips move: balanced,
idempotent transactions), ``accounts`` (opening and locking accounts) and ``cage`` (buy-ins and
cash-outs). The game's own postings (coups, banks, fees, series) are tables/money/'s.

The names most callers need are importable from here too (``from ledger import services``).
"""

from ledger.services.accounts import (
    AccountSpec,
    account_may_go_negative,
    account_spec,
    accounts_by_pk,
    accounts_lock,
)
from ledger.services.cage import cage_buy_in, cage_cash_out, cash_out_refusal
from ledger.services.posting import (
    IdempotencyConflict,
    InsufficientChips,
    Posting,
    UnbalancedTransaction,
    account_debit_check,
    posting_find,
    posting_replay_checked,
    postings_check,
    postings_write,
    transaction_post,
)

__all__ = [
    "AccountSpec",
    "IdempotencyConflict",
    "InsufficientChips",
    "Posting",
    "UnbalancedTransaction",
    "account_debit_check",
    "account_may_go_negative",
    "account_spec",
    "accounts_by_pk",
    "accounts_lock",
    "cage_buy_in",
    "cage_cash_out",
    "cash_out_refusal",
    "posting_find",
    "posting_replay_checked",
    "postings_check",
    "postings_write",
    "transaction_post",
]

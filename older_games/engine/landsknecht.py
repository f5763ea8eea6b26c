"""Landsknecht: a banking game of chemin de fer's family, as its own game type (issue 12).

The product reads the rules from the source text ``shared/seeds/004_938fcc7d71e998c0.txt``
(section "ЛАНДСКНЕХТ"); docs/games/landsknecht.md gives them in English. In short: everyone banks
in turn; every player pays an agreed sum into a reserve fund; the banker stakes, the punter on his
left covers (several punters may share the stake, the fund answers for whatever they leave); the
banker turns two cards, his own on the right and the punters' on the left, then deals cards between
them until one of the two ranks comes again. The banker's rank wins for him, the punters' rank for
them; two equal starting ranks are the banker's. A winning banker takes the money (the bank passes
left) or stakes again; a losing banker passes the bank.

One coup is one deal. Its record (:class:`Record`) is what a croupier enters: the table (banker,
punters left of him in seat order, the fund's balance, how this stake opens), the banker's stake,
the covers, the cards in the order turned and, after a banker win, his decision. Three ways to use it:

* the live machine: :func:`start`, :func:`next_moves`, :func:`apply` (refuses an illegal move with
  :class:`IllegalMove` and its reason), :func:`to_record`;
* the offline judge: :func:`judge` replays a record and lists every violation, the outcome as played
  and the settlement (integer chip transfers summing to zero; the fund is the party ``"fund"``);
* the odds: :func:`exact_odds` (an exact enumeration of the shoe) and :func:`monte_carlo`.

The rulings on what the source left open (docs/games/landsknecht.md, "Rulings") hold in both
judges:
card positions are facts (the first card is the banker's, the second the punters'; a card that
cannot be read is a finding at its position and holds the coup, and the next card never takes its
place); every judgeable finding is reported; the banker plays his stake against the fund when the
punters refuse it, whatever ``fund_backs_uncovered`` says; a stake is shared among punters only with
their recorded consent (:class:`Consent`), the fund answering for the rest without it; a table
without a punter is a bad table; at the end of play the fund goes back to those who paid into it
(:func:`fund_return`, in proportion to what each paid unless the house names another rule).

Pure Python: no Django, nothing of the project but :mod:`core.cards`, :mod:`core.records` and
:mod:`core.sentence`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from itertools import product
from typing import Any

from core.cards import ALL_CARDS, POINTS, RANKS, card_read
from core.records import MAX_RECORD_CHIPS, MAX_RECORD_CHIPS_SAID, is_str_list
from core.sentence import Card, Listing, Word, said, shown
from older_games.engine.chips import Transfer, settlement_to_dict, transfer_nets
from older_games.engine.sampling import MonteCarlo

__all__ = [
    "FUND",
    "FUND_RETURN_KIND",
    "AfterTake",
    "AgainStake",
    "CloseCovers",
    "Code",
    "Consent",
    "Cover",
    "Deal",
    "Decide",
    "Decision",
    "Doublet",
    "FundReturn",
    "FundReturnRecord",
    "FundReturnVerdict",
    "HouseSettings",
    "IllegalMove",
    "LandsknechtOdds",
    "MonteCarlo",
    "Move",
    "Opening",
    "Outcome",
    "Phase",
    "PutStake",
    "Record",
    "Settlement",
    "State",
    "Table",
    "Transfer",
    "Verdict",
    "Violation",
    "apply",
    "exact_odds",
    "fund_payins",
    "fund_return",
    "fund_return_from_dict",
    "fund_return_to_dict",
    "fund_return_verdict_to_dict",
    "judge",
    "judge_fund_return",
    "monte_carlo",
    "next_moves",
    "next_table",
    "rank_of",
    "record_from_dict",
    "record_to_dict",
    "refusal",
    "split_refusal",
    "start",
    "to_record",
    "verdict_to_dict",
]

#: the reserve fund's name as a party to a settlement (no player may be called so)
FUND = "fund"


# ---------------------------------------------------------------------------------------------
# House settings


class Doublet(StrEnum):
    """What two equal ranks on the starting cards mean."""

    #: the source: "Если на обе стороны выйдут одинаковые карты, то это всегда в пользу банкомёта"  # noqa: RUF003
    BANKER = "banker"
    #: not in the source: a stand-off (stakes back, deal again). Offered only as the fair baseline
    #: a house may compare with: it shows that the banker's whole edge is the doublet.
    STANDOFF = "standoff"


class AfterTake(StrEnum):
    """What the next banker may stake after the previous one took the money off the table."""

    #: the source: "либо точно такую же сумму, которая была только что снята, либо заранее
    #: условленную минимальную ставку" -- exactly the sum just taken, or the agreed minimum
    SAME_OR_MINIMUM = "same-or-minimum"
    #: the source's first paragraph: "Банкомёт ставит на кон какую-нибудь сумму" (any sum); the two
    #: passages disagree for a bank opened after a take, so the house chooses
    ANY = "any"


class AgainStake(StrEnum):
    """What a winning banker who stays ("делает следующую ставку") may stake."""

    #: the literal reading: "он может сделать следующую ставку" -- a new stake, any sum >= minimum
    ANY = "any"
    #: the older usage the text leaves open: the whole pot on the table rides again
    WHOLE_POT = "whole-pot"


class FundReturn(StrEnum):
    """How the reserve fund goes back to the players when play ends."""

    #: in proportion to what each paid in ("вносит заранее оговорённую сумму в запасной фонд": the
    #: fund is theirs, so what is left of it is shared as they paid)
    PROPORTIONAL = "proportional"
    #: a house's other rule: equal shares to every player who paid in, whatever he paid
    EQUAL = "equal"


@dataclass(frozen=True, slots=True)
class HouseSettings:
    """A house's Landsknecht. Every default is the source's reading; see each field's comment.

    ``decks``: "Играется в две полные колоды из 52 карт, хотя можно играть в три, четыре и более
    колод" -- 2 by default, any number from 1 (the machine and the odds work for any).
    ``min_stake``: "заранее условленную минимальную ставку" -- the agreed minimum, 10 chips.
    ``fund_due``: "каждый из игроков вносит заранее оговорённую сумму в запасной фонд" -- the sum
    each player pays into the fund before play, 10 chips (see :func:`fund_payins`).
    ``fund_backs_uncovered``: "за остальную часть ставки отвечает запасной фонд" and "он имеет право
    играть на капитал запасного фонда" -- the fund covers what the punters leave, up to its balance
    (True); False keeps the uncovered part out of play, as in chemin de fer. It is only about the
    part of a stake the punters leave uncovered: a stake every punter refuses is played against the
    fund under either setting.
    ``fund_return``: how the fund goes back to those who paid into it when play ends.
    """

    decks: int = 2
    min_stake: int = 10
    fund_due: int = 10
    doublet: Doublet = Doublet.BANKER
    after_take: AfterTake = AfterTake.SAME_OR_MINIMUM
    again_stake: AgainStake = AgainStake.ANY
    fund_backs_uncovered: bool = True
    fund_return: FundReturn = FundReturn.PROPORTIONAL

    def __post_init__(self) -> None:
        if self.decks < 1:
            raise ValueError("a shoe holds at least one deck")
        if self.min_stake < 1:
            raise ValueError("the minimum stake is a positive number of chips")
        if self.fund_due < 0:
            raise ValueError("the fund due is not negative")


# ---------------------------------------------------------------------------------------------
# The record of a coup


class Opening(StrEnum):
    """How this coup's stake comes about (it decides which stakes are allowed)."""

    NEW_BANK = "new-bank"  # first bank, or the previous banker lost: any stake >= minimum
    AFTER_TAKE = "after-take"  # the previous banker took ``previous`` chips off the table
    AGAIN = "again"  # the same banker won the last coup (pot ``previous``) and stakes again


class Decision(StrEnum):
    """A winning banker's choice."""

    TAKE = "take"  # takes the money; the bank passes to the next player on the left
    AGAIN = "again"  # keeps the bank and stakes again


class Outcome(StrEnum):
    """How the coup ended. A coup whose outcome the record cannot tell (a card that could have
    decided cannot be read) has none: the judge's ``outcome`` is None, the coup held."""

    BANKER = "banker"
    PUNTERS = "punters"
    STANDOFF = "standoff"  # a doublet under Doublet.STANDOFF
    VOID = "void"  # nothing was covered: no cards are turned
    UNDECIDED = "undecided"  # the record stops before a rank repeated


@dataclass(frozen=True, slots=True)
class Table:
    """Who sits where and what the fund holds when the coup begins.

    ``punters`` are the other players in seat order from the banker's left: the first of them is
    "сидящий слева от него понтер", the one who covers first and whose card is the left one.
    ``previous`` is the sum the previous banker took (``AFTER_TAKE``) or the pot of the won coup
    (``AGAIN``); 0 for a new bank.
    """

    banker: str
    punters: tuple[str, ...]
    fund: int = 0
    opening: Opening = Opening.NEW_BANK
    previous: int = 0


@dataclass(frozen=True, slots=True)
class Cover:
    punter: str
    amount: int


@dataclass(frozen=True, slots=True)
class Consent:
    """A punter agrees to share the banker's stake with other punters, a recorded step: the stake
    may be split among several punters only with their consent ("разрешается, чтобы ставка была
    разделена между несколькими понтерами", "только с их согласия")."""  # noqa: RUF002

    punter: str


@dataclass(frozen=True, slots=True)
class Record:
    """One coup as the croupier enters it. ``cards`` are in the order turned: the banker's (right),
    the punters' (left), then the cards dealt between them; each position is a fact, whatever is
    written there. ``consent`` names the punters who agreed to share the stake (a stake covered by
    several punters needs every one of them)."""

    table: Table
    stake: int
    covers: tuple[Cover, ...] = ()
    cards: tuple[str, ...] = ()
    decision: Decision | None = None
    consent: tuple[str, ...] = ()


class Code(StrEnum):
    """Why a record breaks the rules."""

    BAD_TABLE = "bad-table"
    STAKE_BELOW_MINIMUM = "stake-below-minimum"
    STAKE_NOT_ALLOWED = "stake-not-allowed"
    COVER_BY_NON_PUNTER = "cover-by-non-punter"
    COVER_TWICE = "cover-twice"
    COVER_NOT_POSITIVE = "cover-not-positive"
    COVERS_EXCEED_STAKE = "covers-exceed-stake"
    #: a stake shared among punters without the recorded consent of one of them
    SPLIT_WITHOUT_CONSENT = "split-without-consent"
    #: a consent recorded for someone who is not a punter at the table
    CONSENT_BY_NON_PUNTER = "consent-by-non-punter"
    #: a fund return record with a negative fund or a payment into it that is not positive
    BAD_FUND_RETURN = "bad-fund-return"
    #: a fund return whose amounts differ from what its rule gives
    FUND_RETURN_WRONG = "fund-return-wrong"
    BAD_CARD = "bad-card"
    IMPOSSIBLE_CARD = "impossible-card"
    CARDS_AFTER_DECISION = "cards-after-decision"
    CARDS_MISSING = "cards-missing"
    DECISION_MISSING = "decision-missing"
    DECISION_WITHOUT_WIN = "decision-without-win"


@dataclass(frozen=True, slots=True)
class Violation:
    code: Code
    message: str


@dataclass(frozen=True, slots=True)
class Settlement:
    transfers: tuple[Transfer, ...] = ()

    def nets(self) -> dict[str, int]:
        """Each party's net result (won positive); the values sum to zero."""
        return transfer_nets(self.transfers)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's answer. ``outcome`` is None when the coup is held: a card of the record cannot
    be read, so nothing is settled (``settlement`` is empty, and null in JSON). ``deciding_card``
    is the index in ``cards`` of the card that decided (None if nothing did, or if an unreadable
    card before it leaves that open);
    ``bank_passes`` whether the next coup has a new banker (None while undecided or held);
    ``fund_after`` the fund's balance once settled."""

    outcome: Outcome | None
    violations: tuple[Violation, ...]
    settlement: Settlement
    at_risk: int  # the banker's stake actually in play: the covers plus the fund's part
    fund_cover: int
    deciding_card: int | None
    bank_passes: bool | None
    fund_after: int

    @property
    def clean(self) -> bool:
        return not self.violations

    @property
    def held(self) -> bool:
        return self.outcome is None


# ---------------------------------------------------------------------------------------------
# Rules shared by the machine and the judge


def rank_of(card: str) -> str:
    """What decides in Landsknecht: a card's rank (``"K"`` of ``"KS"``); suits play no part."""
    return card[0]


def _table_faults(table: Table, settings: HouseSettings) -> list[str]:
    """Everything wrong with ``table`` (each a sentence): one fault does not hide another."""
    names = [table.banker, *table.punters]
    out: list[str] = []
    if not table.punters:
        # "Остальные игроки называются понтеры": a banker alone has nobody to cover his stake, and
        # the fund is the punters' money, not a player
        out.append(said("a Landsknecht table needs at least one punter besides the banker"))
    if any(not n for n in names):
        out.append(said("every player needs a name"))
    if FUND in names:
        out.append(said("{fund!r} is the reserve fund's name, not a player's", fund=FUND))
    if len(set(names)) != len(names):
        out.append(said("a player sits once, and the banker is not among the punters"))
    if table.fund < 0:
        out.append(said("the fund's balance is negative ({fund})", fund=table.fund))
    if table.opening is Opening.NEW_BANK and table.previous != 0:
        out.append(said("a new bank has no previous sum"))
    if table.opening is not Opening.NEW_BANK and table.previous < 1:
        out.append(
            said("an opening {opening} needs the previous sum (positive chips)", opening=table.opening)
        )
    elif table.opening is not Opening.NEW_BANK and table.previous < settings.min_stake:
        # a pot or a take is at least one stake; below the minimum the history is wrong (and a
        # whole-pot stake could never be put)
        out.append(
            said(
                "the previous sum ({previous}) is below the minimum stake of {minimum}",
                previous=table.previous,
                minimum=settings.min_stake,
            )
        )
    return out


def _table_refusal(table: Table, settings: HouseSettings) -> str | None:
    faults = _table_faults(table, settings)
    return faults[0] if faults else None


def _stake_faults(table: Table, stake: int, settings: HouseSettings) -> list[tuple[Code, str]]:
    """Every rule ``stake`` breaks (a stake of 5 after a take of 200 is both below the minimum
    and not the sum taken: two findings)."""
    out: list[tuple[Code, str]] = []
    if stake < settings.min_stake:
        out.append(
            (
                Code.STAKE_BELOW_MINIMUM,
                said("the stake must be at least the minimum of {minimum}", minimum=settings.min_stake),
            )
        )
    if (
        table.opening is Opening.AFTER_TAKE
        and settings.after_take is AfterTake.SAME_OR_MINIMUM
        and stake not in (table.previous, settings.min_stake)
    ):
        out.append(
            (
                Code.STAKE_NOT_ALLOWED,
                said(
                    "after a take the next bank stakes the sum just taken ({previous}) or the minimum "
                    "({minimum}), not {stake}",
                    previous=table.previous,
                    minimum=settings.min_stake,
                    stake=stake,
                ),
            )
        )
    if (
        table.opening is Opening.AGAIN
        and settings.again_stake is AgainStake.WHOLE_POT
        and stake != table.previous
    ):
        out.append(
            (
                Code.STAKE_NOT_ALLOWED,
                said(
                    "a banker who stays lets the whole pot ({pot}) ride, not {stake}",
                    pot=table.previous,
                    stake=stake,
                ),
            )
        )
    return out


def _stake_refusal(table: Table, stake: int, settings: HouseSettings) -> tuple[Code, str] | None:
    faults = _stake_faults(table, stake, settings)
    return faults[0] if faults else None


def _fund_cover(
    table: Table, stake: int, covered_by_punters: int, settings: HouseSettings, *, split_refused: bool = False
) -> int:
    """What the fund answers for, up to its balance.

    When the punters refuse the stake altogether the banker plays it against the fund ("Если
    игроки отказываются понтировать сумму, предложенную банкомётом, то он имеет право играть на
    капитал запасного фонда") under either setting; ``fund_backs_uncovered`` is only about the
    part of a stake the punters leave once one of them has covered some of it. A stake split
    without the sharers' consent (``split_refused``) is not such a part: the punters covered it,
    the rule took their shares out of play, and "Если согласия не последует, то за остальную часть
    ставки отвечает запасной фонд" -- the fund answers for the rest under either setting too
    (RULES.md §11: "without it the fund answers for the rest")."""
    if covered_by_punters > 0 and not settings.fund_backs_uncovered and not split_refused:
        return 0
    return max(0, min(stake - covered_by_punters, table.fund))


def _at_risk(covers: Iterable[Cover], stake: int) -> list[Cover]:
    """The covers in play, each for what of it is at risk. A punter covers the banker's stake
    "with the same sum" ("идёт на неё (то есть вносит такую же)"): what is at risk is at most the
    stake. The covers are taken in the order recorded until the stake is covered; the excess of
    the cover that crosses it, and every later cover, are not at risk (the record's
    ``covers-exceed-stake`` finding says so; the live machine refuses such a cover). The caller
    has left out what is never at risk: a banker's "cover" of his own stake and a cover in the
    name of the fund (the fund answers for a stake only by its own rule, :func:`_fund_cover`)."""
    out: list[Cover] = []
    left = max(stake, 0)
    for c in covers:
        amount = min(c.amount, left)
        if amount > 0:
            out.append(c if amount == c.amount else replace(c, amount=amount))
        left -= amount
    return out


def _settle(outcome: Outcome, banker: str, covers: Iterable[Cover], fund_cover: int) -> Settlement:
    parties = [(c.punter, c.amount) for c in covers if c.amount > 0]
    if fund_cover > 0:
        parties.append((FUND, fund_cover))
    if outcome is Outcome.BANKER:
        return Settlement(tuple(Transfer(p, banker, a) for p, a in parties))
    if outcome is Outcome.PUNTERS:
        return Settlement(tuple(Transfer(banker, p, a) for p, a in parties))
    return Settlement()


def fund_payins(players: Iterable[str], settings: HouseSettings) -> Settlement:
    """What every player pays into the reserve fund before play ("Перед началом игры каждый из
    игроков вносит заранее оговорённую сумму в запасной фонд")."""
    if settings.fund_due == 0:
        return Settlement()
    return Settlement(tuple(Transfer(p, FUND, settings.fund_due) for p in players))


def fund_return(
    paid: Sequence[tuple[str, int]], balance: int, rule: FundReturn = FundReturn.PROPORTIONAL
) -> Settlement:
    """The fund's ``balance`` back to those who paid into it when play ends: ``paid`` is each
    payer's total in the order they first paid. ``PROPORTIONAL`` gives each ``balance * paid /
    total``; ``EQUAL`` the same share to each payer. Whole chips: every payer gets the floor of his
    share and the chips left over go one each to the largest remainders (ties: the earlier payer),
    so the fund is empty after it. Raises ValueError for a negative balance or a payment that is
    not positive (no consistent history has one)."""
    if balance < 0:
        raise ValueError(said("the fund's balance is negative ({fund})", fund=balance))
    totals: dict[str, int] = {}
    for name, amount in paid:
        if amount < 1:
            raise ValueError(
                said(
                    "{player}'s payment of {amount} into the fund is not positive", player=name, amount=amount
                )
            )
        totals[name] = totals.get(name, 0) + amount
    if balance == 0 or not totals:
        return Settlement()
    weights = totals if rule is FundReturn.PROPORTIONAL else dict.fromkeys(totals, 1)
    whole = sum(weights.values())
    shares = {name: balance * w // whole for name, w in weights.items()}
    left = balance - sum(shares.values())
    order = sorted(weights, key=lambda name: -(balance * weights[name] % whole))  # stable: payers' order
    for name in order[:left]:
        shares[name] += 1
    return Settlement(tuple(Transfer(FUND, name, share) for name, share in shares.items() if share > 0))


@dataclass(frozen=True, slots=True)
class FundReturnRecord:
    """The fund returned at the end of play, as the croupier enters it: what the fund holds, what
    each player paid into it (in the order paid), the rule the house returns it by (the record
    says which) and, when entered, what each player was given back."""

    fund: int
    paid: tuple[tuple[str, int], ...]
    rule: FundReturn = FundReturn.PROPORTIONAL
    returned: tuple[tuple[str, int], ...] | None = None


@dataclass(frozen=True, slots=True)
class FundReturnVerdict:
    violations: tuple[Violation, ...]
    settlement: Settlement


def judge_fund_return(record: FundReturnRecord) -> FundReturnVerdict:
    """The fund's return under the record's own rule; a ``returned`` that differs from it is
    ``fund-return-wrong`` (the settlement is the rule's). A negative fund, a payment that is not
    positive, a payer named as the fund or by no name, or chips in a fund nobody paid into is
    ``bad-fund-return``, and nothing is returned."""
    out: list[Violation] = []
    if record.fund < 0:
        negative = said("the fund's balance is negative ({fund})", fund=record.fund)
        out.append(Violation(Code.BAD_FUND_RETURN, negative))
    # the fund is a party of its own (FUND): a payer or a payee of that name would be the fund
    # paying itself, as a coup record's player of that name would be (a bad table there)
    named = [name for name, _amount in (*record.paid, *(record.returned or ()))]
    if FUND in named:
        fund_named = said("{fund!r} is the reserve fund's name, not a player's", fund=FUND)
        out.append(Violation(Code.BAD_FUND_RETURN, fund_named))
    if any(not name for name in named):
        out.append(Violation(Code.BAD_FUND_RETURN, said("every player needs a name")))
    for name, amount in record.paid:
        if amount < 1:
            out.append(
                Violation(
                    Code.BAD_FUND_RETURN,
                    said(
                        "{player}'s payment of {amount} into the fund is not positive",
                        player=name,
                        amount=amount,
                    ),
                )
            )
    if record.fund > 0 and not record.paid:
        # the rule returns the fund to those who paid into it and leaves it empty: chips in a fund
        # nobody paid into have nobody to go back to (the live table posts no return then)
        out.append(
            Violation(
                Code.BAD_FUND_RETURN,
                said(
                    "the fund holds {fund} chips but nobody paid into it: the rule returns it only to "
                    "those who paid",
                    fund=record.fund,
                ),
            )
        )
    if out:
        return FundReturnVerdict(tuple(out), Settlement())
    settlement = fund_return(record.paid, record.fund, record.rule)
    if record.returned is not None:
        due = {t.payee: t.amount for t in settlement.transfers}
        given: dict[str, int] = {}
        for name, amount in record.returned:
            given[name] = given.get(name, 0) + amount
        for name in dict.fromkeys([*due, *given]):
            if due.get(name, 0) != given.get(name, 0):
                out.append(
                    Violation(
                        Code.FUND_RETURN_WRONG,
                        said(
                            "{player} was given {given} of the fund, the {rule} rule gives {due}",
                            player=name,
                            given=given.get(name, 0),
                            rule=record.rule.value,
                            due=due.get(name, 0),
                        ),
                    )
                )
    return FundReturnVerdict(tuple(out), settlement)


# ---------------------------------------------------------------------------------------------
# The live machine


class Phase(StrEnum):
    STAKE = "stake"  # the banker puts his stake
    COVER = "cover"  # the punters cover, then the croupier closes the covers
    DEAL = "deal"  # cards are turned
    DECIDE = "decide"  # the banker won: take or again
    OVER = "over"


@dataclass(frozen=True, slots=True)
class PutStake:
    amount: int


@dataclass(frozen=True, slots=True)
class CloseCovers:
    """No more covers: the fund answers for the rest, or for the whole stake if every punter
    refused it (with nothing in the fund and nothing covered, the coup is void)."""


@dataclass(frozen=True, slots=True)
class Deal:
    card: str


@dataclass(frozen=True, slots=True)
class Decide:
    decision: Decision


Move = PutStake | Cover | Consent | CloseCovers | Deal | Decide


class IllegalMove(ValueError):
    """A move the rules do not allow now; the message says why."""


@dataclass(frozen=True, slots=True)
class State:
    settings: HouseSettings
    table: Table
    phase: Phase = Phase.STAKE
    stake: int = 0
    covers: tuple[Cover, ...] = ()
    fund_cover: int = 0
    cards: tuple[str, ...] = ()
    outcome: Outcome = Outcome.UNDECIDED
    decision: Decision | None = None
    consent: tuple[str, ...] = ()

    @property
    def covered(self) -> int:
        return sum(c.amount for c in self.covers)

    @property
    def seen(self) -> Counter[str]:
        """How often each card has been turned (derived, so the state stays hashable)."""
        return Counter(self.cards)


def start(table: Table, settings: HouseSettings | None = None) -> State:
    """A coup about to begin at ``table``. Raises :class:`IllegalMove` for an impossible table."""
    house = settings or HouseSettings()
    reason = _table_refusal(table, house)
    if reason:
        raise IllegalMove(reason)
    return State(settings=house, table=table)


def refusal(state: State, move: Move) -> str | None:  # noqa: C901  (one branch a step kind, as the source orders the coup)
    """Why ``move`` is not possible in ``state`` (None: it is)."""
    phase = Word(state.phase, "game phase")
    if isinstance(move, PutStake):
        if state.phase is not Phase.STAKE:
            return said("the stake is put before anything else (now: {phase})", phase=phase)
        found = _stake_refusal(state.table, move.amount, state.settings)
        return found[1] if found else None
    if isinstance(move, Cover):
        if state.phase is not Phase.COVER:
            return said("covers come after the stake and before the cards (now: {phase})", phase=phase)
        if move.punter not in state.table.punters:
            return said("{punter!r} is not a punter at this table", punter=move.punter)
        if any(c.punter == move.punter for c in state.covers):
            return said("{punter} has already covered", punter=move.punter)
        if move.amount < 1:
            return said("a cover is a positive number of chips")
        left = state.stake - state.covered
        if move.amount > left:
            return said("only {left} of the stake is left to cover", left=left)
        return split_refusal(state, move.punter)
    if isinstance(move, Consent):
        if state.phase is not Phase.COVER:
            return said("a punter agrees to share the stake while it is covered (now: {phase})", phase=phase)
        if move.punter not in state.table.punters:
            return said("{punter!r} is not a punter at this table", punter=move.punter)
        if move.punter in state.consent:
            return said("{punter} has already agreed to share the stake", punter=move.punter)
        return None
    if isinstance(move, CloseCovers):
        return (
            None
            if state.phase is Phase.COVER
            else said("the covers are not open (now: {phase})", phase=phase)
        )
    if isinstance(move, Deal):
        if state.phase is not Phase.DEAL:
            return said("no card is turned now (now: {phase})", phase=phase)
        move = Deal(card_read(move.card))  # 10D is TD, as in a record (RULES.md §11)
        if move.card not in POINTS:
            # refused, not read as another card: the next card turned takes this position, never
            # the one after it
            return said("bad card {card!r}", card=move.card)
        if state.seen[move.card] >= state.settings.decks:
            return said(
                "{card}: the {decks}-deck shoe holds no more of it",
                card=Card(move.card),
                decks=state.settings.decks,
            )
        return None
    if state.phase is not Phase.DECIDE:
        return said("only a banker who has just won decides to take or stake again")
    return None


def split_refusal(state: State, punter: str) -> str | None:
    """Why ``punter`` may not cover now although the amount is fine: the stake would be shared
    among several punters without every one of them having agreed (only with their consent)."""
    sharing = [c.punter for c in state.covers if c.punter != punter]
    if not sharing:
        return None  # the first to cover needs nobody's consent
    missing = [p for p in dict.fromkeys([*sharing, punter]) if p not in state.consent]
    if not missing:
        return None
    return said(
        "the stake is shared among punters only with their consent; not agreed yet: {names}",
        names=Listing(missing),
    )


def apply(state: State, move: Move) -> State:
    """``state`` after ``move``; raises :class:`IllegalMove` (with the reason) if it is not allowed."""
    if isinstance(move, Deal):
        move = Deal(card_read(move.card))  # 10D is TD, as in a record (RULES.md §11)
    reason = refusal(state, move)
    if reason:
        raise IllegalMove(reason)
    if isinstance(move, PutStake):
        return replace(state, phase=Phase.COVER, stake=move.amount)
    if isinstance(move, Cover):
        return replace(state, covers=(*state.covers, move))
    if isinstance(move, Consent):
        return replace(state, consent=(*state.consent, move.punter))
    if isinstance(move, CloseCovers):
        fund = _fund_cover(state.table, state.stake, state.covered, state.settings)
        if state.covered + fund == 0:
            return replace(state, phase=Phase.OVER, outcome=Outcome.VOID)
        return replace(state, phase=Phase.DEAL, fund_cover=fund)
    if isinstance(move, Deal):
        cards = (*state.cards, move.card)
        after = replace(state, cards=cards)
        outcome = _decided(cards, state.settings)
        if outcome is Outcome.BANKER:
            return replace(after, phase=Phase.DECIDE, outcome=outcome)
        if outcome is not Outcome.UNDECIDED:
            return replace(after, phase=Phase.OVER, outcome=outcome)
        return after
    return replace(state, phase=Phase.OVER, decision=move.decision)


def _decided(cards: tuple[str, ...], settings: HouseSettings) -> Outcome:
    """The outcome once the last of ``cards`` is turned (the machine deals one at a time)."""
    if len(cards) < 2:
        return Outcome.UNDECIDED
    right, left = rank_of(cards[0]), rank_of(cards[1])
    if len(cards) == 2:
        if right != left:
            return Outcome.UNDECIDED
        return Outcome.BANKER if settings.doublet is Doublet.BANKER else Outcome.STANDOFF
    last = rank_of(cards[-1])
    if last == right:
        return Outcome.BANKER
    if last == left:
        return Outcome.PUNTERS
    return Outcome.UNDECIDED


#: the stakes offered for an open choice, in minimum stakes (apply accepts any legal amount)
_STAKE_MENU = (1, 2, 5, 10)


def next_moves(state: State) -> tuple[Move, ...]:
    """The legal moves now; empty only when the coup is over.

    A move carrying an amount is listed with the table's usual amounts (stakes of 1, 2, 5 and 10
    minimums, or exactly the allowed ones; covers of the whole rest or half of it): :func:`apply`
    accepts any other legal amount too.
    """
    phase = state.phase
    if phase is Phase.STAKE:
        s, t = state.settings, state.table
        candidates = [s.min_stake * k for k in _STAKE_MENU]
        if t.previous:
            candidates.append(t.previous)
        legal = sorted({a for a in candidates if _stake_refusal(t, a, s) is None})
        return tuple(PutStake(a) for a in legal)
    if phase is Phase.COVER:
        left = state.stake - state.covered
        moves: list[Move] = []
        if left > 0:
            for p in state.table.punters:
                if not any(c.punter == p for c in state.covers) and split_refusal(state, p) is None:
                    moves += [Cover(p, a) for a in sorted({left, left // 2}) if a > 0]
            # a consent matters only while some of the stake is left for a second punter to cover
            if len(state.table.punters) > 1:
                moves += [Consent(p) for p in state.table.punters if p not in state.consent]
        moves.append(CloseCovers())
        return tuple(moves)
    if phase is Phase.DEAL:
        decks = state.settings.decks
        seen = state.seen
        return tuple(Deal(c) for c in ALL_CARDS if seen[c] < decks)
    if phase is Phase.DECIDE:
        return (Decide(Decision.TAKE), Decide(Decision.AGAIN))
    return ()


def to_record(state: State) -> Record:
    """The record of the coup so far (complete once the phase is OVER)."""
    return Record(state.table, state.stake, state.covers, state.cards, state.decision, state.consent)


# ---------------------------------------------------------------------------------------------
# The offline judge


def judge(record: Record, settings: HouseSettings | None = None) -> Verdict:  # noqa: C901  (the source's rules of a whole coup, checked in its order)
    """Replay ``record`` under ``settings``: every violation in table order (table, stake, covers,
    consent, cards, decision), the outcome as played and its settlement.

    Every finding that can be judged is reported: a bad table or a bad stake does not stop the
    judging of the covers, the cards or the decision. The outcome is what the cards say even when
    the record breaks a rule, so the pit boss sees both, as for chemin de fer; but a card that
    cannot be read is a fact at its position, not a gap the next card closes, and it holds the
    coup: no outcome, no settlement (what it leaves known, such as who won when it lies after the
    deciding card, is still judged: the cards after the decision, the banker's decision). Covers
    by non-punters are settled as played (the money was on the table), except the banker's own,
    which puts nothing at risk, and one in the name of the fund (``"fund"``, never a player's):
    the fund answers for a stake by its own rule only, never as if it had covered. A punter's
    share of a stake split without his consent is not in play, and the fund answers for the rest
    instead. What is at risk is at most the stake: covers beyond it are capped in the order
    recorded (:func:`_at_risk`), the finding kept.
    """
    s = settings or HouseSettings()
    # the cards as the rules read them: 10D is TD here as live (RULES.md §11, core.cards.card_code);
    # a card that is none stays as written, a finding at its place
    record = replace(record, cards=tuple(card_read(c) for c in record.cards))
    table = record.table
    out: list[Violation] = [Violation(Code.BAD_TABLE, reason) for reason in _table_faults(table, s)]
    out += [Violation(code, reason) for code, reason in _stake_faults(table, record.stake, s)]
    covered = 0
    who: set[str] = set()
    for c in record.covers:
        if c.punter not in table.punters:
            out.append(
                Violation(
                    Code.COVER_BY_NON_PUNTER,
                    said("{punter!r} is not a punter at this table", punter=c.punter),
                )
            )
        if c.punter in who:
            out.append(Violation(Code.COVER_TWICE, said("{punter} covered twice", punter=c.punter)))
        who.add(c.punter)
        if c.amount < 1:
            out.append(
                Violation(
                    Code.COVER_NOT_POSITIVE,
                    said("{punter}'s cover of {amount} is not positive", punter=c.punter, amount=c.amount),
                )
            )
        if c.punter not in (table.banker, FUND):  # see _at_risk: neither puts anything at risk
            covered += max(c.amount, 0)
    # a negative stake is a stake finding (below the minimum, which is at least 1), not covers
    # exceeding it: nothing of it can be covered
    if record.stake >= 0 and covered > record.stake:
        out.append(
            Violation(
                Code.COVERS_EXCEED_STAKE,
                said("covers of {covered} exceed the stake of {stake}", covered=covered, stake=record.stake),
            )
        )
    for name in dict.fromkeys(record.consent):
        if name not in table.punters:
            out.append(
                Violation(
                    Code.CONSENT_BY_NON_PUNTER,
                    said(
                        "{punter!r} agreed to share the stake but is not a punter at this table", punter=name
                    ),
                )
            )
    played = [c for c in record.covers if c.amount > 0 and c.punter not in (table.banker, FUND)]
    # the punters who share the stake, in the order they first covered
    sharing = list(dict.fromkeys(c.punter for c in played if c.punter in table.punters))
    missing = [p for p in sharing if p not in record.consent] if len(sharing) > 1 else []
    for name in missing:
        out.append(
            Violation(
                Code.SPLIT_WITHOUT_CONSENT,
                said("the stake was shared with {punter}, who had not agreed to share it", punter=name),
            )
        )
    if missing:
        # "Если согласия не последует, то за остальную часть ставки отвечает запасной фонд": the
        # first punter's cover stands, the others' are not in play, the fund answers for the rest
        played = [c for c in played if c.punter not in table.punters or c.punter == sharing[0]]
    played = _at_risk(played, record.stake)
    in_play = sum(c.amount for c in played)
    fund_cover = _fund_cover(table, record.stake, in_play, s, split_refused=bool(missing))
    at_risk = in_play + fund_cover

    for i, card in enumerate(record.cards):
        if card not in POINTS:
            out.append(
                Violation(
                    Code.BAD_CARD, said("card {position}: bad card {card!r}", position=i + 1, card=card)
                )
            )
    counts = Counter(c for c in record.cards if c in POINTS)
    for card in ALL_CARDS:
        if counts[card] > s.decks:
            out.append(
                Violation(
                    Code.IMPOSSIBLE_CARD,
                    said(
                        "{card} seen {times} times, the shoe holds {decks}",
                        card=Card(card),
                        times=counts[card],
                        decks=s.decks,
                    ),
                )
            )

    told: Outcome | None  # what the cards tell, None where an unreadable card leaves it open
    deciding: int | None = None
    if at_risk == 0:
        told = Outcome.VOID
        if record.cards:
            out.append(Violation(Code.CARDS_AFTER_DECISION, said("nothing was covered: no card is turned")))
    else:
        race = _race(record.cards, s)
        told, deciding = race.outcome, race.deciding
        if race.decided_by is not None and race.decided_by < len(record.cards) - 1:
            extra = len(record.cards) - race.decided_by - 1
            out.append(
                Violation(
                    Code.CARDS_AFTER_DECISION,
                    said(
                        "{extra} card(s) after card {position} decided",
                        extra=extra,
                        position=race.decided_by + 1,
                    ),
                )
            )
        if race.certainly_undecided:
            out.append(Violation(Code.CARDS_MISSING, said("no rank has repeated yet: deal on")))

    # the decision is judged wherever the cards tell who won (an unreadable card after the
    # deciding one leaves that known), not where whether the banker won is what cannot be read
    if told is Outcome.BANKER and record.decision is None:
        out.append(Violation(Code.DECISION_MISSING, said("the banker won: the banker takes or stakes again")))
    if told is not None and told is not Outcome.BANKER and record.decision is not None:
        out.append(
            Violation(
                Code.DECISION_WITHOUT_WIN,
                said("only a winning banker decides ({outcome})", outcome=Word(told, "game outcome")),
            )
        )
    # A card that cannot be read holds a coup in play wherever it lies: the record does not say
    # what was dealt at that position, so it is settled by nobody's reading of it (the pit boss
    # decides). A void coup puts nothing at risk whatever its cards.
    held = at_risk > 0 and any(card not in POINTS for card in record.cards)
    outcome = None if held else told

    settlement = Settlement() if outcome is None else _settle(outcome, table.banker, played, fund_cover)
    bank_passes: bool | None
    if outcome is Outcome.BANKER:
        bank_passes = None if record.decision is None else record.decision is Decision.TAKE
    elif outcome is Outcome.PUNTERS:
        bank_passes = True
    elif outcome in (Outcome.STANDOFF, Outcome.VOID):
        bank_passes = False  # nobody won: the same banker deals again
    else:
        bank_passes = None
    return Verdict(
        outcome=outcome,
        violations=tuple(out),
        settlement=settlement,
        at_risk=at_risk,
        fund_cover=fund_cover,
        deciding_card=deciding,
        bank_passes=bank_passes,
        fund_after=table.fund + settlement.nets().get(FUND, 0),
    )


def next_table(record: Record, verdict: Verdict) -> Table | None:
    """The table of the next coup: who banks, how his stake opens, what the fund holds.

    A banker who lost or took the money passes the bank to the punter on his left ("передаёт колоду
    для сдачи следующему игроку"), who opens after a take with the sum just taken off the table
    (the stake plus what covered it); a banker who stays opens ``AGAIN`` with that pot; after a
    stand-off or a void coup the same banker stakes afresh. None while the coup is undecided or
    the winning banker has not decided.
    """
    table = record.table
    if verdict.bank_passes is None:
        return None
    pot = record.stake + verdict.at_risk
    if not verdict.bank_passes:
        if verdict.outcome is Outcome.BANKER:
            return replace(table, opening=Opening.AGAIN, previous=pot, fund=verdict.fund_after)
        return replace(table, fund=verdict.fund_after)
    if not table.punters:  # a bad table (a banker alone) judged as played: he banks again
        banker, punters = table.banker, table.punters
    else:
        banker, punters = table.punters[0], (*table.punters[1:], table.banker)
    took = verdict.outcome is Outcome.BANKER
    return Table(
        banker=banker,
        punters=punters,
        fund=verdict.fund_after,
        opening=Opening.AFTER_TAKE if took else Opening.NEW_BANK,
        previous=pot if took else 0,
    )


@dataclass(frozen=True, slots=True)
class _Race:
    """What the cards of a record say, position by position.

    ``outcome`` None: held (a card that could have decided cannot be read). ``deciding``: the
    index of the card that decided, when the outcome is known. ``decided_by``: the index by which
    the coup had certainly been decided, known outcome or not (a card of a starting rank that can
    be read ends it at the latest there): the cards after it are too many either way.
    ``certainly_undecided``: no card, read or not, could have decided (deal on)."""

    outcome: Outcome | None
    deciding: int | None
    decided_by: int | None
    certainly_undecided: bool


#: past this many unreadable cards the race is not read rank by rank (13**k readings): it is held
_MOST_UNKNOWN_CARDS = 3


def _race_of(ranks: Sequence[str], settings: HouseSettings) -> tuple[Outcome, int | None]:
    """The outcome of cards whose every rank is known, and the index of the card that decided:
    the first is the banker's, the second the punters' ("Первую карту он кладёт себе, а вторую --
    первому понтеру"); two equal starting ranks are the doublet; then the first starting rank to
    come again wins for its side."""  # noqa: RUF002
    if len(ranks) < 2:
        return Outcome.UNDECIDED, None
    right, left = ranks[0], ranks[1]
    if right == left:
        return (Outcome.BANKER if settings.doublet is Doublet.BANKER else Outcome.STANDOFF), 1
    for i in range(2, len(ranks)):
        if ranks[i] == right:
            return Outcome.BANKER, i
        if ranks[i] == left:
            return Outcome.PUNTERS, i
    return Outcome.UNDECIDED, None


def _race(cards: Sequence[str], settings: HouseSettings) -> _Race:
    """The outcome of a record's cards, each position a fact: the first card is the banker's and
    the second the punters' (the source: the first he lays for himself, the second for the first
    punter), whatever is written there. A card that cannot be read is unknown, not skipped: it
    might have been of any rank, so the race is read under every rank it could have (RULES.md
    §11, "report every finding that can be judged"): what every reading agrees on is what the
    cards tell -- `7S ? 7D` is the banker's whatever the unknown card was, under the default
    doublet -- and what they do not agree on cannot be told (the coup is held either way)."""
    known = [card if card in POINTS else None for card in cards]
    unknown = [i for i, card in enumerate(known) if card is None]
    if len(unknown) > _MOST_UNKNOWN_CARDS:
        return _Race(None, None, None, False)
    base = [rank_of(card) if card is not None else "" for card in known]
    races = []
    for guess in product(RANKS, repeat=len(unknown)):
        ranks = list(base)
        for i, rank in zip(unknown, guess, strict=True):
            ranks[i] = rank
        races.append(_race_of(ranks, settings))
    outcomes = {outcome for outcome, _ in races}
    told = outcomes.pop() if len(outcomes) == 1 else None
    decided = [at for _, at in races]
    deciding = decided[0] if told is not None and len(set(decided)) == 1 else None
    # the coup was certainly over by the latest card that decides it in any reading
    decided_by = None if None in decided else max(at for at in decided if at is not None)
    return _Race(told, deciding, decided_by, all(at is None for at in decided))


# ---------------------------------------------------------------------------------------------
# JSON


def record_to_dict(record: Record) -> dict[str, Any]:
    """The record's JSON shape (docs/games/landsknecht.md); ``consent`` only when someone agreed
    to share the stake (a record without one reads back the same)."""
    t = record.table
    out: dict[str, Any] = {
        "game": "landsknecht",
        "banker": t.banker,
        "punters": list(t.punters),
        "fund": t.fund,
        "opening": t.opening.value,
        "previous": t.previous,
        "stake": record.stake,
        "covers": [{"punter": c.punter, "amount": c.amount} for c in record.covers],
        "cards": list(record.cards),
        "decision": record.decision.value if record.decision else None,
    }
    if record.consent:
        out["consent"] = list(record.consent)
    return out


def _check_game(data: Mapping[str, Any]) -> None:
    """A coup record and a fund return record alike: no ``"game"`` means landsknecht."""
    game = data.get("game", "landsknecht")
    if game != "landsknecht":
        raise ValueError(said("not a landsknecht record: {game}", game=shown(game)))


def _whole(data: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    # type(), not isinstance(): bool is an int subclass, and true, 10.0 or "10" are no chips
    if type(value) is not int:
        raise ValueError(
            said("{field} must be a whole number of chips, not {value}", field=key, value=shown(value))
        )
    if value > MAX_RECORD_CHIPS:  # core.records: every game's records, the import's limit
        raise ValueError(
            said(
                "{field} must be a whole number of at most {limit} chips, not {value}",
                field=key,
                limit=MAX_RECORD_CHIPS_SAID,
                value=shown(value),
            )
        )
    return value


def _names(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not is_str_list(value):
        raise ValueError(said("{field} must be a list of names, not {value}", field=key, value=shown(value)))
    return tuple(value)


def _choice(
    data: Mapping[str, Any],
    key: str,
    kind: type[Opening] | type[Decision] | type[FundReturn],
    default: object,
    *,
    nullable: bool = True,
) -> Any:
    value = data.get(key, default)
    if value is None and nullable:
        return None
    if type(value) is str and value in {k.value for k in kind}:
        return kind(value)
    allowed = Listing(k.value for k in kind)
    raise ValueError(
        said("{field} must be one of {allowed}, not {value}", field=key, allowed=allowed, value=shown(value))
    )


def _name_amounts(
    raw: object,
    name_key: str,
    *,
    not_list: Callable[[], str],
    bad_entry: Callable[[int], str],
    bad_amount: Callable[[int, object], str],
    too_many: Callable[[int, int], str],
) -> tuple[tuple[str, int], ...]:
    """``[{name_key: name, "amount": chips}, ...]`` (a coup's covers, a fund return's payments) as
    (name, amount) pairs, as strictly as the rest of a record: an amount is a JSON integer
    (``bad_amount``) of at most ``MAX_RECORD_CHIPS`` (``too_many``). The refusals are the caller's
    sentences: each names its own field, and their patterns stay whole for the catalogue."""
    if type(raw) is not list:
        raise ValueError(not_list())
    out = []
    for n, item in enumerate(raw, 1):
        if type(item) is not dict or type(item.get(name_key)) is not str:
            raise ValueError(bad_entry(n))
        amount = item.get("amount")
        # type(), not isinstance(): bool is an int subclass, and true, 10.0 or "10" are no chips
        if type(amount) is not int:
            raise ValueError(bad_amount(n, amount))
        if amount > MAX_RECORD_CHIPS:
            raise ValueError(too_many(n, amount))
        out.append((item[name_key], amount))
    return tuple(out)


def record_from_dict(data: Mapping[str, Any]) -> Record:
    """Read the JSON shape back, or raise ValueError with a sentence naming the first malformed key.

    Only the shape is checked, strictly: chips are JSON integers (not ``"10"``, ``10.5`` or
    ``true``), names strings, ``punters``, ``covers``, ``cards`` and ``consent`` lists, the opening
    and decision their words. What the rules say about the values (a stake below the minimum, a
    card code that names no card, a cover by a stranger) is the judge's, so a record that breaks a
    rule still gets a verdict rather than an error."""
    _check_game(data)
    banker = data.get("banker")
    if type(banker) is not str:
        raise ValueError(said("banker must be a player's name, not {value}", value=shown(banker)))
    punters = data.get("punters")
    if not is_str_list(punters):
        raise ValueError(said("punters must be a list of names, not {value}", value=shown(punters)))
    opening = _choice(data, "opening", Opening, Opening.NEW_BANK.value)
    if opening is None:
        raise ValueError(said("opening must be one of new-bank, after-take, again, not null"))
    table = Table(
        banker=banker,
        punters=tuple(punters),
        fund=_whole(data, "fund", 0),
        opening=opening,
        previous=_whole(data, "previous", 0),
    )
    stake = _whole(data, "stake")
    raw_covers = data.get("covers", [])
    covers = [
        Cover(punter, amount)
        for punter, amount in _name_amounts(
            raw_covers,
            "punter",
            not_list=lambda: said(
                "covers must be a list of {{punter, amount}}, not {value}", value=shown(raw_covers)
            ),
            bad_entry=lambda n: said("cover {n} must be {{punter, amount}} with the punter's name", n=n),
            bad_amount=lambda n, amount: said(
                "cover {n}'s amount must be a whole number of chips, not {value}", n=n, value=shown(amount)
            ),
            too_many=lambda n, amount: said(
                "cover {n}'s amount must be a whole number of at most {limit} chips, not {value}",
                n=n,
                limit=MAX_RECORD_CHIPS_SAID,
                value=shown(amount),
            ),
        )
    ]
    cards = data.get("cards", [])
    if not is_str_list(cards):
        raise ValueError(said("cards must be a list of card codes, not {value}", value=shown(cards)))
    return Record(
        table=table,
        stake=stake,
        covers=tuple(covers),
        cards=tuple(cards),
        decision=_choice(data, "decision", Decision, None),
        consent=_names(data, "consent"),
    )


def verdict_to_dict(verdict: Verdict, record_id: object = None) -> dict[str, Any]:
    """The verdict as JSON (docs/coup-record.md): the outcome as played (null: the coup is held),
    the violations in table order, the settlement (transfers and each party's net, the fund as
    ``"fund"``; null when held), and what the next coup needs to know."""
    settlement = verdict.settlement
    return {
        "id": record_id,
        "game": "landsknecht",
        "outcome": None if verdict.outcome is None else verdict.outcome.value,
        "violations": [{"code": v.code.value, "detail": v.message} for v in verdict.violations],
        "settlement": None
        if verdict.outcome is None
        else settlement_to_dict(settlement.transfers, settlement.nets()),
        "at_risk": verdict.at_risk,
        "fund_cover": verdict.fund_cover,
        "deciding_card": verdict.deciding_card,
        "bank_passes": verdict.bank_passes,
        "fund_after": verdict.fund_after,
    }


#: the ``"kind"`` of a fund return record (a coup record has none)
FUND_RETURN_KIND = "fund-return"


def _parties(data: Mapping[str, Any], key: str) -> tuple[tuple[str, int], ...]:
    raw = data.get(key)
    return _name_amounts(
        raw,
        "player",
        not_list=lambda: said(
            "{field} must be a list of {{player, amount}}, not {value}", field=key, value=shown(raw)
        ),
        bad_entry=lambda n: said(
            "{field} {n} must be {{player, amount}} with the player's name", field=key, n=n
        ),
        bad_amount=lambda n, amount: said(
            "{field} {n}'s amount must be a whole number of chips, not {value}",
            field=key,
            n=n,
            value=shown(amount),
        ),
        too_many=lambda n, amount: said(
            "{field} {n}'s amount must be a whole number of at most {limit} chips, not {value}",
            field=key,
            n=n,
            limit=MAX_RECORD_CHIPS_SAID,
            value=shown(amount),
        ),
    )


def fund_return_from_dict(data: Mapping[str, Any]) -> FundReturnRecord:
    """A fund return record (``"kind": "fund-return"``, docs/games/landsknecht.md) from JSON, or
    ValueError with a sentence naming the malformed key; as strict as a coup record."""
    _check_game(data)
    # a fund return always has a rule: null is refused as any other word would be
    rule = _choice(data, "rule", FundReturn, FundReturn.PROPORTIONAL.value, nullable=False)
    returned = _parties(data, "returned") if data.get("returned") is not None else None
    return FundReturnRecord(
        fund=_whole(data, "fund"), paid=_parties(data, "paid"), rule=rule, returned=returned
    )


def fund_return_to_dict(record: FundReturnRecord) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": "landsknecht",
        "kind": FUND_RETURN_KIND,
        "fund": record.fund,
        "rule": record.rule.value,
        "paid": [{"player": p, "amount": a} for p, a in record.paid],
    }
    if record.returned is not None:
        out["returned"] = [{"player": p, "amount": a} for p, a in record.returned]
    return out


def fund_return_verdict_to_dict(verdict: FundReturnVerdict, record_id: object = None) -> dict[str, Any]:
    """``outcome`` ``returned`` (the fund paid back), or null with no settlement when the record
    is a bad one (``bad-fund-return``)."""
    bad = any(v.code is Code.BAD_FUND_RETURN for v in verdict.violations)
    settlement = verdict.settlement
    return {
        "id": record_id,
        "game": "landsknecht",
        "kind": FUND_RETURN_KIND,
        "outcome": None if bad else "returned",
        "violations": [{"code": v.code.value, "detail": v.message} for v in verdict.violations],
        "settlement": None
        if bad
        else settlement_to_dict(settlement.transfers, settlement.nets()),
    }


# ---------------------------------------------------------------------------------------------
# Odds


@dataclass(frozen=True, slots=True)
class LandsknechtOdds:
    """Exact figures of one coup from a fresh shoe.

    ``banker_edge``: the banker's expectation per chip at risk (``banker_win - punters_win``); a
    stand-off wins and loses nothing. ``expected_cards``: cards turned per coup, the starting two
    included (how long a deal takes at the table).
    """

    decks: int
    doublet: Doublet
    doublet_chance: Fraction
    banker_win: Fraction
    punters_win: Fraction
    standoff: Fraction
    banker_edge: Fraction
    expected_cards: Fraction


def exact_odds(settings: HouseSettings | None = None, decks: int | None = None) -> LandsknechtOdds:
    """Enumerate a fresh shoe of ``decks`` decks (default: the settings') exactly.

    Only ranks matter. The first two cards are enumerated rank by rank (13 x 13, weighted by the
    cards of each rank left); when they differ, the deal between them is followed card by card: the
    next card is the banker's rank (``a`` left), the punters' (``b`` left) or another (``o`` left),
    each with its exact chance, recursively over ``o``. Fractions throughout, nothing sampled.
    The stake rules, the fund and the decision do not change the edge per chip at risk.
    """
    s = settings or HouseSettings()
    d = s.decks if decks is None else decks
    if d < 1:
        raise ValueError("a shoe holds at least one deck")
    per_rank = 4 * d
    total = 52 * d
    doublet = Fraction(0)
    banker = Fraction(0)
    punters = Fraction(0)
    cards = Fraction(0)
    for r1 in range(len(RANKS)):
        for r2 in range(len(RANKS)):
            first = Fraction(per_rank, total)
            if r1 == r2:
                p = first * Fraction(per_rank - 1, total - 1)
                doublet += p
                cards += 2 * p
                continue
            p = first * Fraction(per_rank, total - 1)
            left = per_rank - 1  # of the banker's rank and of the punters', one of each is out
            win, length = _race_odds(left, left, total - 2 - 2 * left)
            banker += p * win
            punters += p * (1 - win)
            cards += p * (2 + length)
    if s.doublet is Doublet.BANKER:
        banker += doublet
        standoff = Fraction(0)
    else:
        standoff = doublet
    return LandsknechtOdds(
        decks=d,
        doublet=s.doublet,
        doublet_chance=doublet,
        banker_win=banker,
        punters_win=punters,
        standoff=standoff,
        banker_edge=banker - punters,
        expected_cards=cards,
    )


def _race_odds(a: int, b: int, others: int) -> tuple[Fraction, Fraction]:
    """(chance the banker's rank comes first, expected cards dealt) with ``a`` cards of his rank,
    ``b`` of the punters' and ``others`` of neither left, dealt one at a time without replacement.

    Built up from ``others = 0`` (the next card decides) so there is no deep recursion:
    P(o) = a/N + o/N * P(o-1), E(o) = 1 + o/N * E(o-1), N = a + b + o."""
    win = Fraction(a, a + b)
    length = Fraction(1)
    for o in range(1, others + 1):
        n = a + b + o
        win = Fraction(a, n) + Fraction(o, n) * win
        length = 1 + Fraction(o, n) * length
    return win, length


def monte_carlo(
    settings: HouseSettings | None = None, decks: int | None = None, *, coups: int, seed: int = 0
) -> MonteCarlo:
    """Deal ``coups`` coups, each from a freshly shuffled shoe, and average the banker's result.

    Cards are drawn one at a time by a partial Fisher-Yates shuffle over the shoe's ranks (a coup
    uses some ten cards, so shuffling the whole shoe each time would be wasted work)."""
    s = settings or HouseSettings()
    d = s.decks if decks is None else decks
    rng = random.Random(seed)
    shoe = [r for r in range(13) for _ in range(4 * d)]
    n = len(shoe)
    total = 0
    squares = 0
    for _ in range(coups):
        # two starting cards, then the cards between them; the shoe's front holds what was drawn
        j = rng.randrange(0, n)
        shoe[0], shoe[j] = shoe[j], shoe[0]
        j = rng.randrange(1, n)
        shoe[1], shoe[j] = shoe[j], shoe[1]
        right, left = shoe[0], shoe[1]
        if right == left:
            result = 1 if s.doublet is Doublet.BANKER else 0
        else:
            drawn = 2
            while True:
                j = rng.randrange(drawn, n)
                c = shoe[j]
                shoe[drawn], shoe[j] = c, shoe[drawn]
                drawn += 1
                if c == right:
                    result = 1
                    break
                if c == left:
                    result = -1
                    break
        total += result
        squares += result * result
    return MonteCarlo.of_sums(coups, total, squares)

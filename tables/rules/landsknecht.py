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

Pure Python: no Django, nothing of the project but :mod:`tables.rules.cards`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from math import sqrt
from typing import Any

from tables.rules.cards import ALL_CARDS, POINTS, RANKS
from tables.rules.sentence import Card, Word, said

__all__ = [
    "FUND",
    "AfterTake",
    "AgainStake",
    "CloseCovers",
    "Code",
    "Cover",
    "Deal",
    "Decide",
    "Decision",
    "Doublet",
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
    "judge",
    "monte_carlo",
    "next_moves",
    "next_table",
    "rank_of",
    "record_from_dict",
    "record_to_dict",
    "refusal",
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
    (True); False keeps the uncovered part out of play, as in chemin de fer.
    """

    decks: int = 2
    min_stake: int = 10
    fund_due: int = 10
    doublet: Doublet = Doublet.BANKER
    after_take: AfterTake = AfterTake.SAME_OR_MINIMUM
    again_stake: AgainStake = AgainStake.ANY
    fund_backs_uncovered: bool = True

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
class Record:
    """One coup as the croupier enters it. ``cards`` are in the order turned: the banker's (right),
    the punters' (left), then the cards dealt between them."""

    table: Table
    stake: int
    covers: tuple[Cover, ...] = ()
    cards: tuple[str, ...] = ()
    decision: Decision | None = None


class Code(StrEnum):
    """Why a record breaks the rules."""

    BAD_TABLE = "bad-table"
    STAKE_BELOW_MINIMUM = "stake-below-minimum"
    STAKE_NOT_ALLOWED = "stake-not-allowed"
    COVER_BY_NON_PUNTER = "cover-by-non-punter"
    COVER_TWICE = "cover-twice"
    COVER_NOT_POSITIVE = "cover-not-positive"
    COVERS_EXCEED_STAKE = "covers-exceed-stake"
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
class Transfer:
    """``payer`` pays ``payee`` ``amount`` chips (always positive)."""

    payer: str
    payee: str
    amount: int


@dataclass(frozen=True, slots=True)
class Settlement:
    transfers: tuple[Transfer, ...] = ()

    def nets(self) -> dict[str, int]:
        """Each party's net result (won positive); the values sum to zero."""
        out: dict[str, int] = {}
        for t in self.transfers:
            out[t.payer] = out.get(t.payer, 0) - t.amount
            out[t.payee] = out.get(t.payee, 0) + t.amount
        return out


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's answer. ``deciding_card`` is the index in ``cards`` of the card that decided
    (None if nothing did); ``bank_passes`` whether the next coup has a new banker (None while
    undecided); ``fund_after`` the fund's balance once settled."""

    outcome: Outcome
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


# ---------------------------------------------------------------------------------------------
# Rules shared by the machine and the judge


def rank_of(card: str) -> str:
    """What decides in Landsknecht: a card's rank (``"K"`` of ``"KS"``); suits play no part."""
    return card[0]


def _table_refusal(table: Table, settings: HouseSettings) -> str | None:
    names = [table.banker, *table.punters]
    if any(not n for n in names):
        return said("every player needs a name")
    if FUND in names:
        return said("{fund!r} is the reserve fund's name, not a player's", fund=FUND)
    if len(set(names)) != len(names):
        return said("a player sits once, and the banker is not among the punters")
    if table.fund < 0:
        return said("the fund's balance is not negative")
    if table.opening is Opening.NEW_BANK and table.previous != 0:
        return said("a new bank has no previous sum")
    if table.opening is not Opening.NEW_BANK and table.previous < 1:
        return said("an opening {opening} needs the previous sum (positive chips)", opening=table.opening)
    if table.opening is not Opening.NEW_BANK and table.previous < settings.min_stake:
        # a pot or a take is at least one stake; below the minimum the history is wrong (and a
        # whole-pot stake could never be put)
        return said(
            "the previous sum ({previous}) is below the minimum stake of {minimum}",
            previous=table.previous,
            minimum=settings.min_stake,
        )
    return None


def _stake_refusal(table: Table, stake: int, settings: HouseSettings) -> tuple[Code, str] | None:
    if stake < settings.min_stake:
        return Code.STAKE_BELOW_MINIMUM, said(
            "the stake must be at least the minimum of {minimum}", minimum=settings.min_stake
        )
    if (
        table.opening is Opening.AFTER_TAKE
        and settings.after_take is AfterTake.SAME_OR_MINIMUM
        and stake not in (table.previous, settings.min_stake)
    ):
        return Code.STAKE_NOT_ALLOWED, said(
            "after a take the next bank stakes the sum just taken ({previous}) or the minimum "
            "({minimum}), not {stake}",
            previous=table.previous,
            minimum=settings.min_stake,
            stake=stake,
        )
    if (
        table.opening is Opening.AGAIN
        and settings.again_stake is AgainStake.WHOLE_POT
        and stake != table.previous
    ):
        return (
            Code.STAKE_NOT_ALLOWED,
            said(
                "a banker who stays lets the whole pot ({pot}) ride, not {stake}",
                pot=table.previous,
                stake=stake,
            ),
        )
    return None


def _fund_cover(table: Table, stake: int, covered_by_punters: int, settings: HouseSettings) -> int:
    """The fund answers for what the punters leave, up to its balance (when the house says so)."""
    if not settings.fund_backs_uncovered:
        return 0
    return max(0, min(stake - covered_by_punters, table.fund))


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
    """No more covers: the fund answers for the rest (or nothing was covered: the coup is void)."""


@dataclass(frozen=True, slots=True)
class Deal:
    card: str


@dataclass(frozen=True, slots=True)
class Decide:
    decision: Decision


Move = PutStake | Cover | CloseCovers | Deal | Decide


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


def refusal(state: State, move: Move) -> str | None:
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
        if move.card not in POINTS:
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


def apply(state: State, move: Move) -> State:
    """``state`` after ``move``; raises :class:`IllegalMove` (with the reason) if it is not allowed."""
    reason = refusal(state, move)
    if reason:
        raise IllegalMove(reason)
    if isinstance(move, PutStake):
        return replace(state, phase=Phase.COVER, stake=move.amount)
    if isinstance(move, Cover):
        return replace(state, covers=(*state.covers, move))
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
                if not any(c.punter == p for c in state.covers):
                    moves += [Cover(p, a) for a in sorted({left, left // 2}) if a > 0]
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
    return Record(state.table, state.stake, state.covers, state.cards, state.decision)


# ---------------------------------------------------------------------------------------------
# The offline judge


def judge(record: Record, settings: HouseSettings | None = None) -> Verdict:
    """Replay ``record`` under ``settings``: every violation in table order (table, stake, covers,
    cards, decision), the outcome as played and its settlement.

    The outcome is what the cards say even when the record breaks a rule (a bad card code is
    skipped): the pit boss sees both, as for chemin de fer. Covers by non-punters are settled as
    played (the money was on the table), except the banker's own, which puts nothing at risk; the
    fund answers only for the rest of the stake.
    """
    s = settings or HouseSettings()
    table = record.table
    out: list[Violation] = []
    reason = _table_refusal(table, s)
    if reason:
        out.append(Violation(Code.BAD_TABLE, reason))
    found = _stake_refusal(table, record.stake, s)
    if found:
        out.append(Violation(*found))
    covered = 0
    who: set[str] = set()
    for c in record.covers:
        if c.punter not in table.punters:
            out.append(Violation(Code.COVER_BY_NON_PUNTER, f"{c.punter!r} is not a punter at this table"))
        if c.punter in who:
            out.append(Violation(Code.COVER_TWICE, f"{c.punter} covered twice"))
        who.add(c.punter)
        if c.amount < 1:
            out.append(
                Violation(Code.COVER_NOT_POSITIVE, f"{c.punter}'s cover of {c.amount} is not positive")
            )
        if c.punter != table.banker:  # a banker's "cover" of his own stake puts nothing at risk
            covered += max(c.amount, 0)
    if covered > record.stake:
        out.append(
            Violation(Code.COVERS_EXCEED_STAKE, f"covers of {covered} exceed the stake of {record.stake}")
        )
    fund_cover = _fund_cover(table, record.stake, covered, s)
    at_risk = covered + fund_cover

    good: list[tuple[int, str]] = []
    for i, card in enumerate(record.cards):
        if card in POINTS:
            good.append((i, card))
        else:
            out.append(Violation(Code.BAD_CARD, f"card {i + 1}: bad card {card!r}"))
    counts = Counter(c for _, c in good)
    for card in ALL_CARDS:
        if counts[card] > s.decks:
            out.append(
                Violation(Code.IMPOSSIBLE_CARD, f"{card} seen {counts[card]} times, the shoe holds {s.decks}")
            )

    outcome, deciding = Outcome.UNDECIDED, None
    if at_risk == 0:
        outcome = Outcome.VOID
        if record.cards:
            out.append(Violation(Code.CARDS_AFTER_DECISION, "nothing was covered: no card is turned"))
    else:
        outcome, deciding = _race(good, s)
        last = good[-1][0] if good else None
        if deciding is not None and last is not None and last > deciding:
            extra = len(record.cards) - deciding - 1
            out.append(
                Violation(Code.CARDS_AFTER_DECISION, f"{extra} card(s) after card {deciding + 1} decided")
            )
        if outcome is Outcome.UNDECIDED:
            out.append(Violation(Code.CARDS_MISSING, "no rank has repeated yet: deal on"))

    if outcome is Outcome.BANKER and record.decision is None:
        out.append(Violation(Code.DECISION_MISSING, "the banker won: the banker takes or stakes again"))
    if outcome is not Outcome.BANKER and record.decision is not None:
        out.append(Violation(Code.DECISION_WITHOUT_WIN, f"only a winning banker decides ({outcome})"))

    played = (c for c in record.covers if c.amount > 0 and c.punter != table.banker)
    settlement = _settle(outcome, table.banker, played, fund_cover)
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
    if not table.punters:  # alone at the table (he played the fund): he banks again
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


def _race(cards: list[tuple[int, str]], settings: HouseSettings) -> tuple[Outcome, int | None]:
    """The outcome of the cards as a whole record, and the index of the deciding card."""
    if len(cards) < 2:
        return Outcome.UNDECIDED, None
    right, left = rank_of(cards[0][1]), rank_of(cards[1][1])
    if right == left:
        return (Outcome.BANKER if settings.doublet is Doublet.BANKER else Outcome.STANDOFF), cards[1][0]
    for i, card in cards[2:]:
        if rank_of(card) == right:
            return Outcome.BANKER, i
        if rank_of(card) == left:
            return Outcome.PUNTERS, i
    return Outcome.UNDECIDED, None


# ---------------------------------------------------------------------------------------------
# JSON


def record_to_dict(record: Record) -> dict[str, Any]:
    """The record's JSON shape (docs/games/landsknecht.md)."""
    t = record.table
    return {
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


def _whole(data: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if type(value) is not int:  # bool is an int subclass, 10.0 and "10" are no chips: refused
        raise ValueError(f"{key} must be a whole number of chips, not {value!r}")
    return value


def _choice(data: Mapping[str, Any], key: str, kind: type[Opening] | type[Decision], default: object) -> Any:
    value = data.get(key, default)
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(k.value for k in kind)
        raise ValueError(f"{key} must be one of {allowed}, not {value!r}") from None


def record_from_dict(data: Mapping[str, Any]) -> Record:
    """Read the JSON shape back, or raise ValueError naming the first malformed key.

    Only the shape is checked (types, the opening and decision words): what the rules say about
    the values (a stake below the minimum, a bad card code, a cover by a stranger) is the judge's,
    so a record that breaks a rule still gets a verdict rather than an error."""
    game = data.get("game", "landsknecht")
    if game != "landsknecht":
        raise ValueError(f"not a landsknecht record: {game!r}")
    banker = data.get("banker")
    if type(banker) is not str:
        raise ValueError("banker must be a player's name")
    punters = data.get("punters")
    if type(punters) is not list or any(type(p) is not str for p in punters):
        raise ValueError("punters must be a list of names")
    opening = _choice(data, "opening", Opening, Opening.NEW_BANK.value)
    if opening is None:
        raise ValueError("opening must be one of new-bank, after-take, again, not None")
    table = Table(
        banker=banker,
        punters=tuple(punters),
        fund=_whole(data, "fund", 0),
        opening=opening,
        previous=_whole(data, "previous", 0),
    )
    stake = _whole(data, "stake")
    raw_covers = data.get("covers", [])
    if type(raw_covers) is not list:
        raise ValueError("covers must be a list of {punter, amount}")
    covers = []
    for n, c in enumerate(raw_covers, 1):
        if type(c) is not dict or type(c.get("punter")) is not str:
            raise ValueError(f"cover {n} must be {{punter, amount}} with the punter's name")
        covers.append(Cover(c["punter"], _whole(c, "amount")))
    cards = data.get("cards", [])
    if type(cards) is not list or any(type(c) is not str for c in cards):
        raise ValueError("cards must be a list of card codes")
    return Record(
        table=table,
        stake=stake,
        covers=tuple(covers),
        cards=tuple(cards),
        decision=_choice(data, "decision", Decision, None),
    )


def verdict_to_dict(verdict: Verdict, record_id: object = None) -> dict[str, Any]:
    """The verdict as JSON (docs/coup-record.md): the outcome as played, the violations in table
    order, the settlement (transfers and each party's net, the fund as ``"fund"``), and what the
    next coup needs to know."""
    return {
        "id": record_id,
        "game": "landsknecht",
        "outcome": verdict.outcome.value,
        "violations": [{"code": v.code.value, "detail": v.message} for v in verdict.violations],
        "settlement": {
            "transfers": [
                {"payer": t.payer, "payee": t.payee, "amount": t.amount} for t in verdict.settlement.transfers
            ],
            "net": verdict.settlement.nets(),
        },
        "at_risk": verdict.at_risk,
        "fund_cover": verdict.fund_cover,
        "deciding_card": verdict.deciding_card,
        "bank_passes": verdict.bank_passes,
        "fund_after": verdict.fund_after,
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


@dataclass(frozen=True, slots=True)
class MonteCarlo:
    coups: int
    mean: float  # the banker's mean result per chip at risk
    stderr: float


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
    mean = total / coups
    var = max(squares / coups - mean * mean, 0.0)
    return MonteCarlo(coups=coups, mean=mean, stderr=sqrt(var / coups))

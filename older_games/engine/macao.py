# The comments quote the Russian source word for word, hence the Cyrillic letters.
# ruff: noqa: RUF002, RUF003
"""Macao: a banking relative of chemin de fer, as a game type of its own (docs/games/macao.md).

The source (seed 004, "МАКАО", quoted in Russian below) is short: two full decks, every player
including the banker gets one private card, the banker deals extra cards to whoever asks, tens and
court cards count nothing and may be thrown aside for a new card, the aim is 9, the banker wins
ties, a 9 is paid three minimum stakes, an 8 two, anything else one, then the bank passes left.
Where the text leaves a choice or reads two ways, the choice is a field of :class:`MacaoSettings`
and its comment cites the passage.

Layout of this module (the same style as the chemin de fer engine: frozen dataclasses, no Django):

- :class:`MacaoSettings` -- the house settings;
- :class:`MacaoRecord` -- what the croupier enters: the unit (the minimum stake agreed before the
  game), the banker, the punters from the banker's left, the deal and each seat's actions;
- the live machine: :func:`start`, :func:`apply`, :func:`next_moves`, :func:`record_of`,
  :func:`outcome_of`;
- the offline judge: :func:`judge`, which checks a record on its own (it does not replay the
  machine) and settles it;
- exact odds: :func:`exact_odds` (enumerated, Fractions) and :func:`simulate` (Monte Carlo).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from typing import Any, Literal

from core.cards import ALL_CARDS, POINTS, RANKS, card_code, card_read
from core.records import MAX_RECORD_CHIPS, MAX_RECORD_CHIPS_SAID, is_str_list
from core.sentence import Card, said, shown
from older_games.engine.chips import Transfer, settlement_to_dict
from older_games.engine.sampling import MonteCarlo

GAME = "macao"

Count = Literal["bust", "modulo"]
Collect = Literal["scale", "one"]
MoveKind = Literal["deal", "draw", "discard", "stand"]
ActionKind = Literal["draw", "discard"]
Winner = Literal["punter", "banker"]


class MacaoError(ValueError):
    """A move or a record the rules refuse; ``str(error)`` is the reason, for the croupier."""


# ---------------------------------------------------------------------------------------------
# House settings


@dataclass(frozen=True, slots=True)
class MacaoSettings:
    """How a house deals Macao. The defaults are the product's reading of the source."""

    #: "Играется в две полные колоды из 52 карт." -- two full decks
    decks: int = 2
    #: The source never says what happens past 9. "Выигрывает тот, у кого окажется девятка или
    #: составится девять очков из двух карт" reads as a plain sum ("nine points made of two
    #: cards"), so by default a hand over 9 is over ("bust": it loses to any hand, and the banker
    #: wins a tie of two bust hands). "modulo" counts the last digit as in baccarat, which the same
    #: source calls Macao's close relative ("Она имеет много сходства с Макао").
    count: Count = "bust"
    #: Cards kept in a hand, the first included. "девять очков из двух карт" -> two by default (one
    #: extra card); "Банкомёт досдаёт карты каждому желающему игроку" sets no limit, so a house may
    #: allow more (3 is the alternative the docs price).
    max_cards: int = 2
    #: "Фигуры и десятки не считаются, играющие вправе сбрасывать их в сторону и требовать новую
    #: карту" -- a player may throw a zero card aside and take a new one; the replacement does not
    #: use up a place in the hand. A house may forbid it (the zero then stays and takes a place).
    discard_zeros: bool = True
    #: "Игроки платят банкомёту в аналогичном же случае" -- players pay the banker "in the same
    #: way". Read by default as the mirror of the punters' scale: a winning banker collects three
    #: units with a 9, two with an 8, one otherwise ("scale"). The other reading is that a losing
    #: punter pays his one stake ("one"); the example ("с остальных получает сам") names no amount.
    banker_collects: Collect = "scale"
    #: "Банкомёт досдаёт карты каждому желающему игроку" after dealing "каждому игроку, не исключая
    #: себя" -- the banker is a player too, so by default he may draw for himself after the punters.
    banker_draws: bool = True

    def __post_init__(self) -> None:
        if self.decks < 1:
            raise ValueError("Macao is dealt from at least one deck")
        if not 1 <= self.max_cards <= 9:
            raise ValueError("a Macao hand keeps 1 to 9 cards")
        # as the JSON wrote it (5, null), never as Python would ('5', 'None'): RULES.md §11
        if self.count not in ("bust", "modulo"):
            raise ValueError(said("unknown count {value}", value=shown(self.count)))
        if self.banker_collects not in ("scale", "one"):
            raise ValueError(said("unknown banker_collects {value}", value=shown(self.banker_collects)))


DEFAULT = MacaoSettings()

#: each alternative to a default, one at a time, as the docs price them
ALTERNATIVES: dict[str, MacaoSettings] = {
    "count=modulo": MacaoSettings(count="modulo"),
    "max_cards=3": MacaoSettings(max_cards=3),
    "discard_zeros=False": MacaoSettings(discard_zeros=False),
    "banker_collects=one": MacaoSettings(banker_collects="one"),
    "banker_draws=False": MacaoSettings(banker_draws=False),
}


def points(cards: Iterable[str], settings: MacaoSettings) -> int | None:
    """A hand's points: the sum (ace 1, tens and court cards 0), or its last digit under
    ``count="modulo"``. None: over 9 under ``count="bust"``."""
    total = sum(POINTS[c] for c in cards)
    if settings.count == "modulo":
        return total % 10
    return total if total <= 9 else None


def units_for(hand_points: int | None) -> int:
    """Minimum stakes a win is worth: "Набрав девять очков, игрок выигрывает три минимальные
    ставки, восемь очков -- две минимальные ставки, семь очков и ниже -- одну минимальную ставку"."""
    if hand_points == 9:
        return 3
    if hand_points == 8:
        return 2
    return 1


# ---------------------------------------------------------------------------------------------
# The record and the verdict


@dataclass(frozen=True, slots=True)
class Action:
    """One request of a seat during its turn: ``draw`` takes ``card`` into the hand; ``discard``
    throws the hand's first zero card aside and takes ``card`` in its place."""

    kind: ActionKind
    card: str


@dataclass(frozen=True, slots=True)
class MacaoRecord:
    """A coup as the croupier enters it.

    ``punters`` run from the banker's left, in the order they are dealt and act; ``deal`` is one
    card per punter in that order and then the banker's; ``turns`` has one tuple of actions per
    seat in the same order (the banker's last); the end of a tuple is the seat standing.
    """

    unit: int
    banker: str
    punters: tuple[str, ...]
    deal: tuple[str, ...]
    turns: tuple[tuple[Action, ...], ...]
    game: str = GAME

    @property
    def seats(self) -> tuple[str, ...]:
        return (*self.punters, self.banker)

    def cards_in_order(self) -> tuple[str, ...]:
        """Every card as it left the shoe: the deal, then each seat's actions in turn."""
        return self.deal + tuple(a.card for turn in self.turns for a in turn)


@dataclass(frozen=True, slots=True)
class PunterResult:
    punter: str
    points: int | None
    banker_points: int | None
    winner: Winner
    units: int


@dataclass(frozen=True, slots=True)
class MacaoSettlement:
    """Integer chip transfers; ``net`` sums to zero."""

    transfers: tuple[Transfer, ...]
    net: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class MacaoVerdict:
    """The judge's answer. With violations there is no outcome and no settlement: the coup is
    referred to the pit boss, as in chemin de fer."""

    violations: tuple[str, ...]
    results: tuple[PunterResult, ...] = ()
    settlement: MacaoSettlement | None = None
    next_banker: str | None = None
    #: a short code per violation, in the same order (the offline verdict's ``code``; the
    #: sentences stay in ``violations`` for the croupier)
    codes: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.violations


def next_banker(banker: str, punters: Sequence[str]) -> str:
    """ "Далее банк передаётся игроку, сидящему слева от банкомёта": the first punter."""
    return punters[0] if punters else banker


#: "младшая карта": the ace counts one point, as the game counts it ("Туз считается за одно
#: очко"), so it is the lowest card drawn for seats (RULES.md §11), then 2 to 9, then the ten and
#: the court cards in their usual order
_DRAW_ORDER = "A23456789TJQK"


def first_banker(drawn: Mapping[str, str]) -> str | None:
    """ "Сдачу начинает вытянувший самую младшую карту": who drew the lowest rank deals first (the
    ace lowest, see :data:`_DRAW_ORDER`). None when the lowest rank is shared (they draw again).
    Each card is read as everywhere (``10D`` is ``TD``, RULES.md §11); a card that is none is
    refused with :class:`MacaoError` naming who drew it, never read as another rank."""
    lowest = lowest_drawn(drawn)
    return lowest[0] if len(lowest) == 1 else None


def lowest_drawn(drawn: Mapping[str, str]) -> tuple[str, ...]:
    """Who drew the lowest rank (see :func:`first_banker`), in ``drawn``'s order: one name, or
    those who draw again; empty when nobody drew. Raises :class:`MacaoError` for a card that is
    none (``10D`` is the ten of diamonds, ``1D`` no card: RULES.md §11)."""
    rank: dict[str, int] = {}
    for name, card in drawn.items():
        code = card_code(card)
        if code is None:
            raise MacaoError(said("{who} drew {card!r}, which is not a card.", who=name, card=card))
        rank[name] = _DRAW_ORDER.index(code[0])
    low = min(rank.values(), default=None)
    return tuple(name for name, r in rank.items() if r == low)


def settle_hands(
    unit: int,
    banker: str,
    punters: Sequence[str],
    hands: Sequence[Sequence[str]],
    settings: MacaoSettings,
) -> tuple[tuple[PunterResult, ...], MacaoSettlement]:
    """Each punter against the banker ("Банкомёт выплачивает выигрыш только тем игрокам, у
    которых карты выше по очкам, чем его собственные"; "Карты банкомёта, равные по очкам картам
    понтеров имеют преимущество"). ``hands`` is in seat order, the banker's last."""
    bank = points(hands[-1], settings)
    bank_rank = -1 if bank is None else bank
    results: list[PunterResult] = []
    transfers: list[Transfer] = []
    net: dict[str, int] = {banker: 0}
    for name, hand in zip(punters, hands[:-1], strict=True):
        mine = points(hand, settings)
        if (-1 if mine is None else mine) > bank_rank:
            units = units_for(mine)
            results.append(PunterResult(name, mine, bank, "punter", units))
            transfers.append(Transfer(banker, name, units * unit))
            net[name] = net.get(name, 0) + units * unit
            net[banker] -= units * unit
        else:
            units = units_for(bank) if settings.banker_collects == "scale" else 1
            results.append(PunterResult(name, mine, bank, "banker", units))
            transfers.append(Transfer(name, banker, units * unit))
            net[name] = net.get(name, 0) - units * unit
            net[banker] += units * unit
    return tuple(results), MacaoSettlement(tuple(transfers), net)


# ---------------------------------------------------------------------------------------------
# The live machine


@dataclass(frozen=True, slots=True)
class Move:
    """A croupier's entry: ``deal`` / ``draw`` / ``discard`` carry the card that left the shoe."""

    kind: MoveKind
    card: str | None = None


STAND = Move("stand")


@dataclass(frozen=True, slots=True)
class MacaoState:
    settings: MacaoSettings
    unit: int
    banker: str
    punters: tuple[str, ...]
    #: cards held per seat (punters from the banker's left, then the banker)
    hands: tuple[tuple[str, ...], ...]
    #: zero cards thrown aside, per seat
    discards: tuple[tuple[str, ...], ...]
    deal: tuple[str, ...] = ()
    turns: tuple[tuple[Action, ...], ...] = ()
    #: the seat to act (index into the seats); == number of seats when the coup is over
    turn: int = 0
    seen: Mapping[str, int] = field(default_factory=dict)

    @property
    def seats(self) -> tuple[str, ...]:
        return (*self.punters, self.banker)

    @property
    def phase(self) -> Literal["deal", "play", "done"]:
        if len(self.deal) < len(self.seats):
            return "deal"
        return "play" if self.turn < len(self.seats) else "done"

    def available(self, card: str) -> bool:
        return self.seen.get(card, 0) < self.settings.decks


def start(settings: MacaoSettings, *, unit: int, banker: str, punters: Sequence[str]) -> MacaoState:
    """A coup before its first card. Refuses a table the rules cannot deal."""
    names = (*punters, banker)
    if unit < 1:
        raise MacaoError(said("The minimum stake is a positive number of chips."))
    if not punters:
        raise MacaoError(said("Macao needs at least one punter besides the banker."))
    if len(set(names)) != len(names) or any(not n for n in names):
        raise MacaoError(said("Every seat needs its own non-empty name."))
    if len(names) > 52 * settings.decks:
        raise MacaoError(
            said(
                "{players} players cannot each get a card from {decks} decks.",
                players=len(names),
                decks=settings.decks,
            )
        )
    empty: tuple[tuple[str, ...], ...] = tuple(() for _ in names)
    return MacaoState(settings, unit, banker, tuple(punters), empty, empty)


def _may_draw(hand: tuple[str, ...], settings: MacaoSettings) -> bool:
    return len(hand) < settings.max_cards and points(hand, settings) is not None


def _zero_in(hand: tuple[str, ...]) -> int | None:
    return next((i for i, c in enumerate(hand) if POINTS[c] == 0), None)


def _may_draw_at_all(state: MacaoState) -> bool:
    """Whether the seat to act may draw (the banker may be barred by the house). Throwing a ten
    or a court card aside for a new card is every player's right whatever the house says of the
    banker's draws ("играющие вправе сбрасывать их в сторону и требовать новую карту", §11)."""
    return state.turn < len(state.punters) or state.settings.banker_draws


def _card_read(move: Move) -> Move:
    """The move with its card as the rules read it: 10D is TD, as in a record (RULES.md §11)."""
    return move if move.card is None else replace(move, card=card_read(move.card))


def refusal(state: MacaoState, move: Move) -> str | None:
    """Why ``move`` is illegal in ``state`` (None: it is legal)."""
    move = _card_read(move)
    phase = state.phase
    if phase == "done":
        return said("The coup is over.")
    if move.kind == "stand":
        return None if phase == "play" else said("Every player gets a first card before anyone stands.")
    card = move.card
    if card is None or card not in POINTS:
        return said("{card!r} is not a card.", card=card)
    if not state.available(card):
        return said(
            "{card} has already been seen {decks} times; the decks hold no more.",
            card=Card(card),
            decks=state.settings.decks,
        )
    if move.kind == "deal":
        return None if phase == "deal" else said("The deal is over: cards now go out on request.")
    if phase == "deal":
        return said("Every player gets a first card before anyone asks for another.")
    who = state.seats[state.turn]
    hand = state.hands[state.turn]
    if move.kind == "draw":
        if not _may_draw_at_all(state):
            return said("The banker ({who}) does not draw under this house's settings.", who=who)
        if points(hand, state.settings) is None:
            return said("{who} is over 9 and can take no more cards.", who=who)
        if len(hand) >= state.settings.max_cards:
            return said(
                "{who} already holds {most} cards, the most this house allows.",
                who=who,
                most=state.settings.max_cards,
            )
        return None
    if move.kind == "discard":
        if not state.settings.discard_zeros:
            return said("This house does not let a player throw a ten or a court card aside.")
        if _zero_in(hand) is None:
            return said("{who} holds no ten or court card to throw aside.", who=who)
        return None
    return said("Unknown move {kind!r}.", kind=move.kind)


def apply(state: MacaoState, move: Move) -> MacaoState:
    """The state after ``move``; raises :class:`MacaoError` with the reason if it is illegal."""
    move = _card_read(move)
    reason = refusal(state, move)
    if reason is not None:
        raise MacaoError(reason)
    if move.kind == "stand":
        nxt = state.turn + 1
        turns = (*state.turns, ()) if len(state.turns) <= state.turn else state.turns
        return replace(state, turns=turns, turn=nxt)
    card = move.card
    assert card is not None  # refusal() checked it
    seen = dict(state.seen)
    seen[card] = seen.get(card, 0) + 1
    if move.kind == "deal":
        i = len(state.deal)
        hands = tuple((card,) if j == i else h for j, h in enumerate(state.hands))
        return replace(state, deal=(*state.deal, card), hands=hands, seen=seen)
    i = state.turn
    hand = state.hands[i]
    discards = state.discards
    if move.kind == "discard":
        z = _zero_in(hand)
        assert z is not None
        discards = tuple((*d, hand[z]) if j == i else d for j, d in enumerate(discards))
        hand = hand[:z] + hand[z + 1 :]
    hand = (*hand, card)
    hands = tuple(hand if j == i else h for j, h in enumerate(state.hands))
    action = Action("draw" if move.kind == "draw" else "discard", card)
    # a seat's tuple of actions is opened by its first request (or by standing at once)
    old = state.turns
    turns = (*old, (action,)) if len(old) <= i else (*old[:i], (*old[i], action))
    return replace(state, hands=hands, discards=discards, turns=turns, seen=seen)


def next_moves(state: MacaoState) -> tuple[Move, ...]:
    """Every legal move; empty only when the coup is over. In play, standing is always legal."""
    phase = state.phase
    if phase == "done":
        return ()
    free = [c for c in ALL_CARDS if state.available(c)]
    if phase == "deal":
        return tuple(Move("deal", c) for c in free)
    moves: list[Move] = [STAND]
    for kind in ("draw", "discard"):
        probe = Move(kind, free[0]) if free else None
        if probe is not None and refusal(state, probe) is None:
            moves += [Move(kind, c) for c in free]
    return tuple(moves)


def record_of(state: MacaoState) -> MacaoRecord:
    """The croupier's record of the coup so far (complete once the state is done)."""
    turns = state.turns + tuple(() for _ in range(len(state.seats) - len(state.turns)))
    return MacaoRecord(state.unit, state.banker, state.punters, state.deal, turns)


def outcome_of(state: MacaoState) -> tuple[tuple[PunterResult, ...], MacaoSettlement]:
    """The results and settlement of a finished coup."""
    if state.phase != "done":
        raise MacaoError(said("The coup is not over yet."))
    return settle_hands(state.unit, state.banker, state.punters, state.hands, state.settings)


# ---------------------------------------------------------------------------------------------
# The offline judge: checks a record on its own terms (no replay of the machine above)


def judge(record: MacaoRecord, settings: MacaoSettings = DEFAULT) -> MacaoVerdict:  # noqa: C901  (the source's rules of a whole coup, checked in its order)
    """Check ``record`` against the rules and settle it.

    Violations (each a sentence): a malformed table, a card that is no card, a card seen more often
    than the decks hold, a deal of the wrong length, a turn missing, a draw past the house's limit
    or after going over 9, a discard without a zero card or where the house forbids it, a banker
    drawing where the house forbids it (he may still throw a zero aside: RULES.md §11).

    Every finding that can be judged is reported (RULES.md §11): a bad table, an unreadable card
    or a deal of the wrong length does not stop the judging of each seat's play. An unreadable
    card keeps its position -- it is a finding there and stays in its hand as an unknown card;
    nothing moves into its place -- and a check that depends on what it is (the points, whether
    it is a zero) is not judged while it is unknown.
    """
    v: list[str] = []
    codes: list[str] = []
    # the cards as the rules read them: 10D is TD here as live (RULES.md §11, core.cards.card_code);
    # a card that is none stays as written, a finding at its place
    record = replace(
        record,
        deal=tuple(card_read(c) for c in record.deal),
        turns=tuple(tuple(replace(a, card=card_read(a.card)) for a in turn) for turn in record.turns),
    )

    def add(code: str, sentence: str) -> None:
        codes.append(code)
        v.append(sentence)

    seats = record.seats
    if record.game != GAME:
        add(
            "bad-table", said("The record is of {game!r}, not {expected!r}.", game=record.game, expected=GAME)
        )
    if record.unit < 1:
        add("bad-table", said("The minimum stake is a positive number of chips."))
    if not record.punters:
        add("bad-table", said("Macao needs at least one punter besides the banker."))
    if len(set(seats)) != len(seats) or any(not n for n in seats):
        add("bad-table", said("Every seat needs its own non-empty name."))
    for i, card in enumerate(record.deal):
        if card not in POINTS and i < len(seats):
            add(
                "bad-card",
                said("Deal card {n} (to {who}): {card!r} is not a card.", n=i + 1, who=seats[i], card=card),
            )
        elif card not in POINTS:  # a card past the seats (the deal's length is a finding too)
            add("bad-card", said("Deal card {n}: {card!r} is not a card.", n=i + 1, card=card))
    for i, turn in enumerate(record.turns):
        for k, act in enumerate(turn, start=1):
            if act.card not in POINTS and i < len(seats):
                add(
                    "bad-card",
                    said("{who}, request {k}: {card!r} is not a card.", who=seats[i], k=k, card=act.card),
                )
            elif act.card not in POINTS:
                add(
                    "bad-card",
                    said("Turn {n}, request {k}: {card!r} is not a card.", n=i + 1, k=k, card=act.card),
                )
    counts = Counter(c for c in record.cards_in_order() if c in POINTS)
    for card in ALL_CARDS:
        if counts[card] > settings.decks:
            add(
                "impossible-card",
                said(
                    "{card} seen {times} times; {decks} decks hold {decks}.",
                    card=Card(card),
                    times=counts[card],
                    decks=settings.decks,
                ),
            )
    if len(record.deal) != len(seats):
        add(
            "deal-length",
            said(
                "The deal has {cards} cards for {players} players (one each).",
                cards=len(record.deal),
                players=len(seats),
            ),
        )
    if len(record.turns) != len(seats):
        add(
            "turns-length",
            said(
                "The record has {turns} turns for {players} players (one each).",
                turns=len(record.turns),
                players=len(seats),
            ),
        )
    hands = [_judge_turn(record, i, settings, add) for i in range(min(len(seats), len(record.turns)))]
    if v:
        return MacaoVerdict(tuple(v), codes=tuple(codes))
    full = [[c for c in hand if c is not None] for hand in hands]
    results, settlement = settle_hands(record.unit, record.banker, record.punters, full, settings)
    return MacaoVerdict((), results, settlement, next_banker(record.banker, record.punters))


def _judge_turn(
    record: MacaoRecord, i: int, settings: MacaoSettings, add: Callable[[str, str], None]
) -> list[str | None]:
    """Judge seat ``i``'s requests in order; its hand at the end (None: a card not known -- not
    a card, or missing from a short deal -- kept at its place)."""
    seats = record.seats
    name = seats[i]
    first = record.deal[i] if i < len(record.deal) and record.deal[i] in POINTS else None
    hand: list[str | None] = [first]
    turn = record.turns[i]
    is_banker = i == len(seats) - 1
    # "играющие вправе сбрасывать их в сторону": the discard is every player's right, the
    # banker's too, so only his draws are barred where the house forbids him to draw (§11)
    if is_banker and not settings.banker_draws and any(a.kind == "draw" for a in turn):
        add(
            "banker-draw-forbidden",
            said("The banker ({who}) drew, which this house does not allow.", who=name),
        )
    # Every reading of the hand the record leaves open: a discard over an unknown card (not a
    # card, or missing from a short deal) with no known zero may have thrown that card aside or
    # been a discard without a zero, and the turn goes on under both. A finding is reported where
    # every reading has it (RULES.md §11: one finding does not hide another): a draw past the
    # limit whether or not the discard before it was legal is past it.
    readings: list[list[str | None]] = [hand]
    for k, act in enumerate(turn, start=1):
        if act.kind == "discard":
            if not settings.discard_zeros:
                add(
                    "discard-forbidden",
                    said(
                        "{who}, request {k}: this house does not let a player throw a ten or court "
                        "card aside.",
                        who=name,
                        k=k,
                    ),
                )
            else:
                after: list[list[str | None]] = []
                faulty = []
                for held in readings:
                    zeros = [j for j, c in enumerate(held) if c is not None and POINTS[c] == 0]
                    if zeros:
                        # an unknown card before it may be the zero thrown aside: either way the
                        # hand keeps the same points and the same number of cards
                        after.append(held[: zeros[0]] + held[zeros[0] + 1 :])
                        faulty.append(False)
                    elif None in held:
                        # the unknown card was the zero thrown aside, or there was none
                        gone = held.index(None)
                        after += [held[:gone] + held[gone + 1 :], list(held)]
                        faulty += [False, True]
                    else:
                        after.append(list(held))
                        faulty.append(True)
                readings = after
                if all(faulty):
                    add(
                        "discard-without-zero",
                        said(
                            "{who}, request {k}: threw a card aside without holding a ten or court card.",
                            who=name,
                            k=k,
                        ),
                    )
        elif act.kind == "draw":
            faults = {_draw_fault(held, settings) for held in readings}
            if faults == {"draw-after-over"}:
                add("draw-after-over", said("{who}, request {k}: drew after going over 9.", who=name, k=k))
            elif faults == {"draw-past-limit"}:
                add(
                    "draw-past-limit",
                    said(
                        "{who}, request {k}: drew a card past the {most} this house allows.",
                        who=name,
                        k=k,
                        most=settings.max_cards,
                    ),
                )
        else:
            add(
                "unknown-request",
                said("{who}, request {k}: unknown request {kind!r}.", who=name, k=k, kind=act.kind),
            )
        card = act.card if act.card in POINTS else None
        # readings that have become the same are one (a turn of many discards stays small)
        readings = [list(r) for r in dict.fromkeys(tuple((*held, card)) for held in readings)]
    # with more than one reading there is an unknown card, a finding that holds the coup: the
    # hand is only settled when it is the one reading there is
    return readings[0]


def _draw_fault(hand: Sequence[str | None], settings: MacaoSettings) -> str | None:
    """What is wrong with a draw onto ``hand`` (its unknown cards left out of the points): over 9
    by its known cards alone, else a hand already at the house's limit; None: nothing known."""
    if settings.count == "bust" and sum(POINTS[c] for c in hand if c is not None) > 9:
        return "draw-after-over"
    if len(hand) >= settings.max_cards:
        return "draw-past-limit"
    return None


# ---------------------------------------------------------------------------------------------
# JSON: the coup record's ``"game": "macao"`` shape and its verdict (docs/coup-record.md)


def _str_list(value: object, what: str) -> tuple[str, ...]:
    if not is_str_list(value):
        raise MacaoError(said("{what} must be a list of strings", what=what))
    return tuple(value)


def record_to_dict(record: MacaoRecord) -> dict[str, Any]:
    """The record as JSON (docs/games/macao.md): the inverse of :func:`record_from_dict`."""
    return {
        "game": record.game,
        "unit": record.unit,
        "banker": record.banker,
        "punters": list(record.punters),
        "deal": list(record.deal),
        "turns": [[[a.kind, a.card] for a in turn] for turn in record.turns],
    }


def record_from_dict(data: Mapping[str, Any]) -> MacaoRecord:
    """Read the JSON shape, or raise :class:`MacaoError` naming the first malformed key.

    Only the shape is checked here (types, the request kinds): what the rules say about the
    values (a card code, a card seen too often, a deal of the wrong length) is the judge's, so a
    record that breaks a rule still gets a verdict rather than an error."""
    game = data.get("game", GAME)
    if game != GAME:
        raise MacaoError(said("not a macao record: {game}", game=shown(game)))
    unit = data.get("unit")
    if type(unit) is not int:  # bool is an int subclass: excluded on purpose
        raise MacaoError(said("unit must be a whole number of chips, not {unit}", unit=shown(unit)))
    if unit > MAX_RECORD_CHIPS:  # core.records: every game's records, the import's limit
        raise MacaoError(
            said(
                "unit must be a whole number of at most {limit} chips, not {unit}",
                limit=MAX_RECORD_CHIPS_SAID,
                unit=shown(unit),
            )
        )
    banker = data.get("banker")
    if type(banker) is not str:
        raise MacaoError(said("banker must be a player's name"))
    turns_raw = data.get("turns")
    if type(turns_raw) is not list:
        raise MacaoError(said("turns must be a list with one list of requests per seat"))
    turns: list[tuple[Action, ...]] = []
    for n, turn in enumerate(turns_raw, 1):
        if type(turn) is not list:
            raise MacaoError(said("turn {n} must be a list of requests", n=n))
        actions: list[Action] = []
        for k, request in enumerate(turn, 1):
            if (
                type(request) is not list
                or len(request) != 2
                or request[0] not in ("draw", "discard")
                or type(request[1]) is not str
            ):
                raise MacaoError(
                    said('turn {n}, request {k}: must be ["draw", card] or ["discard", card]', n=n, k=k)
                )
            actions.append(Action(request[0], request[1]))
        turns.append(tuple(actions))
    return MacaoRecord(
        unit,
        banker,
        _str_list(data.get("punters"), "punters"),
        _str_list(data.get("deal"), "deal"),
        tuple(turns),
    )


def _outcome(results: tuple[PunterResult, ...]) -> str:
    winners = {r.winner for r in results}
    if winners == {"banker"}:
        return "banker"
    return "punters" if winners == {"punter"} else "split"


def verdict_to_dict(verdict: MacaoVerdict, record_id: object = None) -> dict[str, Any]:
    """The verdict as JSON. ``outcome``: ``banker`` (he beat every punter), ``punters`` (every
    punter beat him), ``split``; ``null`` with violations, which refer the coup to the pit boss
    unsettled, as :func:`judge` does."""
    s = verdict.settlement
    return {
        "id": record_id,
        "game": GAME,
        "outcome": _outcome(verdict.results) if verdict.valid and verdict.results else None,
        "violations": [
            {"code": code, "detail": sentence}
            for code, sentence in zip(verdict.codes, verdict.violations, strict=True)
        ],
        "settlement": None
        if s is None
        else settlement_to_dict(s.transfers, s.net),
        "results": [
            {
                "punter": r.punter,
                "points": r.points,
                "banker_points": r.banker_points,
                "winner": r.winner,
                "units": r.units,
            }
            for r in verdict.results
        ],
        "next_banker": verdict.next_banker,
    }


# ---------------------------------------------------------------------------------------------
# Odds: one punter against the banker, a fresh shoe, both playing the reference strategy


@dataclass(frozen=True, slots=True)
class Strategy:
    """The play the odds assume (the source prescribes none): a seat asks for cards while its
    points are below ``stand_on`` -- throwing a zero aside first where the house allows it,
    since that costs no place in the hand -- and stands otherwise. The banker cannot see the
    punter's private card, so he too plays by his own points only."""

    punter_stands_on: int = 5
    banker_stands_on: int = 5


REFERENCE = Strategy()


@dataclass(frozen=True, slots=True)
class MacaoOdds:
    """Per coup of one punter against the banker, in minimum stakes."""

    banker_edge: Fraction  # the banker's expected gain per minimum stake staked
    punter_wins: Fraction  # probability the punter's points beat the banker's


def _fresh(decks: int) -> tuple[int, ...]:
    return (16 * decks, *([4 * decks] * 9))


def _wants(total: int, kept: int, zeros: int, s: MacaoSettings, stand_on: int) -> str:
    """The reference play for a hand: 'discard', 'draw' or 'stand'."""
    pts = total % 10 if s.count == "modulo" else (total if total <= 9 else None)
    if pts is None or pts >= stand_on:
        return "stand"
    if s.discard_zeros and zeros:
        return "discard"
    return "draw" if kept < s.max_cards else "stand"


def exact_odds(
    settings: MacaoSettings = DEFAULT, decks: int | None = None, strategy: Strategy = REFERENCE
) -> MacaoOdds:
    """The banker's exact edge: every order of card values from a fresh shoe of ``decks`` decks
    (default: the house's), weighted by its probability without replacement, no sampling."""
    s = settings if decks is None else replace(settings, decks=decks)

    def pts(total: int) -> int | None:
        return total % 10 if s.count == "modulo" else (total if total <= 9 else None)

    def gain(p_total: int, b_total: int) -> tuple[Fraction, Fraction]:
        p, b = pts(p_total), pts(b_total)
        if (-1 if p is None else p) > (-1 if b is None else b):
            return Fraction(-units_for(p)), Fraction(1)
        return Fraction(units_for(b) if s.banker_collects == "scale" else 1), Fraction(0)

    @cache
    def go(
        shoe: tuple[int, ...],
        phase: int,
        p: tuple[int, int, int],
        b: tuple[int, int, int],
    ) -> tuple[Fraction, Fraction]:
        # phase 0: deal the punter, 1: deal the banker, 2: punter's turn, 3: banker's turn, 4: settle
        if phase == 4:
            return gain(p[0], b[0])
        if phase in (2, 3):
            me, stand_on = (p, strategy.punter_stands_on) if phase == 2 else (b, strategy.banker_stands_on)
            want = _wants(*me, s, stand_on)
            if phase == 3 and want == "draw" and not s.banker_draws:
                want = "stand"  # barred from drawing, the banker still throws zeros aside (§11)
            if want == "stand" or sum(shoe) == 0:
                return go(shoe, phase + 1, p, b)
        else:
            want = "deal"
        n = sum(shoe)
        ev, win = Fraction(0), Fraction(0)
        for value, count in enumerate(shoe):
            if not count:
                continue
            rest = (*shoe[:value], count - 1, *shoe[value + 1 :])
            total, kept, zeros = (0, 0, 0) if want == "deal" else (p if phase == 2 else b)
            if want == "discard":
                kept, zeros = kept - 1, zeros - 1
            hand = (total + value, kept + 1, zeros + (value == 0))
            if phase == 0:
                e, w = go(rest, 1, hand, b)
            elif phase == 1:
                e, w = go(rest, 2, p, hand)
            elif phase == 2:
                e, w = go(rest, 2, hand, b)
            else:
                e, w = go(rest, 3, p, hand)
            ev += count * e
            win += count * w
        return ev / n, win / n

    edge, wins = go(_fresh(s.decks), 0, (0, 0, 0), (0, 0, 0))
    return MacaoOdds(edge, wins)


def _shuffled(shoe: list[str], rng: random.Random, head: int = 24) -> Iterator[str]:
    """The shoe in a random order, drawn lazily: a coup rarely needs more than ``head`` cards, and
    sampling those is far cheaper than shuffling all of them."""
    first = rng.sample(shoe, min(head, len(shoe)))
    yield from first
    rest = Counter(shoe)
    rest.subtract(first)
    extra = list(rest.elements())
    rng.shuffle(extra)
    yield from extra


def simulate(
    settings: MacaoSettings,
    coups: int,
    rng: random.Random,
    decks: int | None = None,
    strategy: Strategy = REFERENCE,
) -> tuple[float, float]:
    """Monte Carlo of :func:`exact_odds`: the banker's mean gain per coup (in minimum stakes)
    and its standard error, each coup from a freshly shuffled shoe. Plays through the live
    machine's scoring (:func:`settle_hands`), not the enumeration's."""
    s = settings if decks is None else replace(settings, decks=decks)
    shoe = [r + "S" for r in RANKS] * (4 * s.decks)  # suits do not matter to the odds
    total = total_sq = 0.0
    for _ in range(coups):
        cards = _shuffled(shoe, rng)
        hands = [[next(cards)], [next(cards)]]
        dealt = 2
        for i, stand_on in ((0, strategy.punter_stands_on), (1, strategy.banker_stands_on)):
            hand = hands[i]
            while dealt < len(shoe):
                t = sum(POINTS[c] for c in hand)
                zeros = sum(1 for c in hand if POINTS[c] == 0)
                want = _wants(t, len(hand), zeros, s, stand_on)
                # a banker barred from drawing may still throw a zero aside (RULES.md §11)
                if want == "stand" or (i == 1 and want == "draw" and not s.banker_draws):
                    break
                if want == "discard":
                    hand.remove(next(c for c in hand if POINTS[c] == 0))
                hand.append(next(cards))
                dealt += 1
        _, settled = settle_hands(1, "B", ["P"], hands, s)
        g = float(settled.net["B"])
        total += g
        total_sq += g * g
    run = MonteCarlo.of_sums(coups, total, total_sq)
    return run.mean, run.stderr

# ruff: noqa: RUF002, RUF003  (the source is quoted in Russian: its Cyrillic letters are meant)
"""Old two-deck baccarat ("старинный баккара", seed 004, section БАККАРА): a game type of its own.

Not chemin de fer: every seated punter plays his own hand against the banker's, tens and faces
count 10 (so 9, 19 and 29 are the best counts), each player may buy one card, nobody follows a
tableau. The product's reading of the source is written in docs/games/old_baccarat.md; where the
source contradicts itself or leaves a choice open, :class:`HouseSettings` holds the choice and
its comment cites the passage.

Layout (the same as chemin de fer's engine, in one module):

* the record of a coup (:class:`OldBaccaratCoup`): banker, punters with their stakes, who cut,
  the cards of the deal in the order dealt, each draw decision in the order taken;
* the state machine (:func:`start`, :func:`apply`, :func:`next_moves`, :func:`replay`): refuses an
  illegal move with :class:`IllegalMove` and lists every legal one;
* the judge (:func:`judge`): an independent reading of a finished record (it does not replay the
  machine) giving the violations, the shoe alarms, each punter's result and the settlement;
* the settlement (:class:`Settlement`): integer chip transfers between named parties, a pooled tie
  passing through the party :data:`POOL`; the transfers always net to zero;
* the odds (:func:`exact_odds`, :func:`monte_carlo`): the banker's edge per unit staked, heads-up.

No Django here, and nothing from the project but ``core.cards``, ``core.records`` and
``core.sentence``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any

from core.cards import ALL_CARDS, POINTS, ImpossibleCard, card_read, shoe_alarms
from core.records import MAX_RECORD_CHIPS, MAX_RECORD_CHIPS_SAID, is_str_list
from core.sentence import Card, Word, said, shown
from older_games.engine.chips import Transfer, settlement_to_dict, transfer_nets
from older_games.engine.sampling import MonteCarlo

__all__ = [
    "GAME",
    "POOL",
    "BankerMatch",
    "Draw",
    "DrawPolicy",
    "HouseSettings",
    "IllegalMove",
    "Kind",
    "MalformedRecord",
    "MonteCarlo",
    "Move",
    "OldBaccaratCoup",
    "OldBaccaratOdds",
    "Option",
    "Phase",
    "PunterResult",
    "PunterShows",
    "Result",
    "Seat",
    "Settlement",
    "State",
    "TieRule",
    "Transfer",
    "Verdict",
    "Violation",
    "apply",
    "card_count",
    "deal_order",
    "draw_order",
    "exact_odds",
    "hand_count",
    "hand_digit",
    "is_natural",
    "judge",
    "max_punters",
    "monte_carlo",
    "next_moves",
    "outcome_of",
    "replay",
    "settle",
    "start",
    "to_record",
]

#: the value of a coup record's ``"game"`` key for this game
GAME = "old-baccarat"
#: the party through which a pooled tie's stakes pass (it always nets to zero within the coup)
POOL = "pool"


# ---------------------------------------------------------------------------------------------
# House settings


class TieRule(StrEnum):
    """What happens when a punter's count equals the banker's (the source contradicts itself)."""

    #: "Карты банкомёта всегда имеют преимущество перед картами понтеров, то есть если встретятся
    #: одинаковые цифры у того и у другого, то ставку берёт банкомёт."
    BANKER_WINS = "banker_wins"
    #: "если же у банкомёта и у понтеров по 6 очков, то все ставки (одинарные понтеров и двойные
    #: банкомёта) делятся на столько равных частей, сколько игроков имеет это количество очков."
    POOL = "pool"


class BankerMatch(StrEnum):
    """What the banker puts up against each stake: "Банкомёт каждую ставку удваивает"."""

    #: the banker covers each stake with as much again, so the stake on the table is doubled and a
    #: winning punter gains his stake (the product's reading: a playable banking game)
    EVEN = "even"
    #: the banker puts twice each stake beside it (the literal "double stakes of the banker" of the
    #: tie passage) and a winning punter gains twice his stake
    DOUBLE = "double"


@dataclass(frozen=True, slots=True)
class HouseSettings:
    """A house's choices for old baccarat. The defaults are the product's reading of seed 004.

    ``decks``: "В Баккара играют в две полные колоды по 52 карты" -- two; a house may deal more.
    ``tie_rule``: the source says both; the default is the banker's advantage, stated first and as
    a general rule ("всегда"), the pool is the alternative (the example at the end of the section).
    ``banker_match``: see :class:`BankerMatch`; the default is the even reading.
    ``natural_stops_all_draws``: "Если ни понтеры, ни банкомёт не имеют на руках ни 8, ни 9 очков,
    то позволительно прикупать" read literally (the default): a natural in any hand ends the deal,
    nobody buys. Off: only the banker's natural ends it ("Если у банкомёта будет 9 или 19, то он
    сразу открывает карты"); a punter with a natural stands on it and the others may still buy.
    ``min_stake``: the smallest stake in chips (the source sets none; 1 chip by default).
    """

    decks: int = 2
    tie_rule: TieRule = TieRule.BANKER_WINS
    banker_match: BankerMatch = BankerMatch.EVEN
    natural_stops_all_draws: bool = True
    min_stake: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.decks <= 8:
            raise ValueError("old baccarat is dealt from 1 to 8 decks")
        if self.min_stake < 1:
            raise ValueError("the minimum stake is a positive number of chips")

    @property
    def match(self) -> int:
        """What the banker puts up per chip staked: 1 (even) or 2 (double)."""
        return 2 if self.banker_match is BankerMatch.DOUBLE else 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "decks": self.decks,
            "tie_rule": self.tie_rule.value,
            "banker_match": self.banker_match.value,
            "natural_stops_all_draws": self.natural_stops_all_draws,
            "min_stake": self.min_stake,
        }


def max_punters(decks: int) -> int:
    """How many punters a shoe can serve: each of them and the banker may hold three cards, and
    the source ("Число игроков неограниченно") sets no other limit. Two decks: 33."""
    return 52 * decks // 3 - 1


# ---------------------------------------------------------------------------------------------
# Cards and counts


def card_count(card: str) -> int:
    """What a card counts: "Карты с фигурами ценятся по 10 очков, а остальные – по цифре" -- so
    ten, jack, queen and king 10, the ace 1 (as in Macao, "Туз считается за одно очко": the
    baccarat section, "много сходства с Макао", says nothing of the ace), 2..9 their face."""
    return POINTS[card] or 10


def hand_count(cards: Iterable[str]) -> int:
    """The count as the players say it (19, 27, 30)."""
    return sum(card_count(c) for c in cards)


def hand_digit(cards: Iterable[str]) -> int:
    """What decides: the last digit of the count. "самыми лучшими выигрышными очками считаются 9,
    19 и 29. Чуть менее удачные: 8, 18, 28, и 7, 17, 27": 9, 19 and 29 rank alike, above 8s."""
    return hand_count(cards) % 10


def is_natural(cards: Sequence[str]) -> bool:
    """Two cards counting 8, 9, 18 or 19 (nobody buys against them, see HouseSettings)."""
    return len(cards) == 2 and hand_digit(cards) >= 8


def deal_order(punters: int) -> tuple[int, ...]:
    """Who receives each card of the deal: punters are numbered 0..n-1 clockwise from the banker's
    left, the banker is n. "Карты сдаются банкомётом по одной, сначала по часовой стрелке всем
    игрокам, не исключая и себя. Потом по второй карте против часовой стрелки." The source does
    not say where each round starts; the product deals each round from the banker's neighbour in
    its direction and ends it with the banker: 0..n-1, n, then n-1..0, n."""
    n = punters
    return (*range(n), n, *range(n - 1, -1, -1), n)


def draw_order(punters: int) -> tuple[int, ...]:
    """In which order the players may buy: "сначала карту получает понтер, сидящий с правой
    стороны, потом, сидящий с левой, потом опять понтер с правой, сидящий за уже прикупившим, за
    ним снова понтер с левой стороны и т.д. После всех банкомёт": from both ends of the table
    inwards, the banker's right neighbour (n-1) first, then his left (0), then n-2, 1 ...; the
    banker (n) last."""
    left, right = 0, punters - 1
    order: list[int] = []
    while left <= right:
        order.append(right)
        if left != right:
            order.append(left)
        left, right = left + 1, right - 1
    return (*order, punters)


# ---------------------------------------------------------------------------------------------
# The record of a coup


@dataclass(frozen=True, slots=True)
class Seat:
    """A punter and the stake he laid before his cards ("прежде чем получить от банкомёта две
    карты, должен положить возле себя ту сумму, на которую готов рискнуть")."""

    player: str
    stake: int


@dataclass(frozen=True, slots=True)
class Draw:
    """A player's decision when offered a card: the card he bought, or None (he stood)."""

    player: str
    card: str | None


@dataclass(frozen=True, slots=True)
class OldBaccaratCoup:
    """What the croupier records: the banker, the punters clockwise from the banker's left with
    their stakes, who cut, the cards of the deal in the order dealt (see :func:`deal_order`) and
    the buying decisions in the order taken (see :func:`draw_order`)."""

    banker: str
    punters: tuple[Seat, ...]
    cut_by: str | None
    deal: tuple[str, ...]
    draws: tuple[Draw, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of docs/games/old_baccarat.md."""
        return {
            "game": GAME,
            "banker": self.banker,
            "punters": [{"player": s.player, "stake": s.stake} for s in self.punters],
            "cut_by": self.cut_by,
            "deal": list(self.deal),
            "draws": [{"player": d.player, "card": d.card} for d in self.draws],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OldBaccaratCoup:
        """Read the JSON shape back; raises :class:`MalformedRecord` (a ValueError) with a sentence
        naming the field for a record of another game or shape (RULES.md §11, "strict values"):
        a stake is a JSON integer (not ``"10"``, ``10.5`` or ``true``: bool is an int in Python),
        a name a string, the deal and the draws lists. Nothing is coerced, so nothing malformed is
        ever settled. What the rules say about the values (a card code, a stake under the minimum,
        a deal of the wrong length) is the judge's: such a record still gets a verdict."""
        if data.get("game") != GAME:
            raise MalformedRecord(
                said("not an old-baccarat record: game={game}", game=shown(data.get("game")))
            )
        banker = data.get("banker")
        if type(banker) is not str:
            raise MalformedRecord(
                said("banker must be a player's name (a string), not {value}", value=shown(banker))
            )
        punters = [
            Seat(player, stake)
            for player, stake in _player_entries(
                data.get("punters"),
                "stake",
                # type(), not isinstance(): bool is an int subclass, and true or "10" are no chips;
                # at most core.records' limit, every game's records' and the import's
                lambda stake: type(stake) is int and stake <= MAX_RECORD_CHIPS,
                not_list=lambda: said("punters must be a list of objects, each with a player and a stake"),
                not_object=lambda n: said("punter {n} must be an object with a player and a stake", n=n),
                bad_player=lambda n, player: said(
                    "punter {n}: player must be a name (a string), not {value}", n=n, value=shown(player)
                ),
                bad_value=lambda n, stake: said(
                    "punter {n}: stake must be a whole number of chips, not {value}", n=n, value=shown(stake)
                )
                if type(stake) is not int
                else said(
                    "punter {n}: stake must be a whole number of at most {limit} chips, not {value}",
                    n=n,
                    limit=MAX_RECORD_CHIPS_SAID,
                    value=shown(stake),
                ),
            )
        ]
        cut_by = data.get("cut_by")
        if cut_by is not None and type(cut_by) is not str:
            raise MalformedRecord(
                said("cut_by must be a punter's name (a string) or null, not {value}", value=shown(cut_by))
            )
        deal = data.get("deal")
        if not is_str_list(deal):
            raise MalformedRecord(
                said("deal must be a list of card codes (strings), not {value}", value=shown(deal))
            )
        draws = [
            Draw(player, card)
            for player, card in _player_entries(
                data.get("draws", []),
                "card",
                lambda card: card is None or type(card) is str,
                not_list=lambda: said("draws must be a list of objects, each with a player and a card"),
                not_object=lambda n: said("draw {n} must be an object with a player and a card", n=n),
                bad_player=lambda n, player: said(
                    "draw {n}: player must be a name (a string), not {value}", n=n, value=shown(player)
                ),
                bad_value=lambda n, card: said(
                    "draw {n}: card must be a card code (a string) or null, not {value}",
                    n=n,
                    value=shown(card),
                ),
            )
        ]
        return cls(banker, tuple(punters), cut_by, tuple(deal), tuple(draws))


class MalformedRecord(ValueError):
    """A record whose shape is not old baccarat's JSON shape; ``str()`` names the field."""


def _player_entries(
    raw: object,
    key: str,
    valid: Callable[[object], bool],
    *,
    not_list: Callable[[], str],
    not_object: Callable[[int], str],
    bad_player: Callable[[int, object], str],
    bad_value: Callable[[int, object], str],
) -> list[tuple[str, Any]]:
    """``[{"player": name, key: value}, ...]`` (the punters with their stakes, the draws with
    their cards) as (player, value) pairs, ``valid`` saying which values the shape admits; nothing
    coerced. The refusals are the caller's sentences: each names its own field, and their patterns
    stay whole for the catalogue."""
    if type(raw) is not list:
        raise MalformedRecord(not_list())
    out: list[tuple[str, Any]] = []
    for n, item in enumerate(raw, 1):
        if type(item) is not dict:
            raise MalformedRecord(not_object(n))
        player, value = item.get("player"), item.get(key)
        if type(player) is not str:
            raise MalformedRecord(bad_player(n, player))
        if not valid(value):
            raise MalformedRecord(bad_value(n, value))
        out.append((player, value))
    return out


# ---------------------------------------------------------------------------------------------
# Settlement


@dataclass(frozen=True, slots=True)
class Settlement:
    transfers: tuple[Transfer, ...]

    def net(self) -> dict[str, int]:
        """Each party's gain (positive) or loss; the values always sum to zero and the pool's is 0."""
        return transfer_nets(self.transfers)


class PunterResult(StrEnum):
    WIN = "win"
    LOSS = "loss"
    TIE_TO_BANKER = "tie_to_banker"  # equal counts, the banker takes the stake
    TIE_POOLED = "tie_pooled"  # equal counts, the stakes pooled and shared


@dataclass(frozen=True, slots=True)
class Result:
    player: str
    stake: int
    cards: tuple[str, ...]
    count: int
    result: PunterResult


def _compare(
    punter_digit: int, banker_digit: int, tie_rule: TieRule, banker_natural: bool = False
) -> PunterResult:
    """A punter's result against the banker. A tie is pooled only without a banker's natural:
    his natural "забирает себе ставки понтеров" and "с остальных получает сам" -- he takes every
    stake it beats or ties, whatever the tie rule (RULES.md §11)."""
    if punter_digit > banker_digit:
        return PunterResult.WIN
    if punter_digit < banker_digit:
        return PunterResult.LOSS
    if tie_rule is TieRule.POOL and not banker_natural:
        return PunterResult.TIE_POOLED
    return PunterResult.TIE_TO_BANKER


def settle(banker: str, results: Sequence[Result], settings: HouseSettings) -> Settlement:
    """The chips that move. A winner gains ``match x stake`` from the banker, a loser (or a tie
    under the banker's advantage) pays his stake to the banker. A pooled tie: every tied punter's
    stake and the banker's cover of it go into :data:`POOL`, which pays the pool out in equal
    shares to the tied punters and the banker ("делятся на столько равных частей, сколько игроков
    имеет это количество очков" -- the banker has that count too); the chips that do not divide
    evenly go to the banker, who dealt (a product decision: the source does not say)."""
    m = settings.match
    transfers: list[Transfer] = []
    tied: list[Result] = []
    for r in results:
        if r.result is PunterResult.WIN:
            transfers.append(Transfer(banker, r.player, m * r.stake))
        elif r.result is PunterResult.TIE_POOLED:
            tied.append(r)
        else:
            transfers.append(Transfer(r.player, banker, r.stake))
    if tied:
        staked = sum(r.stake for r in tied)
        pool = staked * (1 + m)
        share, rest = divmod(pool, len(tied) + 1)
        transfers += [Transfer(r.player, POOL, r.stake) for r in tied]
        transfers.append(Transfer(banker, POOL, m * staked))
        transfers += [Transfer(POOL, r.player, share) for r in tied if share]
        if share + rest:
            transfers.append(Transfer(POOL, banker, share + rest))
    return Settlement(tuple(t for t in transfers if t.amount))


# ---------------------------------------------------------------------------------------------
# The judge


@dataclass(frozen=True, slots=True)
class Violation:
    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's reading of a record. With a violation there are no results and no settlement:
    the coup is held for the pit boss. Shoe alarms (a card seen more often than the decks hold)
    are game protection, not violations (docs/rules.md §1), and do not stop the settlement."""

    violations: tuple[Violation, ...]
    alarms: tuple[ImpossibleCard, ...]
    banker_cards: tuple[str, ...]
    banker_count: int | None
    results: tuple[Result, ...]
    settlement: Settlement | None

    @property
    def ok(self) -> bool:
        return not self.violations


def _people_violations(record: OldBaccaratCoup, settings: HouseSettings) -> list[Violation]:
    out: list[Violation] = []
    if not record.banker or record.banker == POOL:
        out.append(Violation("banker", said("the banker needs a name other than {pool!r}", pool=POOL)))
    if not record.punters:
        out.append(Violation("no_punter", said("nobody staked")))
    if len(record.punters) > max_punters(settings.decks):
        most = max_punters(settings.decks)
        out.append(
            Violation(
                "too_many_punters",
                said("{decks} decks serve at most {most} punters", decks=settings.decks, most=most),
            )
        )
    seen: set[str] = set()
    for seat in record.punters:
        if not seat.player or seat.player in (record.banker, POOL) or seat.player in seen:
            detail = said("punter {name!r} is the banker, the pool or seated twice", name=seat.player)
            out.append(Violation("seat", detail))
        seen.add(seat.player)
        if isinstance(seat.stake, bool) or not isinstance(seat.stake, int) or seat.stake < settings.min_stake:
            detail = said(
                "{name}'s stake {stake!r} is under {minimum}",
                name=seat.player,
                stake=seat.stake,
                minimum=settings.min_stake,
            )
            out.append(Violation("stake", detail))
    # "банкомёт обязан дать одному из играющих снять колоду"
    if record.cut_by not in seen:
        out.append(
            Violation("cut", said("the pack was not cut by a punter (cut_by={who!r})", who=record.cut_by))
        )
    return out


def _card_violations(record: OldBaccaratCoup) -> list[Violation]:
    """One finding per card that cannot be read, at its own position (RULES.md §11: positions are
    facts, not a queue -- the next card never moves into an unreadable card's place)."""
    out = [
        Violation("card", said("deal card {n}: {card!r} is not a card", n=i, card=card))
        for i, card in enumerate(record.deal, 1)
        if card not in POINTS
    ]
    out += [
        Violation("card", said("draw {n} ({who}): {card!r} is not a card", n=i, who=d.player, card=d.card))
        for i, d in enumerate(record.draws, 1)
        if d.card is not None and d.card not in POINTS
    ]
    return out


def _cards_read(record: OldBaccaratCoup) -> OldBaccaratCoup:
    """The record with its cards as the rules read them: ``10D`` is ``TD`` here as live (RULES.md
    §11, core.cards.card_code); a card that is none stays as written, a finding at its place."""
    return replace(
        record,
        deal=tuple(card_read(c) for c in record.deal),
        draws=tuple(d if d.card is None else replace(d, card=card_read(d.card)) for d in record.draws),
    )


#: past this many hands holding an unreadable card, the buying order is not judged (2**k cases)
_MOST_UNKNOWN_HANDS = 8


def _buyers(n: int, naturals: Sequence[bool], settings: HouseSettings) -> tuple[int, ...]:
    """Who may buy, in order, given which hands (punters, then the banker) are naturals."""
    if naturals[n] or (settings.natural_stops_all_draws and any(naturals[:n])):
        return ()
    return tuple(i for i in draw_order(n) if i == n or not naturals[i])


def _order_violation(
    record: OldBaccaratCoup, hands: Sequence[Sequence[str | None]], settings: HouseSettings
) -> Violation | None:
    """The buying order's finding, judged even when other findings hold the coup (RULES.md §11).
    A hand with an unreadable card may or may not be a natural: the order is a fault only if it
    fits none of the cases the readable cards leave open."""
    n = len(record.punters)
    names = [s.player for s in record.punters] + [record.banker]
    unknown = [i for i, h in enumerate(hands) if None in h]
    if len(unknown) > _MOST_UNKNOWN_HANDS:
        return None
    known = [is_natural([c for c in h if c is not None]) if None not in h else False for h in hands]
    wants: list[list[str]] = []
    for case in range(1 << len(unknown)):
        naturals = list(known)
        for bit, i in enumerate(unknown):
            naturals[i] = bool(case >> bit & 1)
        want = [names[i] for i in _buyers(n, naturals, settings)]
        if want not in wants:
            wants.append(want)
    got = [d.player for d in record.draws]
    if got in wants:
        return None
    if wants == [[]]:
        return Violation("no_draw", said("a natural was dealt: nobody may buy a card"))
    return Violation(
        "draw_order",
        said(
            "the buying decisions were {got}, the order is {want}", got=got, want=" or ".join(map(str, wants))
        ),
    )


def outcome_of(verdict: Verdict) -> str | None:
    """The coup in one word: ``punters`` (every punter won), ``banker`` (every stake went to the
    banker: beaten, or tied under his advantage or against his natural), else ``split`` -- a
    pooled tie shares the stakes, so it is ``split``, never ``banker`` (RULES.md §11). None when
    a violation holds the coup."""
    if not verdict.ok or not verdict.results:
        return None
    kinds = {r.result for r in verdict.results}
    if kinds == {PunterResult.WIN}:
        return "punters"
    if kinds <= {PunterResult.LOSS, PunterResult.TIE_TO_BANKER}:
        return "banker"
    return "split"


def judge(record: OldBaccaratCoup, settings: HouseSettings | None = None) -> Verdict:
    """Judge a finished coup offline: the violations, the shoe alarms, and, when the record keeps
    the rules, each punter's result and the settlement. Every finding that can be judged is
    reported: an unreadable card, a bad seat or stake or a deal of the wrong length does not stop
    the judging of the buying order (RULES.md §11)."""
    settings = settings or HouseSettings()
    record = _cards_read(record)
    violations = _people_violations(record, settings)
    n = len(record.punters)
    violations += _card_violations(record)
    cards_seen = [*record.deal, *(d.card for d in record.draws if d.card is not None)]
    alarms = tuple(shoe_alarms([c for c in cards_seen if c in POINTS], settings.decks))
    expected = 2 * (n + 1)
    if len(record.deal) != expected:
        detail = said(
            "the deal has {cards} cards, {players} players need {expected}",
            cards=len(record.deal),
            players=n + 1,
            expected=expected,
        )
        violations.append(Violation("deal", detail))
    # each place of the deal is a fact: a missing card is an unknown one at its place (and a card
    # past the last place belongs to nobody), so the buying order is judged all the same
    hands: list[list[str | None]] = [[] for _ in range(n + 1)]
    for i, seat in enumerate(deal_order(n)):
        card = record.deal[i] if i < len(record.deal) else None
        hands[seat].append(card if card in POINTS else None)
    order = _order_violation(record, hands, settings)
    if order is not None:
        violations.append(order)
    if violations:
        return Verdict(tuple(violations), alarms, (), None, (), None)

    full: list[list[str]] = [[c for c in h if c is not None] for h in hands]
    names = [s.player for s in record.punters] + [record.banker]
    for d in record.draws:
        if d.card is not None:
            full[names.index(d.player) if d.player != record.banker else n].append(d.card)
    banker_natural = is_natural(full[n])
    banker_digit = hand_digit(full[n])
    results = tuple(
        Result(
            seat.player,
            seat.stake,
            tuple(full[i]),
            hand_count(full[i]),
            _compare(hand_digit(full[i]), banker_digit, settings.tie_rule, banker_natural),
        )
        for i, seat in enumerate(record.punters)
    )
    return Verdict(
        (), alarms, tuple(full[n]), hand_count(full[n]), results, settle(record.banker, results, settings)
    )


# ---------------------------------------------------------------------------------------------
# The state machine


class Kind(StrEnum):
    STAKE = "stake"  # a punter sits and lays his stake
    CUT = "cut"  # a punter at the table cuts: staking is over
    CARD = "card"  # the croupier gives the next card (the machine knows to whom)
    DRAW = "draw"  # the player to act buys a card
    STAND = "stand"  # the player to act stands
    #: the banker lets a newcomer join the coup under way, after the cut and before the first
    #: card ("могут примкнуть во время сдачи, разумеется, с разрешения банкомёта", RULES.md §11):
    #: the newcomer then stakes as the others did
    PERMIT = "permit"
    #: a punter leaves the table ("могут в любой момент прекратить игру и отойти от стола"): his
    #: stake stays in the coup until it settles, his hand stands (nobody buys for him)
    LEAVE = "leave"


class Phase(StrEnum):
    STAKING = "staking"
    DEALING = "dealing"
    BUYING = "buying"
    DONE = "done"


class IllegalMove(ValueError):
    """A move that cannot be recorded in this state; nothing is applied."""


@dataclass(frozen=True, slots=True)
class Move:
    kind: Kind
    player: str | None = None  # stake, cut, draw, stand
    amount: int | None = None  # stake
    card: str | None = None  # card


@dataclass(frozen=True, slots=True)
class Option:
    """A kind of move legal now. ``player``: who makes it (a card: who receives it; a stake: None,
    any new punter may). ``cards``: for a card, the codes the shoe can still hold."""

    kind: Kind
    player: str | None = None
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class State:
    settings: HouseSettings
    banker: str
    phase: Phase = Phase.STAKING
    punters: tuple[Seat, ...] = ()
    cut_by: str | None = None
    deal: tuple[str, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()  # punters in seat order, the banker last
    deciders: tuple[str, ...] = ()  # who may still buy, in order (set once the deal is done)
    draws: tuple[Draw, ...] = ()
    pending: str | None = None  # who asked for a card and waits for it
    permitted: tuple[str, ...] = ()  # newcomers the banker let join after the cut
    left: tuple[str, ...] = ()  # punters who left the table during the coup (their stakes stay)
    #: the table's seats clockwise from the banker's left (the floor's seating): the punters sit
    #: in this order whatever order they stake in, since the deal and the buying go by seats
    seats: tuple[str, ...] = ()


def start(settings: HouseSettings | None = None, banker: str = "banker", seats: Sequence[str] = ()) -> State:
    """A coup about to be staked. ``seats``: the players who may stake, clockwise from the
    banker's left. The cards go round the table ("сначала по часовой стрелке всем игрокам"), and
    the buying starts with "понтер, сидящий с правой стороны": both follow the seats, never the
    order the stakes happen to be laid in. A punter not in ``seats`` (a newcomer the floor seated
    once the coup began, or any name where no seating is given) sits after them, in the order he
    staked: the seating the coup began with says nothing of where he sat."""
    settings = settings or HouseSettings()
    if not banker or banker == POOL:
        raise IllegalMove(said("the banker needs a name other than {pool!r}", pool=POOL))
    return State(settings=settings, banker=banker, seats=tuple(seats))


def _seat_key(state: State, name: str) -> int:
    """Where ``name`` sits in the round from the banker's left (see :func:`start`)."""
    return state.seats.index(name) if name in state.seats else len(state.seats)


def _names(state: State) -> list[str]:
    return [s.player for s in state.punters] + [state.banker]


def _available(state: State) -> tuple[str, ...]:
    used = Counter(card for hand in state.hands for card in hand)
    return tuple(c for c in ALL_CARDS if used[c] < state.settings.decks)


def _after_deal(state: State) -> State:
    n = len(state.punters)
    naturals = [is_natural(h) for h in state.hands[:n]]
    if is_natural(state.hands[n]) or (state.settings.natural_stops_all_draws and any(naturals)):
        return replace(state, phase=Phase.DONE)
    names = _names(state)
    deciders = tuple(names[i] for i in draw_order(n) if i == n or not naturals[i])
    return replace(state, phase=Phase.BUYING, deciders=deciders)


def _to_act(state: State) -> str | None:
    i = len(state.draws)
    return state.deciders[i] if state.pending is None and i < len(state.deciders) else None


def _seat(state: State, move: Move) -> State:
    """A punter sits down with his stake (before the cut, or after it with the banker's leave)."""
    s = state.settings
    name, amount = move.player, move.amount
    if not name or name in (state.banker, POOL) or name in _names(state):
        raise IllegalMove(
            said("{name!r} cannot sit: the name is the banker's, the pool's or taken", name=name)
        )
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < s.min_stake:
        raise IllegalMove(
            said("a stake is at least {minimum} chips, not {amount!r}", minimum=s.min_stake, amount=amount)
        )
    if len(state.punters) >= max_punters(s.decks):
        raise IllegalMove(
            said("{decks} decks serve at most {most} punters", decks=s.decks, most=max_punters(s.decks))
        )
    # in seat order, not staking order: a stable sort keeps the newcomers in the order they staked
    punters = sorted((*state.punters, Seat(name, amount)), key=lambda p: _seat_key(state, p.player))
    return replace(state, punters=tuple(punters))


def _join(state: State, move: Move) -> State:
    """After the cut and before the first card: the banker's permission for a newcomer (a step of
    its own, so the record of the table shows it), then the newcomer's stake. Once a card is out
    the deal's order is fixed for the players seated, so nobody joins later in the coup."""
    name = move.player
    if move.kind is Kind.PERMIT:
        if not name or name in (state.banker, POOL) or name in _names(state) or name in state.permitted:
            raise IllegalMove(
                said("{name!r} cannot join: the name is the banker's, the pool's or taken", name=name)
            )
        return replace(state, permitted=(*state.permitted, name))
    if name not in state.permitted:
        raise IllegalMove(
            said("after the cut {name!r} joins only with the banker's permission, recorded first", name=name)
        )
    state = _seat(state, move)
    return replace(state, hands=((),) * (len(state.punters) + 1))


def _cutters(state: State) -> tuple[str, ...]:
    """Who may cut: a punter who staked and is still at the table ("банкомёт обязан дать одному из
    играющих снять колоду"); one who left does not cut. When every punter who staked has left, the
    cut stays open to them all: their stakes are still in play (a stake stays in the coup until it
    settles), the coup must go on to settle them, and every state before the end keeps a legal
    move (a full table has no room for a newcomer's stake, so the cut is then the only way on)."""
    staked = tuple(p.player for p in state.punters)
    staying = tuple(p for p in staked if p not in state.left)
    return staying or staked


def _leave(state: State, who: str | None) -> State:
    """A punter leaves at any moment; a stake already in the coup stays in it until it settles."""
    if who not in [p.player for p in state.punters] or who in state.left:
        raise IllegalMove(said("{who!r} is not a punter at the table who could leave", who=who))
    return replace(state, left=(*state.left, who))


def apply(state: State, move: Move) -> State:  # noqa: C901  (one branch a step kind: the machine reads as the table plays)
    """The state after ``move``; raises :class:`IllegalMove` (saying why) if it is not legal now."""
    s = state.settings
    if state.phase is Phase.DONE:
        raise IllegalMove(said("the coup is over"))
    if move.kind is Kind.LEAVE:
        return _leave(state, move.player)
    if state.phase is Phase.DEALING and not state.deal and move.kind in (Kind.PERMIT, Kind.STAKE):
        return _join(state, move)
    if state.phase is Phase.STAKING:
        if move.kind is Kind.STAKE:
            return _seat(state, move)
        if move.kind is Kind.CUT:
            if move.player not in [p.player for p in state.punters]:
                raise IllegalMove(
                    said("the banker must let one of the punters cut (a seated punter who staked)")
                )
            if move.player not in _cutters(state):
                raise IllegalMove(
                    said("{who} has left the table: a punter still at the table cuts", who=move.player)
                )
            n = len(state.punters)
            return replace(state, phase=Phase.DEALING, cut_by=move.player, hands=((),) * (n + 1))
        raise IllegalMove(
            said(
                "before the cut only stakes and the cut are recorded, not {kind}",
                kind=Word(move.kind, "game step name"),
            )
        )
    if move.kind is Kind.CARD:
        card = None if move.card is None else card_read(move.card)  # 10D is TD, as in a record
        if card not in POINTS:
            raise IllegalMove(said("{card!r} is not a card", card=card))
        if card not in _available(state):
            raise IllegalMove(
                said(
                    "{card} was dealt {decks} times already: the shoe holds no more",
                    card=Card(card),
                    decks=s.decks,
                )
            )
        if state.phase is Phase.DEALING:
            n = len(state.punters)
            seat = deal_order(n)[len(state.deal)]
            hands = tuple((*h, card) if i == seat else h for i, h in enumerate(state.hands))
            state = replace(state, deal=(*state.deal, card), hands=hands)
            return _after_deal(state) if len(state.deal) == 2 * (n + 1) else state
        if state.pending is None:
            raise IllegalMove(said("nobody asked for a card"))
        seat = _names(state).index(state.pending)
        hands = tuple((*h, card) if i == seat else h for i, h in enumerate(state.hands))
        state = replace(state, hands=hands, draws=(*state.draws, Draw(state.pending, card)), pending=None)
        return state if _to_act(state) is not None else replace(state, phase=Phase.DONE)
    if state.phase is Phase.DEALING:
        raise IllegalMove(
            said(
                "the deal is under way: the next move is a card, not {kind}",
                kind=Word(move.kind, "game step name"),
            )
        )
    # buying
    who = _to_act(state)
    if who is None:
        raise IllegalMove(said("{who} waits for a card", who=state.pending))
    if move.kind not in (Kind.DRAW, Kind.STAND):
        raise IllegalMove(
            said("{who} is to buy or stand, not {kind}", who=who, kind=Word(move.kind, "game step name"))
        )
    if move.player != who:
        raise IllegalMove(
            said("it is {who}'s turn to buy or stand, not {other}'s", who=who, other=move.player)
        )
    if move.kind is Kind.DRAW:
        if who in state.left:
            raise IllegalMove(said("{who} has left the table: the hand stands as it is", who=who))
        return replace(state, pending=who)
    state = replace(state, draws=(*state.draws, Draw(who, None)))
    return state if _to_act(state) is not None else replace(state, phase=Phase.DONE)


def next_moves(state: State) -> tuple[Option, ...]:
    """Every kind of move legal now; empty only when the coup is over."""
    if state.phase is Phase.DONE:
        return ()
    room = len(state.punters) < max_punters(state.settings.decks)
    leaving = tuple(Option(Kind.LEAVE, p.player) for p in state.punters if p.player not in state.left)
    if state.phase is Phase.STAKING:
        opts = [Option(Kind.STAKE)] if room else []
        return (*opts, *(Option(Kind.CUT, p) for p in _cutters(state)), *leaving)
    if state.phase is Phase.DEALING:
        n = len(state.punters)
        names = _names(state)
        joining: tuple[Option, ...] = ()
        if not state.deal and room:
            staked = set(names)
            joining = (
                Option(Kind.PERMIT),
                *(Option(Kind.STAKE, p) for p in state.permitted if p not in staked),
            )
        return (
            Option(Kind.CARD, names[deal_order(n)[len(state.deal)]], _available(state)),
            *joining,
            *leaving,
        )
    if state.pending is not None:
        return (Option(Kind.CARD, state.pending, _available(state)), *leaving)
    who = _to_act(state)
    if who in state.left:
        return (Option(Kind.STAND, who), *leaving)
    return (Option(Kind.DRAW, who), Option(Kind.STAND, who), *leaving)


def to_record(state: State) -> OldBaccaratCoup:
    return OldBaccaratCoup(state.banker, state.punters, state.cut_by, state.deal, state.draws)


def replay(record: OldBaccaratCoup, settings: HouseSettings | None = None) -> State:
    """Play a record through the machine; raises :class:`IllegalMove` at the first illegal move, or
    if the record stops before the coup is over."""
    # the record lists the punters in seat order already (clockwise from the banker's left)
    state = start(settings, record.banker, [s.player for s in record.punters])
    moves = [Move(Kind.STAKE, s.player, s.stake) for s in record.punters]
    moves.append(Move(Kind.CUT, record.cut_by))
    moves += [Move(Kind.CARD, card=c) for c in record.deal]
    for d in record.draws:
        if d.card is None:
            moves.append(Move(Kind.STAND, d.player))
        else:
            moves += [Move(Kind.DRAW, d.player), Move(Kind.CARD, card=d.card)]
    for move in moves:
        state = apply(state, move)
    if state.phase is not Phase.DONE:
        raise IllegalMove(said("the record stops in the {phase} phase", phase=state.phase.value))
    return state


# ---------------------------------------------------------------------------------------------
# Odds


class PunterShows(StrEnum):
    """What the banker knows of a heads-up punter when he decides: not the bought card (every card
    is shown only at the end: "карты всеми игроками открываются"), only what the punter did."""

    BOUGHT = "bought"
    STOOD = "stood"
    NATURAL = "natural"  # declared a natural (only where a punter's natural does not end the deal)


@dataclass(frozen=True, slots=True)
class DrawPolicy:
    """How the two sides of a heads-up coup buy, for the odds only (at the table buying is free:
    "позволительно прикупать"). Totals are last digits. Defaults: the punter buys on 0-5; the
    banker, who keeps ties, buys on 0-4 against a buyer, 0-5 against a stander, and on anything
    under 8 against a declared natural (standing would lose). ``banker_buys``, when set, replaces
    the banker's limits by a table of the (low digit, high digit, what the punter showed) on which
    he buys: :func:`exact_odds` fills it with the banker's best answer to the punter's policy."""

    punter_buys_at_most: int = 5
    banker_buys_at_most_if_punter_bought: int = 4
    banker_buys_at_most_if_punter_stood: int = 5
    banker_buys_at_most_against_natural: int = 7
    banker_buys: frozenset[tuple[int, int, PunterShows]] | None = None

    def banker_buys_on(self, first: int, second: int, shows: PunterShows) -> bool:
        """Whether the banker holding two cards of these digits buys."""
        if self.banker_buys is not None:
            return (min(first, second), max(first, second), shows) in self.banker_buys
        limit = {
            PunterShows.BOUGHT: self.banker_buys_at_most_if_punter_bought,
            PunterShows.STOOD: self.banker_buys_at_most_if_punter_stood,
            PunterShows.NATURAL: self.banker_buys_at_most_against_natural,
        }[shows]
        return (first + second) % 10 <= limit


@dataclass(frozen=True, slots=True)
class OldBaccaratOdds:
    """Exact heads-up odds (one punter, one unit staked): the banker's edge is his expectation per
    unit staked, ``banker_win + tie_to_banker - match * punter_win + pooled tie's net``; a tie
    against a banker's natural is never pooled (RULES.md §11)."""

    settings: HouseSettings
    decks: int
    policy: DrawPolicy
    banker_win: Fraction
    punter_win: Fraction
    tie: Fraction
    banker_edge: Fraction
    #: the part of ``tie`` reached against a banker's natural: his, whatever the tie rule (§11)
    natural_tie: Fraction = Fraction(0)


def _tie_net(settings: HouseSettings) -> Fraction:
    """The banker's gain per unit on a heads-up tie: +1 when he keeps ties; pooled, he covered
    ``match`` and receives half of ``1 + match`` (chip rounding ignored: per unit)."""
    if settings.tie_rule is TieRule.BANKER_WINS:
        return Fraction(1)
    m = settings.match
    return Fraction(1 + m, 2) - m


def exact_odds(  # noqa: C901  (the exact enumeration of every deal, one loop a card)
    settings: HouseSettings | None = None,
    decks: int | None = None,
    policy: DrawPolicy | None = None,
    *,
    banker_best: bool = False,
) -> OldBaccaratOdds:
    """Enumerate a fresh shoe, heads-up, with the punter buying by ``policy`` and the banker by
    ``policy`` too or (``banker_best``) by his best answer to it, found exactly for each of his
    two-card hands and what the punter showed; the answer is returned in ``odds.policy``.

    A card's digit is all that matters (tens and faces are 0), so the shoe is 10 digit counts; a
    sequence's probability depends only on the digits drawn, so each two-card hand is a multiset of
    digits weighted by its orderings and every path is weighted by the falling product of counts,
    scaled to the common denominator ``N (N-1) ... (N-5)``: integers to the end, one Fraction."""
    settings = settings or HouseSettings()
    policy = policy or DrawPolicy()
    d = settings.decks if decks is None else decks
    counts = [16 * d] + [4 * d] * 9
    total = sum(counts)
    tails = [1] * 7  # tails[k]: (N-k)(N-k-1)...(N-5), what scales a k-card path to six cards
    for k in range(5, -1, -1):
        tails[k] = tails[k + 1] * (total - k)

    def at(p: int, b: int) -> int:  # 0: the punter wins, 1: he loses, 2: equal counts
        return 0 if p > b else 1 if p < b else 2

    # coups the banker has no decision in: win, loss, tie, and (3) a tie against his natural, which
    # he takes whatever the tie rule
    settled = [0, 0, 0, 0]
    # per banker decision point: the outcomes (win, loss, tie) if he stands and if he buys
    choices: dict[tuple[int, int, PunterShows], tuple[list[int], list[int]]] = {}
    pairs = [(a, b) for a in range(10) for b in range(a, 10)]
    for pa, pb in pairs:
        for ba, bb in pairs:
            w = 1
            for v in (pa, pb, ba, bb):
                w *= counts[v]
                counts[v] -= 1
            if w:
                w *= (1 if pa == pb else 2) * (1 if ba == bb else 2)
                p2, b2 = (pa + pb) % 10, (ba + bb) % 10
                p_nat, b_nat = p2 >= 8, b2 >= 8
                if b_nat or (p_nat and settings.natural_stops_all_draws):
                    settled[3 if b_nat and p2 == b2 else at(p2, b2)] += w * tails[4]
                else:
                    bought = not p_nat and p2 <= policy.punter_buys_at_most
                    shows = (
                        PunterShows.NATURAL if p_nat else PunterShows.BOUGHT if bought else PunterShows.STOOD
                    )
                    stand, buy = choices.setdefault((ba, bb, shows), ([0, 0, 0], [0, 0, 0]))
                    if bought:
                        for v in range(10):
                            w5 = w * counts[v]
                            if not w5:
                                continue
                            p3 = (p2 + v) % 10
                            stand[at(p3, b2)] += w5 * tails[5]
                            counts[v] -= 1
                            for u in range(10):
                                buy[at(p3, (b2 + u) % 10)] += w5 * counts[u]
                            counts[v] += 1
                    else:
                        stand[at(p2, b2)] += w * tails[4]
                        for u in range(10):
                            buy[at(p2, (b2 + u) % 10)] += w * counts[u] * tails[5]
            for v in (pa, pb, ba, bb):
                counts[v] += 1

    m, tie_net = settings.match, _tie_net(settings)

    def gain(vec: list[int]) -> Fraction:
        return vec[1] - m * vec[0] + tie_net * vec[2]

    buys: set[tuple[int, int, PunterShows]] = set()
    for key, (stand, buy) in choices.items():
        takes = gain(buy) > gain(stand) if banker_best else policy.banker_buys_on(*key)
        if takes:
            buys.add(key)
        for i, n in enumerate(buy if takes else stand):
            settled[i] += n
    if banker_best:
        policy = replace(policy, banker_buys=frozenset(buys))
    denominator = tails[0]
    win, loss, pooled, natural_tie = (Fraction(n, denominator) for n in settled)
    edge = loss - m * win + pooled * tie_net + natural_tie
    return OldBaccaratOdds(settings, d, policy, loss, win, pooled + natural_tie, edge, natural_tie)


def monte_carlo(
    settings: HouseSettings | None = None,
    coups: int = 200_000,
    seed: int = 0,
    policy: DrawPolicy | None = None,
) -> MonteCarlo:
    """Deal ``coups`` heads-up coups, each from a freshly shuffled shoe of real cards (six drawn
    without replacement: punter, banker, punter, banker, the punter's purchase, the banker's), and
    average the banker's gain per unit. Written from the cards, not from the enumeration above."""
    settings = settings or HouseSettings()
    policy = policy or DrawPolicy()
    rng = random.Random(seed)
    shoe = [card_count(c) for c in ALL_CARDS] * settings.decks
    gains = {PunterResult.WIN: -float(settings.match), PunterResult.LOSS: 1.0}
    tie_gain = float(_tie_net(settings))
    total = 0.0
    squares = 0.0
    for _ in range(coups):
        p1, b1, p2, b2, p3, b3 = rng.sample(shoe, 6)
        punter, banker = [p1, p2], [b1, b2]
        p_nat, b_nat = sum(punter) % 10 >= 8, sum(banker) % 10 >= 8
        if not (b_nat or (p_nat and settings.natural_stops_all_draws)):
            bought = not p_nat and sum(punter) % 10 <= policy.punter_buys_at_most
            if bought:
                punter.append(p3)
            shows = PunterShows.NATURAL if p_nat else PunterShows.BOUGHT if bought else PunterShows.STOOD
            if policy.banker_buys_on(b1 % 10, b2 % 10, shows):
                banker.append(b3 if bought else p3)
        result = _compare(sum(punter) % 10, sum(banker) % 10, TieRule.BANKER_WINS)
        # a tie against the banker's natural is his whatever the tie rule (RULES.md §11)
        g = (1.0 if b_nat else tie_gain) if result is PunterResult.TIE_TO_BANKER else gains[result]
        total += g
        squares += g * g
    return MonteCarlo.of_sums(coups, total, squares)

def verdict_to_dict(verdict: Verdict, record_id: Any = None) -> dict[str, Any]:
    """Old baccarat's verdict in the games' shared frame (docs/coup-record.md). Every punter
    plays the banker on his own: ``outcome`` is ``banker`` (every stake to the banker, ties
    included), ``punters`` (every punter won) or ``split`` (a pooled tie is one); null, with no
    settlement, when a
    violation holds the coup for the pit boss. The pool is the party ``"pool"`` and nets zero."""
    settled = verdict.settlement
    outcome = outcome_of(verdict)
    return {
        "id": record_id,
        "game": GAME,
        "outcome": outcome,
        "violations": [{"code": v.code, "detail": v.detail} for v in verdict.violations],
        "settlement": None
        if settled is None
        else settlement_to_dict(settled.transfers, settled.net()),
        "results": [
            {"player": r.player, "stake": r.stake, "count": r.count, "result": r.result.value}
            for r in verdict.results
        ],
        "banker_count": verdict.banker_count,
        "alarms": [a.card for a in verdict.alarms],
    }

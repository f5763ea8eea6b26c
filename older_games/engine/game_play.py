"""One way to play every older game at a table: the uniform face the floor's services, screens and
API use for Macao, Landsknecht and old baccarat (chemin de fer keeps its own machine,
``chemin_de_fer.engine.machine``, whose steps carry far more: banco, spectators, restores).

Each game's own module holds its rules (``older_games.engine.macao``, ``landsknecht``,
``old_baccarat``); this module only translates, so the floor needs no code per game:

- a step is a small JSON object (``{"kind": "card", "card": "9H"}``) read by :meth:`GamePlay.step`,
  which applies it through the game's live machine or raises :class:`StepRefused` with the
  machine's reason;
- :meth:`GamePlay.options` lists the kinds of step legal now (who, which cards, which amounts) for
  the croupier's screen and the API's ``next_steps``; it is empty only when the coup is over;
- :meth:`GamePlay.transfers` is the finished coup's settlement as integer transfers between the
  players (by name), the reserve fund (:data:`FUND`) and the tie pool (:data:`POOL`);
- :meth:`GamePlay.exposure` is what each player could still lose on the steps entered so far,
  so the floor can refuse a stake nobody could pay before any card is dealt;
- :meth:`GamePlay.record` is the coup record of docs/coup-record.md and :meth:`GamePlay.verdict`
  the offline judge's verdict on it under the table's house settings.

Nothing here imports Django (tests/tables/test_rules_purity.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from enum import Enum
from typing import Any, Generic, TypeVar, get_args, get_type_hints

from core.cards import card_code
from core.records import unknown_game
from core.sentence import said, shown, why
from older_games.engine import landsknecht, macao, old_baccarat
from older_games.engine.chips import Transfer as Transfer  # re-exported: the floor settles these

#: the reserve fund's name as a party (Landsknecht) and the tie pool's (old baccarat)
FUND = landsknecht.FUND
POOL = old_baccarat.POOL


class StepRefused(ValueError):
    """A step (or a setting, or a seating) the rules do not allow; ``str()`` says why."""


@contextmanager
def refused_as_step(*errors: type[Exception]) -> Iterator[None]:
    """A game's own refusal (one of ``errors``) raised in the block, raised again as the uniform
    :class:`StepRefused` with the game's reason (its sentence kept, for a screen to say it in its
    language), and without the game's traceback: the floor answers the reason, nothing else."""
    try:
        yield
    except errors as exc:
        raise StepRefused(why(exc)) from None


@dataclass(frozen=True, slots=True)
class Seating:
    """Who plays the coup: the banker and the others in seat order from his left. ``fund``,
    ``opening`` and ``previous`` are Landsknecht's (what the fund holds, how the bank opens)."""

    banker: str
    punters: tuple[str, ...]
    fund: int = 0
    opening: str = landsknecht.Opening.NEW_BANK.value
    previous: int = 0


@dataclass(frozen=True, slots=True)
class Option:
    """A kind of step legal now. ``player``: who makes it (or receives the card); ``cards``: the
    codes the shoe can still hold, for a card; ``amounts``: the usual amounts offered, for a stake
    or a cover, with ``min_amount``..``max_amount`` the legal range (any amount in it is taken; no
    ``max_amount``: no upper bound); no ``min_amount``: only the listed amounts are legal."""

    kind: str
    player: str | None = None
    cards: tuple[str, ...] = ()
    amounts: tuple[int, ...] = ()
    min_amount: int | None = None
    max_amount: int | None = None
    choices: tuple[str, ...] = ()
    #: the step names a player seated at the table who has no part in the coup yet (old baccarat's
    #: newcomer, staking before the cut or let in by the banker after it): the floor offers one
    #: such step per seated newcomer, and checks that the one named is seated (``player`` is None)
    newcomer: bool = False

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.player is not None:
            out["player"] = self.player
        if self.newcomer:
            out["newcomer"] = True
        if self.cards:
            out["cards"] = list(self.cards)
        if self.amounts or self.min_amount is not None:
            out["amounts"] = list(self.amounts)
            out["min_amount"] = self.min_amount
            out["max_amount"] = self.max_amount
        if self.choices:
            out["choices"] = list(self.choices)
        return out


@dataclass(frozen=True, slots=True)
class HandScore:
    """What decides for one hand, as its own game counts it (for the screen: the settlement and
    the judge count by themselves).

    Macao and old baccarat: ``points``, 0 to 9 (Macao's house may count a hand over 9 as over:
    then ``points`` is None and ``over`` is true); old baccarat's ``count`` is the sum the players
    say (19: tens and court cards count 10), given when it is not the points themselves.
    Landsknecht counts nothing: ``rank`` is the rank that wins for that side when it comes again."""

    points: int | None = None
    over: bool = False
    count: int | None = None
    rank: str | None = None


S = TypeVar("S")  # a game's house settings
T = TypeVar("T")  # a game's live state


def _amount(payload: Mapping[str, Any]) -> int:
    value = payload.get("amount")
    if type(value) is not int or value < 1:  # bool, float and "10" are no chips
        raise StepRefused(said("amount must be a positive whole number of chips, not {value!r}", value=value))
    return value


def _card(payload: Mapping[str, Any]) -> str:
    card = payload.get("card")
    code = card_code(card)  # a code, or a ten written 10 (10D is TD): as a record reads it (RULES.md §11)
    if code is None:
        raise StepRefused(
            said("{card!r} is not a card (rank A23456789TJQK and suit SHDC, e.g. 9H)", card=card)
        )
    return code


def _player(payload: Mapping[str, Any]) -> str:
    who = payload.get("player")
    if type(who) is not str or not who:
        raise StepRefused(said("the step names its player"))
    return who


def _words(kind: type[Any], name: str, default: object) -> tuple[str, ...]:
    """The words a word setting takes: its enum's values, or its ``Literal``'s (Macao's)."""
    if isinstance(default, Enum):
        return tuple(m.value for m in type(default))
    return tuple(w for w in get_args(get_type_hints(kind)[name]) if type(w) is str)


def _settings_from(kind: type[S], data: Mapping[str, Any]) -> S:
    """A settings dataclass from JSON, refusing unknown keys and values its checks refuse. A
    refusal quotes the value as the JSON wrote it (``5``, ``null``, ``true``: core.sentence.shown),
    never as Python would (RULES.md §11, "strict values"); nothing is coerced."""
    names = {f.name for f in fields(kind)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise StepRefused(
            said(
                "unknown house setting(s): {unknown}; known: {known}",
                unknown=", ".join(unknown),
                known=", ".join(sorted(names)),
            )
        )
    with refused_as_step(ValueError, TypeError):
        base = kind()
        values = {}
        for name, value in data.items():
            default = getattr(base, name)
            if isinstance(default, bool):
                if type(value) is not bool:
                    wrong = said("{name} is true or false, not {value}", name=name, value=shown(value))
                    raise ValueError(wrong)
            elif isinstance(default, int):
                if type(value) is not int:
                    wrong = said("{name} is a whole number, not {value}", name=name, value=shown(value))
                    raise ValueError(wrong)
            # a word: a string among the setting's words (a number, null, a list or an object is
            # none, and is never turned into one: 5 is not "5")
            elif type(value) is not str or value not in _words(kind, name, default):
                raise ValueError(
                    said(
                        "{name} is one of {allowed}, not {value}",
                        name=name,
                        allowed=", ".join(_words(kind, name, default)),
                        value=shown(value),
                    )
                )
            values[name] = type(default)(value) if isinstance(default, Enum) else value
        return replace(base, **values)  # type: ignore[type-var]


def _settings_to_dict(settings: Any) -> dict[str, Any]:
    return {k: (v.value if hasattr(v, "value") else v) for k, v in asdict(settings).items()}


class GamePlay(Generic[S, T]):
    """The uniform face of one game. Subclasses translate; the rules stay in the game's module."""

    slug: str = ""
    title: str = ""
    settings_type: type[Any] = object

    # --- settings --------------------------------------------------------------------------
    def settings(self, data: Mapping[str, Any]) -> S:
        settings: S = _settings_from(self.settings_type, data)
        return settings

    def settings_dict(self, settings: S) -> dict[str, Any]:
        return _settings_to_dict(settings)

    def decks(self, settings: S) -> int:
        return int(settings.decks)  # type: ignore[attr-defined]

    def minimum(self, settings: S) -> int:
        """The smallest stake (Macao: the unit every payment counts in)."""
        raise NotImplementedError

    # --- play --------------------------------------------------------------------------------
    def begin(self, settings: S, seating: Seating) -> T:
        raise NotImplementedError

    def step(self, state: T, payload: Mapping[str, Any]) -> T:
        raise NotImplementedError

    def options(self, state: T) -> tuple[Option, ...]:
        raise NotImplementedError

    def finished(self, state: T) -> bool:
        return not self.options(state)

    def cards(self, state: T) -> tuple[str, ...]:
        """Every card seen so far, in the order it left the shoe."""
        raise NotImplementedError

    def exposure(self, state: T) -> dict[str, int]:
        """What each player could still lose on what has been entered (0s left out)."""
        raise NotImplementedError

    def transfers(self, state: T) -> tuple[Transfer, ...]:
        """The finished coup's settlement."""
        raise NotImplementedError

    def record(self, state: T) -> dict[str, Any]:
        raise NotImplementedError

    def verdict(self, settings: S, record: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def outcome(self, state: T) -> str:
        """A word for the finished coup: ``banker``, ``punters``, ``split``, ``standoff``, ``void``."""
        raise NotImplementedError

    def next_banker(self, state: T) -> str:
        raise NotImplementedError

    def next_seating(self, state: T, seated: Sequence[str], fund: int = 0) -> Seating:
        """The next coup's seating among ``seated`` (seat order), after this finished coup."""
        return seating_from(self.next_banker(state), seated, fund=fund)

    def hands(self, state: T) -> dict[str, list[str]]:
        """The cards each party holds (for the screen); empty for a game of one shared row."""
        return {}

    # --- the reserve fund (Landsknecht's; a game without one has none) ----------------------
    #: whether the table keeps a reserve fund its players pay into before play and get back after
    has_fund: bool = False

    def fund_return(self, settings: S, paid: Sequence[tuple[str, int]], balance: int) -> dict[str, Any]:
        """The record of the fund's return when play ends (``paid``: each payer's dues in the
        order paid; ``balance``: what the fund holds), ``returned`` being what the house's rule
        gives each: the same record the offline judge takes (docs/games/landsknecht.md)."""
        raise StepRefused(said("{game} keeps no reserve fund", game=self.title))

    def scores(self, state: T) -> dict[str, HandScore]:
        """What decides for each hand of :meth:`hands` that has cards and a score in this game
        (keyed as :meth:`hands`); a hand with nothing to decide is left out."""
        return {}

    def replay(self, settings: S, seating: Seating, steps: Sequence[Mapping[str, Any]]) -> T:
        """The state after ``steps`` as recorded (an ``undo`` takes back the step before it)."""
        state = self.begin(settings, seating)
        for payload in effective_steps(steps):
            state = self.step(state, payload)
        return state


#: the step that takes back the last step still in effect (a mistyped card, a wrong button): the
#: record stays append-only, the replay skips both
UNDO = "undo"
#: the step of a player who leaves the table during the coup (old baccarat: "могут в любой момент
#: прекратить игру и отойти от стола"): what he staked stays in the coup, and the floor frees his seat
LEAVE = "leave"


def effective_steps(steps: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The steps still in effect: each ``undo`` removes the last one before it still in effect.
    An ``undo`` with nothing to take back is refused (the floor never records one)."""
    kept: list[Mapping[str, Any]] = []
    for payload in steps:
        if payload.get("kind") == UNDO:
            if not kept:
                raise StepRefused(said("there is no step to take back"))
            kept.pop()
        else:
            kept.append(payload)
    return kept


def undone_indexes(steps: Sequence[Mapping[str, Any]]) -> set[int]:
    """The positions (0-based) of the steps an ``undo`` took back, and of the undos themselves."""
    out: set[int] = set()
    kept: list[int] = []
    for i, payload in enumerate(steps):
        if payload.get("kind") == UNDO:
            out.update((i, kept.pop()) if kept else (i,))
        else:
            kept.append(i)
    return out


def seating_from(banker: str, seated: Sequence[str], *, fund: int = 0, **extra: Any) -> Seating:
    """``banker`` and the others in seat order from his left (``seated`` is in seat order)."""
    if banker not in seated:
        raise StepRefused(said("the banker {banker!r} is not seated at the table", banker=banker))
    i = list(seated).index(banker)
    return Seating(banker, (*seated[i + 1 :], *seated[:i]), fund=fund, **extra)


def _settlement_transfers(transfers: Sequence[Transfer]) -> tuple[Transfer, ...]:
    """A game's settlement without its zero transfers (every game settles in the same transfers)."""
    return tuple(t for t in transfers if t.amount)


# --------------------------------------------------------------------------------------------- Macao
@dataclass(frozen=True, slots=True)
class MacaoHouse:
    """Macao's house settings plus its unit: the minimum stake agreed before the game, in which
    every payment counts (3 units for a 9, 2 for an 8, 1 otherwise)."""

    rules: macao.MacaoSettings
    unit: int = 10

    @property
    def decks(self) -> int:
        return self.rules.decks


class MacaoPlay(GamePlay[MacaoHouse, macao.MacaoState]):
    slug = macao.GAME
    title = "Macao"
    settings_type = macao.MacaoSettings

    def settings(self, data: Mapping[str, Any]) -> MacaoHouse:
        unit = data.get("unit", 10)
        if type(unit) is not int or unit < 1:
            wrong = said("the unit is a positive whole number of chips, not {value}", value=shown(unit))
            raise StepRefused(wrong)
        rules = _settings_from(macao.MacaoSettings, {k: v for k, v in data.items() if k != "unit"})
        return MacaoHouse(rules, unit)

    def settings_dict(self, settings: MacaoHouse) -> dict[str, Any]:
        return {**_settings_to_dict(settings.rules), "unit": settings.unit}

    def minimum(self, settings: MacaoHouse) -> int:
        return settings.unit

    def begin(self, settings: MacaoHouse, seating: Seating) -> macao.MacaoState:
        with refused_as_step(macao.MacaoError):
            return macao.start(
                settings.rules, unit=settings.unit, banker=seating.banker, punters=seating.punters
            )

    def step(self, state: macao.MacaoState, payload: Mapping[str, Any]) -> macao.MacaoState:
        kind = payload.get("kind")
        if kind not in ("deal", "draw", "discard", "stand"):
            raise StepRefused(said("a Macao step is deal, draw, discard or stand, not {kind!r}", kind=kind))
        move = macao.STAND if kind == "stand" else macao.Move(kind, _card(payload))
        with refused_as_step(macao.MacaoError):
            return macao.apply(state, move)

    def options(self, state: macao.MacaoState) -> tuple[Option, ...]:
        moves = macao.next_moves(state)
        if not moves:
            return ()
        seats = state.seats
        if state.phase == "deal":
            who = seats[len(state.deal)]
            return (Option("deal", who, tuple(m.card for m in moves if m.card)),)
        who = seats[state.turn]
        out: list[Option] = []
        for kind in ("draw", "discard"):
            cards = tuple(m.card for m in moves if m.kind == kind and m.card)
            if cards:
                out.append(Option(kind, who, cards))
        out.append(Option("stand", who))
        return tuple(out)

    def cards(self, state: macao.MacaoState) -> tuple[str, ...]:
        return macao.record_of(state).cards_in_order()

    def exposure(self, state: macao.MacaoState) -> dict[str, int]:
        # a punter loses at most what a banker's 9 collects; the banker at most 3 units to each
        most = 3 if state.settings.banker_collects == "scale" else 1
        out = {p: most * state.unit for p in state.punters}
        out[state.banker] = 3 * state.unit * len(state.punters)
        return out

    def transfers(self, state: macao.MacaoState) -> tuple[Transfer, ...]:
        _, settlement = macao.outcome_of(state)
        return _settlement_transfers(settlement.transfers)

    def record(self, state: macao.MacaoState) -> dict[str, Any]:
        return macao.record_to_dict(macao.record_of(state))

    def verdict(self, settings: MacaoHouse, record: Mapping[str, Any]) -> dict[str, Any]:
        with refused_as_step(macao.MacaoError):
            parsed = macao.record_from_dict(record)
        return macao.verdict_to_dict(macao.judge(parsed, settings.rules), record.get("id"))

    def outcome(self, state: macao.MacaoState) -> str:
        results, _ = macao.outcome_of(state)
        won = {r.winner for r in results}
        return "banker" if won == {"banker"} else "punters" if won == {"punter"} else "split"

    def next_banker(self, state: macao.MacaoState) -> str:
        return macao.next_banker(state.banker, state.punters)

    def hands(self, state: macao.MacaoState) -> dict[str, list[str]]:
        return {name: list(hand) for name, hand in zip(state.seats, state.hands, strict=True)}

    def scores(self, state: macao.MacaoState) -> dict[str, HandScore]:
        # the house's count: the plain sum, over 9 a lost hand ("bust"), or its last digit ("modulo")
        out = {}
        for name, hand in zip(state.seats, state.hands, strict=True):
            if hand:
                points = macao.points(hand, state.settings)
                out[name] = HandScore(points=points, over=points is None)
        return out


# ---------------------------------------------------------------------------------------- Landsknecht
class LandsknechtPlay(GamePlay[landsknecht.HouseSettings, landsknecht.State]):
    slug = "landsknecht"
    title = "Landsknecht"
    settings_type = landsknecht.HouseSettings

    def minimum(self, settings: landsknecht.HouseSettings) -> int:
        return settings.min_stake

    def begin(self, settings: landsknecht.HouseSettings, seating: Seating) -> landsknecht.State:
        with refused_as_step(ValueError):  # IllegalMove, or an unknown opening word
            opening = landsknecht.Opening(seating.opening)
            table = landsknecht.Table(
                seating.banker, seating.punters, seating.fund, opening, seating.previous
            )
            return landsknecht.start(table, settings)

    def step(self, state: landsknecht.State, payload: Mapping[str, Any]) -> landsknecht.State:
        kind = payload.get("kind")
        move: landsknecht.Move
        if kind == "stake":
            move = landsknecht.PutStake(_amount(payload))
        elif kind == "cover":
            move = landsknecht.Cover(_player(payload), _amount(payload))
        elif kind == "consent":
            move = landsknecht.Consent(_player(payload))
        elif kind == "close":
            move = landsknecht.CloseCovers()
        elif kind == "card":
            move = landsknecht.Deal(_card(payload))
        elif kind == "decide":
            try:
                move = landsknecht.Decide(landsknecht.Decision(str(payload.get("decision"))))
            except ValueError:
                raise StepRefused(said("the winning banker decides take or again")) from None
        else:
            raise StepRefused(
                said(
                    "a Landsknecht step is stake, cover, consent, close, card or decide, not {kind!r}",
                    kind=kind,
                )
            )
        with refused_as_step(landsknecht.IllegalMove):
            return landsknecht.apply(state, move)

    def options(self, state: landsknecht.State) -> tuple[Option, ...]:
        moves = landsknecht.next_moves(state)
        phase = state.phase
        if phase is landsknecht.Phase.STAKE:
            amounts = tuple(m.amount for m in moves if isinstance(m, landsknecht.PutStake))
            s, t = state.settings, state.table
            restricted = (
                t.opening is landsknecht.Opening.AFTER_TAKE
                and s.after_take is landsknecht.AfterTake.SAME_OR_MINIMUM
            ) or (
                t.opening is landsknecht.Opening.AGAIN and s.again_stake is landsknecht.AgainStake.WHOLE_POT
            )
            if restricted:  # only the listed stakes (after a take: the sum taken or the minimum, no between)
                return (Option("stake", t.banker, amounts=amounts),)
            return (Option("stake", t.banker, amounts=amounts, min_amount=min(amounts)),)
        if phase is landsknecht.Phase.COVER:
            left = state.stake - state.covered
            # a second punter covers only once every sharer agreed (the machine's own rule), and
            # the croupier records each consent as its own step
            out = [
                Option(
                    "cover", p, amounts=tuple(sorted({left, left // 2} - {0})), min_amount=1, max_amount=left
                )
                for p in state.table.punters
                if left > 0
                and not any(c.punter == p for c in state.covers)
                and landsknecht.split_refusal(state, p) is None
            ]
            out += [Option("consent", m.punter) for m in moves if isinstance(m, landsknecht.Consent)]
            return (*out, Option("close"))
        if phase is landsknecht.Phase.DEAL:
            return (Option("card", cards=tuple(m.card for m in moves if isinstance(m, landsknecht.Deal))),)
        if phase is landsknecht.Phase.DECIDE:
            return (Option("decide", state.table.banker, choices=("take", "again")),)
        return ()

    def cards(self, state: landsknecht.State) -> tuple[str, ...]:
        return state.cards

    def exposure(self, state: landsknecht.State) -> dict[str, int]:
        out = {c.punter: c.amount for c in state.covers}
        if state.stake:
            out[state.table.banker] = state.stake
        return out

    def _verdict(self, state: landsknecht.State) -> landsknecht.Verdict:
        return landsknecht.judge(landsknecht.to_record(state), state.settings)

    def transfers(self, state: landsknecht.State) -> tuple[Transfer, ...]:
        return _settlement_transfers(self._verdict(state).settlement.transfers)

    def record(self, state: landsknecht.State) -> dict[str, Any]:
        return landsknecht.record_to_dict(landsknecht.to_record(state))

    def verdict(self, settings: landsknecht.HouseSettings, record: Mapping[str, Any]) -> dict[str, Any]:
        with refused_as_step(ValueError):
            if record.get("kind") == landsknecht.FUND_RETURN_KIND:  # the fund's return, not a coup
                returned = landsknecht.fund_return_from_dict(record)
                judged = landsknecht.judge_fund_return(returned)
                return landsknecht.fund_return_verdict_to_dict(judged, record.get("id"))
            parsed = landsknecht.record_from_dict(record)
        return landsknecht.verdict_to_dict(landsknecht.judge(parsed, settings), record.get("id"))

    has_fund = True

    def fund_return(
        self, settings: landsknecht.HouseSettings, paid: Sequence[tuple[str, int]], balance: int
    ) -> dict[str, Any]:
        with refused_as_step(ValueError):  # a negative fund or payment: no consistent history has one
            settlement = landsknecht.fund_return(paid, balance, settings.fund_return)
        record = landsknecht.FundReturnRecord(
            fund=balance,
            paid=tuple(paid),
            rule=settings.fund_return,
            returned=tuple((t.payee, t.amount) for t in settlement.transfers),
        )
        return landsknecht.fund_return_to_dict(record)

    def outcome(self, state: landsknecht.State) -> str:
        return state.outcome.value

    def next_banker(self, state: landsknecht.State) -> str:
        nxt = landsknecht.next_table(landsknecht.to_record(state), self._verdict(state))
        return state.table.banker if nxt is None else nxt.banker

    def next_seating(self, state: landsknecht.State, seated: Sequence[str], fund: int = 0) -> Seating:
        """The engine's next table (who banks, how he opens), kept to the players still seated: a
        banker who left hands the bank on as if he had passed it, opening a new bank."""
        nxt = landsknecht.next_table(landsknecht.to_record(state), self._verdict(state))
        banker = state.table.banker if nxt is None else nxt.banker
        opening, previous = (
            (landsknecht.Opening.NEW_BANK.value, 0) if nxt is None else (nxt.opening.value, nxt.previous)
        )
        if banker not in seated:
            if not seated:
                raise StepRefused(said("nobody is seated"))
            order = [*state.table.punters, state.table.banker]
            banker = next((p for p in order if p in seated), seated[0])
            opening, previous = landsknecht.Opening.NEW_BANK.value, 0
        return seating_from(banker, seated, fund=fund, opening=opening, previous=previous)

    def hands(self, state: landsknecht.State) -> dict[str, list[str]]:
        # the banker's card is the right one (first), the punters' the left one (second)
        if not state.cards:
            return {}
        out = {state.table.banker: [state.cards[0]]}
        if len(state.cards) > 1:
            out["punters"] = [state.cards[1]]
        if len(state.cards) > 2:
            out["between"] = list(state.cards[2:])
        return out

    def scores(self, state: landsknecht.State) -> dict[str, HandScore]:
        # no points: the banker's rank (the first card) wins for him, the punters' (the second)
        # for them, whichever comes again first; the cards between decide nothing themselves
        out = {}
        if state.cards:
            out[state.table.banker] = HandScore(rank=landsknecht.rank_of(state.cards[0]))
        if len(state.cards) > 1:
            out["punters"] = HandScore(rank=landsknecht.rank_of(state.cards[1]))
        return out


# -------------------------------------------------------------------------------------- old baccarat
class OldBaccaratPlay(GamePlay[old_baccarat.HouseSettings, tuple[old_baccarat.State, tuple[str, ...]]]):
    """Old baccarat's state is the machine's plus who may sit down and stake (the seated players
    other than the banker): its machine takes any name, the floor only its own players."""

    slug = old_baccarat.GAME
    title = "Old baccarat"
    settings_type = old_baccarat.HouseSettings

    def minimum(self, settings: old_baccarat.HouseSettings) -> int:
        return settings.min_stake

    def begin(
        self, settings: old_baccarat.HouseSettings, seating: Seating
    ) -> tuple[old_baccarat.State, tuple[str, ...]]:
        with refused_as_step(old_baccarat.IllegalMove):
            # the seating is in seat order from the banker's left: the machine deals by it
            return old_baccarat.start(settings, seating.banker, seating.punters), seating.punters

    def step(
        self, state: tuple[old_baccarat.State, tuple[str, ...]], payload: Mapping[str, Any]
    ) -> tuple[old_baccarat.State, tuple[str, ...]]:
        machine, eligible = state
        kind = payload.get("kind")
        K = old_baccarat.Kind
        if kind == "stake":
            # a punter of the coup's seating, or a newcomer: the machine says when one may join
            # (before the cut, or after it with the banker's permission) and the floor that he is
            # seated at the table (Option.newcomer)
            move = old_baccarat.Move(K.STAKE, _player(payload), _amount(payload))
        elif kind in ("cut", "draw", "stand", "permit", "leave"):
            move = old_baccarat.Move(K(kind), _player(payload))
        elif kind == "card":
            move = old_baccarat.Move(K.CARD, card=_card(payload))
        else:
            raise StepRefused(
                said(
                    "an old baccarat step is stake, cut, card, draw, stand, permit or leave, not {kind!r}",
                    kind=kind,
                )
            )
        with refused_as_step(old_baccarat.IllegalMove):
            return old_baccarat.apply(machine, move), eligible

    def options(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> tuple[Option, ...]:
        machine, eligible = state
        out: list[Option] = []
        staked = {s.player for s in machine.punters}
        m = machine.settings.min_stake
        amounts = (m, 2 * m, 5 * m, 10 * m)
        for opt in old_baccarat.next_moves(machine):
            if opt.kind is old_baccarat.Kind.STAKE and opt.player is None:
                # before the cut: each punter of the seating who has not staked, and any newcomer
                # seated since the coup began
                out += [
                    Option("stake", p, amounts=amounts, min_amount=m) for p in eligible if p not in staked
                ]
                out.append(Option("stake", amounts=amounts, min_amount=m, newcomer=True))
            elif opt.kind is old_baccarat.Kind.STAKE:  # after the cut: one the banker let join
                out.append(Option("stake", opt.player, amounts=amounts, min_amount=m))
            elif opt.kind is old_baccarat.Kind.PERMIT:  # a player with no stake in the coup yet
                out.append(Option("permit", newcomer=True))
            else:
                out.append(Option(opt.kind.value, opt.player, opt.cards))
        return tuple(out)

    def cards(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> tuple[str, ...]:
        machine = state[0]
        return (*machine.deal, *(d.card for d in machine.draws if d.card is not None))

    def exposure(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> dict[str, int]:
        machine = state[0]
        out = {s.player: s.stake for s in machine.punters}
        if machine.punters:
            out[machine.banker] = machine.settings.match * sum(s.stake for s in machine.punters)
        return out

    def _verdict(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> old_baccarat.Verdict:
        machine = state[0]
        return old_baccarat.judge(old_baccarat.to_record(machine), machine.settings)

    def transfers(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> tuple[Transfer, ...]:
        settlement = self._verdict(state).settlement
        if settlement is None:  # the machine only finishes legal coups: a bug if it happens
            raise StepRefused("the coup has no settlement")
        return _settlement_transfers(settlement.transfers)

    def record(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> dict[str, Any]:
        return old_baccarat.to_record(state[0]).as_dict()

    def verdict(self, settings: old_baccarat.HouseSettings, record: Mapping[str, Any]) -> dict[str, Any]:
        with refused_as_step(ValueError):
            parsed = old_baccarat.OldBaccaratCoup.from_dict(record)
        return old_baccarat.verdict_to_dict(old_baccarat.judge(parsed, settings), record.get("id"))

    def outcome(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> str:
        return old_baccarat.outcome_of(self._verdict(state)) or "void"

    def next_banker(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> str:
        # the source names no rotation for old baccarat: the banker keeps the bank until he gives it up
        return state[0].banker

    def hands(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> dict[str, list[str]]:
        machine = state[0]
        names = [s.player for s in machine.punters] + [machine.banker]
        return {n: list(h) for n, h in zip(names, machine.hands, strict=False) if h}

    def scores(self, state: tuple[old_baccarat.State, tuple[str, ...]]) -> dict[str, HandScore]:
        # the last digit of the count decides (9, 19 and 29 alike); the count is what is said
        out = {}
        for name, hand in self.hands(state).items():
            points, count = old_baccarat.hand_digit(hand), old_baccarat.hand_count(hand)
            out[name] = HandScore(points=points, count=None if count == points else count)
        return out


PLAYS: dict[str, GamePlay[Any, Any]] = {
    play.slug: play for play in (MacaoPlay(), LandsknechtPlay(), OldBaccaratPlay())
}


def play_for(slug: str) -> GamePlay[Any, Any]:
    try:
        return PLAYS[slug]
    except KeyError:
        raise StepRefused(unknown_game(slug, sorted(PLAYS))) from None


def settle_check(transfers: Sequence[Transfer]) -> dict[str, int]:
    """Each party's net; raises if the transfers do not sum to zero or move a non-positive amount
    (a bug in a game module, never the croupier's doing)."""
    net: Counter[str] = Counter()
    for t in transfers:
        if type(t.amount) is not int or t.amount <= 0:
            raise AssertionError(f"a transfer moves a positive whole number of chips, not {t.amount!r}")
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
    if sum(net.values()) != 0:
        raise AssertionError("a settlement sums to zero")
    return {k: v for k, v in net.items() if v}

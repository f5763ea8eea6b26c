"""The coup-record interchange format (docs/coup-record.md): its one reader and its one writer,
and the verdict dicts.

``record_from_dict`` is the one gate between untrusted JSON and the engine: everything the engine
assumes about a record (card codes, amounts, actions consistent with the cards) is checked here,
and a malformed record raises :class:`RecordError` with a sentence a person can act on.
``record_to_dict`` is its inverse and the only writer of records (the exports, the API's record
endpoint and the benchmarks' generator all call it), so one coup always gives one JSON object.
"""

from __future__ import annotations

import json
from collections.abc import Container
from typing import Any

from chemin_de_fer.engine.coup import (
    Action,
    CoupRecord,
    Hand,
    NeedsCards,
    Restored,
    Settlement,
    Stake,
    Verdict,
)
from chemin_de_fer.engine.profiles import Profile
from core.cards import POINTS
from core.records import MAX_RECORD_CHIPS, MAX_RECORD_CHIPS_SAID, RecordError

_ACTIONS: dict[str, Action] = {a.value: a for a in Action}  # looked up only with a JSON string
_NATURAL = Action.NATURAL
_DRAW = Action.DRAW
_NONE = Action.NONE


#: the most chips a record's amount may be (core.records: every game's readers, and the import)
_MAX = MAX_RECORD_CHIPS


def _chips(value: object) -> bool:
    """A positive integer of at most ``MAX_RECORD_CHIPS`` (bool is an int subclass: excluded on
    purpose)."""
    return type(value) is int and 0 < value <= _MAX


def _not_chips(what: str, value: object) -> str:
    """Why ``value`` is no amount of chips: no positive integer, or one above the limit."""
    written = as_written(value)
    if type(value) is int and value > _MAX:
        return f"{what} must be a positive integer of at most {MAX_RECORD_CHIPS_SAID} chips, not {written}"
    return f"{what} must be a positive integer, not {written}"


#: the longest value a sentence quotes whole (a record's value can be a whole nested object)
_QUOTED_MAX = 60


def as_written(value: object) -> str:
    """``value`` as the line wrote it, in JSON (``true``, ``null``, ``"5"``, ``10.5``), never as
    Python spells it (``True``, ``None``, ``'5'``): a refusal quotes what the person can find in
    the line. A long value is cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not from JSON: a caller's own object
        text = repr(value)
    return text if len(text) <= _QUOTED_MAX else text[: _QUOTED_MAX - 1] + "…"


def named(value: object) -> str:
    """A name the line gives (a card, an action, a profile, a game): a string quoted as the format's
    sentences quote names (``'1X'``, ``'baccarat'``), anything else as written (``null``, ``10``)."""
    return repr(value) if type(value) is str else as_written(value)


class AsWritten:
    """A value whose ``repr`` is :func:`named`: for a sentence built elsewhere with ``{value!r}``
    (``core.records.unknown_game``), so that a null game reads ``null``, not ``None``."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return named(self.value)


def _hand_cards(data: dict[str, Any], side: str) -> list[Any]:
    """``side``'s hand is there with 2 or 3 cards (what they are is checked next)."""
    raw = data.get(side)
    if type(raw) is not dict:
        raise ValueError(f"{side} hand missing")
    cards = raw.get("cards")
    if type(cards) is not list or not 2 <= len(cards) <= 3:
        n = len(cards) if type(cards) is list else "no"
        raise ValueError(f"{side} hand must have 2 or 3 cards, not {n}")
    return cards


def _hand(data: dict[str, Any], side: str, cards: list[Any]) -> Hand:
    """``side``'s hand once both hands have their 2 or 3 cards: known cards, a known action."""
    if not _all_cards(cards):
        raise ValueError(f"bad card {named(_first_bad(cards))}")
    said_action = data[side].get("action")
    # a list or an object is no action either (and cannot be looked up: it is unhashable)
    action = _ACTIONS.get(said_action) if type(said_action) is str else None
    if action is None:
        raise ValueError(f"{side}: unknown action {named(said_action)}")
    return Hand(tuple(cards), action)


def _bet_amounts(raw: object) -> None:
    """Every bet's amount is a positive integer (checked before the bets' other faults: the
    format's list of malformed lines names the amounts first)."""
    if type(raw) is not list:
        return
    for n, item in enumerate(raw, 1):
        if type(item) is dict:
            amount = item.get("amount")
            if type(amount) is not int or amount <= 0 or amount > _MAX:
                raise ValueError(_not_chips(f"bet {n}: amount", amount))


def _bets(raw: object) -> tuple[Stake, ...]:
    if type(raw) is not list or not raw:
        raise ValueError("bets must be a non-empty list of {punter, amount}")
    bets = []
    seated: dict[str, bool] = {}  # each punter's place, as his first bet says it
    for n, item in enumerate(raw, 1):
        if type(item) is not dict:
            raise ValueError(f"bet {n} is not an object")
        punter = item.get("punter")
        if type(punter) is not str or not punter:
            raise ValueError(f"bet {n}: punter must be a non-empty string")
        spectator = item.get("spectator", False)
        if spectator is not False and spectator is not True:
            raise ValueError(f"bet {n}: spectator must be true or false")
        # a person bets from his seat or standing, never both in one coup: a live table knows him
        # as one or the other, and a record saying both cannot be judged as one coup
        if seated.setdefault(punter, not spectator) is spectator:
            raise ValueError(
                f"bet {n}: {named(punter)} bets both from a seat and as a spectator; "
                "a punter is one or the other"
            )
        bets.append(Stake(punter, item["amount"], spectator))
    return tuple(bets)


def _flag(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if value is not False and value is not True:
        raise ValueError(f"{key} must be true or false")
    return value


def _third_card_drawn(side: str, hand: Hand, two: int) -> None:
    if len(hand.cards) == 3 and hand.action is not _DRAW:
        raise ValueError(f"{side} has a third card but did not draw")


def _natural_declared(side: str, hand: Hand, two: int) -> None:
    if hand.action is _NATURAL:
        if len(hand.cards) == 3:
            raise ValueError(f"{side} declared a natural on three cards")
        if two < 8:
            raise ValueError(f"{side} declared a natural on {two}")


def _acted(side: str, hand: Hand) -> None:
    """Neither side has a natural: each one decided, and a draw has its card."""
    if hand.action is _DRAW and len(hand.cards) == 2:
        raise ValueError(f"{side} drew but has no third card")
    if hand.action is _NONE:
        raise ValueError(f"{side} did not act although neither side has a natural")


def _cards(value: object, what: str) -> tuple[str, ...]:
    if value is None:  # absent, or null: no cards known
        return ()
    if type(value) is not list:  # false, 0, "" and {} are no list of cards either
        raise ValueError(f"{what} must be a list of cards, not {as_written(value)}")
    if not _all_cards(value):
        raise ValueError(f"bad card {named(_first_bad(value))} in {what}")
    return tuple(value)


_CARD_CODES = frozenset(POINTS)


def _all_cards(values: list[Any]) -> bool:
    """Every value is a card code (one set operation in C: the validator's hot path)."""
    try:
        return _CARD_CODES.issuperset(values)
    except TypeError:  # an unhashable value (a list, an object) is no card
        return False


def _first_bad(values: list[Any]) -> object:
    return next(v for v in values if type(v) is not str or v not in POINTS)


def record_from_dict(
    data: object, *, profile: str | None = None, known_profiles: Container[str] = ()
) -> CoupRecord:
    """Build a :class:`CoupRecord` from a parsed JSON value, or raise :class:`RecordError`.

    ``profile`` overrides the record's own profile; ``known_profiles`` is the set of slugs a
    record may name. The checks run in the order of the format's description, so the first
    problem on a line is the one reported.
    """
    if type(data) is not dict:
        raise RecordError("not a JSON object")
    get = data.get
    record_id = get("id")
    try:
        if "game" in data and get("game") != "chemin-de-fer":
            # another game's record (older_games.engine.games reads those), or a null game: say
            # so, not "no profile"
            raise ValueError(f"not a chemin de fer record: game {named(get('game'))}")
        if profile is None:
            profile = get("profile")
            if type(profile) is not str:
                raise ValueError("no profile: give one in the record or with --profile")
            if profile not in known_profiles:
                raise ValueError(f"unknown profile {named(profile)}")
        # the checks in the order docs/coup-record.md lists them (Malformed lines): the first
        # problem on the line is the one reported, whichever side or bet it is on
        bank = get("bank")
        if type(bank) is not int or bank <= 0 or bank > _MAX:
            raise ValueError(_not_chips("bank", bank))
        raw_bets = get("bets")
        _bet_amounts(raw_bets)
        bets = _bets(raw_bets)
        banco = _flag(data, "banco")
        if banco and (len(bets) != 1 or bets[0].amount != bank):
            raise ValueError("banco needs exactly one bet, equal to the bank")
        banco_suivi = _flag(data, "banco_suivi")
        if banco_suivi and not banco:
            raise ValueError("banco_suivi is only for a banco record")
        player_cards = _hand_cards(data, "player")
        banker_cards = _hand_cards(data, "banker")
        player = _hand(data, "player", player_cards)
        banker = _hand(data, "banker", banker_cards)
        pc, bc = player.cards, banker.cards
        p2 = (POINTS[pc[0]] + POINTS[pc[1]]) % 10
        b2 = (POINTS[bc[0]] + POINTS[bc[1]]) % 10
        any_natural = p2 >= 8 or b2 >= 8
        for check in (_third_card_drawn, _natural_declared):
            check("player", player, p2)
            check("banker", banker, b2)
        if not any_natural:
            _acted("player", player)
            _acted("banker", banker)
        shoe_next = _cards(get("shoe_next"), "shoe_next")
        # optional: absent is none (no limit, a unit of 1, nobody named), but a key the line
        # writes must hold its value: only shoe_next takes null for "none known"
        house_limit = get("house_limit")
        if (house_limit is not None or "house_limit" in data) and not _chips(house_limit):
            raise ValueError(_not_chips("house_limit", house_limit))
        chip_unit = get("chip_unit", 1)
        if not _chips(chip_unit):
            raise ValueError(_not_chips("chip_unit", chip_unit))
        active = get("active_punter")
        if (active is not None or "active_punter" in data) and (type(active) is not str or not active):
            raise ValueError("active_punter must be a punter's name")
        return CoupRecord(
            record_id,
            profile,
            bank,
            bets,
            player,
            banker,
            banco,
            _flag(data, "first_coup_of_bank"),
            shoe_next,
            house_limit,
            chip_unit,
            active,
            banco_suivi,
        )
    except ValueError as exc:
        raise RecordError(str(exc), record_id, has_id="id" in data) from None


def seats_refusal(record: CoupRecord, profile: Profile) -> str | None:
    """Why ``record`` cannot have been played under ``profile`` for want of seats, or None: its
    seated punters and the banker (who holds a seat: a record cannot say the house banked) are
    more than the profile seats (RULES.md §10). No violation code says it, and no table can seat
    them, so ``validate_coups`` and ``import_coups`` both refuse the line with this sentence."""
    if len(record.bets) < profile.seats_max:  # the common case, answered without a set
        return None
    seated = len({b.punter for b in record.bets if not b.spectator})
    if seated + 1 <= profile.seats_max:
        return None
    return (
        f"{seated} seated punters and the banker need {seated + 1} seats; "
        f"the {profile.slug} profile seats at most {profile.seats_max}"
    )


def record_to_dict(record: CoupRecord) -> dict[str, Any]:
    """A record as the format's JSON object: the inverse of :func:`record_from_dict`.

    The keys the format calls optional are written only when they differ from their default (a
    bet's ``spectator``, ``house_limit``, ``chip_unit``, ``active_punter``, ``banco_suivi``), as in
    the format's example; ``id``, ``banco``, ``first_coup_of_bank`` and ``shoe_next`` are always
    written.
    """
    data: dict[str, Any] = {
        "id": record.id,
        "profile": record.profile,
        "bank": record.bank,
        "bets": [
            {"punter": b.punter, "amount": b.amount, **({"spectator": True} if b.spectator else {})}
            for b in record.bets
        ],
        "banco": record.banco,
        **({"banco_suivi": True} if record.banco_suivi else {}),
        "first_coup_of_bank": record.first_coup_of_bank,
        "player": {"cards": list(record.player.cards), "action": record.player.action.value},
        "banker": {"cards": list(record.banker.cards), "action": record.banker.action.value},
        "shoe_next": list(record.shoe_next),
    }
    if record.house_limit is not None:
        data["house_limit"] = record.house_limit
    if record.chip_unit != 1:
        data["chip_unit"] = record.chip_unit
    if record.active_punter is not None:
        data["active_punter"] = record.active_punter
    return data


def settlement_to_dict(s: Settlement) -> dict[str, Any]:
    return {
        "covered": s.covered,
        "uncovered": s.uncovered,
        "tax": s.tax,
        "banker_net": s.banker_net,
        "punters": dict(s.punters),
        "next_bank_min": s.next_bank_min,
    }


def restored_to_dict(r: Restored | NeedsCards | None) -> dict[str, Any] | None:
    if r is None:
        return None
    if type(r) is NeedsCards:
        return {"needs_cards": r.needs_cards}
    assert isinstance(r, Restored)
    return {
        "player_cards": list(r.player_cards),
        "banker_cards": list(r.banker_cards),
        "player_total": r.player_total,
        "banker_total": r.banker_total,
        "outcome": r.outcome.value,
        "void_cards": list(r.void_cards),
    }


def verdict_to_dict(v: Verdict) -> dict[str, Any]:
    return {
        "id": v.id,
        "player_total": v.player_total,
        "banker_total": v.banker_total,
        "outcome": v.outcome.value,
        "violations": [{"code": x.code.value, "side": x.side, "detail": x.detail} for x in v.violations],
        "settlement": None if v.settlement is None else settlement_to_dict(v.settlement),
        "restored": restored_to_dict(v.restored),
    }


"""How the engine and the coup records name a punter: ``seat-4`` (the player at seat 4, banker
included) or ``spectator-17`` (the spectator row 17, betting standing), and back.

The one place that writes or reads such a key. The engine itself treats keys as opaque strings;
only the floor (which seat, which spectator) and the records' readers care what is inside.
"""

from __future__ import annotations

import re
from enum import StrEnum


class PunterKind(StrEnum):
    SEAT = "seat"
    SPECTATOR = "spectator"


# ASCII digits only: a key is written by seat_key/spectator_key, never typed freely
_KEY = re.compile(r"(seat|spectator)-([0-9]+)")


def punter_key(kind: PunterKind, number: int) -> str:
    return f"{kind.value}-{number}"


def seat_key(number: int) -> str:
    """The key of whoever sits at seat ``number`` (a punter or the banker)."""
    return punter_key(PunterKind.SEAT, number)


def spectator_key(spectator_id: int) -> str:
    """The key of the spectator row ``spectator_id`` (who bets standing)."""
    return punter_key(PunterKind.SPECTATOR, spectator_id)


#: the key of the house when it banks a table (docs/rules.md §2): it holds no seat and never bets
HOUSE_KEY = "house"


def parse_punter_key(key: str) -> tuple[PunterKind, int]:
    """``(kind, number)`` of a key: the seat number or the spectator's id. ``ValueError`` if the
    string is no punter key."""
    match = _KEY.fullmatch(key)
    if match is None:
        raise ValueError(f"Unknown punter {key!r}.")
    return PunterKind(match.group(1)), int(match.group(2))


def key_seat_number(key: str) -> int | None:
    """The seat number of a ``seat-N`` key; ``None`` for a spectator's key or any other name."""
    try:
        kind, number = parse_punter_key(key)
    except ValueError:
        return None
    return number if kind is PunterKind.SEAT else None

"""House-rule profiles: every setting that differs between the sources, as data.

The engine never branches on a profile's *name*; it reads these settings. The four built-in
profiles follow docs/rules.md §10; a casino may derive its own with ``dataclasses.replace``
(the Django ``RuleProfile`` model stores the same fields and converts to this class).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, get_type_hints


class Side(StrEnum):
    """A side of the banker, seen from his seat. Seats are numbered clockwise, so the banker's
    left neighbour is the next seat clockwise and "left" means "clockwise from the banker"."""

    LEFT = "left"
    RIGHT = "right"


class LevyMode(StrEnum):
    PERCENTAGE = "percentage"  # a share of every banker win (casino)
    HOURLY_FEE = "hourly_fee"  # billed by time, not by coups
    CARD_MONEY = "card_money"  # club: per seated player per session
    NONE = "none"


class Rounding(StrEnum):
    DOWN = "down"  # to the table's smallest chip, in the house's disfavour
    NEAREST = "nearest"  # half a chip rounds up


class NaturalTie(StrEnum):
    HIGHER_WINS = "higher_wins"  # 9 beats 8, equal naturals are a stand-off
    STANDOFF = "standoff"  # club "en carte": any two naturals are a stand-off


class PassedBank(StrEnum):
    """What the player who takes a passed bank puts up (docs/rules.md §7)."""

    OWN_BANK = "own_bank"  # he sets his own bank, from the profile minimum (casino, classic, club)
    CONTINUATION = "continuation"  # at least the passer's mandatory continuation (home)


class PlayerTableau(StrEnum):
    STANDARD = "standard"  # draw 0-4, option 5, stand 6-7
    HOME = "home"  # standard with several punters; a single punter draws on 0, option on 1-7


@dataclass(frozen=True, slots=True)
class Profile:
    slug: str
    name: str
    # --- the shoe (§8)
    decks_allowed: tuple[int, ...] = (6, 8)
    decks_per_seated_player: bool = False
    burn_cards_min: int = 0
    burn_cards_max: int = 0
    # --- the table (§2, §7, §10)
    seats_min: int = 2
    seats_max: int = 12
    betting_from: Side = Side.RIGHT
    bank_passes_to: Side = Side.RIGHT
    passed_bank: PassedBank = PassedBank.OWN_BANK
    spectators_bet: bool = False
    spectator_needs_consent: bool = False
    spectators_share_bank: bool = False
    banco_suivi: bool = False
    seated_bettor_always_plays: bool = False
    # --- drawing rules (§4, §5)
    player_tableau: PlayerTableau = PlayerTableau.STANDARD
    banker_option_3_vs_9: bool = True
    banker_option_5_vs_4: bool = False
    banker_free_5_to_7: bool = False
    banco_free_play: bool = False
    natural_tie: NaturalTie = NaturalTie.HIGHER_WINS
    # --- money (§6)
    levy_mode: LevyMode = LevyMode.NONE
    tax_rate_bp: int = 0  # basis points of the covered stake: 500 = 5 %
    levy_rounding: Rounding = Rounding.DOWN
    first_coup_exempt: bool = False
    uncovered_to_reserve: bool = False
    option_stand_reimburses: bool = False
    borrowing_allowed: bool = True
    min_bank: int = 1
    min_bet: int = 1
    # --- series (home)
    series_coups: int | None = None
    series_start_chips: int | None = None

    def __post_init__(self) -> None:
        if not self.slug:
            raise ValueError("a profile needs a slug")
        if not 0 <= self.tax_rate_bp <= 10_000:
            raise ValueError("tax_rate_bp must be between 0 and 10000")
        if self.levy_mode is LevyMode.PERCENTAGE and self.tax_rate_bp == 0:
            raise ValueError("a percentage levy needs a rate")
        if self.burn_cards_min > self.burn_cards_max:
            raise ValueError("burn_cards_min exceeds burn_cards_max")
        if self.seats_min > self.seats_max:
            raise ValueError("seats_min exceeds seats_max")
        if self.min_bank < 1 or self.min_bet < 1:
            raise ValueError("minimum bank and bet are at least one chip")
        if not self.decks_per_seated_player and not self.decks_allowed:
            raise ValueError("a profile needs its deck counts")


CASINO = Profile(
    slug="casino",
    name="Casino",
    decks_allowed=(6, 8),
    burn_cards_min=3,
    burn_cards_max=4,
    seats_min=2,
    seats_max=12,
    betting_from=Side.RIGHT,
    bank_passes_to=Side.RIGHT,
    spectators_bet=True,
    banker_option_3_vs_9=True,
    banker_option_5_vs_4=True,
    levy_mode=LevyMode.PERCENTAGE,
    tax_rate_bp=500,
)

CLASSIC = Profile(
    slug="classic",
    name="Classic",
    decks_allowed=(6,),
    seats_min=2,
    seats_max=30,
    betting_from=Side.LEFT,
    bank_passes_to=Side.LEFT,
    banker_option_3_vs_9=True,
    banker_option_5_vs_4=False,
)

CLUB = Profile(
    slug="club",
    name="Club",
    decks_allowed=(),
    decks_per_seated_player=True,
    seats_min=2,
    seats_max=12,
    betting_from=Side.LEFT,
    bank_passes_to=Side.LEFT,
    spectators_bet=True,
    spectator_needs_consent=True,
    spectators_share_bank=True,
    seated_bettor_always_plays=True,
    banker_option_3_vs_9=False,
    banker_free_5_to_7=True,
    natural_tie=NaturalTie.STANDOFF,
    levy_mode=LevyMode.CARD_MONEY,
    uncovered_to_reserve=True,
    option_stand_reimburses=True,
)

HOME = Profile(
    slug="home",
    name="Home series",
    decks_allowed=(6,),
    seats_min=3,
    seats_max=12,
    betting_from=Side.RIGHT,
    bank_passes_to=Side.RIGHT,
    passed_bank=PassedBank.CONTINUATION,
    banco_suivi=True,
    player_tableau=PlayerTableau.HOME,
    banker_option_3_vs_9=True,
    banker_option_5_vs_4=True,
    uncovered_to_reserve=True,
    borrowing_allowed=False,
    min_bank=2,
    min_bet=1,
    series_coups=12,
    series_start_chips=100,
)

BUILTIN: dict[str, Profile] = {p.slug: p for p in (CASINO, CLASSIC, CLUB, HOME)}

PROFILE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Profile))


def get_profile(slug: str) -> Profile:
    """The built-in profile called ``slug``; ``KeyError`` names the known ones."""
    try:
        return BUILTIN[slug]
    except KeyError:
        raise KeyError(f"unknown profile {slug!r} (known: {', '.join(BUILTIN)})") from None


def profile_to_dict(profile: Profile) -> dict[str, object]:
    """A JSON-ready copy of every setting (enums as their values, tuples as lists)."""
    out: dict[str, object] = {}
    for f in fields(Profile):
        value = getattr(profile, f.name)
        if isinstance(value, StrEnum):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def profile_from_dict(data: dict[str, object]) -> Profile:
    """The inverse of :func:`profile_to_dict`; unknown keys are refused, missing ones default."""
    unknown = set(data) - set(PROFILE_FIELDS)
    if unknown:
        raise ValueError(f"unknown profile settings: {', '.join(sorted(unknown))}")
    # the values are whatever the JSON held: the enum conversions and int() below, and the
    # Profile's own validation, are what check them
    values: dict[str, Any] = {}
    for f in fields(Profile):
        if f.name not in data:
            continue
        value: Any = data[f.name]
        kind = ENUM_FIELDS.get(f.name)
        if kind is not None:
            value = kind(value)
        elif f.name == "decks_allowed":
            value = tuple(int(d) for d in value)
        values[f.name] = value
    return Profile(**values)


#: the settings whose type is a StrEnum, with that enum (stored, in JSON or a column, as its value);
#: read from the annotations so a new enum setting cannot be forgotten here
ENUM_FIELDS: dict[str, type[StrEnum]] = {
    name: hint
    for name, hint in get_type_hints(Profile).items()
    if isinstance(hint, type) and issubclass(hint, StrEnum)
}

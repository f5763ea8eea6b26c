"""The drawing rules (docs/rules.md §4 and §5) compiled into lookup tables.

``Tableau.for_profile`` reads a :class:`~chemin_de_fer.engine.profiles.Profile` once; afterwards every
question is a tuple index, which is what lets the validator judge a coup in microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from chemin_de_fer.engine.profiles import PlayerTableau, Profile


class Requirement(StrEnum):
    """What the tableau requires of whoever acts."""

    DRAW = "draw"
    STAND = "stand"
    OPTION = "option"  # the party's free choice: never a violation


D, S, O = Requirement.DRAW, Requirement.STAND, Requirement.OPTION  # noqa: E741  (the tables read as D S O)

#: index of "the player stood" in a banker row (indices 0..9 are the player's third card)
STOOD = 10


def _banker_row(total: int, *, option_3_vs_9: bool, option_5_vs_4: bool) -> tuple[Requirement, ...]:
    """One row of the classic banker tableau: requirement by player's third card, then 'stood'."""
    stood = D if total <= 5 else S
    if total <= 2:
        row = [D] * 10
    elif total == 3:
        row = [D] * 8 + [S, O if option_3_vs_9 else D]
    elif total == 4:
        row = [S, S] + [D] * 6 + [S, S]
    elif total == 5:
        row = [S] * 4 + [O if option_5_vs_4 else D] + [D, D, D] + [S, S]
    elif total == 6:
        row = [S] * 6 + [D, D] + [S, S]
    else:
        row = [S] * 10
    return (*row, stood)


def _club_row(total: int) -> tuple[Requirement, ...]:
    """Club banker: he risks only his own money, so he is free at 5-7 whatever the player did,
    but must draw at 0-4 (docs/rules.md §5)."""
    return (D if total <= 4 else O,) * 11


@dataclass(frozen=True, slots=True)
class Tableau:
    """Drawing requirements for one profile.

    ``player[single][total]`` for totals 0..7; ``banker[total][third]`` with ``third`` the
    player's face-up third card (0..9) or :data:`STOOD`. ``free_play`` applies when banco was
    called and the profile lets both sides ignore the tableaux.
    """

    player: tuple[tuple[Requirement, ...], tuple[Requirement, ...]]
    banker: tuple[tuple[Requirement, ...], ...]
    banco_free_play: bool

    @classmethod
    def for_profile(cls, profile: Profile) -> Tableau:
        several = (D, D, D, D, D, O, S, S)
        single = (D, O, O, O, O, O, O, O) if profile.player_tableau is PlayerTableau.HOME else several
        if profile.banker_free_5_to_7:
            banker = tuple(_club_row(t) for t in range(8))
        else:
            banker = tuple(
                _banker_row(
                    t,
                    option_3_vs_9=profile.banker_option_3_vs_9,
                    option_5_vs_4=profile.banker_option_5_vs_4,
                )
                for t in range(8)
            )
        return cls(player=(several, single), banker=banker, banco_free_play=profile.banco_free_play)

    def player_requirement(self, total: int, *, single_punter: bool, banco: bool = False) -> Requirement:
        """What the player must do on a two-card ``total`` (0..7, no natural)."""
        if banco and self.banco_free_play:
            return O
        return self.player[single_punter][total]

    def banker_requirement(self, total: int, player_third: int | None, *, banco: bool = False) -> Requirement:
        """What the banker must do on a two-card ``total`` (0..7) given the player's face-up third
        card's points, or ``None`` when the player stood."""
        if banco and self.banco_free_play:
            return O
        return self.banker[total][STOOD if player_third is None else player_third]


#: Punto Banco's fixed tableau, for comparison only: the player draws 0-5, the banker follows the
#: classic table with 3-vs-9 and 5-vs-4 both "draw". No options anywhere.
PUNTO_BANCO = Tableau(
    player=((D, D, D, D, D, D, S, S),) * 2,
    banker=tuple(_banker_row(t, option_3_vs_9=False, option_5_vs_4=False) for t in range(8)),
    banco_free_play=False,
)

"""The game types the engine knows besides chemin de fer, by their coup-record slug, and what
``manage.py odds --game`` prints of each: the banker's exact edge under the house's default
settings and under each alternative setting, one at a time (docs/games/).

Chemin de fer itself stays where it is (``tables.rules.odds`` by profile): its odds depend on a
profile and its levy, not on a handful of house settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from tables.rules import landsknecht, macao, old_baccarat


@dataclass(frozen=True, slots=True)
class GameOdds:
    slug: str
    title: str
    default_decks: int
    #: the house's defaults, then each alternative setting alone, by a short label
    settings: dict[str, Any]
    #: the banker's exact edge (per unit staked; docs/games/<game>.md says which unit) on ``decks``
    edge: Callable[[Any, int], Fraction]
    unit: str


def _macao_edge(settings: macao.MacaoSettings, decks: int) -> Fraction:
    return macao.exact_odds(replace(settings, decks=decks)).banker_edge


def _landsknecht_edge(settings: landsknecht.HouseSettings, decks: int) -> Fraction:
    return landsknecht.exact_odds(settings, decks).banker_edge


def _old_baccarat_edge(settings: old_baccarat.HouseSettings, decks: int) -> Fraction:
    return old_baccarat.exact_odds(replace(settings, decks=decks)).banker_edge


_OB = old_baccarat.HouseSettings

GAMES: dict[str, GameOdds] = {
    "macao": GameOdds(
        slug="macao",
        title="Macao",
        default_decks=macao.DEFAULT.decks,
        settings={"defaults": macao.DEFAULT, **macao.ALTERNATIVES},
        edge=_macao_edge,
        unit="per minimum stake, one punter against the banker",
    ),
    "landsknecht": GameOdds(
        slug="landsknecht",
        title="Landsknecht",
        default_decks=landsknecht.HouseSettings().decks,
        settings={
            "defaults": landsknecht.HouseSettings(),
            # the only setting that changes how a coup is won; the others change what is at risk
            "doublet=standoff": landsknecht.HouseSettings(doublet=landsknecht.Doublet.STANDOFF),
        },
        edge=_landsknecht_edge,
        unit="per chip at risk",
    ),
    "old-baccarat": GameOdds(
        slug="old-baccarat",
        title="Old two-deck baccarat",
        default_decks=_OB().decks,
        settings={
            "defaults": _OB(),
            # the source contradicts itself on ties: the banker's, or pooled (docs/games/old_baccarat.md)
            "tie_rule=pool": _OB(tie_rule=old_baccarat.TieRule.POOL),
            "banker_match=double": _OB(banker_match=old_baccarat.BankerMatch.DOUBLE),
            "natural_stops_all_draws=False": _OB(natural_stops_all_draws=False),
        },
        edge=_old_baccarat_edge,
        unit="per unit staked, one punter against the banker (the banker's default draws)",
    ),
}

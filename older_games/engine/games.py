"""The game types the engine knows besides chemin de fer, by their coup-record slug: what
``manage.py odds --game`` prints of each (the banker's exact edge under the house's default
settings and under each alternative setting, one at a time: docs/games/), and how
``validate_coups`` reads and judges a record of each (:data:`JUDGES`, docs/coup-record.md).

Chemin de fer itself stays where it is (``chemin_de_fer.engine.odds`` by profile): its odds depend on a
profile and its levy, not on a handful of house settings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from core.records import GameJudge, RecordError, record_reader
from older_games.engine import landsknecht, macao, old_baccarat


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


# ---------------------------------------------------------------------------------------------
# The offline judges: how ``validate_coups`` reads and judges a record of each game
# (docs/coup-record.md). Chemin de fer is not here: its records go through
# ``chemin_de_fer.engine.interchange`` on the validator's hot path, and a record without ``"game"`` is one.





_read_macao = record_reader(macao.record_from_dict)
_read_old_baccarat = record_reader(old_baccarat.OldBaccaratCoup.from_dict)
_read_landsknecht = record_reader(landsknecht.record_from_dict)


def house_settings_of(slug: str, data: Mapping[str, Any]) -> Any:
    """The house settings a record carries in its optional ``"settings"`` object, read as the
    table reads them (``older_games.engine.game_play.play_for(slug).settings``: unknown keys and bad
    values refused); None when it carries none (the judge's defaults then)."""
    if "settings" not in data:
        return None
    raw = data["settings"]
    if type(raw) is not dict:
        raise RecordError("settings must be an object of house settings", data.get("id"), has_id="id" in data)
    # game_play imports this module (the judges' verdict shapes): imported here, not at the top
    from older_games.engine.game_play import StepRefused, play_for

    try:
        return play_for(slug).settings(raw)
    except StepRefused as exc:
        raise RecordError(f"settings: {exc}", data.get("id"), has_id="id" in data) from None


def _judge_macao(data: Mapping[str, Any]) -> dict[str, Any]:
    record = _read_macao(data)
    house = house_settings_of("macao", data)
    rules = macao.DEFAULT if house is None else house.rules
    return macao.verdict_to_dict(macao.judge(record, rules), data.get("id"))


_read_landsknecht_fund_return = record_reader(landsknecht.fund_return_from_dict)


def _judge_landsknecht(data: Mapping[str, Any]) -> dict[str, Any]:
    # a line is a coup, or the fund's return at the end of play (its "kind" says so; its rule is
    # the record's own, so house settings play no part in it)
    if data.get("kind") == landsknecht.FUND_RETURN_KIND:
        returned = _read_landsknecht_fund_return(data)
        house_settings_of("landsknecht", data)  # a malformed settings object is still malformed
        judged = landsknecht.judge_fund_return(returned)
        return landsknecht.fund_return_verdict_to_dict(judged, data.get("id"))
    record = _read_landsknecht(data)
    house = house_settings_of("landsknecht", data)
    verdict = landsknecht.judge(record) if house is None else landsknecht.judge(record, house)
    return landsknecht.verdict_to_dict(verdict, data.get("id"))




def _judge_old_baccarat(data: Mapping[str, Any]) -> dict[str, Any]:
    record = _read_old_baccarat(data)
    house = house_settings_of("old-baccarat", data)
    verdict = old_baccarat.judge(record) if house is None else old_baccarat.judge(record, house)
    return old_baccarat.verdict_to_dict(verdict, data.get("id"))


JUDGES: dict[str, GameJudge] = {
    "landsknecht": GameJudge("landsknecht", _read_landsknecht, _judge_landsknecht),
    "macao": GameJudge("macao", _read_macao, _judge_macao),
    "old-baccarat": GameJudge("old-baccarat", _read_old_baccarat, _judge_old_baccarat),
}


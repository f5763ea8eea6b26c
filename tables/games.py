"""The seam between the floor (and the back office) and the games: what they ask of any game.

Each game lives in a wing of its own (``chemin_de_fer/``, ``older_games/``: its pure engine, the
services that write its steps, its money, reads, screens and API). A wing hands the floor one
object, a :class:`GameWing`, named in ``settings.GAME_WINGS`` by its dotted path: the floor and the
back office ask a table's game through :func:`wing_for` and never import a wing, so no module
outside a wing branches on which game a table plays. A fifth game is a new wing plus one line of
``GAME_WINGS`` (docs/architecture.md, "Adding a game").

The wings are loaded on first use, not when this module is imported: a wing imports the floor's
models and services, which import this module (and so this module names the floor's models in
words only: a table, a session, a seat, a casino).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.urls import URLPattern, URLResolver
from django.utils.module_loading import import_string

from core.records import GameJudge

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.types import Staff
    from ledger.books import BooksReport
    from tables.rating import CoupPlayed

URLs = list[URLPattern | URLResolver]


@dataclass(frozen=True)
class LiveCoup:
    """A game's coup in play at a table, as the live pit shows it (review.selectors.live)."""

    coup: Any
    steps: int
    last_step_at: dt.datetime  # its last step's, or its start's while it has none
    minutes_since_last_step: int


class GameWing(Protocol):
    """What the floor and the back office ask of a game. One object a wing; every method is
    answered by every wing (an answer may be empty: a game with no reserve fund closes a session
    with nothing to return)."""

    #: the games this wing plays, as ``Table.game`` stores them (also their coup records' slug)
    games: tuple[str, ...]

    # ------------------------------------------------------------------ the table and its settings
    def table_settings_refusal(self, game: str, raw: Mapping[str, Any]) -> str | None:
        """Why a table of ``game`` cannot take these house settings, or None (``Table.clean``)."""

    # ------------------------------------------------------------------------------- the floor
    def session_close_refusal(self, session: Any) -> str | None:
        """Why the session cannot close now (a coup in play), or None."""

    def session_closing(self, *, actor: Staff, session: Any) -> None:
        """The game's part of closing a session (inside the close's transaction, session locked)."""

    def seat_leaving(self, *, actor: Staff, seat: Any) -> bool:
        """The game's part of a player leaving his seat: refuse (raise), let him go (False), or
        record the leave in the coup in play, the seat given up when the coup ends (True)."""

    def coup_void(self, *, actor: Staff, coup: Any, reason: str, approving: int | None = None) -> Any:
        """Void one of the game's coups (a pit boss; ``approving``: the second pit boss's request
        above the casino's limit)."""

    def table_page(self, request: HttpRequest, table: Any) -> HttpResponse | None:
        """The answer to the floor's page of a table of this game, or None for the floor's own."""

    def table_screen(
        self, request: HttpRequest, table: Any, *, part: str, status: int, error: Any, notice: str
    ) -> HttpResponse | None:
        """The croupier's screen (``part`` of it) after an action at the table, or None for the
        floor's own."""

    def urls(self) -> URLs:
        """The wing's screens, under the floor's prefix."""

    def api_urls(self) -> URLs:
        """The wing's API, under ``/api/v1/``."""

    # ------------------------------------------------------------------------- the back office
    def review_urls(self) -> URLs:
        """The wing's pages in the back office, under ``/review/`` (its ``review`` namespace)."""

    def review_tables(self) -> Any:
        """The tables of this game with pages of their own (a queryset), or None: the dashboard
        links to them."""

    def review_table_url(self, table: Any) -> str | None:
        """The page of a table's coups, for a game with pages of its own."""

    def review_coup_url(self, coup: Any) -> str | None:
        """The page of one of the game's coups, for a game with pages of its own."""

    def review_coup_page(
        self, request: HttpRequest, coup: Any, *, error: str, status: int
    ) -> HttpResponse | None:
        """That page again with a refusal (a void decided by a second pit boss, refused)."""

    def live_coups(self, tables: list[Any], now: dt.datetime) -> tuple[dict[int, LiveCoup], dict[int, int]]:
        """For the live pit: each table's coup in play and its coups of the last hour, by table id,
        for a game whose coups are not the floor's own (``tables``: the pit's open tables of it)."""

    def alert_candidates(self, *, now: dt.datetime, thresholds: Any) -> list[Any]:
        """The pit boss's alerts about the game's own coups (review.selectors.alerts'
        ``AlertCandidate``; ``thresholds``: each casino's ``AlertSettings`` by id)."""

    def books_checks(self) -> Sequence[Callable[[BooksReport], None]]:
        """The game's part of ``verify_books``: each check adds its differences to the report."""

    def coup_records(
        self, *, start: Any, end: Any, table: Any, casino: Any
    ) -> Iterable[tuple[Any, dict[str, Any]]]:
        """The game's settled coups created in [start, end) as coup records, oldest first, each with
        its sort key ``(created_at, 1, pk)`` (the coup-records report merges the games by it)."""

    def rating_coups(self, *, player: Any, start: dt.datetime, end: dt.datetime) -> list[CoupPlayed]:
        """The game's coups settled in [start, end) that ``player`` staked on or banked, as his
        rating slip counts them (tables.rating): his stake, whether he banked, his net, the levy,
        for a game whose coups are not the floor's own (review.selectors.rating reads those)."""

    # -------------------------------------------------------------------------------- the cage
    def chips_at_stake(self, *, player: Any) -> Mapping[str, int]:
        """What ``player`` could still lose in the game's coups in play at his casino, by the name
        of their table (nothing at stake: left out): the chips the cage does not pay out while
        those coups are played (cage.services, a cash-out)."""

    # ----------------------------------------------------------------------------- offline
    def offline_judges(self) -> Mapping[str, GameJudge]:
        """The record readers and judges ``validate_coups`` and ``import_coups`` use for the
        games whose records carry a ``"game"`` (chemin de fer's, the default, answers none)."""

    def odds(self) -> Mapping[str, Any]:
        """What ``manage.py odds --game`` prints of each game, by slug."""


@cache
def wings() -> tuple[GameWing, ...]:
    """Every wing ``settings.GAME_WINGS`` names, in its order (loaded once a process)."""
    loaded: list[GameWing] = []
    for path in settings.GAME_WINGS:
        wing = import_string(path)
        loaded.append(wing() if isinstance(wing, type) else wing)
    return tuple(loaded)


@cache
def _by_game() -> dict[str, GameWing]:
    found: dict[str, GameWing] = {}
    for wing in wings():
        for game in wing.games:
            if game in found:
                raise LookupError(f"two wings play {game!r}: {settings.GAME_WINGS}")
            found[game] = wing
    return found


class UnknownGame(LookupError):
    """A table names a game no wing plays (a wing taken out of ``GAME_WINGS`` with tables left)."""


def wing_for(game: str) -> GameWing:
    """The wing that plays ``game`` (a ``Table.game``)."""
    try:
        return _by_game()[game]
    except KeyError:
        raise UnknownGame(f"no wing plays {game!r}; GAME_WINGS: {', '.join(settings.GAME_WINGS)}") from None


# The registry's answers below are read once a process, like the wings they come from: the
# importer asks ``offline_judges`` for every line that names a game.
@cache
def offline_judges() -> Mapping[str, GameJudge]:
    """Every game's offline judge but the default game's, by the slug its records carry."""
    return {slug: judge for wing in wings() for slug, judge in wing.offline_judges().items()}


@cache
def known_games() -> tuple[str, ...]:
    """Every game a table may play and a record may name, the default (chemin de fer) first."""
    return tuple(game for wing in wings() for game in wing.games)


@cache
def game_odds() -> Mapping[str, Any]:
    return {slug: odds for wing in wings() for slug, odds in wing.odds().items()}


def urls_of(part: str) -> URLs:
    """Every wing's ``urls`` or ``api_urls``, in the wings' order."""
    return [pattern for wing in wings() for pattern in getattr(wing, part)()]

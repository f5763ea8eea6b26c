"""The older games' wing as the floor and the back office see it (tables.games.GameWing):
Macao, Landsknecht and old baccarat, one stack for the three (docs/games/)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.records import GameJudge
from older_games.engine.game_play import PLAYS, StepRefused, play_for
from older_games.engine.games import GAMES, JUDGES

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.types import Staff
    from ledger.books import BooksReport
    from tables.games import LiveCoup, URLs
    from tables.models import Casino, Player, Seat, Table, TableSession
    from tables.rating import CoupPlayed


class OlderGames:
    """Each answer imports what it needs when asked: ``validate_coups`` wants the judges only, and
    loading the wing for them must not load its screens and back-office pages too."""

    games: tuple[str, ...] = tuple(sorted(PLAYS))

    def table_settings_refusal(self, game: str, raw: Mapping[str, Any]) -> str | None:
        try:
            play_for(game).settings(raw)
        except StepRefused as exc:
            return str(exc)
        return None

    def session_close_refusal(self, session: TableSession) -> str | None:
        from older_games.services import session_close_refusal

        return session_close_refusal(session)

    def session_closing(self, *, actor: Staff, session: TableSession) -> None:
        from older_games.services import game_fund_return_locked

        # play ends: a reserve fund goes back to those who paid into it (Landsknecht, RULES.md §11)
        game_fund_return_locked(actor=actor, session=session)

    def seat_leaving(self, *, actor: Staff, seat: Seat) -> bool:
        from older_games.services import game_seat_leaving

        return game_seat_leaving(actor=actor, seat=seat)

    def coup_void(self, *, actor: Staff, coup: Any, reason: str, approving: int | None = None) -> Any:
        from older_games.services import game_coup_void

        return game_coup_void(actor=actor, coup=coup, reason=reason, approving=approving)

    def table_page(self, request: HttpRequest, table: Table) -> HttpResponse | None:
        from django.shortcuts import redirect

        return redirect("floor:game", table_id=table.pk)  # one screen for the three games

    def table_screen(
        self, request: HttpRequest, table: Table, *, part: str, status: int, error: Any, notice: str
    ) -> HttpResponse | None:
        from older_games.views import game_render

        return game_render(request, table, part=part, status=status, error=error, notice=notice)  # type: ignore[arg-type]

    def urls(self) -> URLs:
        from older_games.urls import urlpatterns

        return urlpatterns

    def api_urls(self) -> URLs:
        from older_games.urls import api_urlpatterns

        return api_urlpatterns

    def review_urls(self) -> URLs:
        from older_games.urls import review_urlpatterns

        return review_urlpatterns

    def review_tables(self) -> Any:
        from older_games.review import game_tables

        return game_tables()

    def review_table_url(self, table: Table) -> str | None:
        from django.urls import reverse

        return reverse("review:game_coups", args=[table.pk])

    def review_coup_url(self, coup: Any) -> str | None:
        from django.urls import reverse

        return reverse("review:game_coup", args=[coup.pk])

    def review_coup_page(
        self, request: HttpRequest, coup: Any, *, error: str, status: int
    ) -> HttpResponse | None:
        from older_games.review_views import game_coup_page

        return game_coup_page(request, coup, error=error, status=status)  # type: ignore[arg-type]

    def live_coups(self, tables: list[Any], now: dt.datetime) -> tuple[dict[int, LiveCoup], dict[int, int]]:
        from older_games.review import live_coups

        return live_coups(tables, now)

    def alert_candidates(self, *, now: dt.datetime, thresholds: Any) -> list[Any]:
        from older_games.review import alert_candidates

        return list(alert_candidates(now=now, thresholds=thresholds))

    def rating_coups(self, *, player: Any, start: dt.datetime, end: dt.datetime) -> list[CoupPlayed]:
        from older_games.selectors import game_rating_coups

        return game_rating_coups(player=player, start=start, end=end)

    def chips_at_stake(self, *, player: Player) -> Mapping[str, int]:
        from older_games.selectors import game_chips_at_stake

        return game_chips_at_stake(player=player)

    def books_checks(self) -> Sequence[Callable[[BooksReport], None]]:
        from older_games import books

        return (books.game_coup_books_check, books.fund_due_books_check, books.fund_return_books_check)

    def coup_records(
        self, *, start: Any, end: Any, table: Table | None, casino: Casino | None
    ) -> Iterable[tuple[Any, dict[str, Any]]]:
        from older_games.selectors import game_coup_records

        return game_coup_records(start=start, end=end, table=table, casino=casino)

    def offline_judges(self) -> Mapping[str, GameJudge]:
        return JUDGES

    def odds(self) -> Mapping[str, Any]:
        return GAMES

"""Chemin de fer's wing as the floor and the back office see it (tables.games.GameWing).

Its pure engine is ``chemin_de_fer/``; its records, services, money, screens and API are still
the floor's own (its models are the floor's oldest tables), so the floor's code already plays it
and most of these answers are "nothing more to do".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.records import GameJudge

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.types import Staff
    from ledger.books import BooksReport
    from tables.games import LiveCoup, URLs
    from tables.models import Casino, Player, Seat, Table, TableSession
    from tables.rating import CoupPlayed

CHEMIN_DE_FER = "chemin-de-fer"


class ChemindeFer:
    """Each answer imports what it needs when asked (the judges alone must not load the floor's
    services): the same rule as every wing's."""

    games: tuple[str, ...] = (CHEMIN_DE_FER,)

    def table_settings_refusal(self, game: str, raw: Mapping[str, Any]) -> str | None:
        return "Chemin de fer takes its rules from its profile." if raw else None

    def session_close_refusal(self, session: TableSession) -> str | None:
        return None  # the floor's close refuses a coup in play itself (its shoes are the floor's)

    def session_closing(self, *, actor: Staff, session: TableSession) -> None:
        return None

    def seat_leaving(self, *, actor: Staff, seat: Seat) -> bool:
        return False

    def coup_void(self, *, actor: Staff, coup: Any, reason: str, approving: int | None = None) -> Any:
        from tables.services.corrections import coup_void

        return coup_void(actor=actor, coup=coup, reason=reason, approving=approving)

    def table_page(self, request: HttpRequest, table: Table) -> HttpResponse | None:
        return None

    def table_screen(
        self, request: HttpRequest, table: Table, *, part: str, status: int, error: Any, notice: str
    ) -> HttpResponse | None:
        return None

    def urls(self) -> URLs:
        return []

    def api_urls(self) -> URLs:
        return []

    def review_urls(self) -> URLs:
        return []  # its pages are the back office's own (review/)

    def review_tables(self) -> Any:
        return None

    def review_table_url(self, table: Table) -> str | None:
        return None

    def review_coup_url(self, coup: Any) -> str | None:
        return None

    def review_coup_page(
        self, request: HttpRequest, coup: Any, *, error: str, status: int
    ) -> HttpResponse | None:
        return None

    def live_coups(self, tables: list[Any], now: dt.datetime) -> tuple[dict[int, LiveCoup], dict[int, int]]:
        return {}, {}  # the live pit reads the floor's own coups itself

    def alert_candidates(self, *, now: dt.datetime, thresholds: Any) -> list[Any]:
        return []  # the alerts' scan reads the floor's own coups itself

    def rating_coups(self, *, player: Any, start: dt.datetime, end: dt.datetime) -> list[CoupPlayed]:
        return []  # the rating slip reads the floor's own coups itself

    def chips_at_stake(self, *, player: Player) -> Mapping[str, int]:
        from django.db.models import Q, Sum

        from tables.models import Bet, Coup

        # his bets not withdrawn in the coups being played (a banco withdraws the bets it
        # replaces), as the bet's own check counts them (tables.money.floor.bet_check_affordable);
        # a bank he holds is in the table's bank account already, not in his
        rows = (
            Bet.objects.filter(
                coup__state=Coup.State.OPEN, withdrawn=False, coup__shoe__table__casino_id=player.casino_id
            )
            .filter(Q(seat__player=player) | Q(spectator__player=player))
            .values("coup__shoe__table__name")
            .annotate(chips=Sum("amount"))
            .order_by()
        )
        return {row["coup__shoe__table__name"]: row["chips"] for row in rows if row["chips"]}

    def books_checks(self) -> Sequence[Callable[[BooksReport], None]]:
        from tables.money.books import coup_books_check

        return (coup_books_check,)

    def coup_records(
        self, *, start: Any, end: Any, table: Table | None, casino: Casino | None
    ) -> Iterable[tuple[Any, dict[str, Any]]]:
        return ()  # the report's builder reads chemin de fer's coups itself (the floor's tables)

    def offline_judges(self) -> Mapping[str, GameJudge]:
        return {}

    def odds(self) -> Mapping[str, Any]:
        return {}

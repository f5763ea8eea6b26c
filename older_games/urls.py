"""The older games' screens (under the floor's ``/tables/``, names in its ``floor`` namespace),
API (under ``/api/v1/``, in its ``api`` namespace) and back-office pages (under ``/review/``, in its
``review`` namespace): the floor's URL lists take them from the
wing (tables.games.urls_of), so neither the floor nor the back office names a game."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from older_games import review_views as r
from older_games import views as g
from older_games.api import views as games

T = "tables/<id:table_id>/"
G = "game-coups/<id:coup_id>/"

#: the one screen for the three (Macao, Landsknecht, old baccarat), under a table's ``game/``
game_urlpatterns: list[URLPattern | URLResolver] = [
    path("", g.game_page, name="game"),
    path("start/", g.game_start, name="game_start"),
    path("fund/", g.game_fund, name="game_fund"),
    path("coups/<id:coup_id>/step/", g.game_step, name="game_step"),
    path("coups/<id:coup_id>/undo/", g.game_undo, name="game_undo"),
    path("coups/<id:coup_id>/void/", g.game_void, name="game_void"),
]

urlpatterns: list[URLPattern | URLResolver] = [path("<id:table_id>/game/", include(game_urlpatterns))]

api_urlpatterns: list[URLPattern | URLResolver] = [
    path(T + "game/", games.TableGameView.as_view(), name="table-game"),
    path(T + "game-coups/", games.GameCoupStartView.as_view(), name="table-game-coups"),
    path("game-coups/", games.GameCoupListView.as_view(), name="game-coups"),
    path(G, games.GameCoupDetailView.as_view(), name="game-coup"),
    path(G + "steps/", games.GameCoupStepView.as_view(), name="game-coup-steps"),
    path(G + "undo/", games.GameCoupUndoView.as_view(), name="game-coup-undo"),
    path(G + "void/", games.GameCoupVoidView.as_view(), name="game-coup-void"),
    path("sessions/<id:session_id>/fund-dues/", games.FundDuesView.as_view(), name="session-fund-dues"),
]

review_urlpatterns: list[URLPattern | URLResolver] = [
    path("game-coups/table/<id:table_id>/", r.game_coups_page, name="game_coups"),
    path("game-coups/<id:pk>/", r.game_coup_detail, name="game_coup"),
    path("game-coups/<id:pk>/void/", r.game_coup_void_view, name="game_coup_void"),
]

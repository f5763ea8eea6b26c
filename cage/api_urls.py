"""The cage's REST routes, mounted at /api/v1/ (casino/urls.py; docs/api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from cage import apis

app_name = "cage-api"
urlpatterns: list[URLPattern | URLResolver] = [
    path("cage/buy-in/", apis.BuyInView.as_view(), name="buy-in"),
    path("cage/cash-out/", apis.CashOutView.as_view(), name="cash-out"),
    path("cage/players/", apis.CagePlayersView.as_view(), name="players"),
    path("players/<id:player_id>/balance/", apis.PlayerBalanceView.as_view(), name="player-balance"),
    path("players/<id:player_id>/history/", apis.PlayerHistoryView.as_view(), name="player-history"),
    path("players/<id:player_id>/cash-today/", apis.PlayerCashTodayView.as_view(), name="player-cash-today"),
]

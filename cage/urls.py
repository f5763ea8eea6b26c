"""The cage's screens, mounted at /cage/ (namespace "cage")."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from cage import views as v

app_name = "cage"
urlpatterns: list[URLPattern | URLResolver] = [
    path("", v.index, name="index"),
    path("<int:casino_id>/", v.players, name="players"),
    path("<int:casino_id>/buy-in/", v.buy_in, name="buy_in"),
    path("<int:casino_id>/cash-out/", v.cash_out, name="cash_out"),
    path("<int:casino_id>/players/", v.player_new, name="player_new"),
    path("<int:casino_id>/players/<int:player_id>/row/", v.player_row, name="player_row"),
    path("players/<int:player_id>/history/", v.history, name="history"),
]

"""The cage's screens, mounted at /cage/ (namespace "cage")."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from cage import views as v

app_name = "cage"

#: one casino's cage, under /cage/<casino_id>/: its players, buy-ins and cash-outs
casino_urlpatterns: list[URLPattern | URLResolver] = [
    path("", v.players, name="players"),
    path("buy-in/", v.buy_in, name="buy_in"),
    path("cash-out/", v.cash_out, name="cash_out"),
    path("players/", v.player_new, name="player_new"),
    path("players/<id:player_id>/row/", v.player_row, name="player_row"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("", v.index, name="index"),
    path("<id:casino_id>/", include(casino_urlpatterns)),
    path("players/<id:player_id>/history/", v.history, name="history"),
]

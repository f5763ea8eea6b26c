"""The croupier's screens, mounted at /table/ (namespace "floor")."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from tables.games import urls_of
from tables.views import croupier as v

app_name = "floor"

#: one table's screen and what the croupier does at it, under /table/<table_id>/
table_urlpatterns: list[URLPattern | URLResolver] = [
    path("", v.table_page, name="table"),
    path("open/", v.session_open, name="session_open"),
    path("close/", v.session_close, name="session_close"),
    path("pause/", v.pause, name="pause"),
    path("resume/", v.resume, name="resume"),
    path("seats/", v.seat_take, name="seat_take"),
    path("seats/<id:seat_id>/leave/", v.seat_leave, name="seat_leave"),
    path("spectators/", v.spectator_join, name="spectator_join"),
    path("spectators/<id:spectator_id>/leave/", v.spectator_leave, name="spectator_leave"),
    path("shoe/", v.shoe_start, name="shoe_start"),
    path("shoe/close/", v.shoe_close, name="shoe_close"),
    path("bank/first/", v.bank_first, name="bank_first"),
    path("bank/offer/", v.bank_offer, name="bank_offer"),
    path("bank/auction/", v.bank_auction, name="bank_auction"),
    path("bank/new/", v.bank_new, name="bank_new"),
    path("bank/pass/", v.bank_pass, name="bank_pass"),
    path("bank/house/", v.bank_house, name="bank_house"),
    path("bank/share/", v.bank_share, name="bank_share"),
    path("series/", v.series_begin, name="series_begin"),
    path("series/end/", v.series_finish, name="series_finish"),
    path("bank/share/out/", v.bank_share_out, name="bank_share_out"),
    path("coups/", v.coup_start, name="coup_start"),
    path("coups/<id:coup_id>/step/", v.coup_step, name="coup_step"),
    path("coups/<id:coup_id>/restore/", v.coup_restore, name="coup_restore"),
    path("coups/<id:coup_id>/steps/<id:index>/amend/", v.coup_amend, name="coup_amend"),
    path("coups/<id:coup_id>/withdraw/", v.coup_withdraw, name="coup_withdraw"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("", v.mine, name="mine"),
    path("<id:table_id>/", include(table_urlpatterns)),
    # the screens of a game with its own (the older games': tables.games)
    *urls_of("urls"),
]

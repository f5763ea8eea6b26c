"""The croupier's screens, mounted at /table/ (namespace "floor")."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tables.games import urls_of
from tables.views import croupier as v

app_name = "floor"
urlpatterns: list[URLPattern | URLResolver] = [
    path("", v.mine, name="mine"),
    path("<int:table_id>/", v.table_page, name="table"),
    path("<int:table_id>/open/", v.session_open, name="session_open"),
    path("<int:table_id>/close/", v.session_close, name="session_close"),
    path("<int:table_id>/pause/", v.pause, name="pause"),
    path("<int:table_id>/resume/", v.resume, name="resume"),
    path("<int:table_id>/seats/", v.seat_take, name="seat_take"),
    path("<int:table_id>/seats/<int:seat_id>/leave/", v.seat_leave, name="seat_leave"),
    path("<int:table_id>/spectators/", v.spectator_join, name="spectator_join"),
    path("<int:table_id>/spectators/<int:spectator_id>/leave/", v.spectator_leave, name="spectator_leave"),
    path("<int:table_id>/shoe/", v.shoe_start, name="shoe_start"),
    path("<int:table_id>/shoe/close/", v.shoe_close, name="shoe_close"),
    path("<int:table_id>/bank/first/", v.bank_first, name="bank_first"),
    path("<int:table_id>/bank/offer/", v.bank_offer, name="bank_offer"),
    path("<int:table_id>/bank/auction/", v.bank_auction, name="bank_auction"),
    path("<int:table_id>/bank/new/", v.bank_new, name="bank_new"),
    path("<int:table_id>/bank/pass/", v.bank_pass, name="bank_pass"),
    path("<int:table_id>/bank/house/", v.bank_house, name="bank_house"),
    path("<int:table_id>/bank/share/", v.bank_share, name="bank_share"),
    path("<int:table_id>/series/", v.series_begin, name="series_begin"),
    path("<int:table_id>/series/end/", v.series_finish, name="series_finish"),
    path("<int:table_id>/bank/share/out/", v.bank_share_out, name="bank_share_out"),
    path("<int:table_id>/coups/", v.coup_start, name="coup_start"),
    path("<int:table_id>/coups/<int:coup_id>/step/", v.coup_step, name="coup_step"),
    path("<int:table_id>/coups/<int:coup_id>/restore/", v.coup_restore, name="coup_restore"),
    path("<int:table_id>/coups/<int:coup_id>/steps/<int:index>/amend/", v.coup_amend, name="coup_amend"),
    path("<int:table_id>/coups/<int:coup_id>/withdraw/", v.coup_withdraw, name="coup_withdraw"),
    # the screens of a game with its own (the older games': tables.games)
    *urls_of("urls"),
]

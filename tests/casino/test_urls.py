"""The screens' URLs, as the project's URL conf spells them: every name of the floor, the cage and
the back office reverses to its path and that path resolves back to the name and its ids, whatever
the lists' grouping under shared prefixes (``include()`` of a sub-list) inside each app."""

from __future__ import annotations

import pytest
from django.urls import resolve, reverse

#: (name, its ids, the path) — each id a different number, so a swapped parameter shows
ROUTES: list[tuple[str, dict[str, int | str], str]] = [
    ("floor:mine", {}, "/table/"),
    ("floor:table", {"table_id": 1}, "/table/1/"),
    ("floor:session_open", {"table_id": 1}, "/table/1/open/"),
    ("floor:session_close", {"table_id": 1}, "/table/1/close/"),
    ("floor:pause", {"table_id": 1}, "/table/1/pause/"),
    ("floor:resume", {"table_id": 1}, "/table/1/resume/"),
    ("floor:seat_take", {"table_id": 1}, "/table/1/seats/"),
    ("floor:seat_leave", {"table_id": 1, "seat_id": 2}, "/table/1/seats/2/leave/"),
    ("floor:spectator_join", {"table_id": 1}, "/table/1/spectators/"),
    ("floor:spectator_leave", {"table_id": 1, "spectator_id": 3}, "/table/1/spectators/3/leave/"),
    ("floor:shoe_start", {"table_id": 1}, "/table/1/shoe/"),
    ("floor:shoe_close", {"table_id": 1}, "/table/1/shoe/close/"),
    ("floor:bank_first", {"table_id": 1}, "/table/1/bank/first/"),
    ("floor:bank_offer", {"table_id": 1}, "/table/1/bank/offer/"),
    ("floor:bank_auction", {"table_id": 1}, "/table/1/bank/auction/"),
    ("floor:bank_new", {"table_id": 1}, "/table/1/bank/new/"),
    ("floor:bank_pass", {"table_id": 1}, "/table/1/bank/pass/"),
    ("floor:bank_house", {"table_id": 1}, "/table/1/bank/house/"),
    ("floor:bank_share", {"table_id": 1}, "/table/1/bank/share/"),
    ("floor:series_begin", {"table_id": 1}, "/table/1/series/"),
    ("floor:series_finish", {"table_id": 1}, "/table/1/series/end/"),
    ("floor:bank_share_out", {"table_id": 1}, "/table/1/bank/share/out/"),
    ("floor:coup_start", {"table_id": 1}, "/table/1/coups/"),
    ("floor:coup_step", {"table_id": 1, "coup_id": 4}, "/table/1/coups/4/step/"),
    ("floor:coup_restore", {"table_id": 1, "coup_id": 4}, "/table/1/coups/4/restore/"),
    ("floor:coup_amend", {"table_id": 1, "coup_id": 4, "index": 5}, "/table/1/coups/4/steps/5/amend/"),
    ("floor:coup_withdraw", {"table_id": 1, "coup_id": 4}, "/table/1/coups/4/withdraw/"),
    ("floor:game", {"table_id": 1}, "/table/1/game/"),
    ("floor:game_start", {"table_id": 1}, "/table/1/game/start/"),
    ("floor:game_fund", {"table_id": 1}, "/table/1/game/fund/"),
    ("floor:game_step", {"table_id": 1, "coup_id": 4}, "/table/1/game/coups/4/step/"),
    ("floor:game_undo", {"table_id": 1, "coup_id": 4}, "/table/1/game/coups/4/undo/"),
    ("floor:game_void", {"table_id": 1, "coup_id": 4}, "/table/1/game/coups/4/void/"),
    ("cage:index", {}, "/cage/"),
    ("cage:players", {"casino_id": 6}, "/cage/6/"),
    ("cage:buy_in", {"casino_id": 6}, "/cage/6/buy-in/"),
    ("cage:cash_out", {"casino_id": 6}, "/cage/6/cash-out/"),
    ("cage:player_new", {"casino_id": 6}, "/cage/6/players/"),
    ("cage:player_row", {"casino_id": 6, "player_id": 7}, "/cage/6/players/7/row/"),
    ("cage:history", {"player_id": 7}, "/cage/players/7/history/"),
    ("review:dashboard", {}, "/review/"),
    ("review:queue", {}, "/review/queue/"),
    ("review:coup", {"pk": 8}, "/review/coups/8/"),
    ("review:coup_approve", {"pk": 8}, "/review/coups/8/approve/"),
    ("review:coup_reject", {"pk": 8}, "/review/coups/8/reject/"),
    ("review:coup_void", {"pk": 8}, "/review/coups/8/void/"),
    ("review:void_approve", {"pk": 8}, "/review/voids/8/approve/"),
    ("review:void_refuse", {"pk": 8}, "/review/voids/8/refuse/"),
    ("review:audit_verify", {}, "/review/audit/verify/"),
    ("review:dashboard_live", {}, "/review/live/"),
    ("review:alerts", {}, "/review/alerts/"),
    ("review:alert_acknowledge", {"pk": 8}, "/review/alerts/8/acknowledge/"),
    ("review:charts", {}, "/review/charts/"),
    ("review:player", {"pk": 8}, "/review/players/8/"),
    ("review:lockouts", {}, "/review/lockouts/"),
    ("review:lockout_lift", {}, "/review/lockouts/lift/"),
    ("review:game_coups", {"table_id": 1}, "/review/game-coups/table/1/"),
    ("review:game_coup", {"pk": 8}, "/review/game-coups/8/"),
    ("review:game_coup_void", {"pk": 8}, "/review/game-coups/8/void/"),
    ("review:exports", {}, "/review/exports/"),
    ("review:report_runs", {}, "/review/exports/runs/"),
    ("review:report_run", {"run_id": 9}, "/review/exports/runs/9/"),
    ("review:report_run_file", {"run_id": 9}, "/review/exports/runs/9/file"),
    ("review:export", {"kind": "house-win"}, "/review/exports/house-win/"),
]


@pytest.mark.parametrize(("name", "ids", "url"), ROUTES, ids=[name for name, _, _ in ROUTES])
def test_a_screen_s_name_and_its_path_say_each_other(name: str, ids: dict[str, int | str], url: str) -> None:
    assert reverse(name, kwargs=ids) == url
    match = resolve(url)
    assert match.view_name == name
    assert match.kwargs == ids

"""REST API routes, mounted at /api/v1/ (docs/api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tables.api.views import banks, corrections, coups, people, sessions, shoes, tables, voids
from tables.games import urls_of

app_name = "api"

T = "tables/<id:table_id>/"
C = "coups/<id:coup_id>/"
G = "game-coups/<id:coup_id>/"
V = "void-requests/<id:request_id>/"

urlpatterns: list[URLPattern | URLResolver] = [
    path("tables/", tables.TableListView.as_view(), name="tables"),
    path(T, tables.TableDetailView.as_view(), name="table"),
    path(T + "session/open/", sessions.SessionOpenView.as_view(), name="session-open"),
    path(T + "session/close/", sessions.SessionCloseView.as_view(), name="session-close"),
    path(T + "session/pause/", sessions.SessionPauseView.as_view(), name="session-pause"),
    path(T + "session/resume/", sessions.SessionResumeView.as_view(), name="session-resume"),
    path(T + "players/", people.PlayerCreateView.as_view(), name="players"),
    path(T + "seats/", people.SeatTakeView.as_view(), name="seats"),
    path(T + "seats/<id:number>/leave/", people.SeatLeaveView.as_view(), name="seat-leave"),
    path(T + "spectators/", people.SpectatorJoinView.as_view(), name="spectators"),
    path(
        T + "spectators/<id:spectator_id>/leave/",
        people.SpectatorLeaveView.as_view(),
        name="spectator-leave",
    ),
    path(T + "shoe/", shoes.ShoeStartView.as_view(), name="shoe"),
    path(T + "shoe/close/", shoes.ShoeCloseView.as_view(), name="shoe-close"),
    path(T + "bank/first/", banks.BankFirstView.as_view(), name="bank-first"),
    path(T + "bank/offer/", banks.BankOfferView.as_view(), name="bank-offer"),
    path(T + "bank/pass/", banks.BankPassView.as_view(), name="bank-pass"),
    path(T + "bank/auction/", banks.BankAuctionView.as_view(), name="bank-auction"),
    path(T + "bank/house/", banks.BankHouseView.as_view(), name="bank-house"),
    path(T + "bank/new/", banks.BankNewView.as_view(), name="bank-new"),
    path(T + "bank/share/", banks.BankShareView.as_view(), name="bank-share"),
    path(T + "bank/share/out/", banks.BankShareOutView.as_view(), name="bank-share-out"),
    path(T + "coups/", coups.CoupStartView.as_view(), name="coups"),
    path(C, coups.CoupDetailView.as_view(), name="coup"),
    path(C + "steps/", coups.CoupStepView.as_view(), name="coup-steps"),
    path(C + "steps/<id:index>/amend/", coups.CoupStepAmendView.as_view(), name="coup-step-amend"),
    path(C + "record/", coups.CoupRecordView.as_view(), name="coup-record"),
    path(C + "correction/", corrections.CorrectionSubmitView.as_view(), name="correction"),
    path(C + "correction/approve/", corrections.CorrectionApproveView.as_view(), name="correction-approve"),
    path(C + "correction/reject/", corrections.CorrectionRejectView.as_view(), name="correction-reject"),
    path(C + "void/", corrections.CoupVoidView.as_view(), name="coup-void"),
    path(C + "withdraw/", corrections.CoupBankWithdrawView.as_view(), name="coup-withdraw"),
    path("corrections/", corrections.CorrectionsPendingView.as_view(), name="corrections"),
    # voids above a casino's limit wait for a second pit boss (issue 20)
    path("void-requests/", voids.VoidRequestsPendingView.as_view(), name="void-requests"),
    path(
        "void-requests/<id:request_id>/approve/", voids.VoidRequestApproveView.as_view(), name="void-approve"
    ),
    path("void-requests/<id:request_id>/refuse/", voids.VoidRequestRefuseView.as_view(), name="void-refuse"),
    # the API of a game with its own (the older games': tables.games)
    *urls_of("api_urls"),
]

"""REST API routes, mounted at /api/v1/ (docs/api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tables import apis

app_name = "api"

T = "tables/<int:table_id>/"
C = "coups/<int:coup_id>/"

urlpatterns: list[URLPattern | URLResolver] = [
    path("tables/", apis.TableListView.as_view(), name="tables"),
    path(T, apis.TableDetailView.as_view(), name="table"),
    path(T + "session/open/", apis.SessionOpenView.as_view(), name="session-open"),
    path(T + "session/close/", apis.SessionCloseView.as_view(), name="session-close"),
    path(T + "session/pause/", apis.SessionPauseView.as_view(), name="session-pause"),
    path(T + "session/resume/", apis.SessionResumeView.as_view(), name="session-resume"),
    path(T + "players/", apis.PlayerCreateView.as_view(), name="players"),
    path(T + "seats/", apis.SeatTakeView.as_view(), name="seats"),
    path(T + "seats/<int:number>/leave/", apis.SeatLeaveView.as_view(), name="seat-leave"),
    path(T + "spectators/", apis.SpectatorJoinView.as_view(), name="spectators"),
    path(
        T + "spectators/<int:spectator_id>/leave/", apis.SpectatorLeaveView.as_view(), name="spectator-leave"
    ),
    path(T + "shoe/", apis.ShoeStartView.as_view(), name="shoe"),
    path(T + "shoe/close/", apis.ShoeCloseView.as_view(), name="shoe-close"),
    path(T + "bank/first/", apis.BankFirstView.as_view(), name="bank-first"),
    path(T + "bank/offer/", apis.BankOfferView.as_view(), name="bank-offer"),
    path(T + "bank/pass/", apis.BankPassView.as_view(), name="bank-pass"),
    path(T + "bank/auction/", apis.BankAuctionView.as_view(), name="bank-auction"),
    path(T + "bank/new/", apis.BankNewView.as_view(), name="bank-new"),
    path(T + "bank/share/", apis.BankShareView.as_view(), name="bank-share"),
    path(T + "bank/share/out/", apis.BankShareOutView.as_view(), name="bank-share-out"),
    path(T + "coups/", apis.CoupStartView.as_view(), name="coups"),
    path(C, apis.CoupDetailView.as_view(), name="coup"),
    path(C + "steps/", apis.CoupStepView.as_view(), name="coup-steps"),
    path(C + "record/", apis.CoupRecordView.as_view(), name="coup-record"),
    path(C + "correction/", apis.CorrectionSubmitView.as_view(), name="correction"),
    path(C + "correction/approve/", apis.CorrectionApproveView.as_view(), name="correction-approve"),
    path(C + "correction/reject/", apis.CorrectionRejectView.as_view(), name="correction-reject"),
    path(C + "void/", apis.CoupVoidView.as_view(), name="coup-void"),
    path("corrections/", apis.CorrectionsPendingView.as_view(), name="corrections"),
]

"""Admin for tables: every list has columns, search and filters.

Only the floor's set-up is edited here (casinos, rule profiles, tables, players, croupier shifts),
every change audited (AuditedModelAdmin). What happens at a table — sessions, seats, shoes, cards,
coups, bets, banks, taxes — is written by the services alone, checked by the rules engine and
audited there: in the admin it is read-only, so there is no back door around the rules.
"""

from __future__ import annotations

from django.contrib import admin

from audit.admin import AuditedModelAdmin, ReadOnlyAdmin
from tables import models as m


@admin.register(m.Casino)
class CasinoAdmin(AuditedModelAdmin):
    list_display = ("name", "currency_label", "chip_unit", "house_limit", "levy_mode", "levy_rate_bp")
    search_fields = ("name",)
    list_filter = ("levy_mode", "levy_rounding", "hourly_fee_basis")


@admin.register(m.CasinoStaff)
class CasinoStaffAdmin(AuditedModelAdmin):
    """Who works for which casino (each grant and withdrawal audited): what every read and write of
    the floor, the cage and the back office is scoped by (tables.permissions.casino_scope)."""

    list_display = ("user", "casino", "granted_at")
    search_fields = ("user__username", "casino__name")
    list_filter = ("casino",)


@admin.register(m.VoidRequest)
class VoidRequestAdmin(ReadOnlyAdmin):
    """Voids that waited for a second pit boss (decided on the pit boss's pages and the API only)."""

    list_display = ("coup", "game_coup", "casino", "stakes", "limit", "state", "requested_by", "decided_by")
    search_fields = ("reason", "note", "requested_by__username", "decided_by__username")
    list_filter = ("state", "casino")


@admin.register(m.RuleProfile)
class RuleProfileAdmin(AuditedModelAdmin):
    list_display = ("slug", "name", "casino", "derived_from", "levy_mode", "tax_rate_bp", "natural_tie")
    search_fields = ("slug", "name")
    list_filter = ("casino", "levy_mode", "natural_tie", "player_tableau", "betting_from")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(m.Table)
class TableAdmin(AuditedModelAdmin):
    list_display = (
        "name",
        "casino",
        "game",
        "profile",
        "seat_count",
        "state",
        "first_banker_method",
        "house_bank",
        "levy_mode",
    )
    search_fields = ("name", "casino__name")
    list_filter = ("casino", "game", "state", "profile", "seat_count", "levy_mode")


@admin.register(m.TableSession)
class TableSessionAdmin(ReadOnlyAdmin):
    list_display = ("table", "opened_at", "opened_by", "closed_at", "closed_by")
    search_fields = ("table__name", "close_reason")
    list_filter = ("table__casino", "table")
    date_hierarchy = "opened_at"


@admin.register(m.SessionPause)
class SessionPauseAdmin(ReadOnlyAdmin):
    list_display = ("session", "started_at", "started_by", "ended_at", "ended_by")
    search_fields = ("session__table__name",)
    list_filter = ("session__table",)


@admin.register(m.CroupierAssignment)
class CroupierAssignmentAdmin(AuditedModelAdmin):
    list_display = ("user", "table", "shift_start", "shift_end")
    search_fields = ("user__username", "table__name")
    list_filter = ("table", "user")
    date_hierarchy = "shift_start"


@admin.register(m.Player)
class PlayerAdmin(AuditedModelAdmin):
    list_display = ("display_name", "membership_number", "casino")
    search_fields = ("display_name", "membership_number")
    list_filter = ("casino",)


@admin.register(m.Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("session", "number", "player", "joined_at", "left_at")
    search_fields = ("player__display_name",)
    list_filter = ("session__table",)


@admin.register(m.Spectator)
class SpectatorAdmin(ReadOnlyAdmin):
    list_display = ("session", "player", "joined_at", "left_at")
    search_fields = ("player__display_name",)
    list_filter = ("session__table",)


@admin.register(m.Shoe)
class ShoeAdmin(ReadOnlyAdmin):
    list_display = ("table", "session", "number", "decks", "state", "shuffled_at", "alarm")
    search_fields = ("table__name",)
    list_filter = ("state", "alarm", "table")


@admin.register(m.ShoeCard)
class ShoeCardAdmin(ReadOnlyAdmin):
    list_display = ("shoe", "position", "card", "role", "coup", "seen_at")
    search_fields = ("card",)
    list_filter = ("role", "shoe__table")


@admin.register(m.Coup)
class CoupAdmin(ReadOnlyAdmin):
    list_display = ("shoe", "number", "banker", "bank", "state", "flagged", "step_count", "created_at")
    search_fields = ("banker__display_name",)
    list_filter = ("state", "flagged", "first_coup_of_bank", "shoe__table")
    date_hierarchy = "created_at"


@admin.register(m.Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = (
        "coup",
        "betting_order",
        "seat",
        "spectator",
        "amount",
        "banco",
        "banco_suivi",
        "withdrawn",
    )
    search_fields = ("seat__player__display_name", "spectator__player__display_name")
    list_filter = ("banco", "banco_suivi", "withdrawn")


@admin.register(m.CoupStep)
class CoupStepAdmin(ReadOnlyAdmin):
    list_display = ("coup", "index", "kind", "actor", "created_at", "corrects")
    search_fields = ("idempotency_key", "actor__username")
    list_filter = ("kind",)


@admin.register(m.BankTax)
class BankTaxAdmin(ReadOnlyAdmin):
    list_display = ("coup", "basis", "amount")
    search_fields = ("coup__shoe__table__name",)
    list_filter = ("coup__shoe__table",)


@admin.register(m.BankTurn)
class BankTurnAdmin(ReadOnlyAdmin):
    list_display = (
        "session",
        "player",
        "seat",
        "started_at",
        "started_how",
        "required_minimum",
        "ended_at",
        "end_reason",
    )
    search_fields = ("player__display_name", "session__table__name")
    list_filter = ("started_how", "end_reason")


@admin.register(m.BankOffer)
class BankOfferAdmin(ReadOnlyAdmin):
    list_display = ("session", "seat", "required_minimum", "accepted", "answered_at", "recorded_by")
    search_fields = ("seat__player__display_name", "session__table__name")
    list_filter = ("accepted",)


@admin.register(m.FeeHour)
class FeeHourAdmin(ReadOnlyAdmin):
    list_display = ("session", "hour_start", "total", "billed_at")
    list_filter = ("session__table__casino",)
    search_fields = ("session__table__name",)
    date_hierarchy = "hour_start"


class SeriesEntrantInline(admin.TabularInline):
    model = m.SeriesEntrant
    fields = ("player", "chips_before", "joined_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(m.Series)
class SeriesAdmin(ReadOnlyAdmin):
    list_display = ("session", "coups_planned", "start_chips", "started_at", "ended_at", "end_reason")
    list_filter = ("end_reason", "session__table")
    search_fields = ("session__table__name", "entrants__player__display_name")
    inlines = [SeriesEntrantInline]


@admin.register(m.ShoeAlarm)
class ShoeAlarmAdmin(ReadOnlyAdmin):
    list_display = ("raised_at", "kind", "shoe", "coup", "card", "detail")
    search_fields = ("detail", "card", "shoe__table__name")
    list_filter = ("kind",)


@admin.register(m.GameCoup)
class GameCoupAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "game", "state", "outcome", "banker", "step_count", "created_at")
    search_fields = ("table__name",)
    list_filter = ("game", "state", "table__casino")
    date_hierarchy = "created_at"


@admin.register(m.GameStep)
class GameStepAdmin(ReadOnlyAdmin):
    list_display = ("coup", "index", "payload", "actor", "created_at")
    search_fields = ("coup__table__name",)
    list_filter = ("coup__game",)

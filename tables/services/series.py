"""A home series at the table (docs/rules.md §10): 12 coups, 100 chips each, standings with shared places.

Its money is tables/money/series.py's (series_start / series_end, series_standings /
series_can_continue); these services are the croupier's side: who may start and end a series, and
what ending one does to the bank in play.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from core.sentence import Word, said
from core.types import Staff
from tables.models import UNFINISHED_COUP_STATES, BankTurn, Coup, Seat, Series, TableSession
from tables.money import series as series_money
from tables.money.series import series_can_continue
from tables.services.banks import bank_turn_end
from tables.services.locking import session_lock_at_table


def series_running(*, session: TableSession) -> Series | None:
    return Series.objects.filter(session=session, ended_at__isnull=True).first()


@transaction.atomic
def series_begin(*, actor: Staff, session: TableSession) -> Series:
    """Start the profile's series with every seated player, each bought in for the starting chips."""
    session = session_lock_at_table(actor=actor, session=session)
    profile = session.table.profile
    if not profile.series_coups:
        named = Word(profile.slug, "profile")
        raise ValidationError(said("The {profile} profile plays no series.", profile=named))
    if series_running(session=session) is not None:
        raise ValidationError(said("A series is already being played at this table."))
    if Coup.objects.filter(shoe__session=session, state__in=UNFINISHED_COUP_STATES).exists():
        raise ValidationError(said("Finish the coup in play before starting a series."))
    seated = [
        s.player for s in Seat.objects.filter(session=session, left_at__isnull=True).select_related("player")
    ]
    if len(seated) < profile.seats_min:
        least = profile.seats_min
        raise ValidationError(said("A series needs at least {count} seated players.", count=least))
    return series_money.series_start(session=session, players=seated, actor=actor)


@transaction.atomic
def series_finish(*, actor: Staff, session: TableSession, reason: str) -> Series:
    """End the series: the bank in play ends (its chips back to the banker), every reserve goes back
    to its owner, and the standings compare what each holds. ``completed`` needs every coup played;
    ``no_bank`` that nobody can open a bank; ``no_bets`` and ``abandoned`` are the table's word."""
    session = session_lock_at_table(actor=actor, session=session, must_be_open=False)
    series = series_running(session=session)
    if series is None:
        raise ValidationError(said("No series is being played at this table."))
    if Coup.objects.filter(shoe__session=session, state__in=UNFINISHED_COUP_STATES).exists():
        raise ValidationError(said("Finish (and restore) the coup in play before ending the series."))
    turn = BankTurn.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if turn is not None:
        bank_turn_end(actor=actor, turn=turn, reason=BankTurn.End.SERIES_ENDED)
    return series_money.series_end(series=series, reason=reason, actor=actor)


def series_check_coup_allowed(*, session: TableSession) -> None:
    """While a series runs, a new coup needs a coup left to play and somebody able to bank and bet
    (the home rule sheet's early end); otherwise the croupier ends the series."""
    series_check_allows_coup(series=series_running(session=session))


def series_check_allows_coup(*, series: Series | None) -> None:
    """``series_check_coup_allowed`` of the session's running series, read by the caller (None:
    none runs)."""
    if series is None:
        return
    ok, why = series_can_continue(series=series)
    if not ok:
        raise ValidationError(said("{why} End the series to see the final standings.", why=why))

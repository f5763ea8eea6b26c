"""Writes at the table between coups: sessions, pauses, seats and spectators.

Each function is one atomic state change, checks who may make it (tables.permissions) and records
its audit event in the same transaction. Rows are locked table first, then session, so two
tablets at one table queue up instead of racing.
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple, TypeVar

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from audit.rows import rows_loaded
from audit.services import audit_record
from audit.snapshot import model_snapshot
from core.sentence import Word, said
from core.types import Staff
from tables.games import wing_for
from tables.models import (
    BankTurn,
    Coup,
    Player,
    Seat,
    SessionPause,
    Shoe,
    Spectator,
    Table,
    TableSession,
)
from tables.money import floor as money
from tables.permissions import check_croupier_at
from tables.services.audited import row_update_audited
from tables.services.banks import bank_turn_end
from tables.services.locking import lock_session, session_lock_at_table
from tables.services.setup import player_create
from tables.services.shoes import shoe_close_locked
from tables.wording import (
    CLOSE_COUP_IN_PLAY,
    SHOE_CLOSED_WITH_SESSION,
    seated_elsewhere,
    standing_elsewhere,
)


@transaction.atomic
def table_session_open(*, actor: Staff, table: Table, at: dt.datetime | None = None) -> TableSession:
    check_croupier_at(actor, table)
    # Lock the table row so two tablets opening the same table queue up instead of racing; the
    # partial unique constraint would refuse the second one anyway.
    table = Table.objects.select_for_update().get(pk=table.pk)
    if TableSession.objects.filter(table=table, closed_at__isnull=True).exists():
        raise ValidationError(gettext_noop("This table already has an open session."))
    before = model_snapshot(table)
    session = TableSession.objects.create(table=table, opened_at=at or timezone.now(), opened_by=actor)
    table.state = Table.State.OPEN
    table.save(update_fields=["state"])
    audit_record(
        actor=actor,
        action="tables.tablesession.open",
        target=session,
        before={"table": before},
        after={"table": model_snapshot(table), "session": model_snapshot(session)},
    )
    return session


@transaction.atomic
def table_session_close(
    *, actor: Staff, session: TableSession, reason: str = "", at: dt.datetime | None = None
) -> TableSession:
    session = session_lock_at_table(actor=actor, session=session, must_be_open=False)
    if session.closed_at is not None:
        raise ValidationError(gettext_noop("This session is already closed."))
    if Coup.objects.filter(shoe__session=session, state=Coup.State.OPEN).exists():
        # the refusal names the ways out: the croupier plays it out, or a pit boss voids it
        raise ValidationError(CLOSE_COUP_IN_PLAY)
    wing = wing_for(session.table.game)
    if (refusal := wing.session_close_refusal(session)) is not None:
        # a coup of the table's game in play: its steps would be left with no table to finish them at
        raise ValidationError(refusal)
    now = at or timezone.now()
    for shoe in Shoe.objects.select_for_update().filter(session=session, state=Shoe.State.OPEN):
        # audited, and flagged if less than 5/6 of it was dealt, like any other closing shoe
        shoe_close_locked(actor=actor, shoe=shoe, reason=SHOE_CLOSED_WITH_SESSION)
    turn = BankTurn.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if turn is not None:
        bank_turn_end(actor=actor, turn=turn, reason=BankTurn.End.SESSION_CLOSED, at=now)
    # the places given up, each bound to the session's closing event as it leaves them (their state
    # as locked, before: audit.rows.rows_loaded)
    places: list[Seat | Spectator] = []
    for seat in Seat.objects.select_for_update().filter(session=session, left_at__isnull=True):
        rows_loaded(seat)
        seat.left_at = now
        seat.save(update_fields=["left_at"])
        places.append(seat)
    standing = list(Spectator.objects.select_for_update().filter(session=session, left_at__isnull=True))
    for spectator in standing:
        rows_loaded(spectator)
    if standing:
        Spectator.objects.filter(pk__in=[s.pk for s in standing]).update(left_at=now)
        places.extend(standing)
    wing.session_closing(actor=actor, session=session)
    SessionPause.objects.filter(session=session, ended_at__isnull=True).update(ended_at=now, ended_by=actor)
    before = model_snapshot(session)
    session.closed_at = now
    session.closed_by = actor
    session.close_reason = reason
    session.save(update_fields=["closed_at", "closed_by", "close_reason"])
    table = session.table
    table.state = Table.State.CLOSED
    table.save(update_fields=["state"])
    money.hourly_fees_on_close(session=session)
    audit_record(
        actor=actor,
        action="tables.tablesession.close",
        target=session,
        before=before,
        after=model_snapshot(session),
        rows=places,
    )
    return session


@transaction.atomic
def session_pause_start(*, actor: Staff, session: TableSession) -> SessionPause:
    session = session_lock_at_table(actor=actor, session=session)
    if SessionPause.objects.filter(session=session, ended_at__isnull=True).exists():
        raise ValidationError(gettext_noop("The table is already paused."))
    if Coup.objects.filter(shoe__session=session, state=Coup.State.OPEN).exists():
        raise ValidationError(gettext_noop("Finish the coup in play before pausing."))
    pause = SessionPause.objects.create(session=session, started_at=timezone.now(), started_by=actor)
    audit_record(actor=actor, action="tables.session.pause", target=pause, after=model_snapshot(pause))
    return pause


@transaction.atomic
def session_pause_end(*, actor: Staff, session: TableSession) -> SessionPause:
    session = session_lock_at_table(actor=actor, session=session, must_be_open=False)
    pause = SessionPause.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if pause is None:
        raise ValidationError(gettext_noop("The table is not paused."))
    return row_update_audited(
        actor=actor,
        action="tables.session.resume",
        row=pause,
        changes={"ended_at": timezone.now(), "ended_by": actor},
    )


def _check_at_no_other_table(session: TableSession, player: Player) -> None:
    """A player is at one table at a time, seated or standing: his chips, his bets and the hourly
    fees follow one place. The refusal names where he is. His row is locked first (after the
    table and the session, tables.services.locking), so two tablets seating him at two tables at
    once queue, and the second sees the first one's seat."""
    Player.objects.select_for_update().values_list("pk", flat=True).get(pk=player.pk)
    places = (
        (Seat, seated_elsewhere, "seated_elsewhere"),
        (Spectator, standing_elsewhere, "standing_elsewhere"),
    )
    for model, refusal, code in places:
        elsewhere = (
            model.objects.filter(player=player, left_at__isnull=True, session__closed_at__isnull=True)
            .exclude(session=session)
            .select_related("session__table")
            .first()
        )
        if elsewhere is not None:
            raise ValidationError(refusal(player.display_name, elsewhere.session.table.name), code=code)


@transaction.atomic
def seat_take(
    *, actor: Staff, session: TableSession, player: Player, number: int, imported: bool = False
) -> Seat:
    """``player`` sits down in seat ``number``. ``imported``: a seat of an imported history
    (tables.services.imports), whose players are the history's names (one player per name in the
    casino): the same history imported into two tables seats its names at both, which says nothing
    of where anybody is now, so the one-table rule, the live floor's, is not asked of it."""
    session = session_lock_at_table(actor=actor, session=session)
    table = session.table
    # the refusals are English (the API's, the audit trail's words), marked for the screens, which
    # say them in their language (tables.wording.say; docs/i18n.md)
    if player.casino_id != table.casino_id:
        raise ValidationError(gettext_noop("This player belongs to another casino."))
    if player.house:
        raise ValidationError(gettext_noop("The house banks a table; it does not sit at one."))
    if not 1 <= number <= table.seat_count:
        raise ValidationError(said("Seats at this table are numbered 1 to {count}.", count=table.seat_count))
    seated = Seat.objects.filter(session=session, left_at__isnull=True)
    if seated.filter(number=number).exists():
        raise ValidationError(said("Seat {number} is taken.", number=number))
    if seated.filter(player=player).exists():
        raise ValidationError(said("{player} is already seated at this table.", player=str(player)))
    if seated.count() >= table.profile.seats_max:
        raise ValidationError(
            said(
                "The {profile} profile seats at most {most}.",
                profile=Word(table.profile.slug, "profile"),
                most=table.profile.seats_max,
            )
        )
    if Spectator.objects.filter(session=session, player=player, left_at__isnull=True).exists():
        raise ValidationError(
            said("{player} is standing as a spectator: let the player leave first.", player=str(player))
        )
    if not imported:
        _check_at_no_other_table(session, player)
    seat = Seat.objects.create(session=session, player=player, number=number, joined_at=timezone.now())
    money.card_money_on_seat(seat=seat, actor=actor)
    audit_record(actor=actor, action="tables.seat.take", target=seat, after=model_snapshot(seat), rows=[seat])
    return seat


_Place = TypeVar("_Place", Seat, Spectator)


class _Leaving(NamedTuple):
    """How a kind of place at the table is given up: its bets' link to it, and its two refusals."""

    bets_of: str
    left: str
    betting: str


_LEAVING: dict[type[Seat | Spectator], _Leaving] = {
    Seat: _Leaving(
        "bets__seat",
        gettext_noop("This player has already left."),
        gettext_noop("This player has a bet in the coup being played."),
    ),
    Spectator: _Leaving(
        "bets__spectator",
        gettext_noop("This spectator has already left."),
        gettext_noop("This spectator has a bet in the coup being played."),
    ),
}


def _place_leaving(*, actor: Staff, place: _Place) -> tuple[TableSession, _Place]:
    """A place at the table (a seat, or a spectator's) being given up: the session locked and the
    croupier checked, then the place's row locked, and the refusals every place shares: its player
    already gone (a closing session gave up every place), or with a bet standing in the coup being
    played."""
    leaving = _LEAVING[type(place)]
    session = session_lock_at_table(actor=actor, session=place.session_id, must_be_open=False)
    place = type(place).objects.select_for_update().get(pk=place.pk)
    if place.left_at is not None:
        raise ValidationError(leaving.left)
    if Coup.objects.filter(shoe__session=session, state=Coup.State.OPEN, **{leaving.bets_of: place}).exists():
        raise ValidationError(leaving.betting)
    return session, place


@transaction.atomic
def seat_leave(*, actor: Staff, seat: Seat) -> Seat:
    session, seat = _place_leaving(actor=actor, place=seat)
    if wing_for(session.table.game).seat_leaving(actor=actor, seat=seat):
        return seat  # the game recorded the leave in its coup in play: the seat goes when it ends
    turn = (
        BankTurn.objects.select_for_update().filter(session=session, ended_at__isnull=True, seat=seat).first()
    )
    if turn is not None:
        if Coup.objects.filter(bank_turn=turn, state=Coup.State.OPEN).exists():
            raise ValidationError(gettext_noop("The banker cannot leave during a coup."))
        bank_turn_end(actor=actor, turn=turn, reason=BankTurn.End.LEFT)
    return row_update_audited(
        actor=actor, action="tables.seat.leave", row=seat, changes={"left_at": timezone.now()}
    )


@transaction.atomic
def spectator_join(
    *, actor: Staff, session: TableSession, player: Player, imported: bool = False
) -> Spectator:
    """``player`` stands at the table as a spectator (``imported``: see :func:`seat_take`)."""
    session = session_lock_at_table(actor=actor, session=session)
    if player.casino_id != session.table.casino_id:
        raise ValidationError(gettext_noop("This player belongs to another casino."))
    if player.house:
        raise ValidationError(gettext_noop("The house banks a table; it does not stand at one."))
    if Seat.objects.filter(session=session, player=player, left_at__isnull=True).exists():
        raise ValidationError(said("{player} is seated at this table.", player=str(player)))
    if Spectator.objects.filter(session=session, player=player, left_at__isnull=True).exists():
        raise ValidationError(said("{player} is already standing at this table.", player=str(player)))
    if not imported:
        _check_at_no_other_table(session, player)
    spectator = Spectator.objects.create(session=session, player=player, joined_at=timezone.now())
    audit_record(
        actor=actor,
        action="tables.spectator.join",
        target=spectator,
        after=model_snapshot(spectator),
        rows=[spectator],
    )
    return spectator


@transaction.atomic
def spectator_leave(*, actor: Staff, spectator: Spectator) -> Spectator:
    _, spectator = _place_leaving(actor=actor, place=spectator)
    return row_update_audited(
        actor=actor, action="tables.spectator.leave", row=spectator, changes={"left_at": timezone.now()}
    )


@transaction.atomic
def seat_take_new_player(*, actor: Staff, session: TableSession, display_name: str, number: int) -> Seat:
    """A newcomer registered and seated in one go: he exists only if he does sit down. The table's
    row is locked first, as by every writer at a table, before the registration takes the audit
    chain's lock."""
    session = lock_session(session)
    player = player_create(actor=actor, casino=session.table.casino, display_name=display_name)
    return seat_take(actor=actor, session=session, player=player, number=number)


@transaction.atomic
def spectator_join_new_player(*, actor: Staff, session: TableSession, display_name: str) -> Spectator:
    """A newcomer registered and standing as a spectator, in one go (see seat_take_new_player)."""
    session = lock_session(session)
    player = player_create(actor=actor, casino=session.table.casino, display_name=display_name)
    return spectator_join(actor=actor, session=session, player=player)

"""The home series' money (docs/rules.md §10): starting a series buys every entrant in for the
same chips, ending it returns the bank in play and every reserve; the standings compare what each
entrant holds, counted from his buy-in. (Who may start or end a series at the table:
tables/services/series.py.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from audit.snapshot import model_snapshot
from core.sentence import Word, said
from ledger.models import Account
from ledger.selectors import account_find, player_available, player_balances
from ledger.services import cage_buy_in
from tables.models import Coup, Player, Seat, Series, SeriesEntrant, TableSession
from tables.money.banks import bank_close, bank_holder, bank_holder_id, reserve_return

#: coups that count as played in a series: revealed and settled, or restored and awaiting approval
PLAYED_COUP_STATES = ("settled", "awaiting_approval")


@transaction.atomic
def series_start(*, session: TableSession, players: Sequence[Player], actor: Any) -> Series:
    """Start a home series at ``session`` (or continue the one running: idempotent) and buy each
    of ``players`` in for the series' starting chips from the cage, once each."""
    session = TableSession.objects.select_related("table__casino", "table__profile").get(pk=session.pk)
    profile = session.table.profile
    if profile.series_coups is None or profile.series_start_chips is None:
        raise ValidationError(
            said(
                "{table} does not play series (profile {profile}).",
                table=session.table.name,
                profile=profile.slug,
            )
        )
    if session.closed_at is not None:
        raise ValidationError(said("This session is closed."))
    seated = set(
        Seat.objects.filter(session=session, left_at__isnull=True, player__in=players).values_list(
            "player_id", flat=True
        )
    )
    absent = [str(p) for p in players if p.pk not in seated]
    if absent:
        raise ValidationError(said("Not seated at this table: {players}.", players=", ".join(absent)))
    series = Series.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if series is None:
        series = Series.objects.create(
            session=session,
            coups_planned=profile.series_coups,
            start_chips=profile.series_start_chips,
            min_bank=profile.min_bank,
            min_bet=profile.min_bet,
            started_at=timezone.now(),
            started_by=actor if getattr(actor, "is_authenticated", False) else None,
        )
        audit_record(actor=actor, action="ledger.series.start", target=series, after=model_snapshot(series))
    casino = session.table.casino
    entered = set(series.entrants.values_list("player_id", flat=True))
    for player in players:
        if player.pk not in entered:
            entrant = SeriesEntrant.objects.create(
                series=series,
                player=player,
                chips_before=player_available(casino=casino, player=player),
                joined_at=timezone.now(),
            )
            audit_record(
                actor=actor, action="ledger.series.enter", target=entrant, after=model_snapshot(entrant)
            )
        cage_buy_in(
            casino=casino,
            player=player,
            amount=series.start_chips,
            actor=actor,
            key=f"series:{series.pk}:buy_in:player:{player.pk}",
        )
    return series


@transaction.atomic
def series_end(*, series: Series, reason: str, actor: Any) -> Series:
    """End a series: the bank in play and every entrant's reserve go back to their owners; the
    standings (series_standings) then compare what each holds. ``completed`` needs every coup
    played and ``no_bank`` that nobody can open one; ``no_bets`` (everybody refuses to bet) and
    ``abandoned`` are the table's word. Ending an ended series again with its reason is a no-op."""
    series = (
        Series.objects.select_for_update(of=("self",))
        .select_related("session__table__casino")
        .get(pk=series.pk)
    )
    if reason not in Series.EndReason.values:
        raise ValidationError(said("Unknown end reason {reason!r}.", reason=reason))
    if series.ended_at is not None:
        if series.end_reason == reason:
            return series
        raise ValidationError(
            said(
                "This series already ended ({reason}).",
                reason=Word(series.get_end_reason_display(), "msgid"),
            )
        )
    if reason == Series.EndReason.COMPLETED:
        played = series_coups_played(series=series)
        if played < series.coups_planned:
            raise ValidationError(
                said(
                    "Only {played} of {planned} coups have been played.",
                    played=played,
                    planned=series.coups_planned,
                )
            )
    if reason == Series.EndReason.NO_BANK and _series_outlook(series=series)[1] != Series.EndReason.NO_BANK:
        raise ValidationError(said("Somebody can still open a bank."))
    before = model_snapshot(series)
    table = series.session.table
    casino = table.casino
    holder = bank_holder(table=table)
    if holder is not None:
        bank_close(table=table, banker=holder, actor=actor, key=f"series:{series.pk}:end:bank")
    for entrant in series.entrants.select_related("player"):
        reserve_return(
            casino=casino,
            player=entrant.player,
            actor=actor,
            key=f"series:{series.pk}:end:reserve:player:{entrant.player_id}",
        )
    series.ended_at = timezone.now()
    series.end_reason = reason
    series.save(update_fields=["ended_at", "end_reason"])
    audit_record(
        actor=actor,
        action="ledger.series.end",
        target=series,
        before=before,
        after={
            **model_snapshot(series),
            "standings": [
                {"place": s.place, "player": s.player.pk, "chips": s.chips, "delta": s.delta}
                for s in series_standings(series=series)
            ],
        },
    )
    return series


def series_coups_played(*, series: Series) -> int:
    """Coups of the series' session played since it started (settled or awaiting approval)."""
    coups = Coup.objects.filter(
        shoe__session_id=series.session_id, state__in=PLAYED_COUP_STATES, created_at__gte=series.started_at
    )
    if series.ended_at is not None:
        coups = coups.filter(created_at__lte=series.ended_at)
    return coups.count()


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    player: Player
    chips: int  # what he holds now, counted from his series buy-in (reserve and bank included)
    delta: int  # chips - the series' starting chips


def _series_holdings(*, series: Series) -> dict[int, int]:
    """{player id: player + reserve (+ the bank he holds)} for the series' entrants."""
    table = series.session.table
    entrants = list(series.entrants.values_list("player_id", flat=True))
    holdings = dict.fromkeys(entrants, 0)
    for player_id, balance in Account.objects.filter(
        casino_id=table.casino_id,
        player_id__in=entrants,
        kind__in=[Account.Kind.PLAYER, Account.Kind.RESERVE],
    ).values_list("player_id", "balance"):
        holdings[player_id] += balance
    bank = account_find(casino=table.casino, kind=Account.Kind.BANK, table=table)
    if bank is not None and (holder := bank_holder_id(bank=bank)) in holdings:
        holdings[holder] += bank.balance
    return holdings


def series_standings(*, series: Series) -> list[Standing]:
    """Entrants ranked by chips, richest first; equal chips share a place (1, 1, 3 …)."""
    holdings = _series_holdings(series=series)
    entrants = list(series.entrants.select_related("player"))
    scored = sorted(
        ((holdings[e.player_id] - e.chips_before, e.player) for e in entrants),
        key=lambda item: (-item[0], item[1].display_name, item[1].pk),
    )
    standings: list[Standing] = []
    for index, (chips, player) in enumerate(scored):
        place = standings[-1].place if standings and standings[-1].chips == chips else index + 1
        standings.append(Standing(place=place, player=player, chips=chips, delta=chips - series.start_chips))
    return standings


def series_can_continue(*, series: Series) -> tuple[bool, str]:
    """Whether another coup of the series may be played, and if not why (the series ends after its
    coups, or early when nobody can open a bank or nobody can bet against it)."""
    ok, _blocker, why = _series_outlook(series=series)
    return ok, why


def _series_outlook(*, series: Series) -> tuple[bool, str, str]:
    """series_can_continue with what blocks it as a code ("": nothing; "ended", "played",
    "no_bank", "no_bets"), so that ending a series for ``no_bank`` asks the code, not the words."""
    if series.ended_at is not None:
        ended = Word(series.get_end_reason_display(), "msgid")
        return False, "ended", said("The series has ended ({reason}).", reason=ended)
    played = series_coups_played(series=series)
    if played >= series.coups_planned:
        return False, "played", said("All {planned} coups have been played.", planned=series.coups_planned)
    table = series.session.table
    bank = account_find(casino=table.casino, kind=Account.Kind.BANK, table=table)
    holder = bank_holder_id(bank=bank) if bank is not None else None
    # what each may stake in the series: his chips outside the bank, counted from his buy-in (the
    # floor refuses a bank or a bet beyond them: tables.money.rules.series_stake_check)
    available = {
        e.player_id: sum(player_balances(casino=table.casino, player=e.player).values()) - e.chips_before
        for e in series.entrants.select_related("player")
    }
    if holder is not None:
        bankers = [holder]
    else:
        bankers = [p for p, chips in available.items() if chips >= series.min_bank]
        if not bankers:
            return False, "no_bank", said("Nobody can open a bank of {bank} chips.", bank=series.min_bank)
    if not any(chips >= series.min_bet for b in bankers for p, chips in available.items() if p != b):
        return False, "no_bets", said("Nobody can bet against the bank.")
    left = series.coups_planned - played
    return True, "", said("{left} of {planned} coups left.", left=left, planned=series.coups_planned)

"""The shoe: starting one, every card seen coming out of it, closing it (docs/rules.md §8).

Every card that leaves the shoe is a ``ShoeCard`` row, counted against what a shoe of that many
decks holds: a card seen more often is impossible and raises an alarm on the shoe and the coup
(game protection, not a rules violation — the step is still recorded). Closing a shoe before 5/6
of it was dealt is flagged for the pit boss.

Shoe cards are append-only. A card the croupier mistyped and amended before the reveal
(:func:`card_amend`) keeps its row; a new row at the same position replaces it (``replaces``). The
shoe counts the *live* rows only (:func:`live_cards`: those nothing replaces), so the mistyped card
goes back to the shoe's remaining cards and the real one is taken — for the cards left, the stop
card, the 5/6 reshuffle check, the advice and the impossible-card count alike.
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from audit.rows import rows_loaded
from audit.services import audit_record
from audit.snapshot import fields_snapshot, model_snapshot
from core.cards import stop_card_refusal
from core.sentence import Word, said
from core.types import Staff
from tables import sql, wording
from tables.engine_bridge import cards_parse
from tables.lifecycle import shoe_transition_check
from tables.models import Coup, Player, Seat, Shoe, ShoeAlarm, ShoeCard, TableSession
from tables.permissions import check_croupier_at
from tables.services.locking import lock_session, session_lock_at_table

#: a shoe may not be reshuffled before this share of it has been dealt
RESHUFFLE_AT = 5 / 6


def shoe_size(shoe: Shoe) -> int:
    return shoe.size


def live_cards(shoe: Shoe | int) -> QuerySet[ShoeCard]:
    """The cards out of ``shoe`` as they really were: every row no amendment replaced."""
    return ShoeCard.objects.filter(shoe=shoe, replaced_by__isnull=True)


def card_record(
    *, shoe: Shoe, coup: Coup | None, card: str, role: str, actor: Staff | None = None
) -> ShoeCard:
    """A card seen coming out of ``shoe`` (the caller holds the shoe's lock). Raises the shoe alarm
    when the shoe cannot hold another one of it, and marks the stop card once it is reached
    (``actor``: who entered the card, for the shoe's event then)."""
    now = timezone.now()
    # every card of every coup comes through here: the counts and the row in one statement where
    # the database can (tables.sql.card_seen)
    found = sql.card_seen(shoe=shoe, coup=coup, card=card, role=role, at=now)
    if found is None:
        # one read for both counts: the cards out so far, and how many of them are this one — the
        # new row is one more of each
        counts = live_cards(shoe).aggregate(out=Count("id"), same=Count("id", filter=Q(card=card)))
        position, same = counts["out"] + 1, counts["same"]
        seen = ShoeCard.objects.create(
            shoe=shoe, position=position, card=card, coup=coup, role=role, seen_at=now
        )
    else:
        seen, same = found
    card_out_checked(shoe=shoe, coup=coup, seen=seen, copies=same + 1, actor=actor)
    return seen


def card_out_checked(
    *, shoe: Shoe, coup: Coup | None, seen: ShoeCard, copies: int, actor: Staff | None = None
) -> None:
    """``seen`` was just written out of ``shoe`` (the caller holds the shoe's lock), ``copies`` of
    its card out now, itself included: the shoe alarm when the shoe cannot hold that many, the
    stop card marked once reached (card_record, and a card step that wrote its card with its step:
    tables.services.coups)."""
    _alarm_check(
        shoe=shoe, coup=coup, card=seen.card, position=seen.position, now=seen.seen_at, copies=copies,
        actor=actor,
    )


def card_amend(
    *, shoe: Shoe, coup: Coup, mistyped: ShoeCard, card: str, actor: Staff | None = None
) -> ShoeCard:
    """The card at ``mistyped``'s position was really ``card`` (the caller holds the shoe's lock):
    a new row at the same position replaces the mistyped one, which goes back to the shoe's
    remaining cards. An impossible-card alarm the typo raised stays on record (the amendment's
    reason explains it to the pit boss; an amendment never erases game protection); the real card
    raises its own if the shoe cannot hold another one of it."""
    now = timezone.now()
    seen = ShoeCard.objects.create(
        shoe=shoe,
        position=mistyped.position,
        card=card,
        coup=coup,
        role=mistyped.role,
        seen_at=now,
        replaces=mistyped,
    )
    _alarm_check(shoe=shoe, coup=coup, card=card, position=mistyped.position, now=now, actor=actor)
    return seen


def _alarm_check(
    *,
    shoe: Shoe,
    coup: Coup | None,
    card: str,
    position: int,
    now: datetime,
    copies: int | None = None,
    actor: Staff | None = None,
) -> None:
    """``copies``: how many of ``card`` are out now, the new one included (counted when None).
    A change of the shoe's row (its alarm, its stop card reached) is recorded by an event of its
    own that binds the row (audit.rows): whichever service dealt the card (a step, an amendment,
    a correction), the shoe's row is never left other than its events say."""
    if copies is None:
        copies = live_cards(shoe).filter(card=card).count()
    changed = []
    stop = (
        shoe.stop_card_position is not None
        and not shoe.stop_reached
        and position >= shoe_size(shoe) - shoe.stop_card_position
    )
    if stop or (copies > shoe.decks and not shoe.alarm):
        rows_loaded(shoe)  # as the caller locked it, before this changes it (audit.rows)
    if copies > shoe.decks:
        ShoeAlarm.objects.create(
            shoe=shoe,
            coup=coup,
            kind=ShoeAlarm.Kind.IMPOSSIBLE_CARD,
            card=card,
            detail=wording.ALARM_IMPOSSIBLE_CARD.format(card=card, copies=copies, decks=shoe.decks),
            raised_at=now,
        )
        if not shoe.alarm:
            shoe.alarm = True
            changed.append("alarm")
        if coup is not None and not coup.alarm:
            Coup.objects.filter(pk=coup.pk).update(alarm=True)
            coup.alarm = True
    if stop:
        shoe.stop_reached = True
        changed.append("stop_reached")
    if changed:
        before = {name: not getattr(shoe, name) for name in changed}  # each flag was off
        shoe.save(update_fields=changed)
        audit_record(
            actor=actor,
            action="tables.shoe.flag",
            target=shoe,
            before=before,
            after=fields_snapshot(shoe, changed),
            rows=[shoe],
        )


@transaction.atomic
def shoe_start(
    *,
    actor: Staff,
    session: TableSession,
    decks: int,
    burnt_cards: list[str] | tuple[str, ...] = (),
    cut_by: Player | None = None,
    cut_card_position: int | None = None,
    stop_card_position: int | None = None,
    imported: bool = False,
) -> Shoe:
    """Start a shoe. ``imported`` marks a shoe that carries an imported history, whose burn cards
    are unknown (import_coups)."""
    session = session_lock_at_table(actor=actor, session=session)
    table = session.table
    profile = table.profile
    if Shoe.objects.filter(table=table, state=Shoe.State.OPEN).exists():
        raise ValidationError(said("This table already has a shoe in play: close it first."))
    # an imported history's shoes are unknown: the importer picks the deck count
    if not imported and profile.decks_per_seated_player:
        seated = Seat.objects.filter(session=session, left_at__isnull=True).count()
        if decks != seated:
            raise ValidationError(
                {
                    "decks": said(
                        "The {profile} profile plays one deck per seated player ({seated}).",
                        profile=Word(profile.slug, "profile"),
                        seated=seated,
                    )
                }
            )
    elif not imported and decks not in profile.decks_allowed:
        *others, last = profile.decks_allowed
        named = Word(profile.slug, "profile")
        raise ValidationError(
            {
                "decks": said(
                    "The {profile} profile plays {decks} or {last} decks.",
                    profile=named,
                    decks=", ".join(str(d) for d in others),
                    last=last,
                )
                if others
                else said("The {profile} profile plays {last} decks.", profile=named, last=last)
            }
        )
    burnt = cards_parse(list(burnt_cards), field="burnt_cards")
    if not imported and not profile.burn_cards_min <= len(burnt) <= profile.burn_cards_max:
        lo, hi = profile.burn_cards_min, profile.burn_cards_max
        named = Word(profile.slug, "profile")
        raise ValidationError(
            {
                "burnt_cards": said("The {profile} profile burns {count} cards.", profile=named, count=lo)
                if lo == hi
                else said(
                    "The {profile} profile burns {low} to {high} cards.", profile=named, low=lo, high=hi
                )
            }
        )
    size = Shoe.size_of(decks)
    if cut_card_position is not None and not 1 <= cut_card_position < size:
        raise ValidationError(
            {
                "cut_card_position": said(
                    "A position in a {decks}-deck shoe is between 1 and {last}.", decks=decks, last=size - 1
                )
            }
        )
    if stop_card_position is not None and (refusal := stop_card_refusal(stop_card_position, size)):
        raise ValidationError({"stop_card_position": refusal})
    if cut_by is not None and cut_by.casino_id != table.casino_id:
        raise ValidationError({"cut_by": said("This player belongs to another casino.")})
    number = (
        Shoe.objects.filter(session=session).order_by("-number").values_list("number", flat=True).first() or 0
    ) + 1
    shoe = Shoe.objects.create(
        session=session,
        table=table,
        number=number,
        decks=decks,
        shuffled_at=timezone.now(),
        cut_by=cut_by,
        cut_card_position=cut_card_position,
        stop_card_position=stop_card_position,
        burnt_cards=burnt,
        imported=imported,
    )
    burns = [card_record(shoe=shoe, coup=None, card=card, role=ShoeCard.Role.BURN) for card in burnt]
    shoe.refresh_from_db()
    audit_record(
        actor=actor, action="tables.shoe.start", target=shoe, after=model_snapshot(shoe), rows=[shoe, *burns]
    )
    return shoe


def shoe_close_locked(*, actor: Staff | None, shoe: Shoe, reason: str) -> Shoe:
    """Close ``shoe`` (the caller holds its locks); flag a reshuffle before 5/6 was dealt."""
    shoe_transition_check(shoe=shoe, to=Shoe.State.CLOSED)
    rows_loaded(shoe)  # as the caller locked it: its state then goes into its binding (audit.rows)
    before = model_snapshot(shoe)
    dealt = live_cards(shoe).count()
    now = timezone.now()
    if dealt < RESHUFFLE_AT * shoe_size(shoe) and not shoe.imported:
        shoe.early_reshuffle = True
        ShoeAlarm.objects.create(
            shoe=shoe,
            kind=ShoeAlarm.Kind.EARLY_RESHUFFLE,
            # stored as English text, said again on the screens (tables.wording.alarm_detail)
            detail=(wording.ALARM_EARLY if reason else wording.ALARM_EARLY_NO_REASON).format(
                dealt=dealt, size=shoe_size(shoe), reason=reason
            ),
            raised_at=now,
        )
    shoe.state, shoe.closed_at, shoe.close_reason = Shoe.State.CLOSED, now, reason
    shoe.save(update_fields=["state", "closed_at", "close_reason", "early_reshuffle"])
    audit_record(
        actor=actor,
        action="tables.shoe.close",
        target=shoe,
        before=before,
        after=model_snapshot(shoe),
        rows=[shoe],
    )
    return shoe


@transaction.atomic
def shoe_close(*, actor: Staff, shoe: Shoe, reason: str = "") -> Shoe:
    lock_session(shoe.session_id)
    shoe = Shoe.objects.select_for_update().get(pk=shoe.pk)
    check_croupier_at(actor, shoe.table_id)
    if shoe.state != Shoe.State.OPEN:
        raise ValidationError(said("This shoe is already closed."))
    if Coup.objects.filter(shoe=shoe, state=Coup.State.OPEN).exists():
        raise ValidationError(said("A coup is being played from this shoe: finish it first."))
    return shoe_close_locked(actor=actor, shoe=shoe, reason=reason)

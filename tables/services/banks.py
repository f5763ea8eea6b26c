"""Who holds the bank: the first banker, passing it, losing it, offering it in turn (docs/rules.md §7).

A bank is a ``BankTurn``. While one is open the table has a banker; when it ends (lost, passed,
banker left, table closed) the chips in the bank and the banker's reserve go back to him, and the
bank is offered to the seated players in rotation (``selectors.bank_rotation``), refusals
skipped, until one accepts.
"""

from __future__ import annotations

import datetime as dt

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from audit.rows import RowWritten, rows_loaded
from audit.services import audit_record
from audit.snapshot import fields_snapshot, model_snapshot
from chemin_de_fer.engine.order import rotation_keeps_anchor
from chemin_de_fer.engine.settlement import spectator_bank_share
from core.sentence import Word, said
from core.types import Staff
from tables.models import (
    UNFINISHED_COUP_STATES,
    BankOffer,
    BankShare,
    BankTurn,
    Casino,
    Coup,
    Player,
    Seat,
    Shoe,
    Spectator,
    Table,
    TableSession,
)
from tables.money import floor as money
from tables.selectors import bank_rotation
from tables.services.audited import row_update_audited
from tables.services.locking import session_lock_at_table

#: the house player's display name: what screens and the API show as the banker of a house bank
HOUSE_NAME = "House"

FIRST_BANKER_WAYS = {
    Table.FirstBanker.LOT: BankTurn.Start.LOT,
    Table.FirstBanker.AUCTION: BankTurn.Start.AUCTION,
    Table.FirstBanker.ACCEPTANCE: BankTurn.Start.ACCEPTANCE,
}


def bank_turn_end(
    *, actor: Staff | None, turn: BankTurn, reason: str, at: dt.datetime | None = None
) -> BankTurn:
    """End a bank; the caller holds the session's locks. The chips in the bank and the banker's
    reserve go back to him in the same transaction. ``turn`` as the caller locked it, unchanged
    since: its state then goes into its binding (audit.rows.rows_loaded)."""
    rows_loaded(turn)
    before = model_snapshot(turn)
    for share in BankShare.objects.select_for_update().filter(turn=turn, withdrawn__isnull=True):
        _share_pay_out(actor=actor, share=share)  # the spectators' part first: the rest is his
    turn.ended_at = at or timezone.now()
    turn.end_reason = reason
    turn.save(update_fields=["ended_at", "end_reason"])
    money.bank_return(turn=turn, actor=actor)
    audit_record(
        actor=actor,
        action=f"tables.bank.{reason}",
        target=turn,
        before=before,
        after=model_snapshot(turn),
        rows=[turn],
    )
    return turn


def _within_house_limit(table: Table, amount: int) -> None:
    limit = table.casino.house_limit
    if limit is not None and amount > limit:
        raise ValidationError(said("A bank may not exceed the house limit of {limit}.", limit=limit))


def _seated(session: TableSession, seat: Seat) -> Seat:
    seat = Seat.objects.select_related("player").get(pk=seat.pk)
    if seat.session_id != session.pk or seat.left_at is not None:
        raise ValidationError(said("That player is not seated at this table."))
    return seat


def _open_turn(
    *,
    actor: Staff,
    session: TableSession,
    seat: Seat,
    how: str,
    minimum: int,
    rotation_from: Seat | None = None,
) -> BankTurn:
    turn = BankTurn.objects.create(
        session=session,
        player=seat.player,
        seat=seat,
        started_at=timezone.now(),
        started_how=how,
        required_minimum=minimum,
        rotation_from=rotation_from or seat,
    )
    audit_record(actor=actor, action="tables.bank.take", target=turn, after=model_snapshot(turn), rows=[turn])
    return turn


@transaction.atomic
def bank_first_assign(
    *, actor: Staff, session: TableSession, seat: Seat, amount: int | None = None
) -> BankTurn:
    """The session's first banker, chosen by lot or by auction (the table's setting): the croupier
    records the winner (and, for an auction, the bank he bid: his first bank must be at least that)."""
    session = session_lock_at_table(actor=actor, session=session)
    table = session.table
    if BankTurn.objects.filter(session=session).exists():
        raise ValidationError(said("The first banker has already been chosen at this session."))
    how = FIRST_BANKER_WAYS[Table.FirstBanker(table.first_banker_method)]
    if how == BankTurn.Start.ACCEPTANCE:
        raise ValidationError(said("At this table the bank is offered in turn: record each answer instead."))
    profile = table.profile
    minimum = profile.min_bank
    if how == BankTurn.Start.AUCTION:
        if amount is None or amount < profile.min_bank:
            raise ValidationError(
                said("An auction needs the winning bank, at least {minimum}.", minimum=profile.min_bank)
            )
        _within_house_limit(table, amount)
        minimum = amount
    elif amount is not None:
        raise ValidationError(said("Only an auction names the bank in advance."))
    return _open_turn(actor=actor, session=session, seat=_seated(session, seat), how=how, minimum=minimum)


@transaction.atomic
def bank_offer_answer(*, actor: Staff, session: TableSession, seat: Seat, accept: bool) -> BankOffer:
    """Record the answer of the player the bank is offered to now (refusals are skipped)."""
    session = session_lock_at_table(actor=actor, session=session)
    rotation = bank_rotation(session=session)
    if rotation is None:
        raise ValidationError(said("The bank is held: there is nothing to offer."))
    if rotation.previous is None and session.table.first_banker_method != Table.FirstBanker.ACCEPTANCE:
        how_chosen = Word(session.table.get_first_banker_method_display(), "msgid")
        raise ValidationError(said("At this table the first banker is chosen {how}.", how=how_chosen))
    if rotation.offer_to is None or rotation.offer_to.pk != seat.pk:
        if rotation.offer_to is None:
            raise ValidationError(
                said("The bank is offered in turn: it goes to nobody (everyone refused) now.")
            )
        raise ValidationError(
            said("The bank is offered in turn: it goes to seat {seat} now.", seat=rotation.offer_to.number)
        )
    offer = BankOffer.objects.create(
        session=session,
        after_turn=rotation.previous,
        seat=rotation.offer_to,
        required_minimum=rotation.required_minimum,
        accepted=accept,
        answered_at=timezone.now(),
        recorded_by=actor,
    )
    audit_record(actor=actor, action="tables.bank.offer", target=offer, after=model_snapshot(offer))
    if accept:
        keeps_anchor = rotation_keeps_anchor(
            passed=rotation.how == BankTurn.Start.PASSED,
            taker=rotation.offer_to.number,
            order=[s.number for s in rotation.order],  # the first neighbour first, refusals or not
        )
        _open_turn(
            actor=actor,
            session=session,
            seat=_seated(session, seat),
            how=rotation.how,
            minimum=rotation.required_minimum,
            rotation_from=rotation.previous.rotation_from if keeps_anchor and rotation.previous else None,
        )
    return offer


@transaction.atomic
def bank_auction_award(*, actor: Staff, session: TableSession, seat: Seat, amount: int) -> BankTurn:
    """A passed bank awarded by informal auction, at a table that holds them (its
    ``passed_bank_auction`` setting): to whoever puts up a bank equal to the one just played
    (docs/rules.md §7, chemin_de_fer.engine.bank_terms)."""
    session = session_lock_at_table(actor=actor, session=session)
    rotation = bank_rotation(session=session)
    if rotation is None:
        raise ValidationError(said("The bank is held: there is nothing to auction."))
    if rotation.how != BankTurn.Start.PASSED:
        raise ValidationError(said("Only a passed bank is auctioned; a lost bank goes round in turn."))
    if rotation.auction is None:
        raise ValidationError(said("At this table a passed bank is offered in turn: it is not auctioned."))
    if (refusal := rotation.auction.refusal(amount)) is not None:
        raise ValidationError({"amount": refusal})
    return _open_turn(
        actor=actor, session=session, seat=_seated(session, seat), how=BankTurn.Start.AUCTION, minimum=amount
    )


@transaction.atomic
def bank_new_from_minimum(*, actor: Staff, session: TableSession, seat: Seat) -> BankTurn:
    """Nobody accepted the required amount: the first neighbour may open a new bank from the
    profile's minimum (docs/rules.md §7)."""
    session = session_lock_at_table(actor=actor, session=session)
    rotation = bank_rotation(session=session)
    if rotation is None:
        raise ValidationError(said("The bank is held."))
    if rotation.offer_to is not None:
        raise ValidationError(
            said("The bank is still being offered: seat {seat} answers next.", seat=rotation.offer_to.number)
        )
    if not rotation.order or rotation.order[0].pk != seat.pk:
        raise ValidationError(said("Only the first neighbour may open a new bank from the minimum."))
    return _open_turn(
        actor=actor,
        session=session,
        seat=_seated(session, seat),
        how=BankTurn.Start.NEW_BANK,
        minimum=session.table.profile.min_bank,
    )


def house_player(*, casino: Casino) -> Player:
    """The casino's house player, the banker of its house banks (made the first time it banks)."""
    player, _ = Player.objects.get_or_create(casino=casino, house=True, defaults={"display_name": HOUSE_NAME})
    return player


@transaction.atomic
def bank_house_take(*, actor: Staff, session: TableSession) -> BankTurn:
    """The house banks the table (docs/rules.md §2; the table's ``house_bank`` setting): the
    croupier plays the bank hand for the house, the bank is the cage's money, no levy is taken on
    the house's wins, and the bank does not rotate while the house holds it. The house declares
    each bank afresh, from the profile minimum up to the house limit; passing the bank ends it."""
    session = session_lock_at_table(actor=actor, session=session)
    table = session.table
    if not table.house_bank:
        raise ValidationError(
            said("The house does not bank this table (the table's house-bank setting is off).")
        )
    held = BankTurn.objects.filter(session=session, ended_at__isnull=True).select_related("player").first()
    if held is not None:
        raise ValidationError(
            said("{player} holds the bank: the house banks once nobody does.", player=str(held.player))
        )
    turn = BankTurn.objects.create(
        session=session,
        player=house_player(casino=table.casino),
        seat=None,
        started_at=timezone.now(),
        started_how=BankTurn.Start.HOUSE,
        required_minimum=table.profile.min_bank,
        rotation_from=None,
    )
    audit_record(
        actor=actor, action="tables.bank.house", target=turn, after=model_snapshot(turn), rows=[turn]
    )
    return turn


@transaction.atomic
def bank_pass(*, actor: Staff, session: TableSession) -> BankTurn:
    """The banker gives up the bank between coups (after a win or a stand-off)."""
    session = session_lock_at_table(actor=actor, session=session)
    turn = BankTurn.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if turn is None:
        raise ValidationError(said("Nobody holds the bank."))
    if Coup.objects.filter(bank_turn=turn, state__in=UNFINISHED_COUP_STATES).exists():
        raise ValidationError(
            said("Finish the coup (and restore it if it was flagged) before passing the bank.")
        )
    return bank_turn_end(actor=actor, turn=turn, reason=BankTurn.End.PASSED)


def bank_after_coup(*, actor: Staff | None, coup: Coup, outcome: str, next_bank_min: int | None) -> None:
    """After a coup's (provisional or final) settlement: a losing banker loses the bank; a winning
    or tying one must continue with at least the mandatory continuation. Caller holds the locks."""
    # whether a later coup of the bank was started, asked by the statement that locks the turn;
    # its session read with it and given the coup's locked table, so that the audit event of a
    # new minimum finds its casino's chain with no read of its own (audit.services.chain_of)
    later = Coup.objects.filter(bank_turn=OuterRef("pk"), created_at__gt=coup.created_at)
    turn = (
        BankTurn.objects.select_for_update(of=("self",))
        .select_related("session")
        .annotate(later_coup=Exists(later))
        .get(pk=coup.bank_turn_id)
    )
    shoe = coup.shoe if Coup.shoe.is_cached(coup) else None  # as locked with the coup, if it was
    if shoe is not None and Shoe.table.is_cached(shoe) and shoe.table_id == turn.session.table_id:
        turn.session.table = shoe.table
    if turn.started_how == BankTurn.Start.HOUSE:
        # the house keeps its bank, win or lose, and sets each bank afresh (docs/rules.md §2)
        return
    if turn.ended_at is not None or turn.later_coup:
        # the bank already moved on (a correction of an older coup, after play went on): the
        # bank in play now is a later coup's business
        return
    minimum = bank_continuation(coup=coup, outcome=outcome, next_bank_min=next_bank_min)
    if minimum is None:
        bank_turn_end(actor=actor, turn=turn, reason=BankTurn.End.LOST)
        return
    bank_minimum_set(actor=actor, turn=turn, minimum=minimum)


def bank_continuation(*, coup: Coup, outcome: str, next_bank_min: int | None) -> int | None:
    """The smallest bank a banker who won or tied ``coup`` must continue with: the mandatory
    continuation, at least the table's minimum; None when he lost it (``outcome`` player)."""
    if outcome == "player":
        return None
    return max(next_bank_min or 0, coup.shoe.table.profile.min_bank)


def bank_minimum_written(*, actor: Staff | None, coup: Coup, turn: BankTurn, before: int) -> None:
    """Record the new minimum tables.sql.coup_settled_write set on ``coup``'s bank ``turn`` (as
    the statement left it) in place of ``before``: bank_minimum_set's event, the field changed
    before and after (tables.services.audited.row_update_audited's shape), both known without a
    read (the table's lock kept every other writer of the turn out). On the casino's chain of the
    coup's table when the turn is of the coup's session (it is; else found from the turn's session
    at COMMIT), as bank_after_coup finds it."""
    shoe = coup.shoe
    casino = shoe.table.casino_id if turn.session_id == shoe.session_id else None
    audit_record(
        actor=actor,
        action="tables.bank.continue",
        target=turn,
        before={"required_minimum": before},
        after=fields_snapshot(turn, ("required_minimum",)),
        casino=casino,
        # the turn as the statement left it (its every column returned): bound by those values
        rows=[RowWritten(turn)],
    )


def bank_minimum_set(*, actor: Staff | None, turn: BankTurn, minimum: int) -> None:
    """The smallest bank the banker may declare next becomes ``minimum`` (audited; nothing
    written when it already is). The caller holds the turn's row."""
    if minimum == turn.required_minimum:
        return
    row_update_audited(
        actor=actor, action="tables.bank.continue", row=turn, changes={"required_minimum": minimum}
    )


def bank_kept_as_declared(*, actor: Staff | None, coup: Coup, minimum: int | None = None) -> None:
    """A coup ended without a settlement (withdrawn: nobody bet; voided) and its bank stays as
    declared in the table's bank account. The holder may not take chips out of the bank between
    coups (RULES.md §6; money.banks refuses a smaller bank: "give up the bank instead"), so his next
    bank is at least the one he declared, and the screen's "at least" says so. ``minimum``: the
    minimum to go back to (a void of a restored coup: the one when he declared), else the turn's.
    The house sets each bank afresh (RULES.md §2); a bank that moved on since is not this coup's
    business. Caller holds the coup's lock."""
    turn = BankTurn.objects.select_for_update().get(pk=coup.bank_turn_id)
    if turn.started_how == BankTurn.Start.HOUSE or turn.ended_at is not None:
        return
    if Coup.objects.filter(bank_turn=turn, created_at__gt=coup.created_at).exists():
        return
    floor = turn.required_minimum if minimum is None else minimum
    bank_minimum_set(actor=actor, turn=turn, minimum=max(floor, coup.bank))


@transaction.atomic
def bank_assign_imported(*, actor: Staff, session: TableSession, seat: Seat, minimum: int) -> BankTurn:
    """Importing a recorded history: the history names each coup's bank but not how the bank
    went round, so the importer hands the bank to the recorded banker directly (the previous bank,
    if any, is closed as passed). Live tables use the offer-in-turn services above."""
    session = session_lock_at_table(actor=actor, session=session)
    turn = BankTurn.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if turn is not None:
        bank_turn_end(actor=actor, turn=turn, reason=BankTurn.End.PASSED)
    return _open_turn(
        actor=actor,
        session=session,
        seat=_seated(session, seat),
        how=BankTurn.Start.IMPORTED,
        minimum=minimum,
    )


# ------------------------------------------------------------------ club: a spectator's share of the bank
@transaction.atomic
def bank_share_contribute(
    *, actor: Staff, session: TableSession, spectator: Spectator, amount: int
) -> BankShare:
    """A club spectator puts up part of a new bank, with the banker's consent (docs/rules.md §6,
    "Club: a spectator's share of the bank"). The
    chips move when the bank's first coup declares it: the spectator's from his account, the rest
    from the banker's. The share is checked now (tables.money.floor.bank_share_check: his chips
    where the rules forbid borrowing, the house limit); one taken back before the bank's first coup
    (bank_share_withdraw) may be put up again."""
    session = session_lock_at_table(actor=actor, session=session)
    profile = session.table.profile
    if not profile.spectators_share_bank:
        raise ValidationError(
            said(
                "Under the {profile} profile a spectator does not share the bank.",
                profile=Word(profile.slug, "profile"),
            )
        )
    turn = BankTurn.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if turn is None:
        raise ValidationError(said("Nobody holds the bank."))
    if turn.started_how == BankTurn.Start.HOUSE:
        raise ValidationError(said("The house banks this table: nobody puts up part of its bank."))
    if Coup.objects.filter(bank_turn=turn).exists():
        raise ValidationError(said("A spectator puts up part of a bank before its first coup."))
    spectator = Spectator.objects.select_related("player").get(pk=spectator.pk)
    if spectator.session_id != session.pk or spectator.left_at is not None:
        raise ValidationError(said("That spectator is not at this table."))
    if type(amount) is not int or amount <= 0:
        raise ValidationError({"amount": said("A share is a positive whole number of chips.")})
    # one share per spectator and bank; one he took back (mistyped: before the bank's first coup,
    # nothing moved) he may put up again, the same row
    taken_back = BankShare.objects.select_for_update().filter(turn=turn, spectator=spectator).first()
    if taken_back is not None and taken_back.withdrawn is None:
        raise ValidationError(said("This spectator already has a share of this bank."))
    money.bank_share_check(table=session.table, turn=turn, player=spectator.player, amount=amount)
    if taken_back is not None:
        row_update_audited(
            actor=actor,
            action="tables.bank.share_contribute",
            row=taken_back,
            changes={
                "contributed": amount,
                "contributed_at": timezone.now(),
                "withdrawn": None,
                "withdrawn_at": None,
            },
        )
        return taken_back
    share = BankShare.objects.create(
        turn=turn, spectator=spectator, contributed=amount, contributed_at=timezone.now()
    )
    audit_record(
        actor=actor,
        action="tables.bank.share_contribute",
        target=share,
        after=model_snapshot(share),
        rows=[share],
    )
    return share


@transaction.atomic
def bank_share_withdraw(*, actor: Staff, session: TableSession, spectator: Spectator) -> BankShare:
    """Before a deal, the spectator takes out his proportional share of the bank: bank 10 with 3
    from him grows to 80, he takes 80 x 3/10 = 24 and the banker goes on with 56 (or tops it up).
    Before the bank's first coup nothing has moved: the share is taken back as put up (a mistyped
    share corrected), and may be put up again."""
    session = session_lock_at_table(actor=actor, session=session)
    turn = BankTurn.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    share = (
        BankShare.objects.select_for_update()
        .filter(turn=turn, spectator=spectator, withdrawn__isnull=True)
        .first()
        if turn is not None
        else None
    )
    if share is None:
        raise ValidationError(said("This spectator has no share in the bank."))
    assert turn is not None  # the share was found in it
    if Coup.objects.filter(bank_turn=turn, state__in=UNFINISHED_COUP_STATES).exists():
        raise ValidationError(
            said("A share is taken out before a deal: finish (and restore) the coup first.")
        )
    taken = _share_pay_out(actor=actor, share=share)
    remaining = money.bank_holding(table=session.table)
    if taken:
        bank_minimum_set(actor=actor, turn=turn, minimum=max(remaining, session.table.profile.min_bank))
    return share


def _share_pay_out(*, actor: Staff | None, share: BankShare) -> int:
    """Pay a spectator his proportional share of what the bank holds now (the caller holds the
    locks); before the bank's first coup nothing has moved yet, so there is nothing to pay."""
    coups = Coup.objects.filter(bank_turn=share.turn).order_by("created_at", "pk")
    first, last = coups.first(), coups.last()
    amount = 0
    if first is not None:
        assert last is not None  # the same coups as first
        table = share.turn.session.table
        # the bank now belongs to those still in it: the first bank less the parts already taken
        # out (bank 10 with 3 from A and 2 from B; A took his 24 of 80: B owns 2/7 of the 56 left)
        gone = sum(
            BankShare.objects.filter(turn=share.turn, withdrawn__isnull=False).values_list(
                "contributed", flat=True
            )
        )
        amount = spectator_bank_share(
            bank=money.bank_holding(table=table),
            contributed=share.contributed,
            initial_bank=first.bank - gone,
            chip_unit=table.casino.chip_unit,
        )
        money.bank_share_out(
            coup=last, player=share.spectator.player, amount=amount, share=share, actor=actor
        )
    row_update_audited(
        actor=actor,
        action="tables.bank.share_withdraw",
        row=share,
        changes={"withdrawn": amount, "withdrawn_at": timezone.now()},
    )
    return amount

"""Between the database and the rules engine: a coup's recorded steps replayed into engine state.

The ``CoupStep`` rows are the truth (append-only); the engine state is always rebuilt from them,
never stored, so there is one history and no second copy to drift. Replaying twenty steps costs
well under a millisecond.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from chemin_de_fer.engine.coup import CoupRecord, NeedsCards, Restored, Verdict
from chemin_de_fer.engine.judge import Rules, judge_coup, restore_coup
from chemin_de_fer.engine.machine import CoupProgress, IllegalStep, Move, Step, new_coup, replay, to_record
from chemin_de_fer.engine.odds import expected_levy_at_rate
from chemin_de_fer.engine.profiles import LevyMode, Profile, Rounding, profile_from_dict, profile_to_dict
from chemin_de_fer.engine.punters import HOUSE_KEY, seat_key, spectator_key
from chemin_de_fer.engine.settlement import BancoCaller, LevyTerms
from core.cards import CardError, parse_card
from core.sentence import why
from tables.models import CORRECTION_KINDS, BankTurn, Bet, Casino, Coup, CoupStep, Player, Table


def engine_rules(table: Table) -> Rules:
    return Rules.for_profile(table.profile.as_engine())


def levy_terms(*, table: Table, profile: Profile) -> LevyTerms:
    """The percentage levy at a table: the profile must levy a percentage (casino) and the table
    must charge one (its own levy mode, else its casino's: a table on hourly fees charges by time
    instead); rate, rounding and chip unit are the casino's, the first-coup exemption the
    profile's."""
    casino = table.casino
    percentage = Casino.LevyMode.PERCENTAGE
    if profile.levy_mode is not LevyMode.PERCENTAGE or table.effective_levy_mode != percentage:
        return LevyTerms(chip_unit=casino.chip_unit)
    return LevyTerms(
        rate_bp=casino.levy_rate_bp,
        rounding=Rounding(casino.levy_rounding),
        chip_unit=casino.chip_unit,
        first_coup_exempt=profile.first_coup_exempt,
    )


def banker_key(turn: BankTurn) -> str:
    """The engine's key of a bank turn's banker: his seat's, or the house's (it holds no seat)."""
    return seat_key(turn.seat.number) if turn.seat is not None else HOUSE_KEY


def bet_punter_key(bet: Bet) -> str:
    """The engine's key of a bet's punter (``chemin_de_fer.engine.punters``: ``seat-4``, ``spectator-17``)."""
    if bet.seat_id is not None:
        assert bet.seat is not None
        return seat_key(bet.seat.number)
    assert bet.spectator_id is not None  # a bet has a seat or a spectator (a DB constraint)
    return spectator_key(bet.spectator_id)


def bet_player(bet: Bet) -> Player:
    """Who placed a bet: the player in the seat, or the spectator's."""
    if bet.seat_id is not None:
        assert bet.seat is not None
        return bet.seat.player
    assert bet.spectator is not None
    return bet.spectator.player


def coup_bets(coup: Coup) -> QuerySet[Bet]:
    """A coup's bets with what ``bet_punter_key`` and ``bet_player`` read, in one query."""
    return Bet.objects.filter(coup=coup).select_related("seat__player", "spectator__player")


def step_from_row(kind: str, payload: dict[str, Any]) -> Step:
    """The engine step a recorded ``CoupStep`` stands for."""
    engine_kind = Move(kind)
    if engine_kind is Move.BANK_DECLARED:
        return Step(engine_kind, amount=payload["amount"], punter=payload["banker"])
    if engine_kind is Move.BET:
        return Step(
            engine_kind,
            amount=payload["amount"],
            punter=payload["punter"],
            spectator=payload["spectator"],
            order=payload["order"],
        )
    if engine_kind is Move.BANCO:
        return Step(
            engine_kind,
            callers=tuple(
                BancoCaller(c["punter"], spectator=c["spectator"], suivi=c["suivi"], order=c["order"])
                for c in payload["callers"]
            ),
        )
    if engine_kind in (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER):
        return Step(engine_kind, card=payload["card"])
    return Step(engine_kind)


def game_kind(row: CoupStep) -> str:
    """The game step a row stands for: its own kind, or for an amendment the kind it amends."""
    return str(row.payload["kind"]) if row.kind == CoupStep.Kind.AMEND else row.kind


#: the payload keys of an ``amend`` step besides the game step's own
_AMEND_KEYS = frozenset({"kind", "step", "reason", "was"})


def game_payload(row: CoupStep) -> dict[str, Any]:
    """The game step's own fields of a row (an amendment's without its kind, reason, ...)."""
    if row.kind == CoupStep.Kind.AMEND:
        return {k: v for k, v in row.payload.items() if k not in _AMEND_KEYS}
    return dict(row.payload)


def game_rows(rows: Iterable[CoupStep]) -> list[CoupStep]:
    """The rows that stand for the coup's game steps, in the order they were played: each step as
    recorded, or, where the croupier amended a typo, its latest amendment in its place (an
    amendment may itself be amended). The superseded rows stay in the history; the replay, the
    verdict and the record see only what this returns."""
    rows = list(rows)
    amended_by = {r.supersedes_id: r for r in rows if r.kind == CoupStep.Kind.AMEND}
    standing = []
    for row in rows:
        if row.kind in CORRECTION_KINDS:  # the workflow's steps, amendments included
            continue
        while row.pk in amended_by:
            row = amended_by[row.pk]
        standing.append(row)
    return standing


def superseded_ids(rows: Iterable[CoupStep]) -> set[int]:
    """The ids of the rows an amendment superseded (shown struck through)."""
    return {r.supersedes_id for r in rows if r.kind == CoupStep.Kind.AMEND and r.supersedes_id is not None}


def game_steps(rows: Iterable[CoupStep]) -> list[Step]:
    return [step_from_row(game_kind(r), r.payload) for r in game_rows(rows)]


def rules_snapshot(*, profile: Profile, levy: LevyTerms, house_limit: int | None) -> dict[str, Any]:
    """What a coup stores of the rules it is played under (``Coup.rules``)."""
    return {
        "profile": profile_to_dict(profile),
        "levy": {
            "rate_bp": levy.rate_bp,
            "rounding": levy.rounding.value,
            "chip_unit": levy.chip_unit,
            "first_coup_exempt": levy.first_coup_exempt,
        },
        "house_limit": house_limit,
    }


def table_rules_snapshot(table: Table, *, levy: bool = True) -> dict[str, Any]:
    """The rules a coup at ``table`` is played under now; ``levy`` False for a coup the house
    banks (no levy on the house's own wins, docs/rules.md §2)."""
    profile = table.profile.as_engine()
    return rules_snapshot(
        profile=profile,
        levy=levy_terms(table=table, profile=profile)
        if levy
        else LevyTerms(chip_unit=table.casino.chip_unit),
        house_limit=table.casino.house_limit,
    )


def snapshot_rules(snapshot: dict[str, Any]) -> Rules:
    """The engine's compiled rules for a stored rules snapshot."""
    return Rules.for_profile(profile_from_dict(snapshot["profile"]))


def coup_rules(coup: Coup) -> Rules:
    """The compiled rules the coup was started under (memoised on the instance)."""
    cached = getattr(coup, "_engine_rules", None)
    if cached is None:
        cached = snapshot_rules(coup.rules)
        coup._engine_rules = cached
    return cached


def expected_levy_per_chip(rules: Mapping[str, Any], decks: int, *, first_coup_of_bank: bool) -> Fraction:
    """The odds engine's expected levy per covered chip of a coup played under the stored rules
    snapshot ``rules`` on a full shoe of ``decks``: nothing for a bank's first coup that the
    profile exempts (none is charged, so none is expected). The rating slip and the dashboard's
    rollups price a coup with this one rule, so the two never disagree."""
    levy = rules["levy"]
    rate = 0 if first_coup_of_bank and levy["first_coup_exempt"] else levy["rate_bp"] or 0
    return expected_levy_at_rate(profile_from_dict(rules["profile"]), decks, rate)


def coup_levy(coup: Coup) -> LevyTerms:
    levy = coup.rules["levy"]
    return LevyTerms(
        rate_bp=levy["rate_bp"],
        rounding=Rounding(levy["rounding"]),
        chip_unit=levy["chip_unit"],
        first_coup_exempt=levy["first_coup_exempt"],
    )


def coup_new_state(coup: Coup, rows: Sequence[CoupStep]) -> CoupProgress:
    """The engine state before the coup's first step (its rows: the bank declared says the
    minimum, and whether it replays a recorded history)."""
    first = rows[0].payload if rows else {}
    return new_coup(
        coup_rules(coup),
        minimum_bank=first.get("minimum", 1),
        house_limit=coup.rules["house_limit"],
        first_coup_of_bank=coup.first_coup_of_bank,
        historical=first.get("historical", False),
    )


def coup_replay(coup: Coup, rows: Sequence[CoupStep]) -> CoupProgress:
    """The engine state after the coup's recorded game steps (amended typos in place)."""
    return replay(coup_new_state(coup, rows), game_steps(rows))


def coup_replay_trusted(coup: Coup, rows: Sequence[CoupStep]) -> tuple[CoupProgress, bool]:
    """``coup_replay``, and whether the steps could be replayed: steps no service could have left
    (one deleted in the database: tables.services.vouching refuses to play on) give the coup's
    first state and False, so that a page shows the coup as recorded and the pit boss can void it."""
    try:
        return coup_replay(coup, rows), True
    except IllegalStep:
        return coup_new_state(coup, rows), False


def coup_record(coup: Coup, state: CoupProgress, *, shoe_next: tuple[str, ...] = ()) -> CoupRecord:
    """The interchange record of a revealed coup (what exports and ``validate_coups`` read)."""
    return to_record(
        state, coup_id=coup_record_id(coup), shoe_next=shoe_next, chip_unit=coup.rules["levy"]["chip_unit"]
    )


def correction_cards(steps: Sequence[CoupStep]) -> tuple[str, ...]:
    """The cards the shoe supplied to restore the coup: those of its latest correction, unless
    that correction was rejected (then none is standing)."""
    corrections = [s for s in steps if s.kind == CoupStep.Kind.CORRECTION]
    if not corrections:
        return ()
    latest = corrections[-1]
    rejected = any(s.kind == CoupStep.Kind.CORRECTION_REJECTED and s.corrects_id == latest.pk for s in steps)
    return () if rejected else tuple(latest.payload.get("cards", []))


def exported_record(coup: Coup, steps: Sequence[CoupStep], state: CoupProgress | None = None) -> CoupRecord:
    """The record the exports and the API give of a finished coup (``steps``: all its rows, in
    order; ``state``: their replay, when the caller has it). Its ``shoe_next`` holds the cards the
    standing correction took from the shoe, so ``validate_coups`` restores the coup the same way."""
    if state is None:
        state = coup_replay(coup, steps)
    return coup_record(coup, state, shoe_next=correction_cards(steps))


def coup_record_id(coup: Coup) -> str:
    """A chemin de fer coup's id in its record (the exports, the API, its verdict, the books):
    ``T<table>-session<session>-shoe<n>-coup<n>`` (``T3-session57-shoe2-coup41``), one per coup
    in the table's whole history. A shoe is numbered within its session (each session's first
    shoe is shoe 1): without the session, the coups of every session a table opened share their
    ids, and ``import_coups``, which imports a record id once per table, would take the first only."""
    shoe = coup.shoe
    return f"T{shoe.table_id}-session{shoe.session_id}-shoe{shoe.number}-coup{coup.number}"


def coup_verdict(coup: Coup, state: CoupProgress, *, shoe_next: tuple[str, ...] = ()) -> Verdict:
    return judge_coup(coup_record(coup, state, shoe_next=shoe_next), state.rules, levy=coup_levy(coup))


def coup_restore(coup: Coup, state: CoupProgress, cards: tuple[str, ...]) -> Restored | NeedsCards:
    """The engine's restoration of a revealed coup with ``cards`` as the next cards of the shoe."""
    return restore_coup(coup_record(coup, state, shoe_next=cards), state.rules)


def cards_parse(cards: list[str] | tuple[str, ...], *, field: str = "cards") -> list[str]:
    """Canonical codes for cards as typed (``9h``, ``td``, ``10D``); a clear error otherwise."""
    codes = []
    for text in cards:
        try:
            codes.append(parse_card(text))
        except CardError as exc:
            raise ValidationError({field: why(exc)}) from None
    return codes

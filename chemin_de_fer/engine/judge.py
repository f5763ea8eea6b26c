"""Judging a whole coup: violations, the coup as it should have gone, and its settlement.

``judge_coup`` is the single authority on what a finished coup means; the live state machine
(``machine.py``) flags steps as they are entered with the same tableau, and a property test checks
that both always agree. The hot path avoids every allocation it can: the offline validator runs
it on millions of records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chemin_de_fer.engine.coup import (
    NON_GAME_CODES,
    Action,
    Code,
    CoupRecord,
    Hand,
    NeedsCards,
    Outcome,
    Restored,
    Settlement,
    Verdict,
    Violation,
)
from chemin_de_fer.engine.procedure import (
    bank_violation,
    limit_violation,
    seated_after_spectator,
    spectator_violation,
    suivi_violation,
)
from chemin_de_fer.engine.profiles import NaturalTie, Profile
from chemin_de_fer.engine.settlement import LevyTerms, active_punter, settle
from chemin_de_fer.engine.tableau import STOOD, Requirement, Tableau
from core.cards import POINTS

_DRAW = Requirement.DRAW
_STAND = Requirement.STAND
_OPTION = Requirement.OPTION
_A_DRAW = Action.DRAW
_A_STAND = Action.STAND
_A_NATURAL = Action.NATURAL
_A_NONE = Action.NONE
_DECIDED = (Action.DRAW, Action.STAND)

# violations in the order they are reported: the order in which the table meets them (the bank
# is declared, the bets are made, then the cards are played)
_ORDER = {
    Code.BANK_BELOW_MINIMUM: 0,
    Code.BANK_ABOVE_LIMIT: 1,
    Code.SPECTATOR_BET_NOT_ALLOWED: 2,
    Code.SPECTATOR_BEFORE_SEATED: 3,
    Code.SUIVI_NOT_ALLOWED: 4,
    Code.BETS_EXCEED_BANK: 5,
    Code.WRONG_ACTIVE_PUNTER: 6,
    Code.NATURAL_NOT_SHOWN: 7,
    Code.CARD_AFTER_NATURAL: 8,
    Code.PLAYER_SHOULD_DRAW: 9,
    Code.PLAYER_SHOULD_STAND: 9,
    Code.BANKER_SHOULD_DRAW: 10,
    Code.BANKER_SHOULD_STAND: 10,
}


@dataclass(frozen=True, slots=True)
class Rules:
    """A profile compiled for judging: its tableau and its default levy."""

    profile: Profile
    tableau: Tableau
    levy: LevyTerms  # the profile's own levy at a chip unit of 1

    @classmethod
    def for_profile(cls, profile: Profile) -> Rules:
        return cls(profile=profile, tableau=Tableau.for_profile(profile), levy=LevyTerms.for_profile(profile))

    def levy_at(self, chip_unit: int) -> LevyTerms:
        """The profile's levy rounded to ``chip_unit``."""
        return self.levy if chip_unit == 1 else replace(self.levy, chip_unit=chip_unit)


def compare(player_total: int, banker_total: int) -> Outcome:
    if player_total > banker_total:
        return Outcome.PLAYER
    if banker_total > player_total:
        return Outcome.BANKER
    return Outcome.TIE


def natural_outcome(player_two: int, banker_two: int, natural_tie: NaturalTie) -> Outcome:
    """The outcome when a natural decides the coup (at least one side has 8 or 9 on two cards)."""
    if natural_tie is NaturalTie.STANDOFF and player_two >= 8 and banker_two >= 8:
        return Outcome.TIE  # club "en carte"
    return compare(player_two, banker_two)


def single_punter(record: CoupRecord) -> bool:
    """Did exactly one punter bet? (the home profile's player tableau depends on it)"""
    bets = record.bets
    if len(bets) == 1:
        return True
    first = bets[0].punter
    if bets[-1].punter != first:  # the common case, answered without a loop
        return False
    return all(b.punter == first for b in bets)


#: each party's breaches of the tableau: (stood where it draws, drew where it stands)
_BREACHES: dict[str, tuple[Code, Code]] = {
    "player": (Code.PLAYER_SHOULD_DRAW, Code.PLAYER_SHOULD_STAND),
    "banker": (Code.BANKER_SHOULD_DRAW, Code.BANKER_SHOULD_STAND),
}


def _tableau_breach(side: str, req: Requirement, drew: bool) -> Violation | None:
    """``side``'s breach of the tableau's ``req``, if it drew (or stood) against it; at an option
    either is allowed."""
    if req is _OPTION or (req is _DRAW) is drew:
        return None
    should_draw, should_stand = _BREACHES[side]
    return Violation(should_stand if drew else should_draw, side)


def judge_coup(record: CoupRecord, rules: Rules, *, levy: LevyTerms | None = None) -> Verdict:  # noqa: C901  (the rules' checks of a whole coup, in the order RULES.md gives them)
    """Judge a well-formed record (see ``interchange.record_from_dict`` for the checks that make
    one). ``levy`` overrides the profile's levy (a casino's own rate and rounding)."""
    pc = record.player.cards
    bc = record.banker.cards
    pa = record.player.action
    ba = record.banker.action
    points = POINTS
    p2 = (points[pc[0]] + points[pc[1]]) % 10
    b2 = (points[bc[0]] + points[bc[1]]) % 10
    p3 = len(pc) == 3
    b3 = len(bc) == 3
    pt = (p2 + points[pc[2]]) % 10 if p3 else p2
    bt = (b2 + points[bc[2]]) % 10 if b3 else b2
    profile = rules.profile

    violations: list[Violation] = []
    # procedural codes (the bank's minimum and limit, who may bet and when, a banco suivi): a
    # live table refuses them, a recorded coup is flagged and still judged, settled and restored
    # as recorded (COUP_RECORD.md)
    low = bank_violation(profile, record.bank)
    if low is not None:
        violations.append(low)
    if record.house_limit is not None:
        high = limit_violation(record.bank, record.house_limit)
        if high is not None:
            violations.append(high)
    spectator = spectator_violation(profile, record.bets, banco=record.banco)
    if spectator is not None:
        violations.append(spectator)
    if len(record.bets) > 1:  # one bet (every banco) cannot come in the wrong order
        early = seated_after_spectator(record.bets)
        if early is not None:
            violations.append(early)
    if record.banco_suivi:
        suivi = suivi_violation(profile, banco_suivi=True)
        if suivi is not None:
            violations.append(suivi)
    covered = 0
    for bet in record.bets:
        covered += bet.amount
    if covered > record.bank:
        violations.append(Violation(Code.BETS_EXCEED_BANK, "punters", f"{covered} > {record.bank}"))
    if record.active_punter is not None:
        expected = active_punter(record.bets)
        if record.active_punter != expected:
            violations.append(
                Violation(
                    Code.WRONG_ACTIVE_PUNTER, "punters", f"{expected} plays, not {record.active_punter}"
                )
            )

    game = False
    if p2 >= 8 or b2 >= 8:
        # a natural decides the coup: no third cards, no tableau. A natural not shown: recorded as
        # draw or stand, or as none (the player always speaks first, so his silence never shows
        # it; the banker's natural is shown at the reveal only when the player's decided the coup,
        # as the live table's reveal records it) — what a live table refuses to record
        if p2 >= 8 and pa is not _A_NATURAL:
            violations.append(Violation(Code.NATURAL_NOT_SHOWN, "player"))
            game = True
        if b2 >= 8 and (ba in _DECIDED or (ba is _A_NONE and p2 < 8)):
            violations.append(Violation(Code.NATURAL_NOT_SHOWN, "banker"))
            game = True
        if p3:
            violations.append(Violation(Code.CARD_AFTER_NATURAL, "player"))
            game = True
        if b3:
            violations.append(Violation(Code.CARD_AFTER_NATURAL, "banker"))
            game = True
        if not p3 and not b3 and p2 >= 8 and b2 >= 8 and profile.natural_tie is NaturalTie.STANDOFF:
            outcome = Outcome.TIE
        else:
            outcome = compare(pt, bt)
    else:
        tableau = rules.tableau
        banco = record.banco
        if banco and tableau.banco_free_play:
            preq = breq = _OPTION
        else:
            preq = tableau.player[single_punter(record)][p2]
            breq = tableau.banker[b2][points[pc[2]] if p3 else STOOD]
        for side, req, drew in (("player", preq, p3), ("banker", breq, b3)):
            breach = _tableau_breach(side, req, drew)
            if breach is not None:
                violations.append(breach)
                game = True
        outcome = compare(pt, bt)

    if len(violations) > 1:
        violations.sort(key=lambda v: _ORDER[v.code])  # stable: player before banker within a code

    restored: Restored | NeedsCards | None = None
    settled_outcome = outcome
    player_action = pa
    if game:
        restored = restore_coup(record, rules)
        if type(restored) is Restored:
            settled_outcome = restored.outcome
            player_action = restored.player_action

    settlement = (
        None
        if covered > record.bank
        else coup_settlement(record, rules, outcome=settled_outcome, player_action=player_action, levy=levy)
    )

    return Verdict(
        id=record.id,
        player_total=pt,
        banker_total=bt,
        outcome=outcome,
        violations=tuple(violations),
        settlement=settlement,
        restored=restored,
    )


def coup_settlement(
    record: CoupRecord,
    rules: Rules,
    *,
    outcome: Outcome,
    player_action: Action,
    levy: LevyTerms | None = None,
) -> Settlement:
    """The settlement of ``record`` had it ended with ``outcome`` after the player's
    ``player_action`` (as played, or as restored). The bets must not exceed the bank."""
    pc, bc = record.player.cards, record.banker.cards
    p2 = (POINTS[pc[0]] + POINTS[pc[1]]) % 10
    b2 = (POINTS[bc[0]] + POINTS[bc[1]]) % 10
    profile = rules.profile
    reimbursing = None
    # club rule: standing on one's option and losing makes the active punter answer for the
    # others' stakes; not when a banker natural decided the coup before the choice mattered
    if (
        profile.option_stand_reimburses
        and outcome is Outcome.BANKER
        and player_action is _A_STAND
        and p2 < 8
        and b2 < 8
        and rules.tableau.player_requirement(p2, single_punter=single_punter(record), banco=record.banco)
        is _OPTION
    ):
        # the active punter the rules name (RULES.md §2) answers for the others, as the live
        # table (which names him itself) settles it: a record naming another is WRONG_ACTIVE_PUNTER,
        # procedural, and the coup is settled as if it had named the right one
        reimbursing = active_punter(record.bets)
    return settle(
        outcome=outcome,
        bank=record.bank,
        bets=record.bets,
        levy=levy if levy is not None else rules.levy_at(record.chip_unit),
        uncovered_to_reserve=profile.uncovered_to_reserve,
        first_coup_of_bank=record.first_coup_of_bank,
        house_limit=record.house_limit,
        reimbursing_punter=reimbursing,
    )


def has_game_violation(verdict: Verdict) -> bool:
    return any(v.code not in NON_GAME_CODES for v in verdict.violations)


def restore_coup(record: CoupRecord, rules: Rules) -> Restored | NeedsCards:
    """Replay the coup with the correct decisions (docs/rules.md §9).

    The cards come out in one fixed order: P1, B1, P2, B2, the third cards in the order they were
    dealt (the player's first), then ``shoe_next``. Each goes to whoever should have received the
    next card; a dealt card the correct game does not need is void; a card it needs that was not
    dealt is the next from the shoe. At an option point the party's recorded choice stands.
    """
    points = POINTS
    pc = record.player.cards
    bc = record.banker.cards
    dealt = pc[2:] + bc[2:]
    seq = dealt + record.shoe_next
    p2 = (points[pc[0]] + points[pc[1]]) % 10
    b2 = (points[bc[0]] + points[bc[1]]) % 10
    player = pc[:2]
    banker = bc[:2]
    profile = rules.profile

    if p2 >= 8 or b2 >= 8:
        player_action = Action.NATURAL if p2 >= 8 else _recorded_choice(record.player.action)
        banker_action = Action.NATURAL if b2 >= 8 else Action.NONE
        return Restored(
            player_cards=player,
            banker_cards=banker,
            player_total=p2,
            banker_total=b2,
            outcome=natural_outcome(p2, b2, profile.natural_tie),
            void_cards=dealt,
            player_action=player_action,
            banker_action=banker_action,
        )

    tableau = rules.tableau
    banco = record.banco
    preq = tableau.player_requirement(p2, single_punter=single_punter(record), banco=banco)
    player_draws = preq is _DRAW or (preq is _OPTION and record.player.action is _A_DRAW)
    pos = 0
    if player_draws:
        if not seq:
            # the player's card is missing, so the banker's decision may depend on it: count his
            # card only when every possible third card makes him draw
            needs = 1
            if all(_banker_draws(tableau, b2, t, record, banco) for t in range(10)):
                needs += 1
            return NeedsCards(needs)
        player = (*player, seq[0])
        pos = 1
        third: int | None = points[seq[0]]
    else:
        third = None
    banker_draws = _banker_draws(tableau, b2, third, record, banco)
    if banker_draws:
        if pos >= len(seq):
            return NeedsCards(1)
        banker = (*banker, seq[pos])
        pos += 1
    pt = sum(points[c] for c in player) % 10
    bt = sum(points[c] for c in banker) % 10
    return Restored(
        player_cards=player,
        banker_cards=banker,
        player_total=pt,
        banker_total=bt,
        outcome=compare(pt, bt),
        void_cards=dealt[pos:],
        player_action=_A_DRAW if player_draws else _A_STAND,
        banker_action=_A_DRAW if banker_draws else _A_STAND,
        extra_cards=seq[len(dealt) : pos] if pos > len(dealt) else (),
    )


def _recorded_choice(action: Action) -> Action:
    """Facing a banker natural, the player had already announced draw or stand (or nothing)."""
    return action if action in _DECIDED else Action.NONE


def _banker_draws(tableau: Tableau, b2: int, third: int | None, record: CoupRecord, banco: bool) -> bool:
    req = tableau.banker_requirement(b2, third, banco=banco)
    return req is _DRAW or (req is _OPTION and record.banker.action is _A_DRAW)


def restored_record(record: CoupRecord, restored: Restored) -> CoupRecord:
    """The record of the coup as it should have gone: what a correction settles and exports.

    The shoe cards the restoration consumed leave ``shoe_next``; the void cards go to the
    discard and appear nowhere in it."""
    return replace(
        record,
        player=Hand(restored.player_cards, restored.player_action),
        banker=Hand(restored.banker_cards, restored.banker_action),
        shoe_next=record.shoe_next[len(restored.extra_cards) :],
    )

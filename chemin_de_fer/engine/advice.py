"""Advice at option points: which choice, draw or stand, has the higher expectation for the party
who chooses, computed exactly (``fractions.Fraction``, no sampling, no floating point).

Why exact: the croupier may show the better choice (docs/rules.md §5, last line) and an auditor must
be able to recompute it bit for bit; at several option points (player on 5, banker 3 against 9) the
two expectations differ by well under one per cent, where a simulation would flip its answer from run
to run.

Information
    Each party is advised from **his own information only**. ``unseen`` counts, by point value, every
    card the chooser cannot see: what is left in the shoe *plus the opponent's face-down cards*. The
    caller computes it (``cards.remaining_by_points`` minus nothing the chooser has not seen); the
    chooser's own cards and any face-up card are *not* in it. The opponent's hidden cards are never
    used except as one more unknown drawn from ``unseen``: advising a party with them would be
    advising him with information he does not have, i.e. helping him cheat.

Opponent's behaviour (:data:`ASSUMPTION`)
    An expectation needs a model of what the other side will do. We assume the opponent follows the
    tableau where it binds and, at **his** option points, Punto Banco's fixed convention: the player
    draws on 0-5 and stands on 6-7; the banker draws at 3 against 9 and at 5 against 4; the club
    banker, free at 5-7, plays the Punto Banco row for his total and the player's third card (after the
    player stood: draws on 0-5, stands on 6-7). The convention is the one every croupier knows and the
    one the opponent most probably plays; it is not a game-theoretic equilibrium, and the advice is
    only as good as that model.

    Because every tableau in the product agrees with Punto Banco where it binds the player (draw on 0,
    stand on 6-7 with several punters), the player's modelled policy is Punto Banco's whether one or
    several punters bet: the banker needs not know which.

What the opponent's play reveals
    * Player's advice: the banker's two hidden cards are drawn from ``unseen`` without conditioning.
      A banker natural is part of the outcome (it wins at once, before the player's third card is
      dealt), so it costs the player the same whichever he chooses.
    * Banker's advice: the banker has no natural (he would have shown it, there is no option). The
      player's two hidden cards are drawn from ``unseen`` *conditioned on what the player did*: no
      natural (he would have shown it) and a two-card total on which the player's policy draws
      (``player_third`` given) or stands (``player_third is None``). The face-up third card is not in
      ``unseen``; by exchangeability of the shoe the hidden pair is then exactly a draw from
      ``unseen``, whatever order the cards came out in. Should no hidden hand fit the model (only
      possible in a nearly empty shoe, after a player played his option against the convention),
      the banker falls back to the hands on which the tableau *allowed* what the player did.

Ties
    When both choices have the same expectation, the advice is the tableau-conventional choice,
    i.e. Punto Banco's: the player draws on 0-5 and stands on 6-7; the banker follows the Punto Banco
    row for his total and the player's third card (draw at 3 against 9 and 5 against 4).

Expectations are per unit of covered stake, from the chooser's point of view: a win is worth +1 to
the player, a loss -1; to the banker a win is worth ``(10000 - levy_bp) / 10000`` (the percentage tax
is taken from banker wins only; pass ``levy_bp=0`` where no percentage tax applies) and a loss -1.
Stand-offs are worth 0.

Speed: everything is enumerated by point value (ten values, not 52 cards) with integer weights
and one division at the end, so a call costs a few thousand integer operations: about 0.5 ms for
the player's advice and 0.1 ms for the banker's on an 8-deck shoe (``bench/odds_bench.py``), far
inside the 50 ms an interactive screen can afford.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from chemin_de_fer.engine.tableau import PUNTO_BANCO, STOOD, Requirement, Tableau
from core.cards import POINTS

__all__ = [
    "ASSUMPTION",
    "INFINITE_DECK",
    "Advice",
    "AdviceError",
    "advise_banker",
    "advise_player",
    "banker_evs",
    "banker_policy",
    "player_evs",
    "player_may",
    "player_policy",
]

#: the opponent model every expectation here rests on; short enough to show next to the advice
ASSUMPTION = (
    "Assumes the opponent follows the tableau where it binds and, at their own option points, "
    "Punto Banco's convention (player draws on 0-5, stands on 6-7; banker draws at 3 against 9 "
    "and 5 against 4, and at a free 5-7 plays the Punto Banco row). Computed only from the "
    "chooser's own cards and the cards the chooser cannot see."
)

#: relative frequency of each point value in an infinite deck: ten, jack, queen, king count 0
INFINITE_DECK: tuple[int, ...] = (4, 1, 1, 1, 1, 1, 1, 1, 1, 1)
_INFINITE_POOL = 13

_D, _S, _O = Requirement.DRAW, Requirement.STAND, Requirement.OPTION
_SCALE = 10_000  # basis points: banker outcomes are counted in 1/10000 of the covered stake


class AdviceError(ValueError):
    """Advice asked where there is no option, or for cards/counts that cannot occur."""


@dataclass(frozen=True, slots=True)
class Advice:
    """The better choice at one option point, with both exact expectations.

    ``ev_draw`` and ``ev_stand`` are per unit of covered stake from the chooser's point of view.
    ``basis`` says whether they were computed on the actual shoe (``"shoe"``) or an infinite deck.
    ``assumption`` is the opponent model (:data:`ASSUMPTION`) for the caller to display.
    """

    chooser: Literal["player", "banker"]
    choice: Requirement
    ev_draw: Fraction
    ev_stand: Fraction
    basis: Literal["shoe", "infinite"]
    assumption: str = ASSUMPTION

    @property
    def margin(self) -> Fraction:
        """How much the advised choice gains over the other (never negative)."""
        return abs(self.ev_draw - self.ev_stand)


# ---------------------------------------------------------------------------------------------
# Policies: what a party does when he follows the tableau and, at his options, the convention.


def player_policy(tableau: Tableau, *, banco: bool = False) -> tuple[bool, ...]:
    """``policy[total]`` (0..7): does the player draw, following the tableau where it binds and
    Punto Banco (draw on 0-5) at his options?

    Both rows of the tableau (several punters, single punter) are read: the banker cannot be assumed
    to know which applies, so a point binds only where the rows agree; every built-in tableau agrees
    with Punto Banco wherever it binds, so in practice this *is* Punto Banco's rule.
    """
    policy = []
    for total in range(8):
        reqs = {tableau.player_requirement(total, single_punter=s, banco=banco) for s in (False, True)}
        binding = reqs - {_O}
        if len(binding) == 1 and _O not in reqs:
            policy.append(binding.pop() is _D)
        else:
            policy.append(PUNTO_BANCO.player[0][total] is _D)
    return tuple(policy)


def banker_policy(tableau: Tableau, *, banco: bool = False) -> tuple[tuple[bool, ...], ...]:
    """``policy[total][third]`` (third 0..9, or :data:`~chemin_de_fer.engine.tableau.STOOD`): does the banker
    draw, following the tableau where it binds and the Punto Banco row at his options?"""
    rows = []
    for total in range(8):
        row = []
        for column in range(11):
            req = tableau.banker_requirement(total, None if column == STOOD else column, banco=banco)
            if req is _O:
                req = PUNTO_BANCO.banker[total][column]
            row.append(req is _D)
        rows.append(tuple(row))
    return tuple(rows)


# ---------------------------------------------------------------------------------------------
# Shared helpers


def _pool(unseen: tuple[int, ...] | None, need: int) -> tuple[list[int], int, int]:
    """The counts to draw from, how much one draw removes (1 finite, 0 infinite) and the pool size."""
    if unseen is None:
        return list(INFINITE_DECK), 0, _INFINITE_POOL
    if len(unseen) != 10 or any((not isinstance(c, int)) or c < 0 for c in unseen):
        raise AdviceError(f"unseen must be ten non-negative counts (points 0..9), got {unseen!r}")
    n = sum(unseen)
    if n < need:
        raise AdviceError(f"{n} unseen cards cannot complete the coup ({need} may still be needed)")
    return list(unseen), 1, n


def two_card_hands(left: list[int], dec: int) -> Iterator[tuple[int, int, int]]:
    """Every two-card hand the pool ``left`` (counts by point value) can still deal, as point
    values ``a <= b`` with its weight in ordered draws: an unordered pair of distinct values stands
    for its two orders, hence the factor 2. While a hand is yielded its cards are out of ``left``
    (``dec`` each: 1 finite, 0 infinite), so the caller counts what is drawn next, another hand
    included, from what is really left; they go back when the caller asks for the next hand."""
    for a in range(10):
        ca = left[a]
        if not ca:
            continue
        left[a] -= dec
        for b in range(a, 10):
            cb = left[b]
            if not cb:
                continue
            left[b] -= dec
            yield a, b, ca * cb if a == b else 2 * ca * cb
            left[b] += dec
        left[a] += dec


def _points(cards: tuple[str, ...], who: str) -> tuple[int, int]:
    if len(cards) != 2:
        raise AdviceError(f"the {who} has exactly two cards at an option point, got {cards!r}")
    try:
        return POINTS[cards[0]], POINTS[cards[1]]
    except KeyError as exc:
        raise AdviceError(f"bad card {exc.args[0]!r} in the {who}'s hand") from None


def _cmp(a: int, b: int) -> int:
    """+1 when total ``a`` beats ``b``, -1 when it loses, 0 on a stand-off."""
    return (a > b) - (a < b)


# ---------------------------------------------------------------------------------------------
# Player's advice


def player_evs(
    total: int, unseen: tuple[int, ...] | None, bank_draws: tuple[tuple[bool, ...], ...]
) -> tuple[Fraction, Fraction]:
    """``(ev_draw, ev_stand)`` for a player on two-card ``total`` (0..7) against a banker who plays
    ``bank_draws``; the banker's two hidden cards, the player's third and the banker's third are all
    drawn from ``unseen`` (without replacement) or an infinite deck.

    Integer weights throughout: every path is counted as ordered draws over a common denominator
    (pool falling factorial of the longest path), so the only division is the final Fraction.
    """
    left, dec, n = _pool(unseen, 4)
    if dec:
        n1, n2, n3 = n - 1, n - 2, n - 3
    else:
        n1 = n2 = n3 = n
    values = range(10)
    ev_stand = 0  # over n * n1 * n2
    ev_draw = 0  # over n * n1 * n2 * n3
    for a, b, w in two_card_hands(left, dec):
        bt = (a + b) % 10
        if bt >= 8:  # banker natural: he shows it and wins at once, whatever the player said
            ev_stand -= w * n2
            ev_draw -= w * n2 * n3
            continue
        row = bank_draws[bt]
        # -- player stands on `total`
        if row[STOOD]:
            ev_stand += w * sum(left[v] * _cmp(total, (bt + v) % 10) for v in values)
        else:
            ev_stand += w * n2 * _cmp(total, bt)
        # -- player draws a third card c
        acc = 0
        for c in values:
            cc = left[c]
            if not cc:
                continue
            pt = (total + c) % 10
            if row[c]:
                left[c] -= dec
                acc += cc * sum(left[v] * _cmp(pt, (bt + v) % 10) for v in values)
                left[c] += dec
            else:
                acc += cc * n3 * _cmp(pt, bt)
        ev_draw += w * acc
    return Fraction(ev_draw, n * n1 * n2 * n3), Fraction(ev_stand, n * n1 * n2)


def advise_player(
    tableau: Tableau,
    player_cards: tuple[str, str],
    *,
    single_punter: bool,
    unseen: tuple[int, ...] | None,
    levy_bp: int = 0,
    banco: bool = False,
) -> Advice:
    """Should the player draw or stand on his two cards?

    ``unseen``: counts by point value (index 0 = tens and faces) of the cards the player cannot see
    (the shoe's remainder *and the banker's two face-down cards*, never told apart); ``None`` for an
    infinite deck. The banker's hidden cards are never an input: advising the player with them would
    be using information he does not have.

    The banker is assumed to follow the tableau where it binds and the Punto Banco row at his options
    (:data:`ASSUMPTION`). A banker natural counts as a loss under either choice (it ends the coup
    before the player's card). ``levy_bp`` does not change the player's expectation (a loss costs
    the player his whole stake, the tax comes out of the banker's win); it is accepted so that both
    advice functions are called alike. Ties go to Punto Banco's choice: draw on 0-5, stand on 6-7.

    Raises :class:`AdviceError` on a natural or where the tableau binds the player (no option).
    """
    p1, p2 = _points(player_cards, "player")
    total = (p1 + p2) % 10
    if total >= 8:
        raise AdviceError("a natural is shown at once: the player has no option")
    req = tableau.player_requirement(total, single_punter=single_punter, banco=banco)
    if req is not _O:
        raise AdviceError(f"no option: the tableau requires the player to {req} on {total}")
    _check_levy(levy_bp)
    ev_draw, ev_stand = player_evs(total, unseen, banker_policy(tableau, banco=banco))
    return _advice("player", ev_draw, ev_stand, PUNTO_BANCO.player[0][total], unseen=unseen)


# ---------------------------------------------------------------------------------------------
# Banker's advice


def player_may(tableau: Tableau, *, drew: bool, banco: bool = False) -> tuple[bool, ...]:
    """``may[total]`` (0..9): could a player on that two-card total have done what he did (drawn or
    stood) without breaking the tableau, with one punter or several? Naturals (8, 9) never could."""
    return tuple(
        total < 8
        and any(
            (req := tableau.player_requirement(total, single_punter=s, banco=banco)) is _O
            or (req is _D) is drew
            for s in (False, True)
        )
        for total in range(10)
    )


def banker_evs(
    total: int,
    player_third: int | None,
    unseen: tuple[int, ...] | None,
    player_draws: tuple[bool, ...],
    levy_bp: int = 0,
    player_allowed: tuple[bool, ...] | None = None,
) -> tuple[Fraction, Fraction]:
    """``(ev_draw, ev_stand)`` for a banker on two-card ``total`` (0..7) who saw the player's third
    card's points ``player_third`` (or ``None``: the player stood).

    The player's hidden pair is drawn from ``unseen`` and kept only if it is no natural and the
    modelled policy ``player_draws`` agrees with what the player did: Bayes' rule with integer
    weights, the normalising constant being the total weight kept. The banker's third card comes
    from what is left of ``unseen`` after that pair.

    When no hidden pair fits the model (a tiny shoe and a player who played his option against the
    convention), the model is refuted by the facts; the hands are then those ``player_allowed``
    (see :func:`player_may`) says the tableau let him play that way, rather than no answer at all.
    """
    drew = player_third is not None
    keep = tuple(t < 8 and player_draws[t] is drew for t in range(10))
    result = _banker_tally(total, player_third, unseen, keep, levy_bp)
    if result is None and player_allowed is not None:
        result = _banker_tally(total, player_third, unseen, player_allowed, levy_bp)
    if result is None:
        raise AdviceError("no hidden player hand in the unseen cards is consistent with what the player did")
    return result


def _banker_tally(
    total: int,
    player_third: int | None,
    unseen: tuple[int, ...] | None,
    keep: tuple[bool, ...],
    levy_bp: int,
) -> tuple[Fraction, Fraction] | None:
    """The two expectations over the hidden pairs whose total ``keep`` admits; ``None`` if none."""
    left, dec, n = _pool(unseen, 3)
    n2 = n - 2 if dec else n
    win = _SCALE - levy_bp
    values = range(10)
    kept = 0  # total weight of the consistent hidden pairs
    ev_stand = 0  # over kept * _SCALE
    ev_draw = 0  # over kept * n2 * _SCALE
    for a, b, w in two_card_hands(left, dec):
        ht = (a + b) % 10
        if not keep[ht]:
            continue
        kept += w
        pt = ht if player_third is None else (ht + player_third) % 10
        c = _cmp(total, pt)
        ev_stand += w * (win if c > 0 else -_SCALE if c < 0 else 0)
        acc = 0
        for v in values:
            cv = left[v]
            if cv:
                c = _cmp((total + v) % 10, pt)
                if c > 0:
                    acc += cv * win
                elif c < 0:
                    acc -= cv * _SCALE
        ev_draw += w * acc
    if not kept:
        return None
    return Fraction(ev_draw, kept * n2 * _SCALE), Fraction(ev_stand, kept * _SCALE)


def advise_banker(
    tableau: Tableau,
    banker_cards: tuple[str, str],
    player_third: str | None,
    *,
    unseen: tuple[int, ...] | None,
    levy_bp: int = 0,
    banco: bool = False,
) -> Advice:
    """Should the banker draw or stand, having seen the player's face-up third card (or that he stood)?

    ``unseen``: counts by point value of the cards the banker cannot see (the shoe's remainder *and
    the player's two face-down cards*); the player's face-up third card is known and not in it;
    ``None`` for an infinite deck. The player's hidden cards are never an input: they enter only as
    two unknowns drawn from ``unseen`` conditioned on what the player did (no natural; his policy,
    tableau plus Punto Banco convention, drew or stood as observed).

    ``levy_bp``: the percentage tax in basis points, taken from banker wins (500 = 5 %); 0 where no
    percentage tax applies. Ties go to the Punto Banco row for this total and third card.

    Raises :class:`AdviceError` on a banker natural (he shows it, no option), where the tableau binds
    him, or when no hidden player hand is consistent with the play.
    """
    b1, b2 = _points(banker_cards, "banker")
    total = (b1 + b2) % 10
    if total >= 8:
        raise AdviceError("a banker natural is shown at once: the banker has no option")
    if player_third is None:
        third = None
    else:
        if player_third not in POINTS:
            raise AdviceError(f"bad card {player_third!r} as the player's third card")
        third = POINTS[player_third]
    req = tableau.banker_requirement(total, third, banco=banco)
    if req is not _O:
        seen = "the player stood" if third is None else f"the player's third card is {third}"
        raise AdviceError(f"no option: the tableau requires the banker to {req} on {total} when {seen}")
    _check_levy(levy_bp)
    ev_draw, ev_stand = banker_evs(
        total,
        third,
        unseen,
        player_policy(tableau, banco=banco),
        levy_bp,
        player_may(tableau, drew=third is not None, banco=banco),
    )
    conventional = PUNTO_BANCO.banker[total][STOOD if third is None else third]
    return _advice("banker", ev_draw, ev_stand, conventional, unseen=unseen)


def _check_levy(levy_bp: int) -> None:
    if not 0 <= levy_bp <= _SCALE:
        raise AdviceError("levy_bp must be between 0 and 10000")


def _advice(
    chooser: Literal["player", "banker"],
    ev_draw: Fraction,
    ev_stand: Fraction,
    conventional: Requirement,
    *,
    unseen: tuple[int, ...] | None,
) -> Advice:
    """The advice of both expectations, either chooser's: the better choice, the convention's on a tie."""
    return Advice(
        chooser=chooser,
        choice=_better(ev_draw, ev_stand, conventional),
        ev_draw=ev_draw,
        ev_stand=ev_stand,
        basis="infinite" if unseen is None else "shoe",
    )


def _better(ev_draw: Fraction, ev_stand: Fraction, conventional: Requirement) -> Requirement:
    if ev_draw == ev_stand:
        return conventional
    return _D if ev_draw > ev_stand else _S

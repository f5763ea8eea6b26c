"""Exact odds of a coup for a rule profile, with every option resolved by the advice.

Why exact and why here: a casino choosing a profile (tax or no tax, option 5-vs-4, the club's free
banker) wants to know what the bank earns per unit covered, and the answer differs from Punto Banco's
by a few hundredths of a per cent: only an exact enumeration can be compared with the published
Punto Banco figures (8 decks: banker 0.458597, player 0.446247, tie 0.095156) and trusted below that.

Method
    A fresh shoe is dealt without replacement in the order P1, B1, P2, B2, then the player's third
    card, then the banker's. The probability of a sequence of card values depends only on the
    multiset of values drawn, so the two cards of each hand are enumerated as a multiset of point
    values (55 pairs per hand, not 52 x 51 cards) and every path is weighted by the falling product
    of the counts it uses, all over the common denominator ``N (N-1) ... (N-5)``: integers only,
    one Fraction at the end. ``decks=None`` is the infinite deck: each card is 0 with probability
    4/13 and each of 1..9 with 1/13, independently.

    An option point is resolved by :mod:`chemin_de_fer.engine.advice` for the actual cards, from the
    chooser's information only: the player from his two cards and the fresh shoe minus them; the
    banker from his two cards, the player's face-up third card (or that he stood) and the shoe minus
    those. Each decision is memoised per (hand multiset, third card) -- the advice depends on nothing
    else -- so an 8-deck profile costs some 20-35 ms (``bench/odds_bench.py``). Nothing is sampled
    or approximated.

    The advice models the opponent by the Punto Banco convention at *his* options (see
    :data:`chemin_de_fer.engine.advice.ASSUMPTION`), while in this enumeration the opponent actually plays the
    advice too; the odds are therefore those of two advised parties, not an equilibrium.

Not counted: burn cards (face-up burns would change the players' information; a fresh shoe is
assumed), the hourly fee and the club's card money (billed by time, not by coup), the club's
reimbursement between punters after a stand on 5 (money between punters, not the bank's).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

from chemin_de_fer.engine.advice import (
    INFINITE_DECK,
    banker_evs,
    banker_policy,
    player_evs,
    player_may,
    player_policy,
    two_card_hands,
)
from chemin_de_fer.engine.profiles import LevyMode, NaturalTie, Profile
from chemin_de_fer.engine.tableau import PUNTO_BANCO, STOOD, Requirement, Tableau

__all__ = [
    "PUNTO_BANCO_LEVY_BP",
    "Odds",
    "expected_levy_at_rate",
    "fresh_shoe",
    "profile_odds",
    "punto_banco_odds",
    "shoe_odds",
]

#: Punto Banco's commission on winning banker bets, basis points (5 %)
PUNTO_BANCO_LEVY_BP = 500

_FIELDS = ("banker_win", "player_win", "tie", "banker_ev_per_unit", "expected_levy_per_unit")


class _AsFloat:
    """One exact figure of :class:`Odds` read as a float (``odds.tie_float``), for a chart or a
    glance: every sum and every rounding is made on the Fraction."""

    def __init__(self, figure: str) -> None:
        self.figure = figure

    def __get__(self, odds: object, owner: type | None = None) -> float:
        return float(getattr(odds, self.figure))


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact outcome probabilities of one coup and what they mean for the bank.

    ``banker_ev_per_unit``: the banker's expectation per unit of covered stake, after the percentage
    levy ``levy_bp`` (``banker_win * (1 - rate) - player_win``). ``expected_levy_per_unit``: what the
    levy takes per unit covered (``banker_win * rate``). ``decks`` is ``None`` for an infinite deck.
    """

    label: str
    decks: int | None
    single_punter: bool
    levy_bp: int
    banker_win: Fraction
    player_win: Fraction
    tie: Fraction
    banker_ev_per_unit: Fraction
    expected_levy_per_unit: Fraction

    @property
    def basis(self) -> str:
        """``"8 decks exact"`` or ``"infinite deck"``: how the figures were obtained."""
        if self.decks is None:
            return "infinite deck"
        return f"{self.decks} deck{'s' if self.decks != 1 else ''} exact"

    banker_win_float = _AsFloat("banker_win")
    player_win_float = _AsFloat("player_win")
    tie_float = _AsFloat("tie")
    banker_ev_float = _AsFloat("banker_ev_per_unit")
    expected_levy_float = _AsFloat("expected_levy_per_unit")

    def rounded(self, digits: int = 6) -> dict[str, float]:
        """The five figures rounded *exactly* (half-even on the Fraction, not on a binary float)."""
        return {name: float(round(getattr(self, name), digits)) for name in _FIELDS}

    def exact(self) -> dict[str, str]:
        """The five figures as exact fractions ``"p/q"``, for audit trails and JSON."""
        return {name: str(getattr(self, name)) for name in _FIELDS}


def fresh_shoe(decks: int) -> tuple[int, ...]:
    """Counts by point value of a full shoe: tens and faces are 16 per deck, each other value 4."""
    if decks < 1:
        raise ValueError("a shoe holds at least one deck")
    return (16 * decks,) + (4 * decks,) * 9


def profile_odds(profile: Profile, *, decks: int | None, single_punter: bool = False) -> Odds:
    """Exact odds of one coup under ``profile`` on a fresh shoe of ``decks`` decks (``None``:
    infinite deck), every option resolved by the advice for the actual cards.

    ``single_punter`` selects the home profile's single-punter player tableau (options on 1-7).
    The levy is ``profile.tax_rate_bp`` when the profile's levy is a percentage, otherwise 0.
    """
    shoe = None if decks is None else fresh_shoe(decks)
    return shoe_odds(shoe, profile, single_punter=single_punter, decks=decks)


def punto_banco_odds(*, decks: int | None, levy_bp: int = PUNTO_BANCO_LEVY_BP) -> Odds:
    """Exact Punto Banco odds on a fresh shoe of ``decks`` decks (``None``: infinite deck).

    ``banker_ev_per_unit`` is then the banker *bet's* expectation after Punto Banco's 5 % commission
    (8 decks: -0.010579); pass ``levy_bp=0`` for the commission-free figure.
    """
    shoe = None if decks is None else fresh_shoe(decks)
    return shoe_odds(shoe, None, decks=decks, levy_bp=levy_bp)


def shoe_odds(
    shoe: tuple[int, ...] | None,
    profile: Profile | None,
    *,
    single_punter: bool = False,
    decks: int | None = None,
    levy_bp: int | None = None,
) -> Odds:
    """Exact odds of one coup dealt from a shoe holding ``shoe[v]`` cards of point value ``v``
    (``None``: infinite deck), under ``profile``'s rules or, for ``profile=None``, Punto Banco's.

    This is the engine behind :func:`profile_odds` and :func:`punto_banco_odds`, public so that any
    composition (a part-dealt shoe, a synthetic shoe of a few cards) can be checked; ``decks`` only
    labels the result. ``levy_bp`` overrides the profile's percentage levy (Punto Banco: 5 %).
    """
    if shoe is not None:
        if len(shoe) != 10 or any(c < 0 for c in shoe):
            raise ValueError("a shoe is ten non-negative counts by point value")
        if sum(shoe) < 6:
            raise ValueError("a coup may need six cards")
    if profile is None:
        label = "punto_banco"
        tableau = PUNTO_BANCO
        natural_standoff = False
        rate = PUNTO_BANCO_LEVY_BP if levy_bp is None else levy_bp
        player_draws, banker_draws = _fixed_policies(PUNTO_BANCO)
    else:
        label = profile.slug
        tableau = Tableau.for_profile(profile)
        natural_standoff = profile.natural_tie is NaturalTie.STANDOFF
        if levy_bp is not None:
            rate = levy_bp
        else:
            rate = profile.tax_rate_bp if profile.levy_mode is LevyMode.PERCENTAGE else 0
        player_draws, banker_draws = _advised_policies(tableau, shoe, single_punter, rate)
    banker, player, tie, denominator = _enumerate(shoe, player_draws, banker_draws, natural_standoff)
    bw, pw, tw = (Fraction(x, denominator) for x in (banker, player, tie))
    levy = Fraction(rate, 10_000)
    return Odds(
        label=label,
        decks=decks if shoe is not None else None,
        single_punter=single_punter,
        levy_bp=rate,
        banker_win=bw,
        player_win=pw,
        tie=tw,
        banker_ev_per_unit=bw * (1 - levy) - pw,
        expected_levy_per_unit=bw * levy,
    )


# ---------------------------------------------------------------------------------------------
# Decisions

PlayerDraws = Callable[[int, int], bool]  # (p1, p2), p1 <= p2 -> draws?
BankerDraws = Callable[[int, int, int | None], bool]  # (b1, b2, player's third or None) -> draws?


def _fixed_policies(tableau: Tableau) -> tuple[PlayerDraws, BankerDraws]:
    """A tableau without options (Punto Banco): decisions are table look-ups."""
    player = player_policy(tableau)
    banker = banker_policy(tableau)

    def player_draws(p1: int, p2: int) -> bool:
        return player[(p1 + p2) % 10]

    def banker_draws(b1: int, b2: int, third: int | None) -> bool:
        return banker[(b1 + b2) % 10][STOOD if third is None else third]

    return player_draws, banker_draws


def _advised_policies(
    tableau: Tableau, shoe: tuple[int, ...] | None, single_punter: bool, levy_bp: int
) -> tuple[PlayerDraws, BankerDraws]:
    """Decisions by the tableau where it binds, by the advice at option points, memoised.

    The advice sees what the chooser sees: the fresh ``shoe`` minus his own two cards and, for the
    banker, minus the player's face-up third card. The memo key is exactly that information.
    """
    bank_model = banker_policy(tableau)  # how the player expects the banker to play
    punter_model = player_policy(tableau)  # how the banker expects the player to play
    punter_may = {drew: player_may(tableau, drew=drew) for drew in (False, True)}
    player_memo: dict[tuple[int, int], bool] = {}
    banker_memo: dict[tuple[int, int, int | None], bool] = {}

    def unseen_without(*values: int) -> tuple[int, ...] | None:
        if shoe is None:
            return None
        left = list(shoe)
        for v in values:
            left[v] -= 1
        return tuple(left)

    def player_draws(p1: int, p2: int) -> bool:
        key = (p1, p2)
        if key not in player_memo:
            total = (p1 + p2) % 10
            req = tableau.player_requirement(total, single_punter=single_punter)
            if req is Requirement.OPTION:
                ev_draw, ev_stand = player_evs(total, unseen_without(p1, p2), bank_model)
                draws = ev_draw > ev_stand or (
                    ev_draw == ev_stand and PUNTO_BANCO.player[0][total] is Requirement.DRAW
                )
            else:
                draws = req is Requirement.DRAW
            player_memo[key] = draws
        return player_memo[key]

    def banker_draws(b1: int, b2: int, third: int | None) -> bool:
        key = (b1, b2, third)
        if key not in banker_memo:
            total = (b1 + b2) % 10
            req = tableau.banker_requirement(total, third)
            if req is Requirement.OPTION:
                seen = (b1, b2) if third is None else (b1, b2, third)
                ev_draw, ev_stand = banker_evs(
                    total, third, unseen_without(*seen), punter_model, levy_bp, punter_may[third is not None]
                )
                column = STOOD if third is None else third
                draws = ev_draw > ev_stand or (
                    ev_draw == ev_stand and PUNTO_BANCO.banker[total][column] is Requirement.DRAW
                )
            else:
                draws = req is Requirement.DRAW
            banker_memo[key] = draws
        return banker_memo[key]

    return player_draws, banker_draws


# ---------------------------------------------------------------------------------------------
# The enumeration


def _enumerate(  # noqa: C901  (the exact enumeration of every deal, one loop a card)
    shoe: tuple[int, ...] | None,
    player_draws: PlayerDraws,
    banker_draws: BankerDraws,
    natural_standoff: bool,
) -> tuple[int, int, int, int]:
    """Integer weights of (banker wins, player wins, ties) and their common denominator.

    Every path is scaled to six cards: a path that stops after four cards is multiplied by the
    number of ways the fifth and sixth could have come (``n4 * n5``), one that stops after five by
    ``n5``. The hand loops run over multisets ``a <= b`` (:func:`two_card_hands`).
    """
    if shoe is None:
        left, dec = list(INFINITE_DECK), 0
        n = 13
        denominator = n**6
        n4 = n5 = n
    else:
        left, dec = list(shoe), 1
        n = sum(shoe)
        denominator = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
        n4, n5 = n - 4, n - 5
    values = range(10)
    banker = player = tie = 0

    def settle(weight: int, pt: int, bt: int) -> None:
        nonlocal banker, player, tie
        if pt > bt:
            player += weight
        elif bt > pt:
            banker += weight
        else:
            tie += weight

    for p1, p2, wp in two_card_hands(left, dec):
        pt0 = (p1 + p2) % 10
        p_natural = pt0 >= 8
        p_draws = False if p_natural else player_draws(p1, p2)
        for b1, b2, wb in two_card_hands(left, dec):
            w4 = wp * wb
            bt0 = (b1 + b2) % 10
            if p_natural or bt0 >= 8:
                # naturals: shown at once, no third card (club: any two naturals stand off)
                if p_natural and bt0 >= 8 and natural_standoff:
                    tie += w4 * n4 * n5
                else:
                    settle(w4 * n4 * n5, pt0, bt0)
            elif not p_draws:
                if banker_draws(b1, b2, None):
                    for v in values:
                        cv = left[v]
                        if cv:
                            settle(w4 * cv * n5, pt0, (bt0 + v) % 10)
                else:
                    settle(w4 * n4 * n5, pt0, bt0)
            else:
                for c in values:
                    cc = left[c]
                    if not cc:
                        continue
                    pt = (pt0 + c) % 10
                    if banker_draws(b1, b2, c):
                        left[c] -= dec
                        wc = w4 * cc
                        for v in values:
                            cv = left[v]
                            if cv:
                                settle(wc * cv, pt, (bt0 + v) % 10)
                        left[c] += dec
                    else:
                        settle(w4 * cc * n5, pt, bt0)
    return banker, player, tie, denominator


@functools.lru_cache(maxsize=256)
def expected_levy_at_rate(profile: Profile, decks: int, rate_bp: int) -> Fraction:
    """The expected levy per unit of covered stake for a fresh shoe of ``decks`` decks, at the
    percentage the casino actually charged (``rate_bp``), whatever levy the profile names.
    Memoised: one enumeration costs ~20 ms, and a year has few distinct (profile, decks, rate)."""
    if rate_bp == 0:
        return Fraction(0)
    charged = replace(profile, levy_mode=LevyMode.PERCENTAGE, tax_rate_bp=rate_bp)
    return profile_odds(charged, decks=decks).expected_levy_per_unit

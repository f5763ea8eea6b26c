"""Money: who plays the hand, who wins the banco, the levy and the settlement (docs/rules.md §2, §6).

All amounts are integer chips. Every function here is total over valid input and never rounds
in a way that creates or destroys a chip: the settlement always sums to zero across banker,
punters and levy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chemin_de_fer.engine.coup import Outcome, Settlement, Stake
from chemin_de_fer.engine.profiles import LevyMode, Profile, Rounding


@dataclass(frozen=True, slots=True)
class LevyTerms:
    """The percentage levy on banker wins, as a casino applies it."""

    rate_bp: int = 0  # basis points of the covered stake; 0 = no percentage levy
    rounding: Rounding = Rounding.DOWN
    chip_unit: int = 1
    first_coup_exempt: bool = False

    def __post_init__(self) -> None:
        if self.chip_unit < 1:
            raise ValueError("the chip unit is a positive number of chips")
        if not 0 <= self.rate_bp <= 10_000:
            raise ValueError("the levy rate is between 0 and 10000 basis points")

    @classmethod
    def for_profile(cls, profile: Profile, *, chip_unit: int = 1) -> LevyTerms:
        rate = profile.tax_rate_bp if profile.levy_mode is LevyMode.PERCENTAGE else 0
        return cls(
            rate_bp=rate,
            rounding=profile.levy_rounding,
            chip_unit=chip_unit,
            first_coup_exempt=profile.first_coup_exempt,
        )

    def levy(self, covered: int, *, first_coup_of_bank: bool) -> int:
        """The levy on a banker win of ``covered`` chips, rounded to the chip unit."""
        if self.rate_bp == 0 or (first_coup_of_bank and self.first_coup_exempt):
            return 0
        unit = self.chip_unit
        if self.rounding is Rounding.DOWN:
            return covered * self.rate_bp // (10_000 * unit) * unit
        # nearest chip, half up: add half a unit (in basis-point scale) before truncating
        return (covered * self.rate_bp + 5_000 * unit) // (10_000 * unit) * unit


def stakes_by_punter(bets: Sequence[Stake]) -> dict[str, int]:
    """Each bettor's total stake, in the order each first bet (a punter may bet twice)."""
    totals: dict[str, int] = {}
    for bet in bets:
        totals[bet.punter] = totals.get(bet.punter, 0) + bet.amount
    return totals


def active_punter(bets: Sequence[Stake]) -> str:
    """Who plays the single player hand for everybody.

    The largest stake plays; on equal stakes the earlier in betting order. Only a seated bettor
    plays while any seated bettor has a stake: a spectator plays only when he is the sole bettor,
    which is the case when he called banco (and in the club profile a seated bettor always plays,
    which is the same rule).
    """
    if not bets:
        raise ValueError("nobody bet")
    seated: dict[str, int] = {}
    anyone: dict[str, int] = {}
    for bet in bets:
        anyone[bet.punter] = anyone.get(bet.punter, 0) + bet.amount
        if not bet.spectator:
            seated[bet.punter] = seated.get(bet.punter, 0) + bet.amount
    pool = seated or anyone
    best = None
    best_amount = -1
    for punter, amount in pool.items():  # dicts keep first-bet order: the earlier wins ties
        if amount > best_amount:
            best, best_amount = punter, amount
    assert best is not None
    return best


@dataclass(frozen=True, slots=True)
class BancoCaller:
    punter: str
    spectator: bool = False
    suivi: bool = False  # a losing banco caller claiming the next coup
    order: int = 0  # position in betting order (0 = first to bet)


def banco_winner(callers: Sequence[BancoCaller], *, banco_suivi: bool) -> BancoCaller:
    """Priority among several banco callers: a banco suivi first (where the profile has it),
    then seated before spectators, then the earlier in betting order."""
    if not callers:
        raise ValueError("nobody called banco")
    return min(
        callers,
        key=lambda c: (not (banco_suivi and c.suivi), c.spectator, c.order),
    )


def settle(
    *,
    outcome: Outcome,
    bank: int,
    bets: Sequence[Stake],
    levy: LevyTerms,
    uncovered_to_reserve: bool,
    first_coup_of_bank: bool = False,
    house_limit: int | None = None,
    reimbursing_punter: str | None = None,
) -> Settlement:
    """Settle one coup.

    ``reimbursing_punter`` is the club rule (docs/rules.md §6, "Club: standing on one's option"):
    the active punter who stood on his option and lost owes the other punters their lost stakes
    himself. The bank still collects every stake; he pays the others back, so their net is zero and
    his loss is everybody's.
    """
    stakes: dict[str, int] = {}
    covered = 0
    for bet in bets:  # inlined stakes_by_punter: this runs once per coup judged
        stakes[bet.punter] = stakes.get(bet.punter, 0) + bet.amount
        covered += bet.amount
    if covered > bank:
        raise ValueError(f"bets {covered} exceed the bank {bank}")
    kept = covered if uncovered_to_reserve else bank
    reimbursed: dict[str, int] = {}
    if outcome is Outcome.BANKER:
        tax = levy.levy(covered, first_coup_of_bank=first_coup_of_bank)
        punters = {p: -a for p, a in stakes.items()}
        if reimbursing_punter is not None and reimbursing_punter in stakes:
            for p, a in stakes.items():
                if p != reimbursing_punter:
                    reimbursed[p] = a
                    punters[p] = 0
            punters[reimbursing_punter] -= sum(reimbursed.values())
        next_min: int | None = kept + covered - tax
        banker_net = covered - tax
    elif outcome is Outcome.PLAYER:
        tax = 0
        punters = dict(stakes)
        next_min = None
        banker_net = -covered
    else:
        tax = 0
        punters = dict.fromkeys(stakes, 0)
        next_min = kept
        banker_net = 0
    if next_min is not None and house_limit is not None and next_min > house_limit:
        next_min = house_limit
    return Settlement(
        covered=covered,
        uncovered=bank - covered,
        tax=tax,
        banker_net=banker_net,
        punters=punters,
        next_bank_min=next_min,
        reimbursed=reimbursed,
    )


def spectator_bank_share(*, bank: int, contributed: int, initial_bank: int, chip_unit: int = 1) -> int:
    """A club spectator's proportional share of the bank (docs/rules.md §6): bank 10 with 3 from a
    spectator, after three wins the bank is 80 and his share is 80 * 3/10 = 24.

    Rounded down to the chip unit: the odd chip stays in the bank, which the banker keeps playing.
    """
    if not 0 < contributed < initial_bank:
        raise ValueError("a spectator puts up part of the bank, not all of it")
    return bank * contributed // (initial_bank * chip_unit) * chip_unit

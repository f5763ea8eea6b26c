"""What the player who takes a passed bank may put up (docs/rules.md §7).

One rule, read by the services that hand the bank over, the croupier's screen and the API:

* offered in turn, under a profile whose ``passed_bank`` is ``own_bank`` (casino, classic, club),
  the first who accepts sets his own bank: anything from the profile minimum up to the house limit;
* under ``continuation`` (home), he puts up at least the passer's mandatory continuation;
* by informal auction (a table setting), the bank goes to whoever puts up a bank equal to the one
  just played: that amount and no other.

Pure: numbers in, numbers out, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass

from chemin_de_fer.engine.profiles import PassedBank


@dataclass(frozen=True, slots=True)
class BankTerms:
    """The banks a taker may put up: ``minimum`` to ``maximum`` (None: no house limit)."""

    minimum: int
    maximum: int | None

    @property
    def exact(self) -> bool:
        """Only one amount will do (an auction)."""
        return self.maximum == self.minimum

    def refusal(self, amount: int) -> str | None:
        """Why ``amount`` cannot be the taker's bank (None: it can)."""
        if self.exact and amount != self.minimum:
            return f"The bank goes to whoever puts up {self.minimum}, the bank just played."
        if amount < self.minimum:
            return f"The bank must be at least {self.minimum}."
        if self.maximum is not None and amount > self.maximum:
            return f"A bank may not exceed the house limit of {self.maximum}."
        return None


def passed_bank_terms(
    *, passed_bank: PassedBank, min_bank: int, continuation: int, house_limit: int | None
) -> BankTerms:
    """What the player who accepts a passed bank in turn may put up. ``continuation`` is the
    passer's mandatory continuation (the smallest bank he would have had to declare next)."""
    minimum = max(continuation, min_bank) if passed_bank is PassedBank.CONTINUATION else min_bank
    return BankTerms(minimum=minimum, maximum=house_limit)


def auction_terms(*, bank_just_played: int, min_bank: int, house_limit: int | None) -> BankTerms:
    """The informal auction of a passed bank: a bank equal to the one just played, no more, no
    less (kept within the profile minimum and the house limit, should either have changed since)."""
    amount = max(bank_just_played, min_bank)
    if house_limit is not None:
        amount = min(amount, house_limit)
    return BankTerms(minimum=amount, maximum=amount)

"""How a screen writes a figure: chips, an average stake, a percentage, in the page's language.

One format per language, everywhere a screen shows chips (the croupier's tablet, the older games'
screen, the cage, the pit boss's pages, the reports page): Django's number format of the active
language with its thousands grouping forced on (``USE_THOUSAND_SEPARATOR`` stays off, so an id, a
seat number or a form's value is never grouped by accident):

- English ``10,000``, French ``10 000``, Russian ``10 000`` (the two with a no-break space,
  ``\\xa0``, Django's separator for them: the number never breaks across two lines);
- a chip amount is an integer; an average stake (``Fraction``) is rounded to a whole chip, half
  up (``153.33`` → ``153``, ``152.5`` → ``153``): the floor counts in chips;
- a percentage with its digits after the language's decimal separator and a no-break space
  before the sign: ``-19.97 %`` in English, ``-19,97 %`` in French and Russian.

The exports stay English and format their own numbers (reports/writers: the PDF groups with the
English comma, the XLSX cells carry ``#,##0``). What is stored or sent (the audit trail, the API,
an alert's summary) keeps its plain digits (review.wording.percent; an exact amount to so many
decimals: ``plain_decimal``).

Used through ``{% load numbers %}`` (core/templatetags/numbers.py) and by the screen views.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.formats import number_format

#: shown for a figure that is not there (no bets: no average; nothing covered: no hold)
NONE = "—"
#: between a percentage and its sign: a no-break space (the sign never starts a line)
PERCENT_SIGN = "\xa0%"


def rounded(exact: Fraction, digits: int) -> Decimal:
    """``exact`` to ``digits`` decimals, half-even, with no float on the way (``Fraction(2099, 305)``
    to 2 → ``Decimal("6.88")``): the one rounding of every exact figure, shown or sent."""
    return Decimal(round(exact * 10**digits)).scaleb(-digits)


def plain_decimal(value: Fraction | None, digits: int) -> str | None:
    """An exact amount as plain digits for a file or the API (``"6.88"``: never grouped, never in
    the page's language), ``rounded``; None for None."""
    return None if value is None else str(rounded(value, digits))


def _whole(value: Any) -> int:
    """``value`` as a whole number of chips: an int as it is, a fraction rounded half up."""
    if isinstance(value, bool):
        raise TypeError("a chip amount is a number, not a boolean")
    if isinstance(value, int):
        return value
    exact = Fraction(value) if isinstance(value, Fraction | Decimal | str) else Fraction(float(value))
    return math.floor(exact + Fraction(1, 2))


def chips(value: Any) -> str:
    """A chip amount in the page's language (``10,000`` / ``10 000``); "" for None or ""."""
    if value is None or value == "":
        return ""
    return number_format(_whole(value), force_grouping=True)


def signed_chips(value: Any) -> str:
    """A gain or a loss: ``+1,250``, ``-300``, ``0``; "" for None or ""."""
    if value is None or value == "":
        return ""
    whole = _whole(value)
    return f"+{chips(whole)}" if whole > 0 else chips(whole)


def average_chips(value: Any) -> str:
    """An average stake rounded to a whole chip, half up; "—" when there is none."""
    return NONE if value is None else chips(_whole(value))


def exact_chips(value: Any, digits: int = 2) -> str:
    """Chips with ``digits`` decimals, rounded half-even from the exact value (an expectation such
    as the theoretical levy, ``Fraction(2099, 305)`` → ``6.88``); "—" when there is none."""
    if value is None:
        return NONE
    exact = Fraction(value) if isinstance(value, Fraction | int) else Fraction(str(value))
    scaled = rounded(exact, digits)
    return number_format(scaled, decimal_pos=digits, force_grouping=True)


def figure(value: float | int) -> str:
    """A figure with the decimals it has (``1.25``, ``5``; Python's ``{:g}``) in the page's
    language (``1,25``): a chart's scale."""
    return number_format(f"{value:g}", force_grouping=True)


def percent(value: Any, digits: int = 2, *, signed: bool = False) -> str:
    """A share (``Fraction(1, 3)``, ``0.0456``) as a percentage with ``digits`` decimals in the
    page's language (``33.3 %`` / ``33,3 %``); ``signed`` writes ``+`` before a positive one;
    "—" when undefined (None)."""
    return NONE if value is None else f"{points(value, digits, signed=signed)}{PERCENT_SIGN}"


def points(value: Any, digits: int = 2, *, signed: bool = False) -> str:
    """A share in hundredths, the number alone (``0.0125`` → ``1.25``, French ``1,25``): a
    percentage without its sign, or percentage points (a hold beside its expectation)."""
    hundredths = (Fraction(value) if isinstance(value, Fraction | int) else Fraction(float(value))) * 100
    scaled = rounded(hundredths, digits)
    text = number_format(scaled, decimal_pos=digits, force_grouping=True)
    return f"+{text}" if signed and scaled > 0 else text

"""Template filters for showing chips: ``{{ player_id|chips_in:balances }}`` reads a balance out
of the {player id: chips} dict ledger.selectors.chips_by_player returns, and writes it as every
screen writes chips (core.numbers.chips: ``2,500`` in English, ``2 500`` in French and Russian)."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

from core.numbers import chips

register = template.Library()


@register.filter
def chips_in(player_id: int, balances: dict[int, int] | None) -> str:
    """The player's chips in ``balances``, in the page's language; "" when the dict does not know
    them (not looked up).

    A negative balance is a marker (played on credit): shown as the cage shows it, no chips and
    the marker owed, never as "-300" chips a croupier might read as a typo."""
    if not balances or player_id not in balances:
        return ""
    balance = balances[player_id]
    if balance >= 0:
        return chips(balance)
    return gettext("0 · marker %(marker)s") % {"marker": chips(-balance)}

"""Template filters for showing chips: ``{{ player_id|chips_in:balances }}`` reads a balance out
of the {player id: chips} dict cage.selectors.player_balances returns."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def chips_in(player_id: int, balances: dict[int, int] | None) -> int | str:
    """The player's chips in ``balances``; "" when the dict does not know him (not looked up).

    A negative balance is a marker (he played on credit): shown as the cage shows it, no chips and
    the marker he owes, never as "-300" chips a croupier might read as a typo."""
    if not balances or player_id not in balances:
        return ""
    balance = balances[player_id]
    return balance if balance >= 0 else f"0 · marker {-balance}"

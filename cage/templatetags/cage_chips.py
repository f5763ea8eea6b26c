"""Template filters for showing chips: ``{{ player_id|chips_in:balances }}`` reads a balance out
of the {player id: chips} dict cage.selectors.player_balances returns."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def chips_in(player_id: int, balances: dict[int, int] | None) -> int | str:
    """The player's chips in ``balances``; "" when the dict does not know him (not looked up)."""
    if not balances or player_id not in balances:
        return ""
    return balances[player_id]

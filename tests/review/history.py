"""A small known history for the back-office pages (review and reports), played through the real
services (tests/tables/play.py). Its fixtures are imported by tests/review/ and tests/reports/ conftests.

At ``table`` (casino profile: 5 % levy rounded down, 6 decks), banker seat 1:

1. ``clean``: bank 200, seats 2/3/4 bet 120/50/30; player 2H 3C +9H = 4, banker AS 2D +5S = 8.
   Banker wins: covered 200, levy 10.
2. ``flagged``: bank 400, seats 2/3 bet 240/160; player TH 2C +6D = 8, banker 3S 2H stands on 5
   against a 6 (BANKER_SHOULD_DRAW): as played the player wins. Restored with 4C from the shoe:
   banker 3S 2H 4C = 9, banker wins, levy 20.
3. ``natural``: bank 780, seat 2 bets 100; player 9H KC (natural 9) against AS 2D... player wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tables import services
from tables.models import Coup
from tests.factories import CroupierAssignmentFactory, UserFactory
from tests.tables.play import Floor, open_floor, play


def play_clean(floor: Floor) -> Coup:
    return play(
        floor,
        bank=200,
        bets=[(2, 120), (3, 50), (4, 30)],
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )


def play_flagged(
    floor: Floor, *, bank: int = 400, bets: tuple[tuple[int, int], ...] = ((2, 240), (3, 160))
) -> Coup:
    """The banker stands on 5 against the player's 6: BANKER_SHOULD_DRAW, awaiting correction."""
    return play(
        floor,
        bank=bank,
        bets=bets,
        cards=("TH", "3S", "2C", "2H"),
        player="draw",
        player_card="6D",
        banker="stand",
        confirm=True,
    )


@dataclass
class History:
    floor: Floor
    clean: Coup
    flagged: Coup
    natural: Coup | None = None


@pytest.fixture
def awaiting(croupier, table) -> History:
    """A clean coup, then a flagged one restored by the croupier: awaiting the pit boss."""
    floor = open_floor(croupier, table)
    clean = play_clean(floor)
    flagged = play_flagged(floor)
    services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
    flagged.refresh_from_db()
    assert flagged.state == Coup.State.AWAITING_APPROVAL
    return History(floor=floor, clean=clean, flagged=flagged)


@pytest.fixture
def history(awaiting, pit_boss) -> History:
    """``awaiting`` approved by the pit boss, then a player natural: three settled coups."""
    services.correction_approve(actor=pit_boss, coup=awaiting.flagged)
    awaiting.natural = play(
        awaiting.floor, bank=780, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural"
    )
    for coup in (awaiting.clean, awaiting.flagged, awaiting.natural):
        coup.refresh_from_db()
        assert coup.state == Coup.State.SETTLED
    return awaiting


@pytest.fixture
def boss_croupier(table):
    """A pit boss who also works as croupier at ``table``: he can submit a correction himself."""
    user = UserFactory(username="bosscroupier", roles=["pit_boss", "croupier"])
    CroupierAssignmentFactory(user=user, table=table)
    return user

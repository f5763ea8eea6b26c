"""Game-floor rows for ledger tests, written directly (no table services): a table of a given
profile, seated players with chips, coups with their bank turn, and engine settlements.

The only place the ledger tests know how tables.Coup / BankTurn rows are shaped.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from chemin_de_fer.engine.coup import Outcome, Settlement, Stake
from chemin_de_fer.engine.settlement import LevyTerms, settle
from ledger import services as ledger
from tables import models as m
from tables.money import banks
from tables.money import settlement as coup_money
from tables.services.rules_snapshots import rules_snapshot_keep
from tests.factories import CasinoFactory, PlayerFactory, TableFactory, UserFactory, builtin_profile

_closes = itertools.count(1)


def casino_for(slug: str, **casino: Any) -> m.Casino:
    """A casino whose levy settings suit the profile (a home or classic casino charges nothing)."""
    defaults: dict[str, Any] = {"levy_mode": m.Casino.LevyMode.NONE, "levy_rate_bp": 0}
    if slug == "casino":
        defaults = {"levy_mode": m.Casino.LevyMode.PERCENTAGE, "levy_rate_bp": 500}
    defaults.update(casino)
    return CasinoFactory(**defaults)


@dataclass
class Rig:
    """One table of one profile with an open session, a shoe and seated players."""

    table: m.Table
    session: m.TableSession
    shoe: m.Shoe
    players: list[m.Player]
    actor: Any
    seats: dict[int, m.Seat] = field(default_factory=dict)  # player id -> seat
    turn: m.BankTurn | None = None
    coups: int = 0

    @property
    def casino(self) -> m.Casino:
        return self.table.casino

    @property
    def profile(self):
        return self.table.profile.as_engine()

    @property
    def borrowing(self) -> bool:
        """Whether the table's rules let its players borrow (as a coup's snapshot would say)."""
        return self.table.profile.borrowing_allowed

    def key(self, player: m.Player) -> str:
        return f"seat-{self.seats[player.pk].number}"

    def punters(self) -> dict[str, m.Player]:
        return {self.key(p): p for p in self.players}

    def coup(self, banker: m.Player, bank: int, *, state: str = "settled") -> m.Coup:
        """A coup of ``banker``'s bank turn (a new turn when the bank changes hands)."""
        now = timezone.now()
        if self.turn is None or self.turn.player_id != banker.pk:
            self.end_turn()
            seat = self.seats[banker.pk]
            self.turn = m.BankTurn.objects.create(
                session=self.session,
                player=banker,
                seat=seat,
                rotation_from=seat,
                started_at=now,
                started_how="lot",
                required_minimum=1,
            )
        self.coups += 1
        return m.Coup.objects.create(
            shoe=self.shoe,
            number=self.coups,
            banker=banker,
            bank=bank,
            bank_turn=self.turn,
            rules_snapshot_id=rules_snapshot_keep(content={"house_limit": self.casino.house_limit}),
            state=state,
            created_at=now,
            settled_at=now if state == "settled" else None,
        )

    def end_turn(self) -> None:
        if self.turn is not None and self.turn.ended_at is None:
            self.turn.ended_at = timezone.now()
            self.turn.end_reason = "lost"
            self.turn.save(update_fields=["ended_at", "end_reason"])
        self.turn = None

    def settlement(
        self,
        outcome: Outcome | str,
        bank: int,
        bets: Sequence[tuple[m.Player, int]],
        *,
        first_coup_of_bank: bool = False,
        reimbursing: m.Player | None = None,
    ) -> Settlement:
        profile = self.profile
        return settle(
            outcome=Outcome(outcome),
            bank=bank,
            bets=[Stake(self.key(p), amount) for p, amount in bets],
            levy=LevyTerms.for_profile(profile, chip_unit=self.casino.chip_unit),
            uncovered_to_reserve=profile.uncovered_to_reserve,
            first_coup_of_bank=first_coup_of_bank,
            house_limit=self.casino.house_limit,
            reimbursing_punter=self.key(reimbursing) if reimbursing is not None else None,
        )

    def play(
        self,
        banker: m.Player,
        bank: int,
        outcome: Outcome | str,
        bets: Sequence[tuple[m.Player, int]],
        *,
        provisional: bool = False,
        close_if_lost: bool = True,
    ) -> tuple[m.Coup, Settlement]:
        """Fund, settle and (when the banker loses) close the bank: the ledger side of one coup."""
        coup = self.coup(banker, bank)
        banks.bank_fund(
            coup=coup,
            amount=coup.bank,
            actor=self.actor,
            key=f"coup:{coup.pk}:bank",
            borrowing=self.borrowing,
        )
        result = self.settlement(outcome, bank, bets)
        coup_money.coup_settle(
            coup=coup,
            settlement=result,
            punters=self.punters(),
            uncovered_to_reserve=self.profile.uncovered_to_reserve,
            house_limit=self.casino.house_limit,
            actor=self.actor,
            key=f"coup:{coup.pk}:{'correction' if provisional else 'settle'}",
            provisional=provisional,
            borrowing=self.borrowing,
        )
        if result.next_bank_min is None and close_if_lost:
            self.close(banker)
        return coup, result

    def close(self, banker: m.Player) -> None:
        turn = self.turn
        self.end_turn()
        key = f"bankturn:{turn.pk}:close" if turn is not None else f"close:{next(_closes)}"
        banks.bank_close(table=self.table, banker=banker, actor=self.actor, key=key)


def rig(
    slug: str = "casino",
    *,
    players: int = 3,
    chips: int | None = 100,
    casino: m.Casino | None = None,
    actor: Any = None,
    opened_at: dt.datetime | None = None,
    **casino_settings: Any,
) -> Rig:
    """A table of the built-in profile ``slug`` with ``players`` seated, each bought in for
    ``chips`` at the cage (None: no buy-in)."""
    casino = casino or casino_for(slug, **casino_settings)
    actor = actor if actor is not None else UserFactory()
    table = TableFactory(casino=casino, profile=builtin_profile(slug))
    opened = opened_at or timezone.now() - dt.timedelta(minutes=5)
    session = m.TableSession.objects.create(table=table, opened_at=opened, opened_by=actor)
    shoe = m.Shoe.objects.create(session=session, table=table, number=1, decks=6, shuffled_at=opened)
    people = [PlayerFactory(casino=casino, display_name=f"P{i + 1}") for i in range(players)]
    result = Rig(table=table, session=session, shoe=shoe, players=people, actor=actor)
    for number, player in enumerate(people, start=1):
        result.seats[player.pk] = m.Seat.objects.create(
            session=session, player=player, number=number, joined_at=opened
        )
        if chips:
            ledger.cage_buy_in(
                casino=casino, player=player, amount=chips, actor=actor, key=f"test:buyin:{player.pk}"
            )
    return result

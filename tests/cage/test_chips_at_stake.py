"""The cage pays out no chip a player could still lose in a coup being played: an older game's
stake (the game's exposure, asked through the games' seam) or a chemin de fer bet. A cash-out of
more than his free chips is refused, saying how much is at stake and where, with nothing written;
the free part is paid out, and the rest once the coup is over."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from cage import selectors, services
from ledger.models import Account, Transaction
from ledger.selectors import account_balance
from ledger.services import InsufficientChips
from older_games import services as games
from tables.models import GameCoup, GameStep
from tests.problems import problem_body
from tests.row_locks import row_free
from tests.tables.api.conftest import Api
from tests.tables.play import K, coup_with_bets, open_floor, step

from .conftest import counts, key, logged_in

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def chips(player) -> int:
    return account_balance(casino=player.casino, kind=Account.Kind.PLAYER, player=player)


def everything() -> dict[str, Any]:
    """The rows a refused cash-out must leave alone, the game's coups and steps with them, and
    every account's balance."""
    return {
        **counts(),
        "GameCoup": GameCoup.objects.count(),
        "GameStep": GameStep.objects.count(),
        "balances": sorted(Account.objects.values_list("pk", "balance")),
    }


def refusal(player, *, balance: int, at_stake: int, table, amount: int) -> str:
    return (
        f"{player.display_name} has {balance} chips, {at_stake} of them at stake in a coup in play at "
        f"{table.name}: a cash-out of {amount} is refused; at most {balance - at_stake} can be cashed "
        "out until the coup ends."
    )


def stake(croupier, coup, player, amount: int) -> None:
    payload = {"kind": "stake", "player": games.player_key(player), "amount": amount}
    games.game_step_record(actor=croupier, coup=coup, payload=payload)


def cut(croupier, coup, player) -> None:
    payload = {"kind": "cut", "player": games.player_key(player)}
    games.game_step_record(actor=croupier, coup=coup, payload=payload)


@pytest.fixture
def staked(game_table, croupier):
    """An old baccarat coup in play at which the punter has staked 1000 of his 5000 chips (the
    banker holds 5000 too, the table's match is 1: he could lose 1000)."""
    table, session, (banker, punter) = game_table("old-baccarat", players=2, chips=5000)
    coup = games.game_coup_start(actor=croupier, session=session).coup
    stake(croupier, coup, punter, 1000)
    return table, coup, banker, punter


def _settle(croupier, coup, banker, punter) -> None:
    """The punter cuts and draws a natural 9 against the banker's 5: he wins his 1000."""
    cut(croupier, coup, punter)
    for card in ("4H", "2C", "5S", "3D"):
        games.game_step_record(actor=croupier, coup=coup, payload={"kind": "card", "card": card})
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.SETTLED, coup.steps.values_list("payload", flat=True)


def test_the_cage_refuses_to_pay_out_an_older_game_s_stake_and_writes_nothing(
    staked, cashier, croupier
) -> None:
    table, coup, _banker, punter = staked
    assert selectors.chips_at_stake(player=punter) == {table.name: 1000}
    before = everything()
    casino = table.casino
    for asked in (True, False):  # the first submit, then the posting itself
        with pytest.raises(InsufficientChips) as refused:
            if asked:
                services.cage_move_check(
                    actor=cashier, casino=casino, player=punter, kind=services.CASH_OUT, amount=5000
                )
            else:
                services.cage_cash_out(actor=cashier, casino=casino, player=punter, amount=5000, key=key())
        assert refused.value.messages == [
            refusal(punter, balance=5000, at_stake=1000, table=table, amount=5000)
        ]
        assert everything() == before
    cut(croupier, coup, punter)  # the coup goes on: his stake is still covered


def test_the_free_part_is_paid_out_and_the_rest_once_the_coup_is_over(staked, cashier, croupier) -> None:
    table, coup, banker, punter = staked
    out = services.cage_cash_out(actor=cashier, casino=table.casino, player=punter, amount=4000, key=key())
    assert out.balance == 1000
    before = everything()
    with pytest.raises(InsufficientChips) as refused:
        services.cage_cash_out(actor=cashier, casino=table.casino, player=punter, amount=1, key=key())
    assert refused.value.messages == [refusal(punter, balance=1000, at_stake=1000, table=table, amount=1)]
    assert everything() == before
    # the banker could lose 1000 too: his 4000 others are free
    with pytest.raises(InsufficientChips, match="1000 of them at stake"):
        services.cage_cash_out(actor=cashier, casino=table.casino, player=banker, amount=4001, key=key())
    _settle(croupier, coup, banker, punter)  # the coup was not held up: it settles, he wins
    assert (chips(punter), chips(banker)) == (2000, 4000)
    assert selectors.chips_at_stake(player=punter) == {}
    done = services.cage_cash_out(actor=cashier, casino=table.casino, player=punter, amount=2000, key=key())
    assert done.balance == 0
    assert services.cage_cash_out(
        actor=cashier, casino=table.casino, player=banker, amount=4000, key=key()
    ).balance == 0


def test_the_cage_screen_says_what_is_at_stake_and_where(staked, cashier) -> None:
    table, _coup, _banker, punter = staked
    client = logged_in(cashier)
    url = reverse("cage:cash_out", args=[table.casino_id])
    before = everything()
    for confirm in ({}, {"confirm": "1"}):
        form = {"player": punter.pk, "amount": "5000", "key": key(), **confirm}
        response = client.post(url, form, headers=HTMX)
        assert response.status_code == 400
        said = refusal(punter, balance=5000, at_stake=1000, table=table, amount=5000)
        # the screen writes chips as it always does (5,000)
        html = unescape(response.content.decode()).replace(",", "")
        assert said.replace(",", "") in html
    assert everything() == before


def test_the_api_refuses_it_in_english(staked, cashier) -> None:
    table, _coup, _banker, punter = staked
    api = Api(cashier)
    before = everything()
    response = api.post("/cage/cash-out/", {"player": punter.pk, "amount": 4001})
    assert response.status_code == 400, response.content
    assert problem_body(response)["detail"] == refusal(
        punter, balance=5000, at_stake=1000, table=table, amount=4001
    )
    assert everything() == before
    assert Transaction.objects.filter(kind=Transaction.Kind.CASH_OUT).count() == 0


def test_a_chemin_de_fer_bet_in_play_is_held_back_too(croupier, table, cashier) -> None:
    floor = open_floor(croupier, table, seats=(1, 2, 3), chips=1000)
    coup = coup_with_bets(floor, (2, 300), bank=400)
    punter = floor.players[2]
    assert selectors.chips_at_stake(player=punter) == {table.name: 300}
    before = everything()
    with pytest.raises(InsufficientChips) as refused:
        services.cage_cash_out(actor=cashier, casino=table.casino, player=punter, amount=701, key=key())
    assert refused.value.messages == [refusal(punter, balance=1000, at_stake=300, table=table, amount=701)]
    assert everything() == before
    assert services.cage_cash_out(
        actor=cashier, casino=table.casino, player=punter, amount=700, key=key()
    ).balance == 300
    step(floor, coup, K.BETS_CLOSED)  # the coup goes on
    # a player with nothing at stake cashes out all he holds
    free = floor.players[3]
    assert selectors.chips_at_stake(player=free) == {}
    assert services.cage_cash_out(
        actor=cashier, casino=table.casino, player=free, amount=1000, key=key()
    ).balance == 0


def test_a_replayed_cash_out_is_not_refused_for_a_stake_laid_after_it(game_table, croupier, cashier) -> None:
    table, session, (_banker, punter) = game_table("old-baccarat", players=2, chips=5000)
    once = key()
    first = services.cage_cash_out(actor=cashier, casino=table.casino, player=punter, amount=4500, key=once)
    coup = games.game_coup_start(actor=croupier, session=session).coup
    stake(croupier, coup, punter, 500)
    again = services.cage_cash_out(actor=cashier, casino=table.casino, player=punter, amount=4500, key=once)
    assert (again.replayed, again.transaction.pk, again.balance) == (True, first.transaction.pk, 500)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_cash_out_reads_the_stakes_with_the_player_s_table_locked(
    game_table, croupier, cashier, monkeypatch
) -> None:
    """A stake laid at his table waits for the cash-out (and the cash-out for a stake): the table
    is locked, in the floor's order, before the stakes are read; another casino table is not."""
    table, _session, (_banker, punter) = game_table("old-baccarat", players=2, chips=5000)
    elsewhere, _s, _p = game_table("macao", players=2)
    seen: list[tuple[bool, bool]] = []
    asked = selectors.chips_at_stake

    def spying(*, player):
        seen.append((row_free("tables_table", table.pk), row_free("tables_table", elsewhere.pk)))
        return asked(player=player)

    monkeypatch.setattr(selectors, "chips_at_stake", spying)
    services.cage_cash_out(actor=cashier, casino=table.casino, player=punter, amount=100, key=key())
    assert seen == [(False, True)]
    assert row_free("tables_table", table.pk)

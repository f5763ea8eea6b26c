"""Old baccarat at the table as RULES.md §11 rules it: a player joins during a deal only with the
banker's permission (a recorded step), and players may leave at any moment, a stake already in a
coup staying in it until it settles. Through the services, the next steps and the seat list."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditEvent
from ledger.selectors import player_available
from older_games import services as svc
from older_games.selectors import game_coup_view
from tables import services
from tables.models import GameCoup, GameStep, Seat
from tables.money.books import books_verify
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def _chips(table, players) -> list[int]:
    return [player_available(casino=table.casino, player=p) for p in players]


def _newcomer(croupier, table, session, number: int):
    """A player bought in at the cage who sits down once the coup has begun."""
    from ledger.services import cage_buy_in

    player = PlayerFactory(casino=table.casino)
    cage_buy_in(casino=table.casino, player=player, amount=1000, actor=croupier, key=f"buy:{player.pk}")
    services.seat_take(actor=croupier, session=session, player=player, number=number)
    return player


def _steps(coup: GameCoup) -> list[dict[str, Any]]:
    return list(GameStep.objects.filter(coup=coup).order_by("index").values_list("payload", flat=True))


def _offered(coup: GameCoup) -> list[tuple[str, str | None]]:
    return [(o["kind"], o.get("player")) for o in game_coup_view(coup).next_steps]


def _record(croupier, coup: GameCoup, *payloads: dict[str, Any]) -> None:
    for payload in payloads:
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)


def test_a_newcomer_joins_after_the_cut_only_with_the_banker_s_permission(game_table, croupier) -> None:
    table, session, players = game_table("old-baccarat", players=3)
    a, b, c = players
    ka, kb, kc = (svc.player_key(p) for p in players)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    _record(
        croupier,
        coup,
        {"kind": "stake", "player": kb, "amount": 20},
        {"kind": "stake", "player": kc, "amount": 10},
        {"kind": "cut", "player": kb},
    )
    d = _newcomer(croupier, table, session, 4)
    kd = svc.player_key(d)
    # after the cut and before the first card: the banker may let d in; the punters may leave
    assert _offered(coup) == [("card", kb), ("permit", kd), ("leave", kb), ("leave", kc)]
    written = (GameStep.objects.count(), AuditEvent.objects.count())
    with pytest.raises(ValidationError, match="only with the banker's permission"):
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "stake", "player": kd, "amount": 10})
    stranger = PlayerFactory(casino=table.casino)  # not seated at this table
    with pytest.raises(ValidationError, match="Only a player seated at this table"):
        svc.game_step_record(
            actor=croupier, coup=coup, payload={"kind": "permit", "player": svc.player_key(stranger)}
        )
    assert (GameStep.objects.count(), AuditEvent.objects.count()) == written
    _record(croupier, coup, {"kind": "permit", "player": kd})
    assert ("stake", kd) in _offered(coup)
    _record(croupier, coup, {"kind": "stake", "player": kd, "amount": 30})
    # deal order for three punters: b, c, d, the banker, then d, c, b, the banker: his 4 + 5 = 9
    _record(
        croupier,
        coup,
        *({"kind": "card", "card": x} for x in ("2H", "3H", "2S", "4H", "3S", "2D", "3D", "5H")),
    )
    coup.refresh_from_db()
    assert (coup.state, coup.outcome) == (GameCoup.State.SETTLED, "banker")
    assert coup.record is not None and [p["player"] for p in coup.record["punters"]] == [kb, kc, kd]
    assert _chips(table, [a, b, c, d]) == [1060, 980, 990, 970]
    assert [str(x) for x in books_verify().differences] == []
    assert ka == coup.seating["banker"]


def test_a_newcomer_seated_before_the_cut_stakes_without_permission(game_table, croupier) -> None:
    table, session, players = game_table("old-baccarat", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    d = _newcomer(croupier, table, session, 3)
    kb, kd = svc.player_key(players[1]), svc.player_key(d)
    assert _offered(coup) == [("stake", kb), ("stake", kd)]
    _record(croupier, coup, {"kind": "stake", "player": kd, "amount": 10})
    assert _steps(coup) == [{"kind": "stake", "player": kd, "amount": 10}]
    assert ("cut", kd) in _offered(coup)


def test_a_punter_leaves_mid_coup_his_stake_stays_and_his_seat_goes_when_it_ends(
    game_table, croupier
) -> None:
    table, session, players = game_table("old-baccarat", players=3)
    a, b, c = players
    kb, kc = svc.player_key(b), svc.player_key(c)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    _record(
        croupier,
        coup,
        {"kind": "stake", "player": kb, "amount": 20},
        {"kind": "stake", "player": kc, "amount": 10},
        {"kind": "cut", "player": kb},
        # b 2 + 3 = 5, c 3 + 2 = 5, the banker 4 + 2 = 6: nobody has a natural
        *({"kind": "card", "card": x} for x in ("2H", "3H", "4H", "2S", "3S", "2D")),
    )
    seat_c = Seat.objects.get(session=session, player=c)
    # c leaves from the seat list: the coup records it, his seat stays his until the coup ends
    services.seat_leave(actor=croupier, seat=seat_c)
    assert _steps(coup)[-1] == {"kind": "leave", "player": kc}
    seat_c.refresh_from_db()
    assert seat_c.left_at is None and game_coup_view(coup).leaving == [kc]
    # c's hand stands as it is: he is to act first (the banker's right) and may only stand
    assert _offered(coup) == [("stand", kc), ("leave", kb)]
    with pytest.raises(ValidationError):
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "draw", "player": kc})
    _record(
        croupier,
        coup,
        {"kind": "stand", "player": kc},
        {"kind": "stand", "player": kb},
        {"kind": "stand", "player": svc.player_key(a)},
    )
    coup.refresh_from_db()
    assert (coup.state, coup.outcome) == (GameCoup.State.SETTLED, "banker")
    assert _chips(table, players) == [1030, 980, 990]  # c's stake was settled with the coup
    seat_c.refresh_from_db()
    assert seat_c.left_at is not None
    assert Seat.objects.get(session=session, player=b).left_at is None
    left = AuditEvent.objects.get(action="tables.seat.leave", object_id=str(seat_c.pk))
    # the field changed, before and after, as the floor's seat_leave records it
    when = f"{seat_c.left_at:%Y-%m-%dT%H:%M:%S.%f}Z"  # UTC, as the trail writes instants
    assert (left.before, left.after) == ({"left_at": None}, {"left_at": when})
    # the next coup is played without him
    nxt = svc.seating_proposed(session)
    assert kc not in (nxt.banker, *nxt.punters)


def test_a_leave_taken_back_keeps_the_seat(game_table, croupier, pit_boss) -> None:
    _table, session, players = game_table("old-baccarat", players=2)
    kb = svc.player_key(players[1])
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    _record(croupier, coup, {"kind": "stake", "player": kb, "amount": 10}, {"kind": "leave", "player": kb})
    svc.game_step_undo(actor=croupier, coup=coup, reason="wrong button")
    svc.game_coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    assert Seat.objects.get(session=session, player=players[1]).left_at is None


def test_a_leaver_s_seat_goes_when_the_coup_is_void_too(game_table, croupier, pit_boss) -> None:
    _table, session, players = game_table("old-baccarat", players=3)
    kc = svc.player_key(players[2])
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    _record(croupier, coup, {"kind": "stake", "player": kc, "amount": 10}, {"kind": "leave", "player": kc})
    svc.game_coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    assert Seat.objects.get(session=session, player=players[2]).left_at is not None
    assert Seat.objects.get(session=session, player=players[1]).left_at is None


def test_a_macao_player_still_may_not_leave_during_a_coup(game_table, croupier) -> None:
    _table, session, players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    seat = Seat.objects.get(session=session, player=players[1])
    with pytest.raises(ValidationError, match="finish or void it first"):
        services.seat_leave(actor=croupier, seat=seat)
    seat.refresh_from_db()
    assert seat.left_at is None and _steps(coup) == []

"""Service-level properties of the older games (Macao, Landsknecht, old baccarat): Hypothesis plays
a few coups per example through ``game_step_record``, each step chosen among the legal next steps
the croupier's screen offers (``game_coup_view(coup).next_steps``), with illegal payloads and stale
views mixed in, and now and then a coup voided half-way. After every coup:

- an illegal payload or a stale view was refused (ValidationError / CoupConflict) with nothing
  written: no step, no posting, no audit event;
- an open coup always offered a next step (and a void ends any of them): every state has a way on;
  a step taken back (``game_step_undo``) offers again what was offered before it;
- the coup's postings each sum to zero; each player's balance moved by the engine's net for him;
- the offline judge agrees with the live machine, on the exported line (record and settings) too;
- no card was seen more often than the house's decks hold;
- the chips of the players, the table's fund and pool and the cage are conserved (the pool empty
  between coups), and a void coup moved nothing.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from audit.models import AuditEvent
from ledger.models import Account, Entry, Transaction
from ledger.selectors import player_available
from older_games import services as svc
from older_games.engine import game_play, games
from older_games.engine.game_play import StepRefused
from older_games.selectors import game_coup_exported_record, game_coup_view
from tables import services
from tables.lifecycle import CoupConflict
from tables.models import GameCoup, GameStep, Player, Seat, Table, TableSession

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

#: the kinds of step whose payload names its player, per game (the others name none)
PLAYER_KINDS = {
    "macao": frozenset(),
    "landsknecht": frozenset({"cover", "consent"}),
    "old-baccarat": frozenset({"stake", "cut", "draw", "stand", "permit", "leave"}),
}

#: house settings a little off the defaults, so that the settings travel with the coup
SETTINGS = {
    "macao": {"unit": 10, "decks": 2},
    "landsknecht": {"min_stake": 10, "fund_due": 10},
    "old-baccarat": {"min_stake": 10, "tie_rule": "pool", "decks": 1},
}

#: longer than any coup of these games can last: a coup still open past it has no way to end
STEP_CAP = 200

JUNK: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from(
                ["deal", "draw", "discard", "stand", "stake", "cover", "close", "card", "decide", "cut", "x"]
            )
        },
        optional={
            "card": st.sampled_from(["9H", "AS", "1X", "", 9, None]),
            "amount": st.sampled_from([0, -5, 1, 10, 10**6, "10", 2.5, True]),
            "player": st.sampled_from(["player-0", "fund", "pool", "", 3]),
            "decision": st.sampled_from(["take", "again", "keep", None]),
        },
    ),
    st.just({}),
)


def _written() -> tuple[int, int, int, int]:
    return (
        GameStep.objects.count(),
        Transaction.objects.count(),
        AuditEvent.objects.count(),
        Entry.objects.count(),
    )


def _chips(table: Table) -> int:
    """The chips of every player of the casino, the tables' funds and pools and the cage: what the
    coups move among themselves (fees and card money are not charged here)."""
    kinds = [Account.Kind.PLAYER, Account.Kind.FUND, Account.Kind.POOL, Account.Kind.CAGE]
    return sum(Account.objects.filter(casino=table.casino, kind__in=kinds).values_list("balance", flat=True))


def _payload(game: str, option: dict[str, Any], draw: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {"kind": option["kind"]}
    if option["kind"] in PLAYER_KINDS[game]:
        payload["player"] = option["player"]
    if option.get("cards"):
        payload["card"] = draw(st.sampled_from(option["cards"]))
    if "amounts" in option:
        low, high = option["min_amount"], option["max_amount"]
        if low is None:  # only the amounts listed are legal
            payload["amount"] = draw(st.sampled_from(option["amounts"]))
        else:
            high = high if high is not None else 20 * low
            payload["amount"] = draw(st.one_of(st.sampled_from(option["amounts"]), st.integers(low, high)))
    if option.get("choices"):
        payload["decision"] = draw(st.sampled_from(option["choices"]))
    return payload


def _try_illegal(croupier: Any, coup: GameCoup, state: Any, draw: Any) -> None:
    """A payload the live machine refuses, or a stale view: refused by the service, nothing written."""
    play = game_play.play_for(coup.game)
    stale = draw(st.booleans())
    payload = draw(JUNK)
    if not stale:
        try:
            play.step(state, payload)
        except StepRefused:
            pass
        else:
            return  # happened to be legal: not what this draw is for
    before = _written()
    with pytest.raises((ValidationError, CoupConflict)):
        svc.game_step_record(
            actor=croupier, coup=coup, payload=payload, expected_steps=coup.step_count + 1 if stale else None
        )
    assert _written() == before
    event("an illegal step or a stale view refused")
    fresh = GameCoup.objects.get(pk=coup.pk)
    assert (fresh.state, fresh.step_count) == (GameCoup.State.OPEN, coup.step_count)


def _play_coup(
    game: str,
    croupier: Any,
    pit_boss: Any,
    table: Table,
    session: TableSession,
    players: list[Player],
    draw: Any,
) -> GameCoup:
    play = game_play.play_for(game)
    house = play.settings(table.game_settings)
    chips_before = _chips(table)
    available = {svc.player_key(p): player_available(casino=table.casino, player=p) for p in players}
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    # about one coup in four is voided half-way (a misdeal, a player called away)
    void_at = draw(st.integers(0, 12)) if draw(st.integers(0, 3)) == 0 else None
    # the next steps offered before each step still in effect: a step taken back offers them again
    offered: list[list[dict[str, Any]]] = []
    for _ in range(STEP_CAP):
        view = game_coup_view(coup)
        if coup.state != GameCoup.State.OPEN:
            break
        # every open state has a way forward: a legal next step (and a void, below)
        assert view.next_steps, f"{coup} is open with no next step"
        if void_at is not None and coup.step_count >= void_at:
            svc.game_coup_void(actor=pit_boss, coup=coup, reason="property: voided half-way")
            coup.refresh_from_db()
            break
        if draw(st.integers(0, 4)) == 0:
            _try_illegal(croupier, coup, svc.coup_state(coup), draw)
        if offered and draw(st.integers(0, 9)) == 0:  # a mistyped step taken back (game_step_undo)
            assert view.can_undo
            coup = svc.game_step_undo(actor=croupier, coup=coup, expected_steps=coup.step_count).coup
            assert game_coup_view(coup).next_steps == offered.pop()
            event("a step taken back")
            continue
        offered.append(view.next_steps)
        option = draw(st.sampled_from(view.next_steps))
        result = svc.game_step_record(
            actor=croupier, coup=coup, payload=_payload(game, option, draw), expected_steps=coup.step_count
        )
        coup = result.coup
    else:
        pytest.fail(f"{coup} still open after {STEP_CAP} steps")
    coup.refresh_from_db()
    state = svc.coup_state(coup)
    postings = Transaction.objects.filter(game_coup=coup)
    after = {svc.player_key(p): player_available(casino=table.casino, player=p) for p in players}
    moved = {k: after[k] - available[k] for k in after if after[k] != available[k]}

    # no card more often than the decks hold, settled or void
    seen = Counter(play.cards(state))
    assert all(n <= play.decks(house) for n in seen.values()), seen

    # chips are conserved; the tie pool is empty between coups
    assert _chips(table) == chips_before
    assert Account.objects.filter(table=table, kind=Account.Kind.POOL).exclude(balance=0).count() == 0

    event(f"a coup {coup.state}")
    if coup.state == GameCoup.State.VOID:
        assert not postings.exists() and moved == {}
        return coup
    assert coup.state == GameCoup.State.SETTLED and play.finished(state)

    # postings sum to zero, each of them
    for txn in postings:
        assert sum(txn.entries.values_list("amount", flat=True)) == 0
    # each player's balance moved by the engine's net for him (the fund and pool are not players)
    net = game_play.settle_check(play.transfers(state))
    assert moved == {k: v for k, v in net.items() if k in available}

    # the offline judge agrees with the live machine: under the coup's settings, and from the
    # exported line as validate_coups reads it
    assert coup.record is not None
    verdict = play.verdict(house, coup.record)
    assert verdict["violations"] == []
    assert [(t["payer"], t["payee"], t["amount"]) for t in verdict["settlement"]["transfers"]] == [
        (t.payer, t.payee, t.amount) for t in play.transfers(state)
    ]
    line = games.JUDGES[game].judge_to_dict(game_coup_exported_record(coup))
    assert line["violations"] == [] and line["settlement"] == verdict["settlement"]
    return coup


def _leavers_come_back(croupier: Any, session: TableSession, players: list[Player], coup: GameCoup) -> None:
    """Who left the table during the coup (old baccarat) gave up his seat when it ended, and only
    he; then he comes back and sits down again, so the table keeps its four players."""
    payloads = list(coup.steps.order_by("index").values_list("payload", flat=True))
    left = {p["player"] for p in game_play.effective_steps(payloads) if p["kind"] == game_play.LEAVE}
    seated = {
        svc.player_key(pid)
        for pid in Seat.objects.filter(session=session, left_at__isnull=True).values_list(
            "player_id", flat=True
        )
    }
    assert seated == {svc.player_key(p) for p in players} - left
    taken = set(Seat.objects.filter(session=session, left_at__isnull=True).values_list("number", flat=True))
    free = iter(n for n in range(1, 13) if n not in taken)
    for player in players:
        if svc.player_key(player) in left:
            services.seat_take(actor=croupier, session=session, player=player, number=next(free))
            event("a player who left during a coup sat down again")


def _run(game: str, croupier: Any, pit_boss: Any, data: Any, made: dict[str, Any]) -> None:
    # each example plays from the same table and chips (its writes rolled back after it), so
    # that Hypothesis replays and shrinks a failing example exactly
    with transaction.atomic():
        for _ in range(data.draw(st.integers(1, 3), label="coups")):
            coup = _play_coup(
                game, croupier, pit_boss, made["table"], made["session"], made["players"], data.draw
            )
            _leavers_come_back(croupier, made["session"], made["players"], coup)
        transaction.set_rollback(True)


PROPERTY_SETTINGS = settings(
    # a handful per run keeps each game well under a minute; raise it to hunt (e.g. 200)
    max_examples=int(os.environ.get("GAME_PROPERTY_EXAMPLES", "6")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("game", ["macao", "landsknecht", "old-baccarat"])
def test_random_coups_keep_the_books_and_agree_with_the_judge(game, game_table, croupier, pit_boss) -> None:
    table, session, players = game_table(game, players=4, chips=1_000_000, settings=SETTINGS[game])
    if game == "landsknecht":
        svc.game_fund_collect(actor=croupier, session=session)
    made = {"table": table, "session": session, "players": players}

    @PROPERTY_SETTINGS
    @given(data=st.data())
    def coups(data: Any) -> None:
        _run(game, croupier, pit_boss, data, made)

    coups()

"""A coup whose rows were changed in the database between two steps is not settled (tables.services
.vouching, audit.vouch): the reveal of a chemin de fer coup, the last step of an older game's, is
refused with the change said in words, nothing written; the pit boss voids the coup, the way on.
The rows are changed as a superuser would, the append-only triggers off (tests.audit.rows)."""

from __future__ import annotations

import json

import pytest

from chemin_de_fer.engine.machine import Move
from ledger.models import Account, Transaction
from older_games import services as game_coups
from tables import services
from tables.lifecycle import CoupConflict, CoupRecordsChanged
from tables.models import Coup, CoupStep, GameCoup, GameStep
from tests.audit.rows import superuser_sql
from tests.factories import PlayerFactory
from tests.review.history import play_flagged
from tests.tables.play import open_floor, row_counts, step

pytestmark = pytest.mark.django_db

CALL = "nothing was settled. Call the pit boss: the coup can only be voided."


def _refused(changes: str) -> str:
    return f"This coup's record was changed outside the application ({changes}): {CALL}"


def _ready_to_reveal(croupier, table):
    """A coup at its reveal: seat 2 bets 100 on a bank of 400; player 3H 4C stands on 7, banker
    2D 4S stands on 6 (steps 4 to 7 the cards, 8 and 9 the decisions)."""
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=400).coup
    step(floor, coup, Move.BET, seat=2, amount=100)
    step(floor, coup, Move.BETS_CLOSED)
    for kind, card in (
        (Move.CARD_TO_PLAYER, "3H"),
        (Move.CARD_TO_BANKER, "2D"),
        (Move.CARD_TO_PLAYER, "4C"),
        (Move.CARD_TO_BANKER, "4S"),
    ):
        step(floor, coup, kind, card=card)
    step(floor, coup, Move.PLAYER_STAND)
    step(floor, coup, Move.BANKER_STAND)
    coup.refresh_from_db()
    return floor, coup


def _reveal_refused(floor, coup, message: str) -> None:
    before = row_counts()
    with pytest.raises(CoupRecordsChanged) as refused:
        step(floor, coup, Move.REVEAL)
    assert str(refused.value) == message
    assert refused.value.code == "records_changed"
    assert row_counts() == before
    coup.refresh_from_db()
    assert coup.state == Coup.State.OPEN
    assert not Transaction.objects.filter(coup=coup, kind=Transaction.Kind.COUP_SETTLEMENT).exists()


def test_an_untouched_coup_is_settled_at_its_reveal(croupier, table) -> None:
    floor, coup = _ready_to_reveal(croupier, table)
    step(floor, coup, Move.REVEAL)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED


def test_a_card_changed_in_the_database_is_not_settled_and_the_pit_boss_voids_the_coup(
    croupier, pit_boss, table
) -> None:
    floor, coup = _ready_to_reveal(croupier, table)
    card = CoupStep.objects.get(coup=coup, index=5)  # the banker's 2D, made a 5D: he would have 9
    assert card.payload == {"card": "2D"}
    superuser_sql(
        "UPDATE tables_coupstep SET payload = %s WHERE id = %s", [json.dumps({"card": "5D"}), card.pk]
    )
    _reveal_refused(floor, coup, _refused("step 5 was changed"))
    # the way on: the pit boss voids it (every stake returned, nothing settled on the changed rows)
    services.coup_void(actor=pit_boss, coup=coup, reason="a dealt card was changed in the database")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID


def test_a_step_inserted_with_the_counter_moved_on_is_not_settled(croupier, table) -> None:
    floor, coup = _ready_to_reveal(croupier, table)
    last = CoupStep.objects.get(coup=coup, index=coup.step_count)
    superuser_sql(
        "INSERT INTO tables_coupstep (coup_id, \"index\", kind, payload, created_at, violations, "
        "idempotency_key, actor_id) SELECT coup_id, %s, 'player_stand', %s, created_at, %s, '', actor_id "
        "FROM tables_coupstep WHERE id = %s",
        [coup.step_count + 1, "{}", "[]", last.pk],
    )
    superuser_sql("UPDATE tables_coup SET step_count = step_count + 1 WHERE id = %s", [coup.pk])
    coup.refresh_from_db()
    _reveal_refused(
        floor,
        coup,
        _refused(f"the coup itself was changed, step {coup.step_count} was never recorded at the table"),
    )


def test_a_step_deleted_in_the_database_is_not_settled_and_the_pit_boss_voids_the_coup(
    croupier, pit_boss, table
) -> None:
    floor, coup = _ready_to_reveal(croupier, table)
    bet = CoupStep.objects.get(coup=coup, index=2)
    superuser_sql("DELETE FROM tables_coupstep WHERE id = %s", [bet.pk])
    _reveal_refused(floor, coup, _refused("a step was deleted"))
    services.coup_void(actor=pit_boss, coup=coup, reason="a bet was deleted in the database")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID


def test_a_step_inserted_without_the_counter_is_said_at_the_next_step_not_a_stale_conflict(
    croupier, pit_boss, table
) -> None:
    """The counter and the steps disagree: every step was a "reload and retry" conflict that no
    retry could pass; it is now the change said. The pit boss's void then writes its step after
    the forged one (which stays: rows are never deleted), not into its place (a unique index)."""
    floor, coup = _ready_to_reveal(croupier, table)
    last = CoupStep.objects.get(coup=coup, index=coup.step_count)
    superuser_sql(
        "INSERT INTO tables_coupstep (coup_id, \"index\", kind, payload, created_at, violations, "
        "idempotency_key, actor_id) SELECT coup_id, %s, 'player_stand', %s, created_at, %s, '', actor_id "
        "FROM tables_coupstep WHERE id = %s",
        [coup.step_count + 1, "{}", "[]", last.pk],
    )
    _reveal_refused(floor, coup, _refused(f"step {coup.step_count + 1} was never recorded at the table"))
    forged = coup.step_count + 1
    result = services.coup_void(actor=pit_boss, coup=coup, reason="a step was inserted in the database")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID
    assert isinstance(result, services.StepResult)
    assert result.step.index == forged + 1
    assert coup.step_count == forged + 1
    assert list(CoupStep.objects.filter(coup=coup).order_by("index").values_list("index", "kind"))[-2:] == [
        (forged, "player_stand"),
        (forged + 1, "coup_voided"),
    ]


def _balances(floor) -> dict[str, int]:
    """Every account's balance at the casino, by name (the bank's and the players' among them)."""
    return dict(Account.objects.filter(casino=floor.table.casino).values_list("name", "balance"))


def _refused_with_nothing_written(floor, coup, act, refusal, message: str, state: str) -> None:
    """``act()`` refused with ``refusal`` saying ``message``: no row written, no chip moved, the
    coup still in ``state``."""
    before, money = row_counts(), _balances(floor)
    with pytest.raises(refusal) as refused:
        act()
    assert str(refused.value) == message
    assert row_counts() == before
    assert _balances(floor) == money
    coup.refresh_from_db()
    assert coup.state == state


def test_a_bet_changed_before_the_correction_is_not_restored_and_the_pit_boss_voids(
    croupier, pit_boss, table
) -> None:
    """A restoration settles money as the reveal does: a bet's amount changed in the database
    (240 made 40) is refused at the croupier's correction, nothing written."""
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)  # seat 2 bets 240 (step 2), seat 3 160
    assert coup.state == Coup.State.AWAITING_CORRECTION
    bet = CoupStep.objects.get(coup=coup, index=2)
    assert bet.payload["amount"] == 240
    superuser_sql(
        "UPDATE tables_coupstep SET payload = %s WHERE id = %s",
        [json.dumps({**bet.payload, "amount": 40}), bet.pk],
    )
    _refused_with_nothing_written(
        floor,
        coup,
        lambda: services.correction_submit(actor=croupier, coup=coup, cards=["4C"]),
        CoupRecordsChanged,
        _refused("step 2 was changed"),
        Coup.State.AWAITING_CORRECTION,
    )
    services.coup_void(actor=pit_boss, coup=coup, reason="a bet was changed in the database")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID


def test_a_coup_changed_before_the_approval_is_not_settled(croupier, pit_boss, table) -> None:
    """The coup's banker changed in the database between the correction and its approval: the
    approval is refused, nothing written, the provisional settlement stays as submitted."""
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)  # seat 2 bets 240 (step 2), seat 3 160
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL
    superuser_sql("UPDATE tables_coup SET banker_id = %s WHERE id = %s", [floor.players[4].pk, coup.pk])
    _refused_with_nothing_written(
        floor,
        coup,
        lambda: services.correction_approve(actor=pit_boss, coup=coup),
        CoupRecordsChanged,
        _refused("the coup itself was changed"),
        Coup.State.AWAITING_APPROVAL,
    )


def test_an_older_games_seating_changed_in_the_database_is_not_settled(game_table, croupier) -> None:
    _table, session, _players = game_table("macao", players=3)
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    for card in ("9H", "8S", "5D"):
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": card})
    for _ in range(2):
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"})
    # the banker and the first punter swapped: the winning 9 becomes the banker's
    banker: str = coup.seating["banker"]
    punters: list[str] = coup.seating["punters"]
    seating = {**coup.seating, "banker": punters[0], "punters": [banker, *punters[1:]]}
    superuser_sql("UPDATE tables_gamecoup SET seating = %s WHERE id = %s", [json.dumps(seating), coup.pk])
    before = row_counts(), GameStep.objects.count()
    with pytest.raises(CoupRecordsChanged) as refused:
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"})
    assert str(refused.value) == _refused("the coup itself was changed")
    assert (row_counts(), GameStep.objects.count()) == before
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.OPEN
    assert not Transaction.objects.filter(game_coup=coup).exists()


def test_an_older_games_step_changed_in_the_database_is_not_settled(game_table, croupier) -> None:
    _table, session, _players = game_table("macao", players=3)
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    for card in ("9H", "8S", "5D"):
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": card})
    for _ in range(2):
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"})
    dealt = GameStep.objects.get(coup=coup, index=3)  # the banker's 5D
    superuser_sql(
        "UPDATE tables_gamestep SET payload = %s WHERE id = %s",
        [json.dumps({"kind": "deal", "card": "9D"}), dealt.pk],
    )
    with pytest.raises(CoupRecordsChanged) as refused:
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"})
    assert str(refused.value) == _refused("step 3 was changed")
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == (GameCoup.State.OPEN, 5)


@pytest.mark.parametrize(
    "forged",
    [
        {"kind": "deal", "card": "ZZ"},  # no card
        {"kind": "take the pot"},  # no step of the game
        {"kind": "stand", "card": "9D"},  # a stand holds no card
    ],
)
def test_an_older_games_step_made_unplayable_is_voided_by_the_pit_boss(
    game_table, croupier, pit_boss, forged
) -> None:
    """A step no engine can replay is refused as the change it is, and the void (the way on) does
    not replay the steps it cannot trust to price the stakes."""
    _table, session, _players = game_table("macao", players=3)
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    for card in ("9H", "8S", "5D"):
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": card})
    dealt = GameStep.objects.get(coup=coup, index=3)
    superuser_sql("UPDATE tables_gamestep SET payload = %s WHERE id = %s", [json.dumps(forged), dealt.pk])
    with pytest.raises(CoupRecordsChanged) as refused:
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand"})
    assert str(refused.value) == _refused("step 3 was changed")
    voided = game_coups.game_coup_void(actor=pit_boss, coup=coup, reason="a card was changed in the database")
    assert voided.state == GameCoup.State.VOID
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == (GameCoup.State.VOID, 3)
    assert not Transaction.objects.filter(game_coup=coup).exists()


def test_a_correction_at_a_table_since_closed_is_approved_or_voided_not_rejected(
    croupier, pit_boss, table
) -> None:
    """Rejected, a coup waits for the croupier to restore it again at its table; once the table
    is closed its screen no longer shows the coup (the sweep found it reachable only by a void):
    the rejection is refused, saying the two ways on, nothing written, and both work."""
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)  # seat 2 bets 240 (step 2), seat 3 160
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    services.table_session_close(actor=croupier, session=floor.session, reason="end of the night")
    _refused_with_nothing_written(
        floor,
        coup,
        lambda: services.correction_reject(actor=pit_boss, coup=coup, reason="wrong card"),
        CoupConflict,
        (
            "The table has been closed since this correction was made: the croupier can no longer "
            "restore the coup at it. Approve the correction, or void the coup."
        ),
        Coup.State.AWAITING_APPROVAL,
    )
    services.correction_approve(actor=pit_boss, coup=coup)
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED


def test_a_seat_given_to_another_player_before_the_approval_is_not_settled(croupier, pit_boss, table) -> None:
    """The approval settles the restored coup on its places as the reveal does: seat 3's player
    changed in the database after the correction was made is refused, nothing written."""
    floor = open_floor(croupier, table)
    coup = play_flagged(floor)  # seat 2 bets 240 (step 2), seat 3 160
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    stranger = PlayerFactory(casino=table.casino, display_name="Stranger")  # he never sat
    superuser_sql("UPDATE tables_seat SET player_id = %s WHERE id = %s", [stranger.pk, floor.seats[3].pk])
    _refused_with_nothing_written(
        floor,
        coup,
        lambda: services.correction_approve(actor=pit_boss, coup=coup),
        CoupRecordsChanged,
        _refused("seat 3 was changed"),
        Coup.State.AWAITING_APPROVAL,
    )

"""At the table: old baccarat deals by seat whatever order the stakes come in, and a Macao table
draws cards for its first bank, the lowest dealing first (RULES.md §11), from the croupier's
tablet form; refusals change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent
from older_games import services as svc
from older_games.engine.game_play import play_for
from tables.models import GameCoup, Table

pytestmark = pytest.mark.django_db

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


# ------------------------------------------------------------------- old baccarat: seat order
def test_a_live_old_baccarat_coup_deals_and_buys_by_seat(game_table, croupier) -> None:
    _t, session, players = game_table("old-baccarat", players=4, settings={"min_stake": 1})
    banker, b, c, d = (svc.player_key(p) for p in players)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert coup.seating["banker"] == banker and coup.seating["punters"] == [b, c, d]
    for who in (d, c, b):  # staked from the banker's right inwards
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "stake", "player": who, "amount": 5})
    svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "cut", "player": b})
    play = play_for("old-baccarat")
    assert play.options(svc.coup_state(coup))[0].player == b  # the first card to the banker's left
    for card in ("2H", "3H", "4H", "5H", "AS", "2S", "5S", "AC"):
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "card", "card": card})
    state = svc.coup_state(coup)
    assert play.options(state)[0].player == d  # the first to buy sits on the banker's right
    assert [p["player"] for p in play.record(state)["punters"]] == [b, c, d]
    for who in (d, b, c, banker):
        svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "stand", "player": who})
    coup.refresh_from_db()
    # b 7 beats the banker's 6, c 5 and d 5 lose: what the offline judge says of the stored record
    assert (coup.state, coup.outcome) == (GameCoup.State.SETTLED, "split")
    assert coup.record is not None
    verdict = play.verdict(play.settings(coup.house_settings), coup.record)
    assert (verdict["violations"], verdict["settlement"]["net"]) == ([], {banker: 5, b: 5, c: -5, d: -5})


# ------------------------------------------------------------------- Macao: the first bank
def test_the_lowest_card_drawn_banks_the_first_macao_coup(game_table, croupier) -> None:
    _t, session, players = game_table("macao", players=3)
    drawn = {players[0]: "KD", players[1]: "AS", players[2]: "10H"}
    coup = svc.game_coup_start(actor=croupier, session=session, drawn=drawn).coup
    keys = [svc.player_key(p) for p in players]
    assert coup.banker == players[1]
    assert (coup.seating["banker"], coup.seating["punters"]) == (keys[1], [keys[2], keys[0]])
    event = AuditEvent.objects.get(action="tables.game_coup.start")
    assert event.after is not None
    assert event.after["drawn"] == {keys[0]: "KD", keys[1]: "AS", keys[2]: "TH"}


@pytest.mark.parametrize(
    ("cards", "refusal"),
    [
        (("5D", "5S", "9H"), "{0}, {1} drew the lowest card: they draw again."),
        (("5D", "1S", "9H"), "player-{1pk} drew '1S', which is not a card."),
        (("5D",), "At least two seated players draw a card for the first bank."),
    ],
)
def test_a_draw_that_names_nobody_starts_no_coup(game_table, croupier, cards, refusal) -> None:
    _t, session, players = game_table("macao", players=3)
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError) as refused:
        svc.game_coup_start(actor=croupier, session=session, drawn=dict(zip(players, cards, strict=False)))
    names = [p.display_name for p in players]
    assert refused.value.messages == [refusal.format(*names, **{"1pk": players[1].pk})]
    assert (GameCoup.objects.count(), AuditEvent.objects.count()) == (0, events)


def test_cards_are_drawn_only_for_a_macao_session_s_first_bank_by_lot(
    game_table, croupier, pit_boss
) -> None:
    table, session, players = game_table("macao", players=2)
    assert svc.first_bank_draw_open(session)
    drawn = {players[0]: "2S", players[1]: "3S"}
    coup = svc.game_coup_start(actor=croupier, session=session, drawn=drawn).coup
    svc.game_coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    assert not svc.first_bank_draw_open(session)
    with pytest.raises(ValidationError, match="before its first coup"):
        svc.game_coup_start(actor=croupier, session=session, drawn={players[0]: "2S", players[1]: "3S"})
    assert GameCoup.objects.count() == 1
    _t, other, _others = game_table("landsknecht", players=2)
    assert not svc.first_bank_draw_open(other)
    table, auction, _p = game_table("macao", players=2)
    Table.objects.filter(pk=table.pk).update(first_banker_method=Table.FirstBanker.AUCTION)
    auction.table.refresh_from_db()
    assert not svc.first_bank_draw_open(auction)


def test_the_croupier_s_tablet_records_the_cards_drawn_for_the_first_bank(game_table, croupier) -> None:
    table, _session, players = game_table("macao", players=3)
    client = Client()
    client.force_login(croupier)
    url = reverse("floor:game", args=[table.pk])
    html = client.get(url).content.decode()
    assert 'data-testid="draw-form"' in html and "Cards drawn for the first bank" in html
    for p in players:
        assert f'name="drawn-{p.pk}"' in html
    start = reverse("floor:game_start", args=[table.pk])
    # a tie: refused with its sentence, nothing started
    tie = {"draw": "1", f"drawn-{players[0].pk}": "4d", f"drawn-{players[1].pk}": "4s"}
    answer = client.post(start, tie, **HTMX)
    assert answer.status_code == 400
    names = f"{players[0].display_name}, {players[1].display_name}"
    tied = f"<p>{names} drew the lowest card: they draw again.</p>"
    assert tied in answer.content.decode()
    assert not GameCoup.objects.filter(table=table).exists()
    # typed as a croupier types: 10d is the ten; the lowest (the 2) banks
    cards = {f"drawn-{players[0].pk}": "10d", f"drawn-{players[1].pk}": "kh", f"drawn-{players[2].pk}": "2c"}
    answer = client.post(start, {"draw": "1", **cards}, **HTMX)
    assert answer.status_code == 200
    coup = GameCoup.objects.get(table=table)
    assert coup.banker == players[2]
    assert 'data-testid="draw-form"' not in answer.content.decode()  # a coup is open

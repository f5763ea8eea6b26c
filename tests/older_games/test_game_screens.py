"""The croupier's screen for the older games (older_games.views): one screen for Macao,
Landsknecht and old baccarat, driven by the coup's next steps; refusals shown, nothing written."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from audit.models import AuditEvent
from older_games import services as svc
from tables import services
from tables.models import GameCoup, GameStep, Seat, Shoe, Table, VoidRequest
from tables.wording import CLOSE_GAME_COUP_IN_PLAY
from tests.tables.play import void_limit_set

pytestmark = pytest.mark.django_db

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def as_croupier(croupier) -> Client:
    return _client(croupier)


def game_url(table: Table, name: str = "game", *args: Any) -> str:
    return reverse(f"floor:{name}", args=[table.pk, *args])


def step(client: Client, coup: GameCoup, **data: Any) -> Any:
    coup.refresh_from_db()
    data.setdefault("expected_steps", coup.step_count)
    return client.post(game_url(coup.table, "game_step", coup.pk), data, **HTMX)


def test_the_croupiers_table_page_sends_an_older_games_table_to_its_screen(game_table, as_croupier):
    table, _session, players = game_table("macao", players=3)
    answer = as_croupier.get(reverse("floor:table", args=[table.pk]))
    assert answer.status_code == 302 and answer["Location"] == game_url(table)
    page = as_croupier.get(game_url(table))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-testid="game-title">Macao<' in html
    assert f'data-testid="proposed-banker">{players[0].display_name}<' in html
    assert 'data-testid="start-coup"' in html


def test_the_game_screen_of_a_chemin_de_fer_table_is_its_own_page(table, as_croupier):
    answer = as_croupier.get(game_url(table))
    assert answer.status_code == 302 and answer["Location"] == reverse("floor:table", args=[table.pk])


def test_a_macao_coup_is_started_and_stepped_from_the_screen(game_table, as_croupier):
    table, _session, players = game_table("macao", players=2)
    answer = as_croupier.post(game_url(table, "game_start"), {"banker": players[1].pk}, **HTMX)
    assert answer.status_code == 200
    coup = GameCoup.objects.get(table=table)
    assert coup.banker == players[1]
    html = answer.content.decode()
    # the deal's card picker: every card the shoe can hold is a button, sent with the step count
    assert f'data-testid="step-deal-player-{players[0].pk}"' in html
    assert re.search(r'name="card" value="9H" class="card-btn red" aria-label="9♥" data-card="9H">', html)
    assert 'name="expected_steps" value="0"' in html
    assert (
        step(as_croupier, coup, kind="deal", player=svc.player_key(players[0]), card="9H").status_code == 200
    )
    # the card typed on the keyboard, as a croupier types it
    answer = step(as_croupier, coup, kind="deal", player=svc.player_key(players[1]), typed="10d")
    assert answer.status_code == 200
    assert list(GameStep.objects.filter(coup=coup).order_by("index").values_list("payload", flat=True)) == [
        {"kind": "deal", "player": svc.player_key(players[0]), "card": "9H"},
        {"kind": "deal", "player": svc.player_key(players[1]), "card": "TD"},
    ]
    html = answer.content.decode()
    assert f'data-testid="step-stand-player-{players[0].pk}"' in html
    assert 'data-testid="history-2"' in html


def test_a_stale_screen_gets_a_409_with_the_coup_as_it_stands_and_nothing_written(
    game_table, as_croupier, croupier, pit_boss
):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    svc.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": "2H"})
    answer = as_croupier.post(
        game_url(coup.table, "game_step", coup.pk),
        {"expected_steps": 0, "kind": "deal", "card": "3H"},
        **HTMX,
    )
    assert answer.status_code == 409
    assert "Another tablet moved this coup on" in answer.content.decode()
    assert 'name="expected_steps" value="1"' in answer.content.decode()
    assert GameStep.objects.filter(coup=coup).count() == 1
    # the croupier who dealt it does not void it: the sentence says who does, and his screen
    # offers no void
    html = answer.content.decode()
    assert 'data-testid="void-open"' not in html
    assert "You recorded a step of this coup: a pit boss who recorded none voids it." in html
    answer = as_croupier.post(
        game_url(coup.table, "game_void", coup.pk), {"expected_steps": 1, "reason": "misdeal"}, **HTMX
    )
    assert answer.status_code == 403
    assert (
        "You recorded a step of this coup: a pit boss who recorded none voids it." in answer.content.decode()
    )
    # the pit boss's void from a stale screen voids nothing either
    answer = _client(pit_boss).post(
        game_url(coup.table, "game_void", coup.pk), {"expected_steps": 0, "reason": "misdeal"}, **HTMX
    )
    assert answer.status_code == 409
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.OPEN


def test_a_void_above_the_casino_s_limit_is_said_on_the_screen(game_table, as_croupier, croupier, table):
    """Issue 20, item 5b: the croupier's void of a coup with more at stake than the casino's limit
    waits for a second pit boss; the screen says so, and the coup is still there to play."""
    void_limit_set(table, 30)
    _table, session, _players = game_table("macao", players=3)  # two punters, 30 each at risk
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    url = game_url(coup.table, "game_void", coup.pk)
    answer = as_croupier.post(url, {"expected_steps": 0, "reason": "a player was called away"}, **HTMX)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'data-testid="notice"' in html
    assert escape("60 chips at stake, above this casino's limit of 30 for one pit boss") in html
    coup.refresh_from_db()
    assert (coup.state, VoidRequest.objects.get().game_coup_id) == (GameCoup.State.OPEN, coup.pk)


def test_an_illegal_step_is_shown_and_nothing_written(game_table, as_croupier, croupier):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    events = AuditEvent.objects.count()
    answer = step(as_croupier, coup, kind="stand")
    assert answer.status_code == 400
    assert "Every player gets a first card" in answer.content.decode()
    dealt_to = coup.seating["punters"][0]  # the first card goes to the first punter
    answer = step(as_croupier, coup, kind="deal", player=dealt_to, typed="1X")
    html = answer.content.decode()
    # shown beneath the control that sent it
    assert answer.status_code == 400
    assert html.index(f'data-testid="step-deal-{dealt_to}"') < html.index('data-testid="error"')
    answer = step(as_croupier, coup, kind="deal", typed="")
    assert answer.status_code == 400 and "Tap a card" in answer.content.decode()
    answer = as_croupier.post(game_url(coup.table, "game_step", coup.pk), {"kind": "stand"}, **HTMX)
    assert answer.status_code == 400 and "reload it" in answer.content.decode()
    assert GameStep.objects.filter(coup=coup).count() == 0
    assert AuditEvent.objects.count() == events


def test_void_needs_a_reason(game_table, as_croupier, croupier):
    _table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    url = game_url(coup.table, "game_void", coup.pk)
    answer = as_croupier.post(url, {"expected_steps": 0, "reason": " "}, **HTMX)
    assert answer.status_code == 400 and "Say why the coup is void." in answer.content.decode()
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.OPEN
    answer = as_croupier.post(url, {"expected_steps": 0, "reason": "a player was called away"}, **HTMX)
    assert answer.status_code == 200
    coup.refresh_from_db()
    assert (coup.state, coup.void_reason) == (GameCoup.State.VOID, "a player was called away")
    assert 'data-testid="start-coup"' in answer.content.decode()


def test_landsknecht_collects_the_fund_dues_from_the_screen_then_stakes_and_covers(game_table, as_croupier):
    table, _session, players = game_table("landsknecht", players=3)
    html = as_croupier.get(game_url(table)).content.decode()
    assert 'data-testid="collect-dues"' in html and 'data-testid="fund-balance">0<' in html
    answer = as_croupier.post(game_url(table, "game_start"), {}, **HTMX)
    assert answer.status_code == 400 and "collect them first" in answer.content.decode()
    answer = as_croupier.post(game_url(table, "game_fund"), {}, **HTMX)
    assert answer.status_code == 200 and 'data-testid="fund-balance">30<' in answer.content.decode()
    assert svc.fund_balance(table) == 30
    answer = as_croupier.post(game_url(table, "game_start"), {}, **HTMX)
    coup = GameCoup.objects.get(table=table)
    html = answer.content.decode()
    assert f'data-testid="step-stake-player-{players[0].pk}"' in html
    assert re.search(r'type="number" name="amount"[^>]* min="10"', html)
    # a quick amount button wins over the typed field
    assert step(as_croupier, coup, kind="stake", amount="", quick_amount="40").status_code == 200
    answer = step(as_croupier, coup, kind="cover", player=svc.player_key(players[1]), amount="25")
    assert answer.status_code == 200
    answer = step(as_croupier, coup, kind="cover", player=svc.player_key(players[2]), amount="abc")
    assert answer.status_code == 400 and "whole number of chips" in answer.content.decode()
    payloads = list(GameStep.objects.filter(coup=coup).order_by("index").values_list("payload", flat=True))
    assert payloads == [
        {"kind": "stake", "amount": 40},
        {"kind": "cover", "player": svc.player_key(players[1]), "amount": 25},
    ]


def test_landsknecht_a_second_punter_covers_once_the_sharers_consent_on_the_screen(
    game_table, as_croupier, croupier
):
    table, session, players = game_table("landsknecht", players=3)
    svc.game_fund_collect(actor=croupier, session=session)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    b, c = (svc.player_key(p) for p in players[1:])
    assert step(as_croupier, coup, kind="stake", amount="40").status_code == 200
    assert step(as_croupier, coup, kind="cover", player=b, amount="25").status_code == 200
    html = as_croupier.get(game_url(table)).content.decode()
    assert f'data-testid="step-consent-{b}"' in html and f'data-testid="step-consent-{c}"' in html
    assert f'data-testid="step-cover-{c}"' not in html
    answer = step(as_croupier, coup, kind="cover", player=c, amount="15")
    assert answer.status_code == 400 and "only with their consent" in answer.content.decode()
    assert step(as_croupier, coup, kind="consent", player=b).status_code == 200
    assert step(as_croupier, coup, kind="consent", player=c).status_code == 200
    assert f'data-testid="step-cover-{c}"' in as_croupier.get(game_url(table)).content.decode()
    assert step(as_croupier, coup, kind="cover", player=c, amount="15").status_code == 200
    payloads = list(GameStep.objects.filter(coup=coup).order_by("index").values_list("payload", flat=True))
    assert payloads[2:] == [
        {"kind": "consent", "player": b},
        {"kind": "consent", "player": c},
        {"kind": "cover", "player": c, "amount": 15},
    ]


def test_old_baccarat_choices_and_cut_are_buttons(game_table, as_croupier, croupier):
    table, session, players = game_table("old-baccarat", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    html = as_croupier.get(game_url(table)).content.decode()
    for p in players[1:]:
        assert f'data-testid="step-stake-player-{p.pk}"' in html
    assert 'data-testid="void-open"' in html
    assert (
        step(as_croupier, coup, kind="stake", player=svc.player_key(players[1]), amount="20").status_code
        == 200
    )


def test_chemin_de_fer_actions_are_refused_at_an_older_games_table(game_table, as_croupier):
    table, _session, _players = game_table("macao", players=2)
    answer = as_croupier.post(reverse("floor:shoe_start", args=[table.pk]), {"decks": 6}, **HTMX)
    assert answer.status_code == 400
    assert "this is a chemin de fer action" in answer.content.decode()
    assert 'id="game-body"' in answer.content.decode()
    assert not Shoe.objects.filter(session__table=table).exists()


def test_the_game_actions_are_refused_at_a_chemin_de_fer_table(table, croupier, as_croupier):
    services.table_session_open(actor=croupier, table=table)
    answer = as_croupier.post(game_url(table, "game_start"), {}, **HTMX)
    assert answer.status_code == 400
    assert not GameCoup.objects.exists()


def test_seats_are_taken_and_left_through_the_floors_views(game_table, as_croupier):
    table, session, players = game_table("macao", players=2)
    answer = as_croupier.post(
        reverse("floor:seat_take", args=[table.pk]), {"number": 5, "new_name": "Mme Tessier"}, **HTMX
    )
    assert answer.status_code == 200 and 'id="game-body"' in answer.content.decode()
    assert Seat.objects.filter(session=session, number=5, player__display_name="Mme Tessier").exists()
    seat = Seat.objects.get(session=session, player=players[0])
    answer = as_croupier.post(reverse("floor:seat_leave", args=[table.pk, seat.pk]), {}, **HTMX)
    assert answer.status_code == 200
    seat.refresh_from_db()
    assert seat.left_at is not None


def test_closing_the_session_with_a_game_coup_open_is_refused(game_table, as_croupier, croupier):
    table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    with pytest.raises(ValidationError) as refused:
        services.table_session_close(actor=croupier, session=session)
    # the refusal names the ways out: the croupier's void here, the pit boss's on the review page
    assert refused.value.messages == [CLOSE_GAME_COUP_IN_PLAY]
    assert CLOSE_GAME_COUP_IN_PLAY == (
        "A coup is still being played: the croupier finishes it or voids it (“Void coup…” on this "
        "screen), or a pit boss voids it (“Void the coup” on the coup's review page, reached from the "
        "dashboard). Then the table can be closed."
    )
    answer = as_croupier.post(reverse("floor:session_close", args=[table.pk]), {"reason": ""}, **HTMX)
    assert answer.status_code == 400
    assert escape(CLOSE_GAME_COUP_IN_PLAY) in answer.content.decode()
    session.refresh_from_db()
    assert session.closed_at is None
    svc.game_coup_void(actor=croupier, coup=coup, reason="the table closes")
    services.table_session_close(actor=croupier, session=session)
    session.refresh_from_db()
    assert session.closed_at is not None


def test_others_may_read_but_not_play(game_table, croupier, pit_boss, outsider):
    table, session, _players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    boss = _client(pit_boss)
    html = boss.get(game_url(table)).content.decode()
    assert 'data-testid="read-only"' in html and 'data-testid="game-controls"' not in html
    assert step(boss, coup, kind="deal", card="9H").status_code == 403
    assert _client(outsider).get(game_url(table)).status_code == 403
    assert step(_client(outsider), coup, kind="deal", card="9H").status_code == 403
    assert GameStep.objects.filter(coup=coup).count() == 0
    # a pit boss may void it, with a reason
    answer = boss.post(
        game_url(table, "game_void", coup.pk), {"expected_steps": 0, "reason": "dispute"}, **HTMX
    )
    assert answer.status_code == 200
    coup.refresh_from_db()
    assert coup.state == GameCoup.State.VOID


def test_between_coups_the_last_coup_s_payments_are_shown(game_table, as_croupier, croupier):
    table, session, players = game_table("macao", players=3)
    a, b, c = players
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    for payload in (
        {"kind": "deal", "card": "9H"},
        {"kind": "deal", "card": "8S"},
        {"kind": "deal", "card": "5D"},
        {"kind": "stand"},
        {"kind": "stand"},
        {"kind": "stand"},
    ):
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    html = as_croupier.get(game_url(table)).content.decode()
    # b's 9 is paid 3 units, c's 8 two units: the banker pays 50 (as in test_game_coups)
    net = re.search(r'data-testid="last-net">(.*?)</p>', html, re.S)
    assert net is not None
    text = re.sub(r"<[^>]+>", "", net.group(1))
    assert text == (f"Coup 1 paid: {b.display_name} +30 · {c.display_name} +20 · {a.display_name} -50")
    assert 'data-testid="recent-1"' in html and "the punters win" in html


def test_a_mistyped_card_is_taken_back_from_the_screen(game_table, as_croupier, croupier):
    table, session, players = game_table("macao", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert 'data-testid="undo"' not in as_croupier.get(game_url(table)).content.decode()
    step(as_croupier, coup, kind="deal", player=svc.player_key(players[1]), card="7C")
    html = as_croupier.get(game_url(table)).content.decode()
    assert 'data-testid="undo"' in html
    answer = as_croupier.post(
        game_url(table, "game_undo", coup.pk), {"expected_steps": 1, "undo": "1"}, **HTMX
    )
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'data-testid="history-1" class="step-superseded"><span class="step-no">1</span><del>' in html
    assert 'data-testid="history-2" class="step-superseded"' in html
    # the same card may be dealt again: the deal starts over
    assert re.search(r'name="card" value="7C" class="card-btn" aria-label="7♣" data-card="7C">', html)
    coup.refresh_from_db()
    assert coup.step_count == 2
    # a stale take-back is refused, nothing written
    answer = as_croupier.post(
        game_url(table, "game_undo", coup.pk), {"expected_steps": 1, "undo": "1"}, **HTMX
    )
    assert answer.status_code == 409
    assert GameStep.objects.filter(coup=coup).count() == 2


def test_a_card_for_the_wrong_seat_is_refused(game_table, as_croupier, croupier):
    _table, session, players = game_table("macao", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    answer = step(as_croupier, coup, kind="deal", player=svc.player_key(players[2]), card="7C")
    assert answer.status_code == 400
    assert f"This deal is not {players[2].display_name}&#x27;s now but {players[1].display_name}&#x27;s." in (
        answer.content.decode()
    )
    assert GameStep.objects.filter(coup=coup).count() == 0


def _points(html: str) -> list[str]:
    return re.findall(r'data-testid="game-points">([^<]*)<', html)


def test_each_hand_shows_what_decides_it_as_its_game_counts(game_table, as_croupier, croupier):
    """The engine's own count beside each hand's cards (older_games.engine.game_play.GamePlay.scores):
    Macao's points (a hand over 9 is over under the house's plain count), Landsknecht's rank for
    each side, old baccarat's last digit with the count the players say."""
    _, session, players = game_table("macao", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    keys = [svc.player_key(p) for p in (*players[1:], players[0])]  # the deal: punters, then the banker
    for key, card in zip(keys, ("9H", "TD", "4S"), strict=True):
        step(as_croupier, coup, kind="deal", player=key, card=card)
    html = step(as_croupier, coup, kind="draw", player=keys[0], card="5D").content.decode()
    assert _points(html) == ["over 9", "0", "4"]

    _, session, players = game_table("landsknecht", players=2)
    svc.game_fund_collect(actor=croupier, session=session)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    step(as_croupier, coup, kind="stake", amount="20")
    step(as_croupier, coup, kind="cover", player=svc.player_key(players[1]), amount="20")
    step(as_croupier, coup, kind="close")
    for card in ("KS", "TH"):
        html = step(as_croupier, coup, kind="card", card=card).content.decode()
    assert _points(html) == ["K", "10"] and html.count(">wins on<") == 2

    _, session, players = game_table("old-baccarat", players=2)
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    punter = svc.player_key(players[1])
    step(as_croupier, coup, kind="stake", player=punter, amount="20")
    step(as_croupier, coup, kind="cut", player=punter)
    for card in ("6C", "5S", "KD", "AH"):  # the punter, the banker, the punter, the banker
        html = step(as_croupier, coup, kind="card", card=card).content.decode()
    assert _points(html) == ["6", "6"] and ">16 in all<" in html


def test_landsknecht_close_form_says_what_the_fund_gives_back_and_the_close_posts_it(
    game_table, as_croupier, croupier
):
    table, session, players = game_table("landsknecht", players=3)
    svc.game_fund_collect(actor=croupier, session=session)
    html = as_croupier.get(game_url(table)).content.decode()
    said = re.search(r'data-testid="fund-return">(.*?)</p>', html, re.S)
    assert said is not None
    words = " ".join(re.sub(r"<[^>]+>", "", said.group(1)).split())
    names = [p.display_name for p in players]
    assert words == (
        f"The reserve fund's 30 chips go back to those who paid into it: "
        f"{names[0]} 10, {names[1]} 10, {names[2]} 10"
    )
    answer = as_croupier.post(game_url(table, "session_close"), {"reason": "end of play"}, **HTMX)
    assert answer.status_code == 200 and 'data-testid="open-table"' in answer.content.decode()
    assert svc.fund_balance(table) == 0
    assert AuditEvent.objects.filter(action="tables.game_fund.return").count() == 1


def test_the_close_form_of_a_table_without_a_fund_says_nothing_of_one(game_table, as_croupier):
    table, _session, _players = game_table("macao", players=2)
    html = as_croupier.get(game_url(table)).content.decode()
    assert 'data-testid="close-table"' in html and 'data-testid="fund-return"' not in html


def test_old_baccarat_a_newcomer_sits_down_mid_coup_is_let_in_and_a_punter_leaves(
    game_table, as_croupier, croupier
):
    """After the cut the seat form stays open (a newcomer may still join), the banker's permission
    is a button of its own, then the newcomer's stake; a punter's "Leaves the table" records his
    leave, and the seat list marks him until the coup ends."""
    from ledger.services import cage_buy_in
    from tests.factories import PlayerFactory

    table, session, players = game_table("old-baccarat", players=2)
    kb = svc.player_key(players[1])
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    assert step(as_croupier, coup, kind="stake", player=kb, amount="20").status_code == 200
    assert step(as_croupier, coup, kind="cut", player=kb).status_code == 200
    html = as_croupier.get(game_url(table)).content.decode()
    assert 'data-testid="seat-form"' in html and f'data-testid="step-leave-{kb}"' in html
    d = PlayerFactory(casino=table.casino, display_name="Mme Newcomer")
    cage_buy_in(casino=table.casino, player=d, amount=500, actor=croupier, key=f"buy:{d.pk}")
    answer = as_croupier.post(
        reverse("floor:seat_take", args=[table.pk]), {"number": 3, "player": d.pk}, **HTMX
    )
    assert answer.status_code == 200
    kd = svc.player_key(d)
    html = answer.content.decode()
    assert f'data-testid="step-permit-{kd}"' in html and "Banker lets in" in html
    assert f'data-testid="step-stake-{kd}"' not in html
    html = step(as_croupier, coup, kind="permit", player=kd).content.decode()
    assert f'data-testid="step-stake-{kd}"' in html and f'data-testid="step-permit-{kd}"' not in html
    assert step(as_croupier, coup, kind="stake", player=kd, amount="10").status_code == 200
    html = step(as_croupier, coup, kind="leave", player=kb).content.decode()
    assert 'data-testid="leaving-seat-2"' in html and 'data-testid="leaving-seat-3"' not in html
    payloads = list(GameStep.objects.filter(coup=coup).order_by("index").values_list("payload", flat=True))
    assert payloads[2:] == [
        {"kind": "permit", "player": kd},
        {"kind": "stake", "player": kd, "amount": 10},
        {"kind": "leave", "player": kb},
    ]


@pytest.mark.parametrize(
    "data",
    [
        # a field the step does not take, of any length, was stored with the step and its event
        {"kind": "stake", "amount": "10", "decision": "x" * 100_000},
        {"kind": "stake", "amount": "10", "decision": "take"},
        {"kind": "stake", "amount": "10", "player": "p" * 41},
        # digits int() cannot read (or reads as another number) were a 500
        {"kind": "stake", "amount": "²"},
        {"kind": "stake", "amount": "①"},
        {"kind": "stake", "amount": "\u0661\u0662"},
        {"kind": "stake", "amount": "10", "expected_steps": "²"},
    ],
)
def test_a_step_the_api_would_refuse_is_refused_on_the_screen_too(game_table, as_croupier, croupier, data):
    table, session, _players = game_table("landsknecht", players=3)
    assert as_croupier.post(game_url(table, "game_fund"), {}, **HTMX).status_code == 200
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    events, steps = AuditEvent.objects.count(), GameStep.objects.count()
    answer = step(as_croupier, coup, **data)
    assert answer.status_code == 400
    assert (AuditEvent.objects.count(), GameStep.objects.count()) == (events, steps)


def test_a_banker_named_in_digits_int_cannot_read_is_refused(game_table, as_croupier):
    table, _session, _players = game_table("macao", players=3)
    answer = as_croupier.post(game_url(table, "game_start"), {"banker": "²"}, **HTMX)
    assert answer.status_code == 400
    assert not GameCoup.objects.filter(table=table).exists()

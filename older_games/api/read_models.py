"""The older games' API answers built from their reads (older_games.selectors)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Prefetch

from ledger.models import Account, Entry, Transaction
from older_games.api.inputs import GAME_STEP_FIELDS
from older_games.engine import game_play
from older_games.engine.game_play import FUND, POOL
from older_games.selectors import GameCoupView, fund_return_shares, game_coups, game_table_view
from older_games.services import fund_balance, key_player_id, player_key
from tables.models import GameCoup, Seat, Table
from tables.selectors import table_open_session


# ------------------------------------------------------------- the older games (older_games.selectors)
def party_data(key: str, names: Mapping[str, str]) -> dict[str, Any]:
    """A party of a game coup by its key (``player-<id>``, the fund, the pool), with his name."""
    return {"key": key, "player": key_player_id(key), "name": names.get(key, key)}


def game_option_data(game: str, option: Mapping[str, Any]) -> dict[str, Any]:
    """A ``next_steps`` option, with the step to send: its fixed keys (``step``) and the keys the
    client adds, one value each, from the option's ``cards``, amounts or ``choices`` (``choose``)."""
    takes = GAME_STEP_FIELDS.get(game, {}).get(option["kind"], frozenset())
    step: dict[str, Any] = {"kind": option["kind"]}
    if "player" in takes and option.get("player") is not None:
        step["player"] = option["player"]
    choose = [name for name in ("card", "amount", "decision") if name in takes]
    return {"kind": option["kind"], "step": step, "choose": choose, **option}


def game_coup_summary_data(coup: GameCoup, names: Mapping[str, str] | None = None) -> dict[str, Any]:
    banker = player_key(coup.banker_id)
    return {
        "id": coup.pk,
        "table": coup.table_id,
        "session": coup.session_id,
        "number": coup.number,
        "game": coup.game,
        "state": coup.state,
        "outcome": coup.outcome,
        "banker": party_data(banker, names if names is not None else {banker: coup.banker.display_name}),
        "step_count": coup.step_count,
        "created_at": coup.created_at,
        "ended_at": coup.ended_at,
    }


def _party_of(account: Account) -> str:
    if account.kind == Account.Kind.PLAYER and account.player_id is not None:
        return player_key(account.player_id)
    parties: dict[str, str] = {Account.Kind.FUND: FUND, Account.Kind.POOL: POOL}
    return parties.get(account.kind, account.kind)


def game_postings_data(transaction_ids: list[int]) -> list[dict[str, Any]]:
    entries = Entry.objects.select_related("account").order_by("pk")
    txns = (
        Transaction.objects.filter(pk__in=transaction_ids)
        .prefetch_related(Prefetch("entries", queryset=entries))
        .order_by("pk")
    )
    return [
        {
            "id": t.pk,
            "kind": t.kind,
            "memo": t.memo,
            "entries": [
                {
                    "account": e.account_id,
                    "kind": e.account.kind,
                    "party": _party_of(e.account),
                    "amount": e.amount,
                }
                for e in t.entries.all()
            ],
        }
        for t in txns
    ]


def game_coup_data(view: GameCoupView) -> dict[str, Any]:
    """A game coup as the API shows it (``older_games.selectors.game_coup_view``)."""
    coup = view.coup
    settled = coup.state == GameCoup.State.SETTLED
    return {
        **game_coup_summary_data(coup, view.names),
        "title": view.title,
        "house_settings": coup.house_settings,
        "punters": [party_data(key, view.names) for key in view.punters],
        "names": dict(view.names),
        "hands": view.hands,
        "cards": view.cards,
        "exposure": {} if view.over else view.exposure,
        "next_steps": [game_option_data(coup.game, option) for option in view.next_steps],
        "steps": [
            {
                "index": s["index"],
                "payload": s["payload"],
                "actor": s["actor"],
                "created_at": s["at"],
                "undone": s["undone"],
            }
            for s in view.steps
        ],
        "can_undo": view.can_undo,
        "net": view.net if settled else None,
        "postings": game_postings_data(view.transactions) if view.transactions else [],
        "record": coup.record if settled else None,
        "void_reason": coup.void_reason,
    }


def game_table_data(table: Table, *, recent: int = 10) -> dict[str, Any]:
    """An older game's table between coups (``older_games.selectors.game_table_view``), or, with no
    open session, what is left of it: its fund, its latest coups."""
    session = table_open_session(table=table)
    data: dict[str, Any] = {
        "table": table.pk,
        "name": table.name,
        "game": table.game,
        "title": game_play.play_for(table.game).title,
        "game_settings": table.game_settings,
        "session": None,
        "seats": [],
        "proposed_banker": None,
        "proposed_punters": [],
        "blocked": "This table has no open session.",
        "unpaid_dues": [],
        "fund": None,
        "fund_return": [],
        "open_coup": None,
        "recent": [],
    }
    if session is None:
        data["fund"] = fund_balance(table) if table.game == Table.Game.LANDSKNECHT else None
        coups = list(game_coups(table=table)[:recent])
        data["open_coup"] = next((c.pk for c in coups if c.state == GameCoup.State.OPEN), None)
        data["recent"] = [game_coup_summary_data(c) for c in coups]
        return data
    view = game_table_view(session, recent=recent)
    seats = list(
        Seat.objects.filter(session=session, left_at__isnull=True).select_related("player").order_by("number")
    )
    names = {**view.names, **{player_key(seat.player_id): seat.player.display_name for seat in seats}}
    data.update(
        session=session.pk,
        seats=[{"seat": seat.number, **party_data(player_key(seat.player_id), names)} for seat in seats],
        proposed_banker=party_data(view.proposed_banker, names) if view.proposed_banker else None,
        proposed_punters=[party_data(key, names) for key in view.proposed_punters],
        blocked=view.blocked,
        unpaid_dues=[party_data(player_key(p.pk), names) for p in view.unpaid_dues],
        fund=view.fund,
        fund_return=[
            {**party_data(k, names), "amount": amount}
            for k, amount in fund_return_shares(session, balance=view.fund)
        ],
        open_coup=view.open_coup.pk if view.open_coup is not None else None,
        recent=[game_coup_summary_data(c) for c in view.recent],
    )
    return data

"""``manage.py odds``: its plain functions, then the command itself in a subprocess.

The subprocess points DATABASE_URL at a port where no database listens: the command must not need
one, so any attempt to connect would fail the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from chemin_de_fer.engine.profiles import CASINO, CLASSIC, CLUB, HOME, Profile
from tables.management.commands.odds import (
    PER_SEAT_DEFAULT_DECKS,
    odds_report,
    render_report,
    resolve_decks,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("profile", "arg", "decks", "noted"),
    [
        (CASINO, None, 8, False),
        (CLASSIC, None, 6, False),
        (HOME, None, 6, False),
        (CLUB, None, PER_SEAT_DEFAULT_DECKS, True),
        (CLUB, "5", 5, False),
        (CASINO, "6", 6, False),
        (CLASSIC, "8", 8, True),  # not a count the profile plays: computed, but said
        (CASINO, "inf", None, False),
        (CASINO, "Infinite", None, False),
    ],
)
def test_resolve_decks(profile: Profile, arg: str | None, decks: int | None, noted: bool) -> None:
    got, note = resolve_decks(profile, arg)
    assert got == decks
    assert (note is not None) == noted
    if profile is CLUB and arg is None:
        assert note is not None and "12" in note and "one deck per seated player" in note


@pytest.mark.parametrize("arg", ["0", "-2", "eight", "6.5"])
def test_resolve_decks_rejects(arg: str) -> None:
    with pytest.raises(ValueError, match="--decks"):
        resolve_decks(CASINO, arg)


def test_report_and_rendering() -> None:
    report = odds_report(CASINO, 8)
    assert set(report) >= {"profile", "decks", "single_punter", "odds", "punto_banco"}
    assert report["profile"] == "casino" and report["decks"] == 8 and report["single_punter"] is False
    pb = report["punto_banco"]
    assert (pb["banker_win"], pb["player_win"], pb["tie"]) == (0.458597, 0.446247, 0.095156)
    assert round(Fraction(pb["exact"]["banker_win"]), 6) == Fraction("0.458597")
    assert report["odds"]["levy_bp"] == 500
    text = render_report(report)
    assert "casino" in text and "punto banco" in text
    assert "0.458597" in text and "8 decks exact" in text


def _manage(*args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.base",
        "DATABASE_URL": "postgres://nobody@127.0.0.1:9/no_database_here",
    }
    return subprocess.run(
        [sys.executable, "manage.py", "odds", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


needs_manage = pytest.mark.skipif(not (ROOT / "manage.py").exists(), reason="no manage.py yet")


@needs_manage
def test_command_json_needs_no_database() -> None:
    done = _manage("--profile", "casino", "--decks", "6", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["profile"] == "casino" and data["decks"] == 6 and data["single_punter"] is False
    assert data["punto_banco"]["banker_win"] == 0.458653
    assert Fraction(data["odds"]["exact"]["tie"]) > 0


@needs_manage
def test_command_human_club_default() -> None:
    done = _manage("--profile", "club")
    assert done.returncode == 0, done.stderr
    assert "assuming 12" in done.stderr
    assert "club" in done.stdout and "12 decks exact" in done.stdout


@needs_manage
def test_command_unknown_profile_lists_the_known_ones() -> None:
    done = _manage("--profile", "nope")
    assert done.returncode != 0
    assert "casino" in done.stderr and "club" in done.stderr


@needs_manage
def test_call_command_in_process_without_database_access() -> None:
    """In process, pytest-django forbids database access to an unmarked test: a query would fail."""
    out, err = StringIO(), StringIO()
    call_command("odds", "--profile", "home", "--single-punter", "--decks", "6", stdout=out, stderr=err)
    assert "home (single punter)" in out.getvalue()
    assert "6 decks exact" in out.getvalue()
    with pytest.raises(CommandError, match="known: casino"):
        call_command("odds", "--profile", "nope", stdout=StringIO(), stderr=StringIO())


# ------------------------------------------------------------------ --game: chemin de fer's relatives
def _game_out(*args: str) -> str:
    out = StringIO()
    call_command("odds", *args, stdout=out)
    return out.getvalue()


@pytest.mark.slow
def test_macao_edges_under_each_setting_are_the_enumerated_ones() -> None:
    report = json.loads(_game_out("--game", "macao", "--json"))
    assert report["decks"] == 2
    assert report["exact"] == {
        "defaults": "14383/67095",
        "count=modulo": "509/2485",
        "max_cards=3": "424935703/1757687715",
        "discard_zeros=False": "955373/6897189",
        "banker_collects=one": "-372859/1543185",
        # the banker may not draw but still throws a zero aside (RULES.md §11)
        "banker_draws=False": "-937/4473",
    }


@pytest.mark.parametrize(("decks", "edge"), [("1", "1/17"), ("2", "7/103"), ("6", "23/311")])
def test_landsknecht_edge_is_the_doublet_chance(decks: str, edge: str) -> None:
    """After two different ranks the race is even: the banker's edge is the chance that the two
    starting cards share a rank, (4d - 1) / (52d - 1) (docs/games/landsknecht.md)."""
    report = json.loads(_game_out("--game", "landsknecht", "--decks", decks, "--json"))
    assert report["exact"] == {"defaults": edge, "doublet=standoff": "0/1"}


def test_the_game_table_names_each_setting() -> None:
    text = _game_out("--game", "landsknecht")
    assert text.splitlines() == [
        "Landsknecht, 2 decks: the banker's edge per chip at risk",
        "  defaults          +0.067961  (7/103)",
        "  doublet=standoff  +0.000000  (0/1)",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "macao", "--profile", "casino"], "give --profile (chemin de fer) or --game, not both"),
        ([], "give --profile SLUG (chemin de fer) or --game GAME"),
        (["--game", "macao", "--decks", "0"], "--decks must be at least 1"),
        (["--game", "macao", "--decks", "two"], "--decks must be a positive whole number, got 'two'"),
    ],
)
def test_bad_game_requests_are_clear_errors(args: list[str], message: str) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("odds", *args, stdout=StringIO())
    assert str(refused.value) == message


def test_old_baccarat_edges_show_what_the_contradiction_on_ties_is_worth() -> None:
    report = json.loads(_game_out("--game", "old-baccarat", "--json"))
    assert report["decks"] == 2
    assert report["exact"] == {
        "defaults": "1731891559/17070542775",  # ties to the banker: +0.101455
        # ties pooled, except against the banker's natural (RULES.md §11): +0.025572
        "tie_rule=pool": "436523894/17070542775",
        "banker_match=double": "-1979144683/5690180925",
        "natural_stops_all_draws=False": "2336507131/17070542775",
    }

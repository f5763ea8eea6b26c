"""``manage.py odds --profile SLUG [--decks N] [--single-punter] [--json]``: exact odds of a profile;
``manage.py odds --game macao|landsknecht|… [--decks N] [--json]``: the banker's exact edge in one
of chemin de fer's relatives, under the house's default settings and each alternative setting.

Why a command: a casino choosing or auditing a profile wants the bank's expectation next to Punto
Banco's, on the table's own shoe, without a database or a web page. The figures come from
:mod:`chemin_de_fer.engine.odds` (exact enumeration, every option resolved by the advice); nothing here
touches the database, so it runs on any machine with the code.

The work is done by plain functions (:func:`resolve_decks`, :func:`odds_report`,
:func:`render_report`) so that it can be tested without Django's command machinery.
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from chemin_de_fer.engine.odds import Odds, profile_odds, punto_banco_odds
from chemin_de_fer.engine.profiles import BUILTIN, Profile, get_profile
from tables.games import game_odds

#: decks assumed for a one-deck-per-seated-player profile (club) when --decks is not given
PER_SEAT_DEFAULT_DECKS = 12

_INFINITE = {"inf", "infinite", "none"}


def decks_parse(*, decks: str, expected: str) -> int:
    """``--decks`` read as a deck count: a whole number, at least 1; else a ValueError that says
    what was ``expected`` (a profile's count may also be 'inf', a game's may not)."""
    try:
        count = int(decks)
    except ValueError:
        raise ValueError(f"--decks must be {expected}, got {decks!r}") from None
    if count < 1:
        raise ValueError("--decks must be at least 1")
    return count


def resolve_decks(profile: Profile, decks: str | None) -> tuple[int | None, str | None]:
    """The deck count to compute on (``None``: infinite deck) and a note for the user, if any.

    Default: the profile's largest allowed count; a per-seated-player profile has none, so it gets
    :data:`PER_SEAT_DEFAULT_DECKS` and the note says so. ``inf`` asks for the infinite deck.
    """
    if decks is None:
        if profile.decks_per_seated_player:
            return PER_SEAT_DEFAULT_DECKS, (
                f"{profile.slug}: one deck per seated player; --decks not given, "
                f"assuming {PER_SEAT_DEFAULT_DECKS} (a full table)"
            )
        return max(profile.decks_allowed), None
    if decks.strip().lower() in _INFINITE:
        return None, None
    count = decks_parse(decks=decks, expected="a positive whole number or 'inf'")
    note = None
    if not profile.decks_per_seated_player and count not in profile.decks_allowed:
        allowed = ", ".join(map(str, profile.decks_allowed))
        note = f"{profile.slug} plays with {allowed} decks; computing {count} as asked"
    return count, note


def _odds_dict(odds: Odds) -> dict[str, Any]:
    return {**odds.rounded(6), "levy_bp": odds.levy_bp, "exact": odds.exact()}


def odds_report(profile: Profile, decks: int | None, *, single_punter: bool = False) -> dict[str, Any]:
    """Everything the command prints, as a JSON-ready dict: the profile's odds and Punto Banco's on
    the same shoe, six-decimal floats plus exact fractions, and the time the profile took."""
    start = time.perf_counter()
    odds = profile_odds(profile, decks=decks, single_punter=single_punter)
    elapsed = time.perf_counter() - start
    baseline = punto_banco_odds(decks=decks)
    return {
        "profile": profile.slug,
        "decks": decks,
        "single_punter": single_punter,
        "odds": _odds_dict(odds),
        "punto_banco": _odds_dict(baseline),
        "basis": odds.basis,
        "elapsed_seconds": round(elapsed, 3),
    }


_COLUMNS = (
    ("banker", "banker_win"),
    ("player", "player_win"),
    ("tie", "tie"),
    ("bank EV/unit", "banker_ev_per_unit"),
    ("levy/unit", "expected_levy_per_unit"),
)


def render_report(report: dict[str, Any]) -> str:
    """The human table: one row for the profile, one for Punto Banco, then basis and time."""
    label = report["profile"] + (" (single punter)" if report["single_punter"] else "")
    rows = [
        (label, report["odds"]),
        (f"punto banco ({report['punto_banco']['levy_bp'] / 100:g} % comm.)", report["punto_banco"]),
    ]
    width = max(len(name) for name, _ in rows)
    head = f"{'':<{width}}" + "".join(f"  {title:>12}" for title, _ in _COLUMNS)
    lines = [head]
    for name, figures in rows:
        lines.append(f"{name:<{width}}" + "".join(f"  {figures[key]:>12.6f}" for _, key in _COLUMNS))
    lines.append(f"basis: {report['basis']}; computed in {report['elapsed_seconds']:.3f} s")
    return "\n".join(lines)


def game_report(slug: str, decks: int | None) -> dict[str, Any]:
    """The banker's exact edge in game ``slug`` on ``decks`` decks (default: the house's), for the
    default settings and each alternative setting: six-decimal floats and exact fractions."""
    game = game_odds()[slug]
    count = decks if decks is not None else game.default_decks
    edges = {label: game.edge(settings, count) for label, settings in game.settings.items()}
    return {
        "game": slug,
        "decks": count,
        "unit": game.unit,
        "banker_edge": {label: round(float(e), 6) for label, e in edges.items()},
        "exact": {label: f"{e.numerator}/{e.denominator}" for label, e in edges.items()},
    }


def render_game_report(report: dict[str, Any]) -> str:
    title = game_odds()[report["game"]].title
    lines = [f"{title}, {report['decks']} decks: the banker's edge {report['unit']}"]
    width = max(len(label) for label in report["banker_edge"])
    for label, edge in report["banker_edge"].items():
        lines.append(f"  {label:<{width}}  {edge:+.6f}  ({report['exact'][label]})")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Exact odds of a coup under a rule profile, next to Punto Banco's (no database needed)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--profile", help=f"rule profile slug ({', '.join(BUILTIN)})")
        parser.add_argument(
            "--game", choices=sorted(game_odds()), help="one of chemin de fer's relatives instead"
        )
        parser.add_argument(
            "--decks",
            help="decks in the shoe, or 'inf' for an infinite deck "
            "(default: the profile's largest; club: 12, one per seat)",
        )
        parser.add_argument(
            "--single-punter",
            action="store_true",
            help="a single punter bet (home profile: option on 1-7)",
        )
        parser.add_argument("--json", action="store_true", help="machine-readable output")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["game"] and options["profile"]:
            raise CommandError("give --profile (chemin de fer) or --game, not both")
        if options["game"]:
            self._game(options["game"], options["decks"], as_json=options["json"])
            return
        if not options["profile"]:
            raise CommandError("give --profile SLUG (chemin de fer) or --game GAME")
        try:
            profile = get_profile(options["profile"])
        except KeyError as exc:
            raise CommandError(exc.args[0]) from None
        try:
            decks, note = resolve_decks(profile, options["decks"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if note:
            self.stderr.write(note)
        report = odds_report(profile, decks, single_punter=options["single_punter"])
        if options["json"]:
            report.pop("elapsed_seconds")  # keep the JSON reproducible, byte for byte
            self.stdout.write(json.dumps(report, indent=2))
        else:
            self.stdout.write(render_report(report))

    def _game(self, slug: str, decks: str | None, *, as_json: bool) -> None:
        count = None
        if decks is not None:
            try:
                count = decks_parse(decks=decks, expected="a positive whole number")
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        report = game_report(slug, count)
        self.stdout.write(json.dumps(report, indent=2) if as_json else render_game_report(report))

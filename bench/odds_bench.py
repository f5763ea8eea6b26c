"""Benchmark of the exact odds and the advice (a plain script: it prints numbers, asserts nothing).

    .venv/bin/python bench/odds_bench.py

Why: the odds must stay exact *and* interactive (profile at 8 decks well under 5 s, advice well
under 50 ms a call); this shows where a change moved either. Each odds figure is the best of a few
runs, in a fresh memo each time (nothing is cached between calls).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chemin_de_fer.engine.advice import advise_banker, advise_player
from chemin_de_fer.engine.odds import Odds, profile_odds, punto_banco_odds
from chemin_de_fer.engine.profiles import BUILTIN, CASINO, CLUB
from chemin_de_fer.engine.tableau import Tableau

EIGHT_DECKS = (128,) + (32,) * 9


def best_of(runs: int, fn: Callable[[], Odds]) -> tuple[float, Odds]:
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    return best, result


def line(label: str, seconds: float, odds: Odds) -> str:
    r = odds.rounded()
    return (
        f"{label:<32} {seconds * 1000:8.1f} ms   banker {r['banker_win']:.6f}"
        f"  player {r['player_win']:.6f}  tie {r['tie']:.6f}"
        f"  bank EV {r['banker_ev_per_unit']:+.6f}  levy {r['expected_levy_per_unit']:.6f}"
    )


def per_second(fn: Callable[[], object], seconds: float = 1.0) -> tuple[float, float]:
    """Calls per second and the slowest call seen, over about ``seconds``."""
    calls, worst = 0, 0.0
    start = time.perf_counter()
    while (now := time.perf_counter()) - start < seconds:
        fn()
        worst = max(worst, time.perf_counter() - now)
        calls += 1
    return calls / (time.perf_counter() - start), worst


def main() -> None:
    print("exact odds (best of 3)")
    for decks in (6, 8):
        print(line(f"punto banco, {decks} decks", *best_of(3, partial(punto_banco_odds, decks=decks))))
    print(line("punto banco, infinite", *best_of(3, lambda: punto_banco_odds(decks=None))))
    for slug, profile in BUILTIN.items():
        for single in (False, True) if slug == "home" else (False,):
            label = f"{slug}{' (single punter)' if single else ''}, 8 decks"
            timed = best_of(3, partial(profile_odds, profile, decks=8, single_punter=single))
            print(line(label, *timed))
    print(line("club, 12 decks", *best_of(3, lambda: profile_odds(CLUB, decks=12))))

    print("\nadvice, 8-deck shoe")
    casino, club = Tableau.for_profile(CASINO), Tableau.for_profile(CLUB)
    player_unseen = (127, 32, 32, 32, 32, 31, 32, 32, 32, 32)  # his T+5 removed
    banker_unseen = (127, 32, 32, 31, 32, 32, 32, 32, 32, 31)  # his T+3 and the player's 9 removed
    stood_unseen = (127, 32, 32, 32, 32, 32, 31, 32, 32, 32)  # club banker T+6, player stood
    cases: list[tuple[str, Callable[[], object]]] = [
        (
            "player on 5",
            lambda: advise_player(casino, ("TS", "5H"), single_punter=False, unseen=player_unseen),
        ),
        (
            "banker 3 vs 9",
            lambda: advise_banker(casino, ("TS", "3H"), "9D", unseen=banker_unseen, levy_bp=500),
        ),
        ("club banker 6, stood", lambda: advise_banker(club, ("TS", "6H"), None, unseen=stood_unseen)),
        (
            "player on 5, infinite",
            lambda: advise_player(casino, ("TS", "5H"), single_punter=False, unseen=None),
        ),
    ]
    for label, fn in cases:
        rate, worst = per_second(fn)
        print(f"{label:<32} {rate:10.0f} calls/s  {1000 / rate:6.2f} ms/call  slowest {worst * 1000:.2f} ms")


if __name__ == "__main__":
    main()

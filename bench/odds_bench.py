"""Benchmark of the exact odds and the advice (a plain script: it prints numbers, asserts nothing).

    .venv/bin/python bench/odds_bench.py

Why: the odds must stay exact *and* interactive (profile at 8 decks well under 5 s, advice well
under 50 ms a call); this shows where a change moved either. Each odds figure is the best of a few
runs, in a fresh memo each time (nothing is cached between calls).

Baselines, measured in the same run by the same clock:

- exact odds: a plain Python loop over the same hands (``naive_punto_banco``: Punto Banco's
  tableau, every ordered deal of the 8-deck shoe's values P1 B1 P2 B2 and the third cards,
  weighted by float products, no multisets, no memo). Why: it is the obvious program a reader
  would write for the same figures, short enough to check by eye (the bench asserts it gives
  Punto Banco's published odds to 1e-6), so the engine's time over it says how much the
  enumeration's tricks buy; a chemin de fer profile has options on top, so its ratio is against
  Punto Banco's plain loop, the same hands without the choices.
- advice: the same call on the infinite deck (``unseen=None``): the same decision from the
  textbook probabilities instead of the actual shoe's composition; the ratio is what reading the
  actual shoe costs (or saves: the infinite deck's sums are not always the cheaper ones).

The final ``summary`` lines (bench/baseline.py) give each figure, its baseline and the ratio,
with the load average at the start and the end.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baseline import BenchRun
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


def _banker_draws(banker: int, third: int | None) -> bool:
    """Punto Banco's banker tableau (``third``: the player's third card's value, None if he stood)."""
    if third is None:
        return banker <= 5
    if banker <= 2:
        return True
    return {3: third != 8, 4: 2 <= third <= 7, 5: 4 <= third <= 7, 6: third in (6, 7)}.get(banker, False)


def naive_punto_banco(counts: tuple[int, ...]) -> tuple[float, float, float]:
    """(banker, player, tie) probabilities by the plain loop: every ordered deal of values from a
    shoe of ``counts`` (index = point value), weighted by float products. The baseline above."""
    c = list(counts)
    total = sum(c)
    result = [0.0, 0.0, 0.0]

    def score(player: int, banker: int, weight: float) -> None:
        result[0 if banker > player else 1 if player > banker else 2] += weight

    for p1 in range(10):
        w1 = c[p1] / total
        c[p1] -= 1
        for b1 in range(10):
            w2 = w1 * c[b1] / (total - 1)
            c[b1] -= 1
            for p2 in range(10):
                w3 = w2 * c[p2] / (total - 2)
                c[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * c[b2] / (total - 3)
                    if not w4:
                        continue
                    c[b2] -= 1
                    player, banker = (p1 + p2) % 10, (b1 + b2) % 10
                    if player >= 8 or banker >= 8:
                        score(player, banker, w4)
                    elif player >= 6:  # the player stands
                        if _banker_draws(banker, None):
                            for b3 in range(10):
                                score(player, (banker + b3) % 10, w4 * c[b3] / (total - 4))
                        else:
                            score(player, banker, w4)
                    else:
                        for p3 in range(10):
                            w5 = w4 * c[p3] / (total - 4)
                            if not w5:
                                continue
                            c[p3] -= 1
                            drawn = (player + p3) % 10
                            if _banker_draws(banker, p3):
                                for b3 in range(10):
                                    score(drawn, (banker + b3) % 10, w5 * c[b3] / (total - 5))
                            else:
                                score(drawn, banker, w5)
                            c[p3] += 1
                    c[b2] += 1
                c[p2] += 1
            c[b1] += 1
        c[p1] += 1
    return result[0], result[1], result[2]


def main() -> None:
    with BenchRun("odds_bench") as run:
        measure(run)


def measure(run: BenchRun) -> None:
    naive, banker, player, tie = float("inf"), 0.0, 0.0, 0.0
    for _ in range(3):  # best of 3, as the figures
        started = time.perf_counter()
        banker, player, tie = naive_punto_banco(EIGHT_DECKS)
        naive = min(naive, time.perf_counter() - started)
    print(
        f"{'baseline: plain loop, 8 decks':<32} {naive * 1000:8.1f} ms   banker {banker:.6f}"
        f"  player {player:.6f}  tie {tie:.6f}  (Punto Banco, every ordered deal; best of 3)"
    )
    naive_label = "plain Python loop over the same 8-deck Punto Banco hands, best of 3"
    print("exact odds (best of 3)")
    for decks in (6, 8):
        seconds, odds = best_of(3, partial(punto_banco_odds, decks=decks))
        print(line(f"punto banco, {decks} decks", seconds, odds))
        if decks == 8:
            r = odds.rounded()
            assert abs(r["banker_win"] - banker) < 1e-6 and abs(r["player_win"] - player) < 1e-6, (r, banker)
            run.add("punto_banco_8", figure=seconds * 1000, baseline=naive * 1000, unit="ms",
                    baseline_label=naive_label)  # fmt: skip
    print(line("punto banco, infinite", *best_of(3, lambda: punto_banco_odds(decks=None))))
    for slug, profile in BUILTIN.items():
        for single in (False, True) if slug == "home" else (False,):
            label = f"{slug}{' (single punter)' if single else ''}, 8 decks"
            seconds, odds = best_of(3, partial(profile_odds, profile, decks=8, single_punter=single))
            print(line(label, seconds, odds))
            if not single:
                run.add(f"{slug}_8", figure=seconds * 1000, baseline=naive * 1000, unit="ms",
                        baseline_label=naive_label)  # fmt: skip
    print(line("club, 12 decks", *best_of(3, lambda: profile_odds(CLUB, decks=12))))

    print("\nadvice, 8-deck shoe")
    casino, club = Tableau.for_profile(CASINO), Tableau.for_profile(CLUB)
    player_unseen = (127, 32, 32, 32, 32, 31, 32, 32, 32, 32)  # his T+5 removed
    banker_unseen = (127, 32, 32, 31, 32, 32, 32, 32, 32, 31)  # his T+3 and the player's 9 removed
    stood_unseen = (127, 32, 32, 32, 32, 32, 31, 32, 32, 32)  # club banker T+6, player stood
    # (name, label, the call on the actual shoe, the same call on the infinite deck: its baseline)
    cases: list[tuple[str, str, Callable[[], object], Callable[[], object]]] = [
        (
            "advice_player_5",
            "player on 5",
            lambda: advise_player(casino, ("TS", "5H"), single_punter=False, unseen=player_unseen),
            lambda: advise_player(casino, ("TS", "5H"), single_punter=False, unseen=None),
        ),
        (
            "advice_banker_3_vs_9",
            "banker 3 vs 9",
            lambda: advise_banker(casino, ("TS", "3H"), "9D", unseen=banker_unseen, levy_bp=500),
            lambda: advise_banker(casino, ("TS", "3H"), "9D", unseen=None, levy_bp=500),
        ),
        (
            "advice_club_banker_6",
            "club banker 6, stood",
            lambda: advise_banker(club, ("TS", "6H"), None, unseen=stood_unseen),
            lambda: advise_banker(club, ("TS", "6H"), None, unseen=None),
        ),
    ]
    for name, label, fn, infinite in cases:
        rate, worst = per_second(fn)
        base, _ = per_second(infinite)
        print(
            f"{label:<32} {rate:10.0f} calls/s  {1000 / rate:6.2f} ms/call  slowest {worst * 1000:.2f} ms;"
            f" infinite deck {1000 / base:6.3f} ms/call"
        )
        run.add(name, figure=1000 / rate, baseline=1000 / base, unit="ms/call",
                baseline_label="the same call on the infinite deck")  # fmt: skip


if __name__ == "__main__":
    main()

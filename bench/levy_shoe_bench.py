"""What pricing each coup's expected levy on the shoe as it stood would cost (a plain script: it
prints numbers, asserts nothing).

    .venv/bin/python bench/levy_shoe_bench.py [--shoes 3] [--decks 8]

Why: a rating slip's theoretical revenue (review/selectors/rating.py) prices every coup a player
banked on a full shoe of the coup's decks, one memoised enumeration per (profile, decks, rate).
Pricing it on the shoe as it stood at the coup's start (the burnt cards and the earlier coups'
cards removed) is one exact enumeration per coup (``chemin_de_fer.engine.odds.shoe_odds``), and a
memo by composition only helps when the same composition comes back. This deals seeded shuffled
shoes of the casino profile (3 burnt, 4 to 6 cards a coup, to the last 6 cards) and measures, per
coup, in the same run: the full-shoe price as the slip reads it now (memoised), the part-dealt
price, how many compositions repeat, and how far the two prices lie apart. Times are the
process's CPU time (``time.process_time``): the machine is shared, and wall-clock time would
measure the other processes too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chemin_de_fer.engine.odds import expected_levy_at_rate, fresh_shoe, shoe_odds
from chemin_de_fer.engine.profiles import CASINO, LevyMode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shoes", type=int, default=3)
    parser.add_argument("--decks", type=int, default=8)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    profile = replace(CASINO, levy_mode=LevyMode.PERCENTAGE, tax_rate_bp=500)
    expected_levy_at_rate.cache_clear()
    start = time.process_time()
    full = expected_levy_at_rate(profile, args.decks, 500)
    first_full = time.process_time() - start
    fresh_ms, dealt_ms, gaps = [], [], []
    seen: set[tuple[int, ...]] = set()
    repeats = coups = 0
    for _ in range(args.shoes):
        cards = [v for v, n in enumerate(fresh_shoe(args.decks)) for _ in range(n)]
        rng.shuffle(cards)
        left = list(fresh_shoe(args.decks))
        at = 3  # burnt
        for v in cards[:at]:
            left[v] -= 1
        while len(cards) - at >= 6 + 6:
            coups += 1
            start = time.process_time()
            expected_levy_at_rate(profile, args.decks, 500)
            fresh_ms.append((time.process_time() - start) * 1000)
            shoe = tuple(left)
            repeats += shoe in seen
            seen.add(shoe)
            start = time.process_time()
            dealt = shoe_odds(shoe, profile, decks=args.decks).expected_levy_per_unit
            dealt_ms.append((time.process_time() - start) * 1000)
            gaps.append(abs(dealt - full) / full)
            dealt_now = rng.choice((4, 5, 5, 6))  # a coup's cards: four, and a third card or two
            for v in cards[at : at + dealt_now]:
                left[v] -= 1
            at += dealt_now
    print(f"{args.shoes} shoes of {args.decks} decks, {coups} coups, {repeats} repeated compositions")
    print(
        f"full shoe: first enumeration {first_full * 1000:.1f} ms, "
        f"then {statistics.median(fresh_ms):.4f} ms a coup (memoised)"
    )
    print(
        f"as it stood: {statistics.median(dealt_ms):.1f} ms a coup (median), "
        f"{statistics.mean(dealt_ms):.1f} mean, {max(dealt_ms):.1f} max"
    )
    print(
        f"levy per chip, full shoe {float(full):.6f}; as it stood apart from it by "
        f"{float(statistics.median(gaps)) * 100:.2f} % (median), {float(max(gaps)) * 100:.2f} % (max)"
    )
    print(
        f"a player banking 100 coups: {sum(dealt_ms[:100]) / 1000:.1f} s to price as they stood, "
        f"against {sum(fresh_ms[:100]):.1f} ms on the full shoe"
    )


if __name__ == "__main__":
    main()

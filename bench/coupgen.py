"""Generate realistic coup records: coups played through the rules engine from shuffled shoes,
with a share of wrong decisions, and a sprinkle of malformed lines. Used by the benchmarks."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace

import orjson

from chemin_de_fer.engine.interchange import record_to_dict
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import Move, Step, apply, new_coup, next_steps, to_record
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.punters import seat_key, spectator_key
from chemin_de_fer.engine.settlement import BancoCaller
from core.cards import ALL_CARDS

RULES = {slug: Rules.for_profile(p) for slug, p in BUILTIN.items()}
CARDS = {Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER}


def record_dicts(
    n: int,
    *,
    seed: int = 7,
    error_rate: float = 0.08,
    malformed_every: int = 500,
    profiles: Sequence[str] | None = None,
) -> Iterator[dict]:
    """``n`` records (ids ``c0``, ``c1``…), cycling through ``profiles`` (default: every built-in
    one); every ``malformed_every``-th line is malformed (0: none)."""
    rnd = random.Random(seed)
    shoe: list[str] = []
    slugs = list(profiles or RULES)
    for i in range(n):
        if malformed_every and i % malformed_every == malformed_every - 1:
            yield {"id": f"c{i}", "profile": "casino", "bank": -1}
            continue
        if len(shoe) < 20:
            shoe = list(ALL_CARDS) * 6
            rnd.shuffle(shoe)
        slug = slugs[i % len(slugs)]
        rules = RULES[slug]
        bank = rnd.randint(2, 400)
        state = apply(new_coup(rules), Step(Move.BANK_DECLARED, amount=bank, punter=seat_key(0)))
        if rnd.random() < 0.2:
            state = apply(state, Step(Move.BANCO, callers=(BancoCaller(seat_key(1)),)))
        else:
            for k in range(rnd.randint(1, 5)):
                if state.uncovered <= 0:
                    break
                spectator = rules.profile.spectators_bet and rnd.random() < 0.15
                amount = rnd.randint(1, state.uncovered)
                name = spectator_key(k) if spectator else seat_key(k + 1)
                state = apply(state, Step(Move.BET, punter=name, amount=amount, spectator=spectator, order=k))
        state = apply(state, Step(Move.BETS_CLOSED))
        while True:
            options = next_steps(state)
            if not options:
                break
            clean = [o for o in options if o.violation is None]
            pool = options if (rnd.random() < error_rate or not clean) else clean
            choice = rnd.choice(pool)
            if choice.kind in CARDS:
                state = apply(state, Step(choice.kind, card=shoe.pop()))
            else:
                state = apply(state, Step(choice.kind))
        rec = to_record(state, coup_id=f"c{i}", shoe_next=tuple(shoe[-3:][::-1]))
        # the flag is drawn after the coup is played, as the generator always has (same records)
        yield record_to_dict(replace(rec, first_coup_of_bank=rnd.random() < 0.3))


def write_jsonl(
    path: str, n: int, *, seed: int = 7, profiles: Sequence[str] | None = None, malformed_every: int = 500
) -> None:
    with open(path, "wb") as f:
        for d in record_dicts(n, seed=seed, profiles=profiles, malformed_every=malformed_every):
            f.write(orjson.dumps(d) + b"\n")

"""The model's step kinds take the game's steps from the engine: one owner for the values."""

from chemin_de_fer.engine.machine import Move
from tables.models import CORRECTION_KINDS, CoupStep


def test_game_step_kinds_are_the_engines_moves() -> None:
    game = {(k.name, k.value) for k in CoupStep.Kind if k not in CORRECTION_KINDS}
    assert game == {(m.name, m.value) for m in Move}


def test_correction_kinds_are_not_moves() -> None:
    assert not {k.value for k in CORRECTION_KINDS} & {m.value for m in Move}

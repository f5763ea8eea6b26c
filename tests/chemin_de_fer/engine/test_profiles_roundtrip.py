"""Profiles survive a trip through JSON exactly: coups store the rules they were played under."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from chemin_de_fer.engine.profiles import BUILTIN, CASINO, Rounding, Side, profile_from_dict, profile_to_dict


@pytest.mark.parametrize("slug", sorted(BUILTIN))
def test_builtin_profiles_roundtrip_through_json(slug: str) -> None:
    profile = BUILTIN[slug]
    assert profile_from_dict(json.loads(json.dumps(profile_to_dict(profile)))) == profile


def test_a_derived_profile_roundtrips_with_its_changes() -> None:
    derived = replace(
        CASINO, slug="house", betting_from=Side.LEFT, levy_rounding=Rounding.NEAREST, decks_allowed=(8,)
    )
    data = profile_to_dict(derived)
    assert data["betting_from"] == "left" and data["decks_allowed"] == [8]
    assert profile_from_dict(data) == derived


def test_unknown_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown profile settings: colour"):
        profile_from_dict({**profile_to_dict(CASINO), "colour": "green"})

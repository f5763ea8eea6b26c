"""A house-rule profile both ways: ``RuleProfile``'s columns <-> the engine's ``Profile``.

The one owner of that mapping. The columns hold exactly the engine's settings in their JSON form
(enums as their values, deck counts as a list), so the mapping is the engine's own
``profile_to_dict`` / ``profile_from_dict``: a coup's rules snapshot (``Coup.rules``) and a
profile's row can never disagree on how a setting is written.
"""

from __future__ import annotations

from collections.abc import Container
from enum import StrEnum
from typing import Any

from chemin_de_fer.engine.profiles import (
    ENUM_FIELDS,
    PROFILE_FIELDS,
    Profile,
    profile_from_dict,
    profile_to_dict,
)

#: the engine settings whose type is a StrEnum, with that enum: their columns take its values
ENGINE_ENUM_FIELDS: dict[str, type[StrEnum]] = ENUM_FIELDS


def profile_to_columns(profile: Profile, *, columns: Container[str] | None = None) -> dict[str, Any]:
    """The column values of an engine profile. ``columns`` limits them to the columns a model
    has (an old migration's historical model may predate a setting the engine added since)."""
    values = profile_to_dict(profile)
    if columns is None:
        return values
    return {name: value for name, value in values.items() if name in columns}


def profile_from_columns(row: Any) -> Profile:
    """The engine's frozen profile from a row's columns (``RuleProfile`` or anything with the
    settings as attributes); the Profile's own validation raises ``ValueError`` on a bad one."""
    return profile_from_dict({name: getattr(row, name) for name in PROFILE_FIELDS})

"""RuleProfile stores exactly the engine's Profile fields and converts back without loss."""

from __future__ import annotations

import dataclasses
import importlib
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.db.models import Field

from chemin_de_fer.engine.profiles import BUILTIN, PROFILE_FIELDS, LevyMode, NaturalTie, Side
from tables.builtin import builtin_profiles_ensure
from tables.models import RuleProfile
from tables.profile_columns import ENGINE_ENUM_FIELDS, profile_from_columns, profile_to_columns
from tests import factories as f

pytestmark = pytest.mark.django_db


def test_the_data_migration_created_exactly_the_builtin_profiles() -> None:
    assert sorted(RuleProfile.objects.filter(casino__isnull=True).values_list("slug", flat=True)) == sorted(
        BUILTIN
    )


@pytest.mark.parametrize("slug", sorted(BUILTIN))
def test_each_db_profile_converts_back_equal_to_the_engine_builtin(slug: str) -> None:
    assert RuleProfile.objects.get(slug=slug).as_engine() == BUILTIN[slug]


def test_every_engine_field_has_a_column() -> None:
    columns = {field.name for field in RuleProfile._meta.get_fields()}
    assert set(PROFILE_FIELDS) - columns == set()


def test_enum_columns_accept_exactly_the_engine_values() -> None:
    for name, enum in ENGINE_ENUM_FIELDS.items():
        field = RuleProfile._meta.get_field(name)
        assert isinstance(field, Field) and field.choices is not None, name
        assert [value for value, _ in field.choices] == [member.value for member in enum], name


def test_a_derived_profile_round_trips() -> None:
    casino = f.CasinoFactory()
    engine = dataclasses.replace(
        BUILTIN["casino"],
        slug="casino-deauville",
        name="Deauville",
        decks_allowed=(8,),
        tax_rate_bp=400,
        betting_from=Side.LEFT,
        natural_tie=NaturalTie.STANDOFF,
    )
    row = RuleProfile.objects.create(
        casino=casino,
        derived_from=RuleProfile.objects.get(slug="casino"),
        **profile_to_columns(engine),
    )
    row.refresh_from_db()
    assert row.as_engine() == engine
    assert row.derived_from is not None
    assert (row.is_builtin, row.derived_from.slug) == (False, "casino")


def test_builtin_profiles_ensure_never_overwrites_an_edited_profile() -> None:
    RuleProfile.objects.filter(slug="classic").update(name="Classic (house)")
    from django.apps import apps

    assert builtin_profiles_ensure(apps) == 0
    assert RuleProfile.objects.get(slug="classic").name == "Classic (house)"


def test_builtin_profiles_ensure_recreates_a_missing_one() -> None:
    RuleProfile.objects.filter(slug="home").delete()
    from django.apps import apps

    assert builtin_profiles_ensure(apps) == 1
    assert RuleProfile.objects.get(slug="home").as_engine() == BUILTIN["home"]


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"decks_allowed": ["six"]}, "A list of positive whole deck counts"),
        ({"decks_allowed": [0]}, "A list of positive whole deck counts"),
        (
            {"levy_mode": LevyMode.PERCENTAGE.value, "tax_rate_bp": 0},
            "A percentage levy needs a rate above zero.",
        ),
    ],
)
def test_full_clean_explains_a_bad_profile(changes: dict, message: str) -> None:
    profile = RuleProfile.objects.get(slug="classic")
    for name, value in changes.items():
        setattr(profile, name, value)
    with pytest.raises(ValidationError) as info:
        profile.full_clean()
    assert message in str(info.value)


def test_builtin_profile_names_say_which_profile_without_a_number() -> None:
    names = dict(RuleProfile.objects.filter(casino__isnull=True).values_list("slug", "name"))
    assert names == {"casino": "Casino", "classic": "Classic", "club": "Club", "home": "Home series"}


def test_the_rename_migration_renames_only_builtins_still_named_as_installed() -> None:
    from django.apps import apps
    from django.db import connection

    rename = importlib.import_module("tables.migrations.0009_builtin_profile_names")
    for slug, (old, _new) in rename.RENAMES.items():
        RuleProfile.objects.filter(slug=slug).update(name=old)
    RuleProfile.objects.filter(slug="club").update(name="Our club rules")  # an administrator's name
    editor = SimpleNamespace(connection=connection)

    rename.forwards(apps, editor)
    names = dict(RuleProfile.objects.filter(casino__isnull=True).values_list("slug", "name"))
    assert names == {
        "casino": "Casino",
        "classic": "Classic",
        "club": "Our club rules",
        "home": "Home series",
    }

    rename.backwards(apps, editor)
    assert RuleProfile.objects.get(slug="casino").name == rename.RENAMES["casino"][0]
    assert RuleProfile.objects.get(slug="club").name == "Our club rules"


@pytest.mark.parametrize("slug", sorted(BUILTIN))
def test_each_builtin_round_trips_through_the_columns(slug: str) -> None:
    """tables.profile_columns owns the mapping both ways: engine -> columns -> engine is the
    identity, and so is a stored row's columns -> engine -> columns."""
    profile = BUILTIN[slug]
    columns = profile_to_columns(profile)
    assert set(columns) == set(PROFILE_FIELDS)
    assert profile_from_columns(SimpleNamespace(**columns)) == profile
    assert RuleProfile(**columns).as_engine() == profile
    row = RuleProfile.objects.get(slug=slug)
    stored = {name: getattr(row, name) for name in PROFILE_FIELDS}
    assert profile_to_columns(profile_from_columns(row)) == stored


def test_the_built_in_profiles_are_shown_without_their_source_numbers() -> None:
    """Issue 11 §4: the names the screens show carry no "seed NNN" (renamed by tables 0009); the
    slugs, which exports and the API use, are the engine's."""
    rows = RuleProfile.objects.filter(casino__isnull=True).order_by("slug")
    assert [(p.slug, p.name) for p in rows] == [
        ("casino", "Casino"),
        ("classic", "Classic"),
        ("club", "Club"),
        ("home", "Home series"),
    ]
    assert not any("seed" in p.name.lower() for p in BUILTIN.values())

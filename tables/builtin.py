"""Data every installation starts with: the engine's built-in rule profiles and the staff roles.

Written against an ``apps`` registry so the same code serves the data migration (historical
models) and the post_migrate receiver (after ``flush``). Both only *create what is missing*: a
profile or group an administrator has edited is never silently changed back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps as global_apps
from django.apps.registry import Apps
from django.contrib.auth.management import create_permissions
from django.db import DEFAULT_DB_ALIAS

from chemin_de_fer.engine.profiles import BUILTIN
from tables.profile_columns import profile_to_columns
from tables.roles import ROLE_PERMISSIONS


def builtin_profiles_ensure(apps: Apps, using: str = DEFAULT_DB_ALIAS) -> int:
    """Create the built-in profiles that are missing; return how many were created."""
    RuleProfile = apps.get_model("tables", "RuleProfile")
    model_fields = {f.name for f in RuleProfile._meta.get_fields()}
    created = 0
    for slug, profile in BUILTIN.items():
        if RuleProfile.objects.using(using).filter(slug=slug).exists():
            continue
        RuleProfile.objects.using(using).create(**profile_to_columns(profile, columns=model_fields))
        created += 1
    return created


def _permissions_ensure(apps: Apps, using: str) -> None:
    # During `migrate`, Django creates permissions only after the last migration; a data
    # migration that grants them must create them itself. Historical app configs have no
    # models_module, which create_permissions reads as "no models": set it for the call.
    for app_config in apps.get_app_configs():
        saved = getattr(app_config, "models_module", None)
        # any true value will do: create_permissions only tests it (not a module, hence the ignore)
        app_config.models_module = saved or True  # type: ignore[assignment]
        try:
            create_permissions(app_config, verbosity=0, apps=apps, using=using)
        finally:
            app_config.models_module = saved


def roles_ensure(apps: Apps, using: str = DEFAULT_DB_ALIAS, roles: Iterable[str] | None = None) -> int:
    """Create the missing role groups with their initial permissions; return how many.

    ``roles`` limits it to some roles: a data migration creates those whose permissions exist at
    its point of the migration graph (the cashier's come from a later ledger migration)."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    _permissions_ensure(apps, using)
    created = 0
    wanted_roles = None if roles is None else {str(r) for r in roles}
    for role, perms in ROLE_PERMISSIONS.items():
        if wanted_roles is not None and str(role) not in wanted_roles:
            continue
        group, was_created = Group.objects.using(using).get_or_create(name=str(role))
        if not was_created:
            continue
        wanted = []
        for perm in perms:
            app_label, codename = perm.split(".", 1)
            # .get(): a missing permission is a programming error and must fail the migration.
            wanted.append(
                Permission.objects.using(using).get(content_type__app_label=app_label, codename=codename)
            )
        group.permissions.set(wanted)
        created += 1
    return created


def builtin_data_after_migrate(
    sender: Any, using: str = DEFAULT_DB_ALIAS, apps: Apps = global_apps, **kwargs: Any
) -> None:
    """post_migrate receiver (connected in TablesConfig.ready)."""
    if not apps.is_installed("tables") or not apps.is_installed("django.contrib.auth"):
        return
    try:
        apps.get_model("tables", "RuleProfile")
    except LookupError:  # migrating backwards below 0001: nothing to seed
        return
    builtin_profiles_ensure(apps, using)
    roles_ensure(apps, using)

"""Migration operations the apps share.

``fk_indexes_drop``: a foreign key that leads a composite index or unique constraint of its model
needs no index of its own (the composite's btree answers every lookup by that column), so such a
key says ``db_index=False``. Django's own ``AlterField`` for that change rebuilds the table on
SQLite, which drops the append-only triggers with it, and on PostgreSQL drops and re-adds the
foreign key, re-checking every row. This operation only drops the index, under whatever name an
earlier layout gave it (a model moved between apps keeps its old app's index names).

``own_unique_drop``: a ``OneToOneField`` that becomes a foreign key unique where set
(``core.model_kit.set_once_unique``) loses the unique constraint that held its empty rows too, on
PostgreSQL only (SQLite would rebuild the table for it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.db import migrations, models

#: Django's name for a field's own index: ``<table>_<column>_<8 hex digits>``
_AUTO_INDEX = r"_{column}_[0-9a-f]{{8}}$"


def _field_of(apps: Any, app_label: str, model_name: str, field_name: str) -> tuple[Any, models.Field, str]:
    """The historical model, its field and the field's column."""
    model = apps.get_model(app_label, model_name)
    field = model._meta.get_field(field_name)
    return model, field, field.column


def field_own_indexes(connection: Any, table: str, column: str) -> list[str]:
    """The names of ``table``'s plain indexes on exactly ``column`` that Django made for a field
    (its own index, by Django's name for it: a partial index of the column has a name of its own,
    and introspection does not say it is partial)."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    pattern = re.compile(_AUTO_INDEX.format(column=re.escape(column)))
    return sorted(
        name
        for name, spec in constraints.items()
        if spec["index"]
        and not spec["unique"]
        and not spec["primary_key"]
        and spec["columns"] == [column]
        and pattern.search(name)
    )


def field_unique_constraints(connection: Any, table: str, column: str) -> list[str]:
    """The names of ``table``'s unique constraints and unique indexes on exactly ``column`` (a
    ``OneToOneField``'s, a partial one), the primary key left out."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return sorted(
        name
        for name, spec in constraints.items()
        if spec["unique"] and not spec["primary_key"] and spec["columns"] == [column]
    )


def fk_indexes_drop(app_label: str, fields: Sequence[tuple[str, str]]) -> migrations.RunPython:
    """Drop the own index of each ``(model_name, field_name)`` foreign key of ``app_label``;
    reversed, create it again under Django's name for it."""

    def forward(apps: Any, schema_editor: Any) -> None:
        for model_name, field_name in fields:
            model, _field, column = _field_of(apps, app_label, model_name, field_name)
            for name in field_own_indexes(schema_editor.connection, model._meta.db_table, column):
                schema_editor.execute(schema_editor._delete_index_sql(model, name))

    def backward(apps: Any, schema_editor: Any) -> None:
        for model_name, field_name in fields:
            model, field, column = _field_of(apps, app_label, model_name, field_name)
            if not field_own_indexes(schema_editor.connection, model._meta.db_table, column):
                schema_editor.execute(schema_editor._create_index_sql(model, fields=[field]))

    return migrations.RunPython(forward, backward, elidable=False)


def own_unique_drop(app_label: str, fields: Sequence[tuple[str, str]]) -> migrations.RunPython:
    """Drop the unique constraint a ``OneToOneField`` gave each ``(model_name, field_name)`` of
    ``app_label`` (its index holds the empty rows too), where the field becomes a foreign key
    unique where set (``core.model_kit.set_once_unique``, added after this). PostgreSQL only:
    SQLite wrote the uniqueness into the column of its CREATE TABLE, and dropping it would rebuild
    the table and its triggers; it keeps it beside the partial one (the same rows refused).
    Reversed, PostgreSQL's constraint is made again under the name it had."""

    def forward(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        for model_name, field_name in fields:
            model, _field, column = _field_of(apps, app_label, model_name, field_name)
            for name in field_unique_constraints(schema_editor.connection, model._meta.db_table, column):
                schema_editor.execute(schema_editor._delete_unique_sql(model, name))

    def backward(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        for model_name, field_name in fields:
            model, _field, column = _field_of(apps, app_label, model_name, field_name)
            table = model._meta.db_table
            name = f"{table}_{column}_key"
            schema_editor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" UNIQUE ("{column}")')

    return migrations.RunPython(forward, backward, elidable=False)

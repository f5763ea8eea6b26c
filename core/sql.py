"""The helpers every hand-written hot-path query is built with (ledger/sql.py, tables/sql.py,
tables/money/settlement.py): a model's fields and columns, placeholders, rows turned into model instances
with the ORM's own converters, the row-locking clause this database takes, one fetch.

Rules kept by whoever uses them: every value is a bound parameter; the only text put into a
statement is column names read from the models and one ``%s`` per bound value. Portable:
PostgreSQL and SQLite (``make run``).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import DEFERRED, Model

_M = TypeVar("_M", bound=Model)


def model_fields(model: type[Model]) -> tuple[str, ...]:
    """Every field of ``model`` (attnames), in the order Model.from_db expects them."""
    return tuple(f.attname for f in model._meta.concrete_fields)


def model_columns(model: type[Model], *, alias: str = "") -> str:
    """Every column of ``model``, in the order of :func:`model_fields`; each prefixed with the
    statement's ``alias`` for the model's table, when given (``x."id"``)."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(f'{prefix}"{f.column}"' for f in model._meta.concrete_fields)


def placeholders(count: int) -> str:
    return ", ".join(["%s"] * count)


#: per connection (a thread's own), per (model, fields): where each field's value stands in a row,
#: and the converters of those that have any, as ``model_instances`` works them out; a hot path
#: reads the same few shapes thousands of times, and working the plan out is most of the cost
_PLANS: weakref.WeakKeyDictionary[Any, dict[tuple[type[Model], tuple[str, ...]], _Plan]] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True, slots=True)
class _Plan:
    fields: tuple[str, ...]
    order: tuple[int | None, ...]  # per concrete field: its position in the row (None: deferred)
    converters: tuple[tuple[int, tuple[Any, ...], Any], ...]  # (position, converters, column)


def _plan(db: Any, model: type[Model], fields: Sequence[str]) -> _Plan:
    key = (model, tuple(fields))
    plans = _PLANS.get(db)
    if plans is None:
        plans = _PLANS[db] = {}
    plan = plans.get(key)
    if plan is None:
        meta = model._meta
        position = {name: i for i, name in enumerate(fields)}
        converters = []
        for field in meta.concrete_fields:
            if field.attname in position:
                col = field.get_col(meta.db_table)
                if found := (*db.ops.get_db_converters(col), *col.get_db_converters(db)):
                    converters.append((position[field.attname], found, col))
        order = tuple(position.get(field.attname) for field in meta.concrete_fields)
        plan = plans[key] = _Plan(key[1], order, tuple(converters))
    return plan


def model_instances(model: type[_M], fields: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[_M]:
    """Instances of ``model`` from raw ``rows`` of its ``fields`` (attnames, any order), converted
    as the ORM converts them; the other fields are deferred (reading one queries it, as after
    ``only()``)."""
    db = connections[DEFAULT_DB_ALIAS]
    plan = _plan(db, model, fields)
    out = []
    for row in rows:
        if plan.converters:
            row = list(row)
            for i, found, col in plan.converters:
                for converter in found:
                    row[i] = converter(row[i], col, db)
        values = [DEFERRED if i is None else row[i] for i in plan.order]
        out.append(model.from_db(db.alias, plan.fields, values))
    return out


def lock_clause(*of: str) -> str:
    """The row-locking clause that ends a hand-written ``SELECT`` on this database: ``FOR UPDATE
    OF`` the aliases ``of`` (every row joined when none), or nothing on SQLite, which has no row
    locks. Nothing is lost there: ``make run``'s SQLite begins every transaction IMMEDIATE
    (casino/settings/base.py), so the transaction that reads already holds the database's one
    write lock, a stronger lock than the rows'. Every hand-written locking statement ends in this
    (tables/sql.py, ``accounts_lock`` below), so none is PostgreSQL-only by accident."""
    features = connection.features
    if not features.has_select_for_update:
        return ""
    if of and features.has_select_for_update_of:
        return " FOR UPDATE OF " + ", ".join(of)
    return " FOR UPDATE"


def rows_fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()

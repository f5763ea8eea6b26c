"""Which audit chain an event goes on: its casino's, or the global one (docs/audit.md, "Chains").

Each casino has its own hash chain, so that the casinos' writers never queue on one another's
lock; what belongs to no casino (users, logins, tokens, settings) goes on the global chain, 0.

The casino of an event is, in order: what the caller says (``audit_record(casino=...)``); else
found from the target, along the path of non-null foreign keys that leads from the target's model
to ``tables.Casino`` (``casino_path``: worked out once per model from ``_meta``, or named in
``_PATHS`` where a model has several roads and one is the authority); else the global chain.

Resolution costs no query when the path's related objects are already on the instance (the hot
path's services lock and attach them: a coup's ``shoe.table``); otherwise the id of the first hop
that is not loaded is kept and every such event of the transaction is resolved at COMMIT, one
query per model and path (``chains_resolve``), before any chain lock is taken.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.apps import apps
from django.db import models

from audit.models import GLOBAL_CHAIN

CASINO_MODEL = "tables.casino"

#: the authoritative road to the casino where a model has more than one (a coup's banker is a
#: player of the same casino, but the coup belongs to the table its shoe is dealt at)
_PATHS: dict[str, tuple[str, ...]] = {
    "tables.coup": ("shoe", "table", "casino"),
    "tables.bet": ("coup", "shoe", "table", "casino"),
    "tables.coupstep": ("coup", "shoe", "table", "casino"),
    "tables.shoecard": ("shoe", "table", "casino"),
    "tables.banktax": ("coup", "shoe", "table", "casino"),
    "tables.shoe": ("table", "casino"),
    "tables.seat": ("session", "table", "casino"),
    "tables.spectator": ("session", "table", "casino"),
    "tables.bankturn": ("session", "table", "casino"),
    "tables.bankshare": ("turn", "session", "table", "casino"),
    "tables.bankoffer": ("session", "table", "casino"),
}
#: how far the automatic search looks (a bet is four hops from its casino)
_MAX_HOPS = 5


@cache
def casino_path(label: str) -> tuple[str, ...] | None:
    """The foreign keys (field names) from model ``label`` to its casino, the last one pointing at
    ``tables.Casino``; ``()`` for the casino itself; None for a model that belongs to no casino.

    Only non-null foreign keys count (a nullable one may be empty, and then says nothing); the
    shortest road wins, ties going to the field declared first."""
    if label == CASINO_MODEL:
        return ()
    if label in _PATHS:
        return _PATHS[label]
    model = apps.get_model(label)
    queue: deque[tuple[type[models.Model], tuple[str, ...]]] = deque([(model, ())])
    seen = {label}
    while queue:
        current, path = queue.popleft()
        if len(path) >= _MAX_HOPS:
            continue
        for field in current._meta.concrete_fields:
            if not isinstance(field, models.ForeignKey) or field.null:
                continue
            target: type[models.Model] = field.related_model
            target_label = target._meta.label_lower
            if target_label == CASINO_MODEL:
                return (*path, field.name)
            if target_label not in seen:
                seen.add(target_label)
                queue.append((target, (*path, field.name)))
    # a nullable casino (a built-in rule profile, an alert about no casino): on the instance only
    if any(
        isinstance(f, models.ForeignKey) and f.related_model._meta.label_lower == CASINO_MODEL
        for f in model._meta.concrete_fields
    ):
        return ("casino",)
    return None


@dataclass(frozen=True, slots=True)
class ChainLookup:
    """A chain not known yet: the casino id reached from ``model``'s row ``pk`` along ``lookup``
    (an ORM path such as ``table__casino_id``), read at COMMIT with the transaction's others."""

    model: type[models.Model]
    pk: Any
    lookup: str


def chain_of(target: models.Model | None, casino: Any = None) -> int | ChainLookup:
    """The chain of an event about ``target``: ``casino`` (a Casino or its id) when given, else the
    target's casino found from what is loaded on it (or a ``ChainLookup`` for COMMIT), else 0."""
    if casino is not None:
        return int(casino if isinstance(casino, int) else casino.pk)
    if target is None:
        return GLOBAL_CHAIN
    path = casino_path(target._meta.label_lower)
    if path is None:
        return GLOBAL_CHAIN
    if not path:  # the casino itself
        return int(target.pk) if target.pk is not None else GLOBAL_CHAIN
    obj: models.Model = target
    for i, name in enumerate(path):
        field = obj._meta.get_field(name)
        value = getattr(obj, field.attname)  # type: ignore[union-attr]
        if value is None:
            return GLOBAL_CHAIN  # a nullable casino left empty: global
        if i == len(path) - 1:
            return int(value)
        if not field.is_cached(obj):  # type: ignore[union-attr]
            # not loaded: the rest of the road from that row, at COMMIT
            rest = "__".join(path[i + 1 :]) + "_id"
            return ChainLookup(model=field.related_model, pk=value, lookup=rest)  # type: ignore[arg-type]
        obj = field.get_cached_value(obj)  # type: ignore[union-attr,assignment]
    return GLOBAL_CHAIN  # pragma: no cover (the loop returns)


def chains_resolve(lookups: list[ChainLookup], *, using: str) -> dict[ChainLookup, int]:
    """The chain of every lookup, one query per model and path; a row that is gone (deleted in the
    same transaction) leaves its events on the global chain."""
    wanted: dict[tuple[type[models.Model], str], set[Any]] = defaultdict(set)
    for lookup in lookups:
        wanted[(lookup.model, lookup.lookup)].add(lookup.pk)
    found: dict[tuple[type[models.Model], str, Any], int] = {}
    for (model, path), pks in wanted.items():
        rows = model._base_manager.using(using).filter(pk__in=pks).values_list("pk", path)
        found.update(((model, path, pk), int(casino_id)) for pk, casino_id in rows if casino_id is not None)
    return {lk: found.get((lk.model, lk.lookup, lk.pk), GLOBAL_CHAIN) for lk in lookups}

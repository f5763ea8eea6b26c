"""Rows a service is about to settle, vouched for by the events that bound them (docs/audit.md,
"Rows bound to their events").

The verifier (audit.row_verify) finds a row changed behind the application's back, but only when
it runs: a coup whose step was inserted, edited or deleted in the database between two steps was
otherwise played on and settled, the money moving on what nobody recorded. So the services that
move money on rows they hold (a coup's reveal) first ask :func:`rows_vouch`: each row they hold
against the binding the latest event *about the same object* carries. Those events are read by the
object's index (``audit_object_idx``) in one statement; the rows' digests come from the instances
already loaded, with no query.

What is compared is what the events say of the rows, nothing else: a row no event about the object
binds (inserted), a row whose digest differs from its latest binding (edited, its columns named by
their prints), a row of a table the caller holds whole that an event binds and that is gone
(deleted). A history written before rows were bound (no binding of the object's own row) is not
judged here: the verifier is the only judge of it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from django.db import connections, models
from django.db.models import Q

from audit.models import AuditEvent
from audit.rows import Bound, binding_unpack, prints_differ, row_reader

CHANGED, UNBOUND, GONE = "changed", "unbound", "gone"


@dataclass(frozen=True, slots=True)
class Unvouched:
    """One row the events about the object do not vouch for: ``what`` is CHANGED (``columns``: the
    columns whose prints differ, empty when they cannot be named), UNBOUND or GONE."""

    model: type[models.Model]
    pk: int
    what: str
    columns: tuple[str, ...] = ()


def _bound(item: Sequence[object]) -> tuple[tuple[str, int], Bound] | None:
    """``[table, id, packed]`` or the hex layout before audit 0011, ``[table, id, digest, prints,
    …]``; None for what is neither (a forged binding is the verifier's to name)."""
    try:
        table, pk = str(item[0]), int(item[1])  # type: ignore[call-overload]
        if len(item) == 3:
            return (table, pk), binding_unpack(str(item[2]))
        return (table, pk), Bound(digest=str(item[2]), prints=str(item[3]))
    except (IndexError, TypeError, ValueError):
        return None


def rows_vouch(
    *,
    subject: models.Model,
    held: Sequence[models.Model],
    about: Sequence[models.Model] = (),
    whole: Collection[type[models.Model]] = (),
) -> list[Unvouched]:
    """The rows of ``held`` (instances as loaded, ``subject`` among them) that the events about
    ``subject`` or about any of ``about`` (an older game's steps: each step's event is about the
    step) do not vouch for, and the rows of the tables in ``whole`` (the caller holds every row of
    them that concerns ``subject``) that those events bind and that are gone. Empty where the audit
    backend keeps no events, or where no such event binds ``subject`` (a history written before
    rows were bound)."""
    using = subject._state.db or "default"
    if not getattr(connections[using], "audit_deferred", False):
        return []
    ids: dict[str, list[str]] = {}
    for obj in (subject, *about):
        ids.setdefault(obj._meta.label_lower, []).append(str(obj.pk))
    which = Q()
    for label, named in ids.items():
        which |= Q(object_type=label, object_id__in=named)
    latest: dict[tuple[str, int], Bound] = {}
    events = AuditEvent.objects.using(using).filter(which, rows__isnull=False).order_by("id")
    for rows in events.values_list("rows", flat=True):
        for item in rows if isinstance(rows, list) else ():
            found = _bound(item) if isinstance(item, list) else None
            if found is not None:
                latest[found[0]] = found[1]
    if (subject._meta.db_table, int(subject.pk)) not in latest:
        return []
    out = rows_judged(latest, held, unbound=True, using=using)
    seen = {(row_reader(type(obj), using).table, int(obj.pk)) for obj in held}
    tables = {model._meta.db_table: model for model in whole}
    for (table, pk) in sorted(latest):
        if table in tables and (table, pk) not in seen:
            out.append(Unvouched(tables[table], pk, GONE))
    return out


def rows_judged(
    latest: dict[tuple[str, int], Bound], held: Iterable[models.Model], *, unbound: bool, using: str
) -> list[Unvouched]:
    """The rows of ``held`` (instances as loaded) whose digest differs from their latest binding
    in ``latest`` (by table and id), and, ``unbound``, those it has none for."""
    out: list[Unvouched] = []
    for obj in held:
        model = type(obj)
        reader = row_reader(model, using)
        bound = latest.get((reader.table, int(obj.pk)))
        if bound is None:
            if unbound:
                out.append(Unvouched(model, int(obj.pk), UNBOUND))
            continue
        now = reader.state(reader.instance_values(obj))
        if now.digest != bound.digest:
            columns = prints_differ(reader.columns, bound.prints, now.prints) or []
            out.append(Unvouched(model, int(obj.pk), CHANGED, tuple(columns)))
    return out

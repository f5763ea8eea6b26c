"""core.sql.model_instances: raw rows into model instances, converted as the ORM converts them,
whatever order the statement lists the fields in (its plan is kept per model and field order)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from core.models import OutboxMessage
from core.sql import model_columns, model_instances, rows_fetch

pytestmark = pytest.mark.django_db


def _message(key: str, **values: object) -> OutboxMessage:
    return OutboxMessage.objects.create(
        task="core.test", key=key, created_at=timezone.now(), **values
    )


def test_rows_become_the_instances_the_orm_reads_in_either_field_order_and_again() -> None:
    first = _message("m-1", args=[1, "two"], kwargs={"three": 3})
    second = _message("m-2", kwargs={"n": [4]}, sent_at=timezone.now() + dt.timedelta(seconds=1))
    orm = {m.pk: m for m in OutboxMessage.objects.all()}
    by_orm = [(m.pk, m.task, m.args, m.kwargs, m.key, m.created_at, m.sent_at) for m in orm.values()]
    forward = ("id", "task", "args", "kwargs", "key", "created_at", "sent_at")
    backward = tuple(reversed(forward))
    for fields in (forward, backward, forward, backward):  # the second time through each plan kept
        columns = ", ".join(f'"{f}"' for f in fields)  # each field's column is its name here
        rows = rows_fetch(f"SELECT {columns} FROM core_outboxmessage ORDER BY id", [])
        made = model_instances(OutboxMessage, fields, rows)
        assert [(m.pk, m.task, m.args, m.kwargs, m.key, m.created_at, m.sent_at) for m in made] == by_orm
        assert [m._state.adding for m in made] == [False, False]
    assert [m.pk for m in made] == [first.pk, second.pk]


def test_a_field_left_out_is_deferred_and_read_when_asked() -> None:
    message = _message("m-3", kwargs={"deferred": True})
    rows = rows_fetch("SELECT id, key FROM core_outboxmessage", [])
    (made,) = model_instances(OutboxMessage, ("id", "key"), rows)
    every = {f.attname for f in OutboxMessage._meta.concrete_fields}
    assert made.get_deferred_fields() == every - {"id", "key"}
    assert (made.key, made.kwargs) == ("m-3", {"deferred": True})
    assert made.pk == message.pk


def test_every_column_in_field_order_reads_back_whole() -> None:
    message = _message("m-4", args=["x"])
    fields = tuple(f.attname for f in OutboxMessage._meta.concrete_fields)
    rows = rows_fetch(f"SELECT {model_columns(OutboxMessage)} FROM core_outboxmessage", [])
    (made,) = model_instances(OutboxMessage, fields, rows)
    assert made.get_deferred_fields() == set()
    assert (made.pk, made.args, made.attempts, made.last_error) == (message.pk, ["x"], 0, "")

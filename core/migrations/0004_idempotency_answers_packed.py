"""A stored answer is kept packed (core.answers: canonical JSON deflated against a preset
dictionary, in ``answer``) instead of as ``jsonb`` (``response``), and the request's fingerprint as
its 32 bytes instead of 64 hexadecimal characters. The rows kept are converted."""

from __future__ import annotations

import json
from typing import Any

from django.db import migrations, models

from core.answers import answer_pack


def pack_rows(apps: Any, schema_editor: Any) -> None:
    records = apps.get_model("core", "IdempotencyRecord")
    for record in records.objects.only("id", "fingerprint", "response", "status_code").iterator(chunk_size=500):
        body = record.response
        if isinstance(body, str):  # SQLite's JSON text read back raw by some drivers
            body = json.loads(body)
        record.fingerprint_bytes = bytes.fromhex(record.fingerprint)
        record.answer = answer_pack(body) if record.status_code else b""
        record.save(update_fields=["fingerprint_bytes", "answer"])


def unpack_rows(apps: Any, schema_editor: Any) -> None:
    from core.answers import answer_unpack

    records = apps.get_model("core", "IdempotencyRecord")
    for record in records.objects.only("id", "fingerprint_bytes", "answer", "status_code").iterator(chunk_size=500):
        record.fingerprint = bytes(record.fingerprint_bytes).hex()
        record.response = answer_unpack(record.answer) if record.status_code else {}
        record.save(update_fields=["fingerprint", "response"])


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0003_outbox"),
    ]

    operations = [
        migrations.AddField(
            model_name="idempotencyrecord",
            name="answer",
            field=models.BinaryField(
                default=b"", help_text="the response's JSON body, packed by core.answers (empty until answered)"
            ),
        ),
        migrations.AddField(
            model_name="idempotencyrecord",
            name="fingerprint_bytes",
            field=models.BinaryField(default=b"", max_length=32),
        ),
        migrations.RunPython(pack_rows, unpack_rows, elidable=False),
        migrations.RemoveField(model_name="idempotencyrecord", name="response"),
        migrations.RemoveField(model_name="idempotencyrecord", name="fingerprint"),
        migrations.RenameField(model_name="idempotencyrecord", old_name="fingerprint_bytes", new_name="fingerprint"),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="fingerprint",
            field=models.BinaryField(help_text="SHA-256 of method, path and body (32 bytes)", max_length=32),
        ),
    ]

"""The REST API for the table workflow (docs/api.md), so a smart shoe or another client can drive a
table: thin views (``views/``, one module per subject) that parse the request (``inputs``), check
the permission, call one service or selector and answer with the plain data of ``read_models``
(documented in the schema by the ``outputs`` serializers).

Every POST is idempotent (``Idempotency-Key`` header, ``idempotency``) and runs as one transaction
with its service. Refusals are rendered by ``errors`` through core.errors, never as a 500.
"""

"""Writes that serve every app rather than one part of the floor (``core.services.idempotency``)."""

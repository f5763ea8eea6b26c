"""The API's error answers, for the schema: RFC 9457 problem details (core.problems)."""

from __future__ import annotations

from rest_framework import serializers


class ErrorOut(serializers.Serializer):
    """An error: RFC 9457 problem details (``application/problem+json``, core.problems); field
    errors (``{"amount": ["..."]}``) come beside these members."""

    type = serializers.CharField(help_text="urn:chemin:problem:<code>")
    title = serializers.CharField(help_text="the status's phrase")
    status = serializers.IntegerField()
    detail = serializers.CharField()
    instance = serializers.CharField(help_text="the request's path")
    code = serializers.CharField(help_text="stable, machine-readable: branch on it")


class ConflictOut(ErrorOut):
    current_step = serializers.IntegerField(allow_null=True)


class ViolationOut(serializers.Serializer):
    code = serializers.CharField()
    side = serializers.CharField(help_text="player, banker or punters")
    detail = serializers.CharField(allow_blank=True)


class UnprocessableOut(ErrorOut):
    code = serializers.ChoiceField(  # type: ignore[assignment]  # narrower than ErrorOut's: two codes
        choices=["confirmation_required", "idempotency_key_reused"],
        help_text="stable, machine-readable: branch on it",
    )
    violation = ViolationOut(required=False, help_text="confirmation_required: what the step breaks")


class PageOut(serializers.Serializer):
    """A page of a list (``PageNumberPagination``): a subclass says what ``results`` holds."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)

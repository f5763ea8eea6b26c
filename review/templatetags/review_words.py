"""The pit boss's pages' own words in a template: ``{% load review_words %}``, then
``{{ alert.summary|alert_summary }}`` says an alert's stored English summary in the page's
language (review.wording.alert_summary, tables.wording.say). The summary stays stored and audited
in English."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext

from review.wording import alert_summary as stored_summary
from review.wording import audit_reason as stored_reason
from tables.wording import say

register = template.Library()


@register.filter
def alert_summary(summary: Any) -> str:
    return say(stored_summary(str(summary or "")), gettext)


@register.filter
def audit_reason(reason: Any) -> str:
    """A chain verification's stored reason in the page's language (review.wording.audit_reason)."""
    return say(stored_reason(str(reason or "")), gettext)

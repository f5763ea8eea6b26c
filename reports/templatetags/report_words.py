"""The report runs' own words in a template: ``{% load report_words %}``, then
``{{ run.error|run_error }}`` says a failed run's stored English reason in the page's language
(reports.wording.run_error, tables.wording.say). The reason stays stored and audited in English."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext

from reports.wording import run_error as stored_error
from tables.wording import say

register = template.Library()


@register.filter
def run_error(error: Any) -> str:
    return say(stored_error(str(error or "")), gettext)

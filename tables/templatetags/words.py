"""The game's words in a template, in the page's language (docs/i18n.md, the screen's edge).

``{% load words %}``, then:

- ``{{ line.detail|say }}``: a sentence of tables.wording (a :class:`~core.sentence.Sentence`,
  a fixed sentence, a card) said in the page's language (tables.wording.say);
- ``{{ code|card }}``: a card code as it is printed (``TD`` → ``10♦``);
- ``{{ coup.outcome|outcome }}``: chemin de fer's outcome as the tablet announces it ("Banker wins");
- ``{{ coup.outcome|game_outcome }}``, ``{{ step.kind|game_step }}``, ``{{ title|game_title }}``:
  an older game's outcome, step kind and name;
- ``{{ alarm.detail|alarm_detail }}``: a shoe alarm's stored detail, said again.

What they are given stays English where it is stored or sent; only the page is translated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import template
from django.utils.translation import gettext

from tables import wording

register = template.Library()


def _label(labels: dict[str, str], value: Any) -> str:
    text = "" if value is None else str(value)
    return gettext(labels[text]) if text in labels else text


@register.filter
def say(value: Any) -> str:
    return wording.say(value, gettext)


@register.filter
def card(code: Any) -> str:
    return wording.card_label(str(code)) if code else ""


#: the filters that say a stored value by its label in tables.wording (the value itself where it has
#: none): chemin de fer's outcome, an older game's outcome, step kind and name
LABEL_FILTERS = {
    "outcome": wording.OUTCOME_LABELS,
    "game_outcome": wording.GAME_OUTCOME_LABELS,
    "game_step": wording.GAME_STEP_LABELS,
    "game_title": wording.GAME_TITLES,
}


def _label_filter(labels: dict[str, str]) -> Callable[[Any], str]:
    def label(value: Any) -> str:
        return _label(labels, value)

    return label


for _name, _labels in LABEL_FILTERS.items():
    register.filter(_name, _label_filter(_labels))


@register.filter
def alarm_detail(text: Any) -> str:
    return wording.say(wording.alarm_detail(str(text or "")), gettext)


@register.filter
def violation(code: Any) -> str:
    """A violation code's meaning (tables.wording.VIOLATION_TEXT), translated."""
    return gettext(wording.violation_meaning(str(code)))

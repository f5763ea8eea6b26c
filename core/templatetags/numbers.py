"""Figures in a template, in the page's language (core/numbers.py): ``{% load numbers %}``, then

- ``{{ seat.chips|chips }}``: a chip amount (``10,000`` / ``10 000``);
- ``{{ line.net|signed_chips }}``: a gain or a loss (``+1,250``, ``-300``);
- ``{{ page.average_bet|average_chips }}``: an average stake, to the whole chip;
- ``{{ line.theoretical|exact_chips }}``: an expectation in chips, to the hundredth;
- ``{{ row.rate|percent:1 }}``, ``{{ ev|signed_percent }}``: a share as a percentage;
  ``{{ row.difference|signed_points:3 }}``: percentage points, the unit left to the template.

Every screen that shows chips loads it: one format per language (tests/core/test_numbers.py).
A number the browser reads (a form's value, an SVG coordinate) stays as it is, unformatted."""

from __future__ import annotations

from typing import Any

from django import template

from core import numbers

register = template.Library()


@register.filter
def chips(value: Any) -> str:
    return numbers.chips(value)


@register.filter
def signed_chips(value: Any) -> str:
    return numbers.signed_chips(value)


@register.filter
def average_chips(value: Any) -> str:
    return numbers.average_chips(value)


@register.filter
def exact_chips(value: Any, digits: Any = 2) -> str:
    return numbers.exact_chips(value, int(digits))


@register.filter
def percent(value: Any, digits: Any = 2) -> str:
    return numbers.percent(value, int(digits))


@register.filter
def signed_percent(value: Any, digits: Any = 2) -> str:
    return numbers.percent(value, int(digits), signed=True)


@register.filter
def signed_points(value: Any, digits: Any = 2) -> str:
    """Percentage points, signed (``+0.125``); the template says the unit in its words."""
    return numbers.NONE if value is None else numbers.points(value, int(digits), signed=True)

"""Server-rendered SVG charts (no JavaScript, no library): the geometry of a bar chart with an
optional second series drawn as markers, computed here and drawn by templates/review/_bar_chart.html.
Each chart carries its values as text too (<title> per bar, and a table beside it)."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from django.utils import formats

#: the drawing's own units; the SVG scales to its container's width (viewBox)
WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 48, 8, 12, 36


def day_label(day: dt.date) -> str:
    """A gaming day under a bar, as the page's language writes a short date without its year
    (``12/07`` in English, ``07/12`` in French, ``07.12`` in Russian: Django's SHORT_DATE_FORMAT of
    the active language less its year); "12-07" read as the 12th of July to a French reader."""
    short = formats.get_format("SHORT_DATE_FORMAT")
    without_year = re.sub(r"^[Yy][^dmjn]?|[^dmjn]?[Yy]$", "", short)
    return formats.date_format(day, without_year if without_year != short else "SHORT_DATE_FORMAT")


def day_text(day: dt.date) -> str:
    """A gaming day in a bar's text (its <title>, the table beside the chart), in full."""
    return formats.date_format(day, "SHORT_DATE_FORMAT")


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str  # the axis label (shown for some bars only: ``show_label``)
    text: str  # the value as text, the bar's <title>
    show_label: bool
    marker_y: float | None = None  # the second series at this bar (e.g. the expectation)
    marker_text: str = ""

    @property
    def center(self) -> float:
        return self.x + self.width / 2


@dataclass(frozen=True)
class Tick:
    y: float
    text: str


@dataclass(frozen=True)
class BarChart:
    title: str
    desc: str
    bars: list[Bar]
    ticks: list[Tick]
    width: int = WIDTH
    height: int = HEIGHT

    @property
    def baseline(self) -> float:
        return self.height - BOTTOM

    @property
    def left(self) -> int:
        return LEFT

    @property
    def right(self) -> int:
        return self.width - RIGHT


def scale_top(largest: float, *, integer: bool = False) -> float:
    """The top of the scale: a round number at or above ``largest`` that splits into four ticks
    (1, 2, 2.5, 4, 5 or 10 times a power of ten; a multiple of 4 for counts)."""
    if largest <= 0:
        return 4.0 if integer else 1.0
    if integer:
        return float(max(4, math.ceil(largest / 4) * 4))
    power = 10 ** math.floor(math.log10(largest))
    return next(m * power for m in (1, 2, 2.5, 4, 5, 10) if m * power >= largest)


def bar_chart(
    *,
    title: str,
    desc: str,
    labels: list[str],
    values: list[Fraction | int | None],
    texts: list[str],
    markers: list[Fraction | None] | None = None,
    marker_texts: list[str] | None = None,
    tick_format: str | Callable[[float], str] = "{:g}",
    tick_scale: float = 1.0,
    label_every: int = 1,
    height: int = HEIGHT,
    integer: bool = False,
) -> BarChart:
    """Bars of ``values`` (``None``: no bar) on a scale from 0 to the largest value or marker,
    with four ticks (whole numbers when ``integer``); ``markers`` a second series drawn across
    the bars. ``tick_format`` writes a tick's value: a format string, or a function (a screen's
    own number format, core.numbers)."""
    markers = markers or [None] * len(values)
    marker_texts = marker_texts or [""] * len(values)
    top = scale_top(max([float(v) for v in [*values, *markers] if v is not None] or [0.0]), integer=integer)
    plot_h = height - TOP - BOTTOM
    slot = (WIDTH - LEFT - RIGHT) / max(len(values), 1)

    def y_of(v: float) -> float:
        return round(height - BOTTOM - plot_h * v / top, 2)

    bars = []
    for i, (label, value, text, marker, marker_text) in enumerate(
        zip(labels, values, texts, markers, marker_texts, strict=True)
    ):
        v = float(value) if value is not None else 0.0
        y = y_of(v)
        bars.append(
            Bar(
                x=round(LEFT + i * slot + slot * 0.15, 2),
                y=y,
                width=round(slot * 0.7, 2),
                height=round(height - BOTTOM - y, 2),
                label=label,
                text=text,
                show_label=i % label_every == 0,
                marker_y=y_of(float(marker)) if marker is not None else None,
                marker_text=marker_text,
            )
        )
    write = tick_format.format if isinstance(tick_format, str) else tick_format
    ticks = [Tick(y=y_of(top * k / 4), text=write(top * k / 4 * tick_scale)) for k in range(5)]
    return BarChart(title=title, desc=desc, bars=bars, ticks=ticks, height=height)

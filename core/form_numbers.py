"""A whole number a screen's form (or query string) sends, read strictly: ASCII digits only.

``str.isdigit()`` is true of ``²`` and ``①``, which ``int()`` refuses (a 500), and of
Arabic-Indic digits (``\\u0661\\u0662``), which ``int()`` reads as 12; a form's hidden field or
an id in a query string is never any of them. :func:`form_count` reads ``0``-``9`` and nothing
else (no sign, no space, no exponent), at most :data:`MAX_DIGITS` of them, so that no text becomes
a number by accident and no number is too long for a database column (or for ``int()``: thousands
of digits raise).
"""

from __future__ import annotations

#: a PostgreSQL bigint holds every number of 18 digits
MAX_DIGITS = 18


def form_count(value: object) -> int | None:
    """``value`` (a form's or a query string's text) as a whole number ``>= 0``; None when it is
    anything else: empty, signed, spaced, a fraction, non-ASCII digits (``²``, ``①``, Arabic-Indic),
    too long."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_DIGITS:
        return None
    if not (value.isascii() and value.isdigit()):
        return None
    return int(value)

"""The path converter for a row's id in every URL (``<id:pk>``).

Django's ``int`` takes any run of digits: ``/coups/99999999999999999999/steps/`` reached the
database, which cannot hold the number (``OverflowError``: a 500 on SQLite, an error on PostgreSQL),
where a lookup through the ORM first answers 404. An id is a positive 64-bit integer (``MAX_ID``,
what a ``bigint`` primary key holds): a path naming a larger one names no row, and is a 404 before
any view runs. Registered once by ``core.apps.CoreConfig.ready``, before any URLconf is read.
"""

from __future__ import annotations

from core.api.inputs import MAX_ID


class IdConverter:
    #: 19 digits hold every 64-bit integer; longer runs are refused by the pattern itself
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:  # a ValueError is Django's "this pattern does not match": a 404
            raise ValueError(f"{value} is beyond any id")
        return number

    def to_url(self, value: int) -> str:
        return str(int(value))

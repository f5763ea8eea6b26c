"""The one lock order every writer at a table follows: table, then session, then shoe, then coup.

Taking locks in a fixed order is what keeps two tablets (or a tablet and the API) from deadlocking
each other; taking the table row first is what makes them queue instead of race.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from tables.models import Coup, Shoe, Table, TableSession


def lock_session(session: TableSession | int) -> TableSession:
    """Lock the session's table, then the session itself."""
    session_id = session if isinstance(session, int) else session.pk
    table_id = TableSession.objects.values_list("table_id", flat=True).get(pk=session_id)
    Table.objects.select_for_update().get(pk=table_id)
    return (
        TableSession.objects.select_for_update()
        .select_related("table", "table__profile", "table__casino")
        .get(pk=session_id)
    )


def lock_coup(coup: Coup | int) -> Coup:
    """Lock the coup's table, its shoe and the coup (in that order) and return the fresh coup."""
    coup_id = coup if isinstance(coup, int) else coup.pk
    table_id, shoe_id = Coup.objects.values_list("shoe__table_id", "shoe_id").get(pk=coup_id)
    Table.objects.select_for_update().get(pk=table_id)
    Shoe.objects.select_for_update().get(pk=shoe_id)
    return (
        Coup.objects.select_for_update(of=("self",))
        .select_related(
            "shoe",
            "shoe__session",
            "shoe__table",
            "shoe__table__profile",
            "shoe__table__casino",
            "bank_turn",
            "bank_turn__seat",
        )
        .get(pk=coup_id)
    )


def require_open(session: TableSession) -> None:
    if session.closed_at is not None:
        raise ValidationError("This session is closed.")

"""A second pit boss approves a void that waited for him (issue 20, separation of duties).

The request's own lifecycle (asked, refused, lapsed) is tables.services.void_requests; approving
it is the game's own void, done by the second pit boss with the request in hand — chemin de fer's
``coup_void`` or an older game's ``game_coup_void``, asked through the game's wing
(tables.games), each of which locks its coup before the
request and checks again that he recorded no step of it.
"""

from __future__ import annotations

from django.db import transaction

from core.types import Staff
from tables.games import wing_for
from tables.models import VoidRequest
from tables.services.void_requests import void_request_check_decider


@transaction.atomic
def void_request_approve(*, actor: Staff, request: VoidRequest | int) -> VoidRequest:
    """``actor`` — a pit boss of the casino, not the one who asked — approves the void: the coup is
    voided in his name and the request says so; a coup that ended meanwhile lapses the request
    (nothing is voided). Refusals: 403 (not a pit boss there, the asker, a recorder of the coup),
    409 (the request already decided)."""
    pk = request if isinstance(request, int) else request.pk
    current = VoidRequest.objects.select_related("coup__shoe__table", "game_coup").get(pk=pk)
    void_request_check_decider(actor, current)
    # the database holds one of the two: a chemin de fer coup or an older game's
    if current.coup is not None:
        game, coup = current.coup.shoe.table.game, current.coup_id
    else:
        assert current.game_coup is not None
        game, coup = current.game_coup.game, current.game_coup_id
    wing_for(game).coup_void(actor=actor, coup=coup, reason=current.reason, approving=current.pk)
    current.refresh_from_db()
    return current

"""Writes for the game floor, one atomic state change each (see the modules for the details).

``from tables import services`` gives all of them; the modules group them by what they change.
"""

from tables.services.amends import Amendment, step_amend
from tables.services.banks import (
    bank_auction_award,
    bank_first_assign,
    bank_house_take,
    bank_new_from_minimum,
    bank_offer_answer,
    bank_pass,
    bank_share_contribute,
    bank_share_withdraw,
)
from tables.services.corrections import correction_approve, correction_reject, correction_submit, coup_void
from tables.services.coups import (
    Caller,
    ConfirmationRequired,
    CoupConflict,
    StepRequest,
    StepResult,
    coup_start,
    coup_step_record,
)
from tables.services.floor import (
    seat_leave,
    seat_take,
    seat_take_new_player,
    session_pause_end,
    session_pause_start,
    spectator_join,
    spectator_join_new_player,
    spectator_leave,
    table_session_close,
    table_session_open,
)
from tables.services.series import series_begin, series_finish
from tables.services.setup import (
    casino_create,
    casino_staff_grant,
    casino_staff_withdraw,
    croupier_assignment_create,
    player_create,
    staff_member_create,
    staff_password_set,
    table_create,
)
from tables.services.shoes import shoe_close, shoe_start
from tables.services.void_requests import void_request_refuse
from tables.services.voids import void_request_approve
from tables.services.withdrawals import coup_bank_withdraw

__all__ = [
    "Amendment",
    "Caller",
    "ConfirmationRequired",
    "CoupConflict",
    "StepRequest",
    "StepResult",
    "bank_auction_award",
    "bank_first_assign",
    "bank_house_take",
    "bank_new_from_minimum",
    "bank_offer_answer",
    "bank_pass",
    "bank_share_contribute",
    "bank_share_withdraw",
    "casino_create",
    "casino_staff_grant",
    "casino_staff_withdraw",
    "correction_approve",
    "correction_reject",
    "correction_submit",
    "coup_bank_withdraw",
    "coup_start",
    "coup_step_record",
    "coup_void",
    "croupier_assignment_create",
    "player_create",
    "seat_leave",
    "seat_take",
    "seat_take_new_player",
    "series_begin",
    "series_finish",
    "session_pause_end",
    "session_pause_start",
    "shoe_close",
    "shoe_start",
    "spectator_join",
    "spectator_join_new_player",
    "spectator_leave",
    "staff_member_create",
    "staff_password_set",
    "step_amend",
    "table_create",
    "table_session_close",
    "table_session_open",
    "void_request_approve",
    "void_request_refuse",
]

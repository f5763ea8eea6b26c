"""The procedural rules a record can express: the bank's minimum and house limit, who may bet,
in which order, and who may claim a banco suivi.

A live table refuses these outright (the machine raises ``IllegalStep``; a spectator's bet before
the seated round is over is refused by the services, which know who sits where); a recorded
history that breaks them is flagged instead (``BANK_BELOW_MINIMUM``, ``BANK_ABOVE_LIMIT``,
``SPECTATOR_BET_NOT_ALLOWED``, ``SPECTATOR_BEFORE_SEATED``, ``SUIVI_NOT_ALLOWED``: COUP_RECORD.md).
The live machine and the offline judge both ask this module, so they cannot drift apart: whatever
one refuses or flags, the other does too (tests/chemin_de_fer/engine/test_properties.py checks it).
"""

from __future__ import annotations

from collections.abc import Sequence

from chemin_de_fer.engine.coup import Code, Stake, Violation
from chemin_de_fer.engine.profiles import Profile
from core.sentence import Word, said


def spectator_may_bet(profile: Profile, *, banco: bool) -> bool:
    """May a spectator (a standing player) make this bet? RULES.md §2 and §10: only where the
    profile lets spectators bet, and a banco only where the largest seated bettor does not always
    play the hand (the club: a spectator there only adds to the seated punters' bets)."""
    if not profile.spectators_bet:
        return False
    return not (banco and profile.seated_bettor_always_plays)


def spectator_refusal(profile: Profile, *, banco: bool) -> str:
    """Why a live table refuses a spectator's bet (or banco) under ``profile``."""
    slug = Word(profile.slug, "profile")
    if banco:
        return said("a spectator may not call banco under the {profile} profile", profile=slug)
    return said("spectators may not bet under the {profile} profile", profile=slug)


def bank_violation(profile: Profile, bank: int) -> Violation | None:
    """``BANK_BELOW_MINIMUM`` when ``bank`` is under the profile's minimum bank (RULES.md §3.1);
    ``detail`` reads ``"bank < minimum"``."""
    if bank < profile.min_bank:
        return Violation(Code.BANK_BELOW_MINIMUM, "banker", f"{bank} < {profile.min_bank}")
    return None


def spectator_violation(profile: Profile, bets: Sequence[Stake], *, banco: bool) -> Violation | None:
    """``SPECTATOR_BET_NOT_ALLOWED`` once per coup, naming in ``detail`` the first spectator (in
    betting order) whose bet the profile forbids; None when every bet is allowed."""
    if spectator_may_bet(profile, banco=banco):
        return None
    for bet in bets:
        if bet.spectator:
            return Violation(Code.SPECTATOR_BET_NOT_ALLOWED, "punters", bet.punter)
    return None


def limit_violation(bank: int, house_limit: int | None) -> Violation | None:
    """``BANK_ABOVE_LIMIT`` when ``bank`` is above the record's ``house_limit`` (a bank exactly at
    the limit is fine); ``detail`` is empty (COUP_RECORD.md)."""
    if house_limit is not None and bank > house_limit:
        return Violation(Code.BANK_ABOVE_LIMIT, "banker")
    return None


def suivi_violation(profile: Profile, *, banco_suivi: bool) -> Violation | None:
    """``SUIVI_NOT_ALLOWED`` when the banco caller claimed a banco suivi under a profile that has
    none (RULES.md §2: only the home profile has it); ``detail`` is empty (COUP_RECORD.md)."""
    if banco_suivi and not profile.banco_suivi:
        return Violation(Code.SUIVI_NOT_ALLOWED, "punters")
    return None


def seated_after_spectator(bets: Sequence[Stake]) -> Violation | None:
    """``SPECTATOR_BEFORE_SEATED`` once per coup when a seated punter's bet is listed after a
    spectator's (RULES.md §2: spectators bet only once the seated round is over); ``detail`` is
    empty (COUP_RECORD.md). Under every profile: where spectators may not bet at all the order is
    broken all the same, and each rule is reported on its own."""
    spectator_seen = False
    for bet in bets:
        if bet.spectator:
            spectator_seen = True
        elif spectator_seen:
            return Violation(Code.SPECTATOR_BEFORE_SEATED, "punters")
    return None

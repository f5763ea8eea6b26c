"""``python manage.py load_demo``: a small demo casino for local use. Idempotent.

Creates (only what is missing) one casino, one table per built-in profile (the club's charged an
hourly fee, the others the casino's 5 % levy where their profile levies one) and one per older game
(Macao, Landsknecht, old baccarat: ``GAME_TABLES``), the demo staff with
fixed passwords, the croupier's assignment to every demo table for the current shift and a few
players, each bought in at the cage once (so they can bank and bet straight away). Every write goes
through the services, so the demo data is audited (and the chips posted to the ledger) like real
data. Refuses to run with DEBUG off unless --force: known passwords must never reach a production
database.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from cage.services import cage_buy_in
from tables import services
from tables.models import Casino, Player, Table
from tables.roles import Role
from tables.selectors import assignments_current, builtin_profiles

CASINO_NAME = "Casino de Démonstration"
# username → (password, roles, superuser)
DEMO_STAFF: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "croupier": ("croupier-demo", (Role.CROUPIER,), False),
    "pitboss": ("pitboss-demo", (Role.PIT_BOSS,), False),
    "accountant": ("accountant-demo", (Role.ACCOUNTANT,), False),
    "cashier": ("cashier-demo", (Role.CASHIER,), False),
    "compliance": ("compliance-demo", (Role.COMPLIANCE,), False),
    "admin": ("admin-demo", (), True),
}
DEMO_PLAYERS = [("M. Dupont", "M-1001"), ("Mme Leroy", "M-1002"), ("Comte Orlov", "M-1003"), ("Walk-in", "")]
#: the chips each demo player buys at the cage (once: the buy-in's key is his)
DEMO_BUY_IN = 10_000
# Built-in profiles with their demo table: casino tables seat 12, the others 9 (Table allows 9 or 12).
SEATS = {"casino": 12}
# The casino's demo table may be banked by the house (RULES.md §2) and auctions a passed bank (§7):
# both table settings, off elsewhere, so the demo shows them next to the plain tables.
HOUSE_BANK = {"casino"}
PASSED_BANK_AUCTION = {"casino"}
# The club's demo table is charged by the hour (a table's own levy mode; the casino's is the 5 %
# levy): the fees report has figures after a demo night. Its coups carry no levy (the club
# profile's card money is 0 here).
LEVY_MODES = {"club": Table.LevyMode.HOURLY_FEE}
#: the casino's hourly fee, per player and started hour, at its hourly-fee tables
DEMO_HOURLY_FEE = 20
SHIFT = dt.timedelta(hours=8)
#: the older games' demo tables (docs/games/): name → (game, house settings); they take the classic
#: profile, whose rules they do not use (a table has a profile), and 9 seats
GAME_TABLES: dict[str, tuple[str, dict[str, Any]]] = {
    "Macao 1": (Table.Game.MACAO, {"unit": 10}),
    "Landsknecht 1": (Table.Game.LANDSKNECHT, {"min_stake": 10, "fund_due": 10}),
    "Old baccarat 1": (Table.Game.OLD_BACCARAT, {"min_stake": 10}),
}


class Command(BaseCommand):
    help = "Load (idempotently) a demo casino, tables, staff and players for local use."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="run even with DEBUG off")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError(
                "load_demo creates users with known passwords; refusing with DEBUG off (--force)."
            )
        with transaction.atomic():
            self._load()

    def _load(self) -> None:
        User = get_user_model()
        system = None  # demo data is written by this command, not by a person: actor "system"
        for username, (password, roles, superuser) in DEMO_STAFF.items():
            user = User.objects.filter(username=username).first()
            if user is None:
                services.staff_member_create(
                    actor=system, username=username, password=password, roles=roles, is_superuser=superuser
                )
            elif not user.check_password(password):
                services.staff_password_set(actor=system, user=user, password=password)

        casino = Casino.objects.filter(name=CASINO_NAME).first() or services.casino_create(
            actor=system,
            name=CASINO_NAME,
            currency_label="chips",
            chip_unit=1,
            levy_rate_bp=500,
            hourly_fee_amount=DEMO_HOURLY_FEE,
        )
        for username, (_password, roles, _superuser) in DEMO_STAFF.items():
            if roles:  # every demo member of staff works for the demo casino (a second run: no-op)
                staff = User.objects.get(username=username)
                services.casino_staff_grant(actor=system, user=staff, casino=casino)
        tables = {}
        for profile in builtin_profiles():
            name = f"{profile.slug.title()} table"
            tables[profile.slug] = Table.objects.filter(
                casino=casino, name=name
            ).first() or services.table_create(
                actor=system,
                casino=casino,
                name=name,
                profile=profile,
                seat_count=SEATS.get(profile.slug, 9),
                house_bank=profile.slug in HOUSE_BANK,
                passed_bank_auction=profile.slug in PASSED_BANK_AUCTION,
                levy_mode=LEVY_MODES.get(profile.slug, ""),
            )
        classic = next(p for p in builtin_profiles() if p.slug == "classic")
        for name, (game, game_settings) in GAME_TABLES.items():
            tables[game] = Table.objects.filter(casino=casino, name=name).first() or services.table_create(
                actor=system,
                casino=casino,
                name=name,
                profile=classic,
                seat_count=9,
                game=game,
                game_settings=game_settings,
            )
        for display_name, membership in DEMO_PLAYERS:
            if not Player.objects.filter(casino=casino, display_name=display_name).exists():
                services.player_create(
                    actor=system, casino=casino, display_name=display_name, membership_number=membership
                )
        demo_players = Player.objects.filter(casino=casino, display_name__in=[n for n, _ in DEMO_PLAYERS])
        for player in demo_players.order_by("pk"):
            # a fixed key per player: a second run finds his buy-in posted and posts nothing
            key = f"demo:{player.pk}"
            cage_buy_in(actor=system, casino=casino, player=player, amount=DEMO_BUY_IN, key=key)
        # The demo croupier is on shift at every demo table: a newcomer plays each profile from
        # "my table" without an administrator's assignment first (a real floor assigns one table
        # per croupier; the demo has one croupier for all its tables).
        croupier = User.objects.get(username="croupier")
        covered = {a.table_id for a in assignments_current(user=croupier)}
        start = timezone.now().replace(minute=0, second=0, microsecond=0)
        for table in tables.values():
            if table.pk not in covered:
                services.croupier_assignment_create(
                    actor=system,
                    user=croupier,
                    table=table,
                    shift_start=start,
                    shift_end=start + SHIFT,
                )

        self.stdout.write(
            self.style.SUCCESS(
                f"Demo data ready: {casino.name}, {len(tables)} tables, players bought in for "
                f"{DEMO_BUY_IN} chips each at the cage."
            )
        )
        self.stdout.write("Demo logins (local use only):")
        for username, (password, roles, superuser) in DEMO_STAFF.items():
            role = "administrator" if superuser else ", ".join(roles)
            self.stdout.write(f"  {username:<11} {password:<16} {role}")

"""factory_boy factories: valid rows by default, so a test changes only what it is about.

They write rows directly (no services, no audit events) to keep setup cheap; tests of services
and of the audit trail call the services themselves.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, TypeVar

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Model
from django.utils import timezone

from core.types import Staff
from tables import models as m
from tables.engine_bridge import table_rules_snapshot
from tables.services.rules_snapshots import rules_snapshot_keep

NOW = timezone.now

_M = TypeVar("_M", bound=Model)


class ModelFactory(factory.django.DjangoModelFactory[_M]):
    """A DjangoModelFactory whose call is typed: ``CasinoFactory()`` is a Casino to the type
    checker too (factory_boy types ``create`` and ``build`` but not the call)."""

    class Meta:
        abstract = True

    if TYPE_CHECKING:
        # Calling a factory returns the model instance (its metaclass's __call__ makes it). A
        # __new__ declared to return the model tells mypy so; mypy flags a __new__ returning
        # another class's instance (misc), which here is the point.
        def __new__(cls, *args: Any, **kwargs: Any) -> _M: ...  # type: ignore[misc]


class UserFactory(ModelFactory[Staff]):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("correct horse battery staple")

    @factory.post_generation
    def roles(user: Staff, create: bool, extracted: Any, **kwargs: Any) -> None:  # called with the user
        if create and extracted:
            user.groups.set(Group.objects.filter(name__in=extracted))

    @factory.post_generation
    def casinos(user: Staff, create: bool, extracted: Any, **kwargs: Any) -> None:
        """``UserFactory(casinos=[casino])``: the casinos he works for (tables.models.CasinoStaff)."""
        if create and extracted:
            for casino in extracted:
                m.CasinoStaff.objects.get_or_create(user=user, casino=casino)


class CasinoFactory(ModelFactory[m.Casino]):
    class Meta:
        model = m.Casino

    name = factory.Sequence(lambda n: f"Casino {n}")
    levy_mode = m.Casino.LevyMode.PERCENTAGE
    levy_rate_bp = 500


def builtin_profile(slug: str = "casino") -> m.RuleProfile:
    """The built-in profile row created by the data migration."""
    return m.RuleProfile.objects.get(slug=slug)


class TableFactory(ModelFactory[m.Table]):
    class Meta:
        model = m.Table

    casino = factory.SubFactory(CasinoFactory)
    name = factory.Sequence(lambda n: f"Table {n}")
    profile = factory.LazyFunction(builtin_profile)
    seat_count = 12


class CroupierAssignmentFactory(ModelFactory[m.CroupierAssignment]):
    class Meta:
        model = m.CroupierAssignment
        skip_postgeneration_save = True

    user = factory.SubFactory(UserFactory, roles=["croupier"])
    table = factory.SubFactory(TableFactory)
    shift_start = factory.LazyFunction(lambda: NOW() - dt.timedelta(hours=1))
    shift_end = factory.LazyFunction(lambda: NOW() + dt.timedelta(hours=7))

    @factory.post_generation
    def works_there(assignment: m.CroupierAssignment, create: bool, extracted: Any, **kwargs: Any) -> None:
        """A shift is at a casino the croupier works for (``works_there=False``: one he does not)."""
        if create and extracted is not False:
            m.CasinoStaff.objects.get_or_create(user=assignment.user, casino_id=assignment.table.casino_id)


class PlayerFactory(ModelFactory[m.Player]):
    class Meta:
        model = m.Player

    casino = factory.SubFactory(CasinoFactory)
    display_name = factory.Faker("name")


class TableSessionFactory(ModelFactory[m.TableSession]):
    class Meta:
        model = m.TableSession

    table = factory.SubFactory(TableFactory)
    opened_at = factory.LazyFunction(NOW)
    opened_by = factory.SubFactory(UserFactory)


class SessionPauseFactory(ModelFactory[m.SessionPause]):
    class Meta:
        model = m.SessionPause

    session = factory.SubFactory(TableSessionFactory)
    started_at = factory.LazyFunction(NOW)
    started_by = factory.SubFactory(UserFactory)


class SeatFactory(ModelFactory[m.Seat]):
    class Meta:
        model = m.Seat

    session = factory.SubFactory(TableSessionFactory)
    player = factory.SubFactory(PlayerFactory, casino=factory.SelfAttribute("..session.table.casino"))
    number = factory.Sequence(lambda n: n % 12 + 1)
    joined_at = factory.LazyFunction(NOW)


class SpectatorFactory(ModelFactory[m.Spectator]):
    class Meta:
        model = m.Spectator

    session = factory.SubFactory(TableSessionFactory)
    player = factory.SubFactory(PlayerFactory, casino=factory.SelfAttribute("..session.table.casino"))
    joined_at = factory.LazyFunction(NOW)


class ShoeFactory(ModelFactory[m.Shoe]):
    class Meta:
        model = m.Shoe

    session = factory.SubFactory(TableSessionFactory)
    table = factory.SelfAttribute("session.table")
    number = factory.Sequence(lambda n: n + 1)
    decks = 6
    shuffled_at = factory.LazyFunction(NOW)


class BankTurnFactory(ModelFactory[m.BankTurn]):
    class Meta:
        model = m.BankTurn

    session = factory.SubFactory(TableSessionFactory)
    seat = factory.SubFactory(SeatFactory, session=factory.SelfAttribute("..session"))
    player = factory.SelfAttribute("seat.player")
    rotation_from = factory.SelfAttribute("seat")
    started_at = factory.LazyFunction(NOW)
    started_how = m.BankTurn.Start.LOT
    required_minimum = 1


class CoupFactory(ModelFactory[m.Coup]):
    class Meta:
        model = m.Coup

    shoe = factory.SubFactory(ShoeFactory)
    number = factory.Sequence(lambda n: n + 1)
    bank_turn = factory.SubFactory(BankTurnFactory, session=factory.SelfAttribute("..shoe.session"))
    banker = factory.SelfAttribute("bank_turn.player")
    bank = 200
    rules_snapshot_id = factory.LazyAttribute(
        lambda o: rules_snapshot_keep(content=table_rules_snapshot(o.shoe.table))
    )
    created_at = factory.LazyFunction(NOW)


class ShoeCardFactory(ModelFactory[m.ShoeCard]):
    class Meta:
        model = m.ShoeCard

    shoe = factory.SubFactory(ShoeFactory)
    position = factory.Sequence(lambda n: n + 1)
    card = "AS"
    role = m.ShoeCard.Role.BURN
    seen_at = factory.LazyFunction(NOW)


class BetFactory(ModelFactory[m.Bet]):
    class Meta:
        model = m.Bet

    coup = factory.SubFactory(CoupFactory)
    seat = factory.SubFactory(SeatFactory, session=factory.SelfAttribute("..coup.shoe.session"))
    spectator = None
    amount = 50
    betting_order = factory.Sequence(lambda n: n + 1)


class CoupStepFactory(ModelFactory[m.CoupStep]):
    class Meta:
        model = m.CoupStep

    coup = factory.SubFactory(CoupFactory)
    index = factory.Sequence(lambda n: n + 1)
    kind = m.CoupStep.Kind.BET
    payload = factory.LazyFunction(lambda: {"amount": 50})
    actor = factory.SubFactory(UserFactory)
    created_at = factory.LazyFunction(NOW)


class BankTaxFactory(ModelFactory[m.BankTax]):
    class Meta:
        model = m.BankTax

    coup = factory.SubFactory(CoupFactory)
    basis = 200
    amount = 10


def api_token_for(user: Any) -> str:
    """A working API token for ``user`` (the hashed row only, no audit event: a fixture, not an
    issue through access.services.tokens, whose own tests are tests/access/test_token.py)."""
    import secrets

    from access.services.tokens import token_digest
    from core.models import ApiToken

    token = secrets.token_urlsafe(32)
    ApiToken.objects.create(
        user=user, digest=token_digest(token), prefix=token[:8], created_at=timezone.now()
    )
    return token

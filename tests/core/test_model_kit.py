"""core.model_kit's bulk-writer helpers: an instance's attributes read in one call
(``attributes_reader``), as the audit binding and the COPY writer read the rows they bind and copy."""

from __future__ import annotations

import operator

import pytest
from django.db.models import Model
from django.db.models.fields.files import FieldFile

from core.model_kit import attributes_reader, model_new
from reports.models import ReportRun
from tables.models import Bet, Table
from tests.factories import TableFactory


def _attnames(model: type[Model]) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields]


def test_a_new_instances_attributes_come_straight_from_its_dict_as_getattr_gives_them() -> None:
    bet = model_new(Bet, id=7, coup_id=3, amount=120, withdrawn=False)
    names = _attnames(Bet)
    read = attributes_reader(Bet, names)
    assert read(bet) == operator.attrgetter(*names)(bet)
    assert read(bet)[names.index("coup_id")] == 3  # a foreign key's id, its descriptor passed by
    bet.__dict__["amount"] = 300  # what the descriptor would give back is what is read
    assert read(bet)[names.index("amount")] == 300


def test_one_name_gives_a_tuple_of_one() -> None:
    assert attributes_reader(Bet, ["amount"])(model_new(Bet, amount=40)) == (40,)


@pytest.mark.django_db
def test_a_deferred_field_is_loaded_by_its_descriptor_as_before() -> None:
    table = TableFactory()
    loaded = Table.objects.only("id").get(pk=table.pk)
    assert "name" not in loaded.__dict__
    names = _attnames(Table)
    assert attributes_reader(Table, names)(loaded) == operator.attrgetter(*names)(table)


def test_a_field_with_its_own_descriptor_is_read_through_getattr() -> None:
    """A report's file: the descriptor makes a FieldFile of the name the column keeps, and the
    digest reads that (audit.rows._plain: the file's name)."""
    run = model_new(ReportRun, file="reports/levy.csv")
    names = _attnames(ReportRun)
    values = attributes_reader(ReportRun, names)(run)
    kept = values[names.index("file")]
    assert isinstance(kept, FieldFile)
    assert kept.name == "reports/levy.csv"
    assert values == operator.attrgetter(*names)(run)


def test_no_names_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one name"):
        attributes_reader(Bet, [])

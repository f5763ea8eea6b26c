"""The exports are English whoever asks for them (docs/i18n.md, docs/reports.md): a report written
while a request in Russian is being answered (no broker: the run is written inside the web
request) is the same file, byte for byte, as one asked for in English. The compliance kinds' policy
("US Title 31", a choice label) came out as "US Title 31 (США)" in Russian."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest
import reportlab
from django.utils import timezone, translation
from openpyxl import load_workbook

from compliance.models import CashLogEntry
from reports.kinds import KINDS
from tests.reports.helpers import run
from tests.reports.test_cash_kinds import night  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 12, 7, 23, 0, tzinfo=dt.UTC)


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """One instant for both writes (the header's "Generated", a seat's time up to now), and a PDF
    without its creation date and random id (ReportLab's invariant mode)."""
    monkeypatch.setattr(timezone, "now", lambda: AT)
    monkeypatch.setattr(reportlab.rl_config, "invariant", 1)  # type: ignore[attr-defined]


def _content(fmt: str, body: bytes) -> Any:
    """What a file says: its bytes; an XLSX's cells (its zip carries the time it was written)."""
    if fmt != "xlsx":
        return body
    book = load_workbook(io.BytesIO(body), read_only=True)
    return [[list(row) for row in sheet.iter_rows(values_only=True)] for sheet in book.worksheets]


def _both(kind: str, fmt: str, day: dt.date, **ids: Any) -> dict[str, Any]:
    files = {}
    for lang in ("ru", "fr", "en"):
        with translation.override(lang):
            body, _result = run(kind, fmt, day, day, **ids)
        files[lang] = _content(fmt, body)
    return files


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "pdf"])
@pytest.mark.parametrize("kind", ["cash-log", "cash-reports"])
def test_a_compliance_report_is_the_same_file_in_every_language(night, frozen, kind: str, fmt: str) -> None:  # noqa: F811
    casino, _dupont, _roy = night
    day = CashLogEntry.objects.earliest("pk").gaming_day
    files = _both(kind, fmt, day, casino_id=casino.pk)
    assert files["ru"] == files["en"] and files["fr"] == files["en"]
    if fmt == "csv":
        assert b"Policy,US Title 31\r\n" in files["en"] or b"Policy,US Title 31\n" in files["en"]
        assert "США".encode() not in files["ru"]


#: the compliance kinds have their own test above; the JSON Lines kinds publish a new anchor at each
#: write (the audit chain's signed head: two writes never match), their builders are in English too
OTHERS = [
    (k, f)
    for k, info in KINDS.items()
    if k not in ("cash-log", "cash-reports", "audit-trail", "coup-records")
    for f in info.formats
]


@pytest.mark.parametrize(("kind", "fmt"), OTHERS)
def test_every_other_report_is_the_same_file_in_every_language(history, frozen, kind: str, fmt: str) -> None:
    table = history.floor.table
    day = timezone.localdate(history.natural.settled_at) if history.natural else timezone.localdate()
    files = _both(kind, fmt, day, casino_id=table.casino_id)
    assert files["ru"] == files["en"] and files["fr"] == files["en"]

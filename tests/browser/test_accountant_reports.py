"""Issue 11's acceptance, in a browser (headless Chromium): the accountant generates the
year-to-date levy report in XLSX and in PDF, watches each run's progress on the page while a
worker writes it, downloads both; the XLSX's year-to-date total equals the levy account of the
ledger (``trial_balance``), and the PDF, read back with pdftotext, says the same."""

from __future__ import annotations

import datetime as dt
import io
import subprocess
import threading
from typing import Any
from unittest import mock

import pytest
from django.db import connections
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from core.services import outbox
from ledger.models import Account
from ledger.selectors import trial_balance
from reports.models import ReportRun
from reports.services import report_run_execute
from tables import services
from tables.gaming_day import casino_calendar
from tests.factories import CroupierAssignmentFactory, TableFactory, UserFactory
from tests.review.history import play_clean, play_flagged
from tests.review.test_browser import _login, _posted, page  # noqa: F401  (fixture)
from tests.tables.play import open_floor, play

pytestmark = [
    pytest.mark.browser,
    pytest.mark.poppler,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
]


def _played_yesterday(table: Any) -> None:
    """The known night (tests/review/history.py) played in the middle of the last closed gaming
    day: the year-to-date report covers closed gaming days only. (A day before now was not
    enough: run a few minutes before the casino's cut-off, the night's own clock, a second a
    call, carried its coups over the cut-off into today, and the report had none of them.)"""
    calendar = casino_calendar(table.casino)
    closed = calendar.today(timezone.now()) - dt.timedelta(days=1)
    then = calendar.day_start(closed) + dt.timedelta(hours=6)
    croupier = UserFactory(username="croupier", roles=["croupier"], casinos=[table.casino])
    shift = {"shift_start": then - dt.timedelta(hours=1), "shift_end": then + dt.timedelta(hours=7)}
    CroupierAssignmentFactory(user=croupier, table=table, **shift)
    boss = UserFactory(username="pitboss", roles=["pit_boss"], casinos=[table.casino])
    ticks = iter(then + dt.timedelta(seconds=n) for n in range(100_000))
    with mock.patch("django.utils.timezone.now", side_effect=lambda: next(ticks)):
        floor = open_floor(croupier, table)
        play_clean(floor)
        flagged = play_flagged(floor)
        services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
        services.correction_approve(actor=boss, coup=flagged)
        play(floor, bank=780, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural")


class _Worker:
    """Stands in for the Celery worker: a report run sent through the outbox is written in a thread
    of its own, slowly enough (REPORTS_TEST_DELAY_PER_CHUNK) for the page to show it running."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []

    def send(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
        assert name == "reports.run"

        def work() -> None:
            try:
                report_run_execute(run_id=kwargs["run_id"])
            finally:
                connections.close_all()

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        self.threads.append(thread)


# a report of a few lines calls progress two or three times: 3 s each keeps it running for
# several of the page's 2-second polls
@override_settings(REPORTS_TEST_DELAY_PER_CHUNK=3.0, REPORTS_PROGRESS_INTERVAL=0.0)
def test_the_accountant_generates_watches_and_downloads_the_ytd_levy_report(
    live_server,
    page: Any,  # noqa: F811
    tmp_path,
    monkeypatch,
) -> None:
    table = TableFactory()
    casino = table.casino
    _played_yesterday(table)
    UserFactory(username="accountant", roles=["accountant"], casinos=[casino])
    [levy_account] = [r for r in trial_balance(casino=casino).rows if r.kind == Account.Kind.LEVY]
    levy_in_books = levy_account.balance
    assert levy_in_books == 30  # 10 + 20: the clean coup and the restored one

    worker = _Worker()
    monkeypatch.setattr(outbox, "_send", worker.send)
    base = live_server.url
    _login(page, base, "accountant")
    page.goto(f"{base}{reverse('review:exports')}")

    downloads: dict[str, bytes] = {}
    for fmt in ("xlsx", "pdf"):
        page.select_option("select[name=kind]", "levy")
        page.select_option("select[name=casino]", str(casino.pk))
        page.select_option("select[name=preset]", "ytd")
        page.select_option("select[name=fmt]", fmt)
        _posted(page, lambda: page.get_by_role("button", name="Generate").click())
        run = ReportRun.objects.filter(format=fmt).get()
        row = f"#report-run-{run.pk}"
        # the page polls the row: first while the worker writes it, then finished
        try:
            page.wait_for_selector(f"{row}[data-status=running]", timeout=20_000)
        except Exception:
            run.refresh_from_db()
            raise AssertionError(f"never seen running; the run is {run.status}: {run.error}") from None
        page.wait_for_selector(f"{row}[data-status=finished]", timeout=60_000)
        run.refresh_from_db()
        closed = casino_calendar(casino).today(timezone.now()) - dt.timedelta(days=1)
        assert (run.kind, run.status, run.start, run.end) == (
            "levy", "finished", closed.replace(month=1, day=1), closed
        )  # fmt: skip
        with page.expect_download() as download:
            page.locator(f"{row} [data-testid=report-run-download]").click()
        downloads[fmt] = download.value.path().read_bytes()
    for thread in worker.threads:
        thread.join(timeout=10)

    # XLSX: the bold "year to date" total for all tables, levy last, equals the ledger's levy
    sheet = load_workbook(io.BytesIO(downloads["xlsx"])).active
    assert sheet is not None
    rows = [[c.value for c in r] for r in sheet.iter_rows()]
    ytd = next(r for r in rows if r[0] == "year to date" and r[2] == "all tables")
    assert ytd[3:7] == [3, 2, 700, levy_in_books]

    # PDF: rendered, and its year-to-date line says the same
    pdf = tmp_path / "levy.pdf"
    pdf.write_bytes(downloads["pdf"])
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(pdf), str(tmp_path / "page")], check=True)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True).stdout
    lines = text.decode().splitlines()
    line = next(x for x in lines if x.lstrip().startswith("year to date") and "all tables" in x)
    assert line.split("all tables")[1].split() == ["3", "2", "700", f"{levy_in_books:,}"]

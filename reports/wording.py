"""What report runs say about themselves: why a run failed (stored in ``ReportRun.error`` and in
its audit event ``reports.reportrun.fail``) and why its file cannot be downloaded (the 409).

English, always: the run's error is stored and audited, the API answers it and the management
command prints it, whatever the language of the request that happened to write the run (with no
broker a run is written inside the web request that asked for it). The reports page says them in
its reader's language at its edge (docs/i18n.md): a stored error is read back with its pattern
(:func:`run_error`, ``{{ run.error|run_error }}`` with ``{% load report_words %}``), a refusal is
translated by the view (tables.wording.say).
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.sentence import Sentence, said
from tables.wording import Stored, read_stored

# ------------------------------------------------------------------------ why a run failed
#: an unexpected error while the report was written (a storage that refuses, a bug, a database
#: gone): what happened exactly (the exception, a server path) is in the log, not here
RUN_NOT_WRITTEN = gettext_noop(
    "The report's file could not be written. Ask for it again; if it fails again, tell the administrator."
)
#: a run whose worker died REPORTS_MAX_ATTEMPTS times (a report that kills it: out of memory?)
RUN_GAVE_UP = gettext_noop("Gave up after attempt {n}: its worker stopped each time (out of memory?).")


def run_gave_up(attempts: int) -> Sentence:
    """Why a run was given up after ``attempts`` attempts (its pattern is RUN_GAVE_UP's)."""
    return said(RUN_GAVE_UP, n=attempts)


#: every failure reason a run stores, as a page reads it back (a reason worded otherwise, a run
#: failed before these words or a writer's own ReportRequestError, is shown as stored)
RUN_ERRORS: tuple[Stored, ...] = (Stored(RUN_NOT_WRITTEN), Stored(RUN_GAVE_UP))


def run_error(error: str) -> str:
    """A run's stored error as a sentence a page says in its language (tables.wording.say)."""
    return read_stored(error, RUN_ERRORS)


# ------------------------------------------------------------------ why there is no file
#: the download of a run that is not finished (409 ``report_not_ready``), for each status
NOT_READY = {
    "queued": gettext_noop("This report is waiting for a worker: there is no file to download yet."),
    "running": gettext_noop("This report is still being written: there is no file to download yet."),
    "failed": gettext_noop("This report failed: it has no file to download. Generate it again."),
}

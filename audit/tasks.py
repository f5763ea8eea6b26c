"""Celery tasks for the audit trail: thin wrappers around selectors/services."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from audit.anchors import ANCHORS_REASON, anchor_publish, anchors_verify
from audit.models import GLOBAL_CHAIN
from audit.row_verify import RowDifference, rows_verify, rows_verify_since
from audit.selectors import BrokenEvent, ChainReport, audit_chains_verify
from audit.services import AUDIT_VERIFY_TASK, chain_verification_record

logger = logging.getLogger(__name__)


@shared_task(name=AUDIT_VERIFY_TASK)
def audit_chain_verify_task(
    requested_by_id: int | None = None, full: bool = True, *, chains: list[int] | None = None
) -> dict[str, object]:
    """Re-verify every chain whole (scheduled by beat, or asked for on the dashboard; ``full=False``:
    each only from what its last successful verification vouched for), and each chain's head
    against its anchors in the anchor file (``AUDIT_ANCHOR_FILE``, when set), and store the
    results (one ``ChainVerification`` per chain); a break is logged at ERROR for alerting.
    ``chains``: only those chains (a pit boss's casinos' and the global one, asked for on his
    dashboard): their events, the rows their events bind and their anchors; nothing is stored
    about another chain."""
    started_at = timezone.now()
    wanted = frozenset(chains) if chains is not None else None
    reports = {
        report.chain: report for report in audit_chains_verify(chains=wanted, incremental=not full)
    }
    _rows_check(reports, full=full, chains=wanted)
    anchors = anchors_verify(settings.AUDIT_ANCHOR_FILE) if settings.AUDIT_ANCHOR_FILE else None
    if anchors is not None:
        # stored with the chain's breaks, so the dashboard's "broken at seq K" covers them: at the
        # anchored seq; a problem of the anchor file, of no chain in particular (missing, emptied,
        # started again, a line that is no anchor, anchors missing between two), with the global
        # chain, at the event that recorded the file (a seq that is there, the same for every run
        # that finds it) and named as the file's (ANCHOR_FILE_REASON: the pit's alert says so);
        # else (a chain's stale anchors) just past the head, the tail the anchors should vouch for.
        # A new install before its first anchor (no file, and none ever recorded) has nothing to
        # check yet: not a break, said as such (docs/audit.md, "Anchors"). A chain's own problems
        # first: one of the file already known (a gap while make run's server was stopped, its
        # alert acknowledged) never stands first in front of a tail deleted since. What is stored is
        # the problem as the pit boss reads it (AnchorProblem.said: a sentence with its numbers his
        # pages say in his language, review.wording), the hashes and the rest of the verifier's
        # detail logged at ERROR here, and printed by verify_audit --anchors.
        for problem in sorted(anchors.problems, key=lambda problem: problem.chain is None):
            if problem.unwritten:
                logger.info("audit anchors: no anchor written yet to %s", anchors.path)
                continue
            chain = problem.chain if problem.chain is not None else GLOBAL_CHAIN
            if wanted is not None and chain not in wanted:
                continue  # another chain's: not asked for
            # a chain the anchors know and the database no longer does (its every event deleted)
            report = reports.setdefault(chain, ChainReport(chain=chain))
            seq, reason = problem.seq, problem.said or problem.reason
            logger.error("audit chain %s anchors: %s", chain, problem.reason)
            if problem.chain is None:
                seq = seq if seq is not None else (anchors.recorded.seq if anchors.recorded else None)
                if not reason.startswith("anchor file "):
                    reason = f"anchor file {anchors.path}: {reason}"
            report.broken.append(
                BrokenEvent(
                    seq=seq if seq is not None else (report.head_seq or 0) + 1,
                    id=0,
                    reason=f"{ANCHORS_REASON}{reason}",
                )
            )
    for chain, report in sorted(reports.items()):
        first = report.first_broken
        if first is not None:
            logger.error(
                "audit chain %s BROKEN at seq=%s id=%s: %s", chain, first.seq, first.id, first.reason
            )
    requested_by = (
        get_user_model().objects.filter(pk=requested_by_id).first() if requested_by_id is not None else None
    )
    for _, report in sorted(reports.items()):
        chain_verification_record(report=report, started_at=started_at, requested_by=requested_by)
    result: dict[str, object] = {
        "ok": all(report.ok for report in reports.values()),
        "checked": sum(report.checked for report in reports.values()),
        "head_seq": reports[GLOBAL_CHAIN].head_seq if GLOBAL_CHAIN in reports else None,
        # each chain's head, by chain id (as text: the result goes through JSON)
        "heads": {str(chain): report.head_seq for chain, report in sorted(reports.items())},
    }
    if anchors is not None:
        result["anchors_checked"] = anchors.checked
        if anchors.unwritten:
            result["anchors"] = f"no anchor written yet to {anchors.path}"
    return result


def _rows_check(
    reports: dict[int, ChainReport], *, full: bool, chains: frozenset[int] | None = None
) -> None:
    """The rows bound to the events (audit.row_verify; ``full``: every row both ways, else those
    the events past the vouched-for heads bind), each difference stored with the chain of the event
    that bound the row, at its seq (a row no event binds: the global chain's, just past its head);
    only the differences of ``chains`` when given (the others are another chain's to report)."""
    # where each chain's walk began past its anchor (from_seq 1: walked whole)
    points = {} if full else {c: r.from_seq - 1 for c, r in reports.items() if r.from_seq > 1}

    def add(row: RowDifference) -> None:
        chain = row.chain if row.chain is not None else GLOBAL_CHAIN
        if chains is not None and chain not in chains:
            return
        report = reports.setdefault(chain, ChainReport(chain=chain))
        seq = row.seq if row.seq is not None else (report.head_seq or 0) + 1
        report.broken.append(BrokenEvent(seq=seq, id=0, reason=f"rows: {row}"))

    if full or not points:
        rows_verify(on_difference=add)
    else:
        rows_verify_since(points, on_difference=add)


@shared_task(name="audit.anchor_head")
def audit_anchor_task() -> dict[str, object]:
    """Verify what each chain gained since its newest anchor and append its signed head to
    ``AUDIT_ANCHOR_FILE`` (beat, every ``AUDIT_ANCHOR_EVERY_MINUTES``; audit.anchors.anchors_make:
    a broken chain is not anchored). Idempotent enough: a second anchor of the same head is a
    harmless extra line."""
    anchors = anchor_publish()
    heads = {anchor.scope: anchor.seq for anchor in anchors}
    if not settings.AUDIT_ANCHOR_FILE:
        logger.error(
            "AUDIT_ANCHOR_FILE is not set: the audit chains' heads (global seq=%s) were not anchored",
            heads.get("global"),
        )
    glob = next((anchor for anchor in anchors if anchor.scope == "global"), None)
    return {
        "seq": glob.seq if glob else None,
        "hash": glob.hash if glob else None,
        "at": glob.at if glob else None,
        "heads": heads,
    }

"""Signed anchors of the audit chains' heads, kept outside the database (docs/audit.md, "Anchors").

One anchor per chain: ``scope`` is ``global`` for the global chain, ``casino:<id>`` for a
casino's; each chain's tail is checked against its own anchors.

The chain alone cannot show that its newest events were deleted: what is left is still a valid
chain. An anchor is one JSON line ``{"scope", "seq", "hash", "at", "key_id", "sig"}`` saying "at
``at`` the head was event ``seq`` with hash ``hash``", signed with the audit key. Appended at least
daily (beat) and with every report export to a file the database's role and administrators cannot
write, it lets ``verify_audit --anchors FILE`` catch a deleted tail (the database's head is behind
an anchor), a rewritten chain (the event at an anchored seq has another hash) and anchors that were
removed or never written (the newest is too old, or two are too far apart).

The signature is an HMAC-SHA256 with the same key as the events' (``key_id`` names it), over a
message that starts with a fixed label no event's message can start with (an event's starts with
64 hex digits): one secret to keep, rotate and back up, and a signature that can never pass for an
event's hash or the other way round. A separate anchor key would protect nothing more: both are
needed by the same process (beat writes anchors on the application host), so whoever steals one
steals the other.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from audit.anchor_file import (
    SCOPE,
    SIGNATURE_LABEL,
    TIME_FORMAT,
    Anchor,
    anchor_newest,
    anchor_parse,
    anchor_signature,
    chain_scope,
)
from audit.canonical import GENESIS_HASH
from audit.keys import audit_key_current, audit_keys
from audit.models import GLOBAL_CHAIN, AuditEvent
from core.sentence import Sentence, said

# what was read from here before the anchor file's reading moved beside it
__all__ = ["SCOPE", "SIGNATURE_LABEL", "Anchor", "anchor_newest", "anchor_signature", "chain_scope"]

logger = logging.getLogger(__name__)


def anchor_make(*, chain: int = GLOBAL_CHAIN, at: dt.datetime | None = None) -> Anchor:
    """The signed head of ``chain`` as committed now (seq 0 and the genesis hash when empty)."""
    head = AuditEvent.objects.filter(chain=chain).order_by("-seq").values_list("seq", "hash").first()
    seq, head_hash = head if head else (0, GENESIS_HASH)
    key_id, key = audit_key_current()
    when = (at or timezone.now()).astimezone(dt.UTC).strftime(TIME_FORMAT)
    scope = chain_scope(chain)
    fields: dict[str, Any] = {"scope": scope, "seq": seq, "hash": head_hash, "at": when, "key_id": key_id}
    return Anchor(
        scope=scope, seq=seq, hash=head_hash, at=when, key_id=key_id, sig=anchor_signature(fields, key)
    )


def anchors_make(*, at: dt.datetime | None = None) -> list[Anchor]:
    """The signed head of every chain (the global one always, first; then each casino's that holds
    an event), all at the same instant: each only once what was appended to it since its newest
    anchor verifies (audit.selectors.audit_chain_verify from that anchor). A chain that does not is
    left unanchored, its break logged at ERROR: an anchor vouches for a verified head, never for a
    forged one, and ``verify_audit --anchors`` names the chain missing from the newest anchors."""
    from audit.selectors import audit_chain_verify, audit_chain_vouched, audit_chains

    at = at or timezone.now()
    chains = sorted({GLOBAL_CHAIN, *audit_chains()})
    anchors = []
    for chain in chains:
        report = audit_chain_verify(chain=chain, after=audit_chain_vouched(chain=chain))
        first = report.first_broken
        if first is not None:
            logger.error(
                "audit chain %s not anchored: BROKEN at seq=%s id=%s: %s",
                chain,
                first.seq,
                first.id,
                first.reason,
            )
            continue
        anchors.append(anchor_make(chain=chain, at=at))
    return anchors


def anchor_append(anchor: Anchor | list[Anchor], path: str | Path) -> None:
    """Append ``anchor`` (or several: one line each) to the file at ``path`` (created if need be),
    durably.

    One ``write`` with ``O_APPEND``: concurrent writers (beat, exports) never interleave a line.
    The file's protection (only the application's OS user may append, nobody may rewrite: a
    WORM mount, ``chattr +a``, a log host) is the deployment's business (docs/deployment.md)."""
    anchors = anchor if isinstance(anchor, list) else [anchor]
    data = "".join(a.line() + "\n" for a in anchors).encode("ascii")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def anchor_publish() -> list[Anchor]:
    """Sign every chain's head and append them to ``AUDIT_ANCHOR_FILE`` (when set): what beat and
    every report export do. The global chain's anchor comes first. A failed write is logged at
    ERROR, not raised: the export or task goes on, and the missing anchors show at the next
    ``verify_audit --anchors`` (too old)."""
    anchors = anchors_make()
    path = settings.AUDIT_ANCHOR_FILE
    if path and anchors:
        try:
            anchor_append(anchors, path)
        except OSError:
            first = anchors[0]
            logger.exception(
                "could not append the audit anchors (%s seq=%s) to %s", first.scope, first.seq, path
            )
        else:
            anchor_file_note(path)
    return anchors


# ------------------------------------------------------------------ the anchor file, recorded
# Whether an anchor file that is not there now ever was: the database records it, with one audit
# event on the global chain (ANCHOR_FILE_ACTION, ``after = {"path", "since"}``) written the first
# time ``anchor_publish`` appends anchors to a file (beat, a report: for a file written before this
# record existed, or only by the ``audit_anchor`` command, which writes nothing in the database,
# the first time a process publishes to it). Without it, a missing file on a clean install (no anchor written
# yet) and a deleted one looked alike, and the first verification of a new install reported its
# chain broken (docs/audit.md, "Anchors"). The event is chained like any other: the database's role
# can neither forge nor remove it without breaking the global chain.

#: the action of the event that records anchors written to a file
ANCHOR_FILE_ACTION = "audit.anchorfile.record"
#: how a stored verification's reason starts when an anchor is at fault (audit.tasks), and when the
#: anchor file itself is (missing, unreadable, emptied, started again): the pit's alert then names
#: the file, not a position of the chain (review.selectors.alerts)
ANCHORS_REASON = "anchors: "
ANCHOR_FILE_REASON = f"{ANCHORS_REASON}anchor file "

#: the anchor files this process has seen recorded (or recorded itself): asked of the database once
_NOTED: set[str] = set()


@dataclass(frozen=True, slots=True)
class AnchorFileRecord:
    path: str  # absolute
    seq: int  # the recording event's, on the global chain
    since: str  # the oldest anchor the file held when it was recorded (an anchor's ``at``)

    @property
    def since_moment(self) -> dt.datetime:
        return dt.datetime.strptime(self.since, TIME_FORMAT).replace(tzinfo=dt.UTC)


def anchor_file_path(path: str | Path) -> str:
    """The one spelling of an anchor file's path the record and its lookups use (absolute)."""
    return os.path.abspath(os.fspath(path))


def anchor_file_recorded(path: str | Path) -> AnchorFileRecord | None:
    """The first event recording that anchors were written to ``path``; None when none does (no
    anchor was ever written there, as far as the database knows). Reads the global chain's events
    of that action (a few: one per anchor file)."""
    where = anchor_file_path(path)
    events = AuditEvent.objects.filter(chain=GLOBAL_CHAIN, action=ANCHOR_FILE_ACTION).order_by("seq")
    for seq, after in events.values_list("seq", "after"):
        if isinstance(after, dict) and after.get("path") == where and isinstance(after.get("since"), str):
            record = AnchorFileRecord(path=where, seq=seq, since=after["since"])
            try:
                record.since_moment  # noqa: B018 (parses the time)
            except ValueError:  # not a time: not a record this code wrote
                continue
            return record
    return None


def _oldest_anchor(path: str) -> Anchor | None:
    """The oldest signed anchor among the first lines of the file (it only grows: its start)."""
    keys = audit_keys()
    try:
        with open(path, "rb") as file:
            head = file.read(_HEAD_BYTES)
    except OSError:
        return None
    lines = head.decode("utf-8", errors="replace").splitlines()
    if len(head) == _HEAD_BYTES:
        lines = lines[:-1]  # the last may be cut
    parsed = [anchor_parse(text, keys) for text in lines if text.strip()]
    return min((a for a in parsed if isinstance(a, Anchor)), key=lambda a: a.moment, default=None)


#: how much of the anchor file's start :func:`_oldest_anchor` reads
_HEAD_BYTES = 64 * 1024


def anchor_file_note(path: str | Path) -> AnchorFileRecord | None:
    """Make sure the database records that anchors are written to ``path`` (called once they were
    appended): one event the first time, none after (asked of the database once a process). A
    failure is logged, never raised (a read-only role, a database that is down: the anchors are
    written all the same, and the next append tries again)."""
    where = anchor_file_path(path)
    if where in _NOTED:
        return None
    from audit.services import audit_record

    try:
        record = anchor_file_recorded(where)
        if record is None:
            oldest = _oldest_anchor(where)
            if oldest is None:  # nothing signed in it to record (the append failed, or was not ours)
                return None
            with transaction.atomic():
                audit_record(
                    actor=None, action=ANCHOR_FILE_ACTION, after={"path": where, "since": oldest.at}
                )
            record = anchor_file_recorded(where)
    except DatabaseError:
        logger.exception("could not record in the database that audit anchors are written to %s", where)
        return None
    _NOTED.add(where)
    return record


# ------------------------------------------------------------------------------ verification


#: An anchor problem as the pit boss reads it (the alert, the dashboard's audit panel): a sentence
#: with its numbers that the pages say in their language (core.sentence.said: the English text is
#: what audit.tasks stores, after ``ANCHORS_REASON``), without the hashes and the verifier's other
#: internals, which stay in ``AnchorProblem.reason`` (``verify_audit --anchors``, the ERROR log).
#: A problem of the file itself starts with "anchor file " (ANCHOR_FILE_REASON): its alert names
#: the file; a chain's problem does not name the chain (its alert does). review.wording reads these
#: back out of the stored text (``ANCHOR_PROBLEMS_SAID``): a change here is a change there.
ANCHOR_FILE_MISSING = gettext_noop("anchor file {path} is missing")
ANCHOR_FILE_MISSING_RECORDED = gettext_noop(
    "anchor file {path} is missing; anchors were written to it from {since} "
    "(event seq {seq} of the global chain)"
)
ANCHOR_FILE_UNREADABLE = gettext_noop("anchor file {path} cannot be read")
ANCHOR_FILE_BAD_LINE = gettext_noop("anchor file {path}: line {line} is not a correctly signed anchor")
ANCHOR_FILE_NO_ANCHOR = gettext_noop("anchor file {path} holds no valid anchor")
ANCHOR_FILE_GAP = gettext_noop(
    "anchor file {path}: no anchor between line {before} ({before_at}) and line {line} ({at}): "
    "{apart} h apart, allowed {allowed} h (anchors missing)"
)
ANCHOR_FILE_STARTED_AGAIN = gettext_noop(
    "anchor file {path} was started again at {at}; anchors were written to it from {since} "
    "(event seq {seq} of the global chain)"
)
ANCHOR_STALE = gettext_noop(
    "the newest anchor (line {line}, at {at}) is {age} h old, allowed {allowed} h "
    "(anchors missing or not written since)"
)
ANCHOR_CHAIN_UNANCHORED = gettext_noop(
    "no anchor at all, though the chain held events when the newest anchor was signed ({at}): "
    "its anchors were removed"
)
ANCHOR_TAIL_DELETED = gettext_noop(
    "tail deleted: anchor line {line} says the head was seq {anchored}, the database's head is "
    "seq {head}: events {first} to {last} are missing"
)
ANCHOR_REWRITTEN = gettext_noop(
    "chain rewritten: the event at seq {seq} is not the one anchor line {line} vouches for "
    "(anchors that disagree: {count})"
)
ANCHOR_REWRITTEN_GONE = gettext_noop(
    "chain rewritten: the event at seq {seq} that anchor line {line} vouches for is gone "
    "(anchors that disagree: {count})"
)
#: every pattern of ``AnchorProblem.said``, the file's first (a page reads a stored one back)
ANCHOR_PROBLEM_PATTERNS: tuple[str, ...] = (
    ANCHOR_FILE_MISSING_RECORDED,
    ANCHOR_FILE_STARTED_AGAIN,
    ANCHOR_FILE_GAP,
    ANCHOR_FILE_BAD_LINE,
    ANCHOR_FILE_UNREADABLE,
    ANCHOR_FILE_NO_ANCHOR,
    ANCHOR_FILE_MISSING,
    ANCHOR_STALE,
    ANCHOR_CHAIN_UNANCHORED,
    ANCHOR_TAIL_DELETED,
    ANCHOR_REWRITTEN,
    ANCHOR_REWRITTEN_GONE,
)


@dataclass(frozen=True, slots=True)
class AnchorProblem:
    #: what the verifier found, with the hashes, the anchors' times and the file's own words
    #: (``verify_audit --anchors`` prints it, in English; audit.tasks logs it at ERROR)
    reason: str
    #: the problem as the pit boss reads it (ANCHOR_PROBLEM_PATTERNS: said in the page's language);
    #: stored, after ``ANCHORS_REASON``, with the chain's verification (audit.tasks)
    said: Sentence = field(default_factory=lambda: said(""))
    line: int | None = None  # the anchor file's line, when one anchor is at fault
    seq: int | None = None  # the chain position at fault, when there is one
    chain: int | None = None  # the chain at fault, when there is one
    #: the file holds no anchor, and the database records none written to it: a new install before
    #: its first anchor (audit.tasks says "no anchor written yet"; ``verify_audit --anchors FILE``,
    #: asked about that file by name, still fails)
    unwritten: bool = False


@dataclass(slots=True)
class AnchorReport:
    path: str
    checked: int = 0  # well-formed, correctly signed anchors
    newest: Anchor | None = None
    problems: list[AnchorProblem] = field(default_factory=list)
    #: the database's record that anchors were written to this file (None: no anchor ever was)
    recorded: AnchorFileRecord | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def unwritten(self) -> bool:
        """No anchor was ever written to the file: nothing to check against yet."""
        return any(problem.unwritten for problem in self.problems)


def _hours(delta: dt.timedelta, *, unit: bool = True) -> str:
    hours = f"{delta.total_seconds() / 3600:.1f}"
    return f"{hours} h" if unit else hours


def anchors_verify(
    path: str | Path, *, now: dt.datetime | None = None, max_age: dt.timedelta | None = None
) -> AnchorReport:
    """Check the anchor file against the chain in the database.

    Reported: a missing or empty file (``unwritten`` when the database records no anchor written
    to it: a new install); a file started again (its oldest anchor younger than the one it held
    when the database recorded it: the anchors before removed); a line that is not a correctly
    signed anchor; a newest anchor older than ``max_age`` (settings ``AUDIT_ANCHOR_MAX_AGE_HOURS``)
    or two anchors further apart than that (anchors deleted or not written); an anchor ahead of the
    database's head (its tail deleted); an anchored seq whose event has another hash (the chain
    rewritten at or before it) or is gone. A problem of the file itself names the file and, when
    the database records it, the recording event's seq on the global chain (never a seq past the
    head: nothing is broken there).
    """
    now = now or timezone.now()
    max_age = max_age or dt.timedelta(hours=settings.AUDIT_ANCHOR_MAX_AGE_HOURS)
    report = AnchorReport(path=str(path))
    recorded = report.recorded = anchor_file_recorded(path)
    at = recorded.seq if recorded is not None else None
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        if recorded is None:
            missing = said(ANCHOR_FILE_MISSING, path=str(path))
            report.problems.append(AnchorProblem(missing, said=missing, unwritten=True))
        else:
            missing = said(
                ANCHOR_FILE_MISSING_RECORDED, path=str(path), since=recorded.since, seq=recorded.seq
            )
            report.problems.append(AnchorProblem(missing, said=missing, seq=at))
        return report
    except (OSError, UnicodeDecodeError) as error:
        report.problems.append(
            AnchorProblem(
                f"anchor file {path} cannot be read: {error}",
                said=said(ANCHOR_FILE_UNREADABLE, path=str(path)),
                seq=at,
            )
        )
        return report

    keys = audit_keys()
    anchors: list[tuple[int, Anchor]] = []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        parsed = anchor_parse(text, keys)
        if isinstance(parsed, str):
            report.problems.append(
                AnchorProblem(
                    f"anchor line {number}: {parsed}",
                    said=said(ANCHOR_FILE_BAD_LINE, path=str(path), line=number),
                    line=number,
                )
            )
            continue
        anchors.append((number, parsed))
    report.checked = len(anchors)
    if not anchors:
        # an empty file nobody ever wrote an anchor to (created ahead, to be made append-only) is
        # a new install's too; emptied, or holding lines that are not anchors, it is a problem
        blank = not report.problems and recorded is None
        empty = said(ANCHOR_FILE_NO_ANCHOR, path=str(path))
        report.problems.append(AnchorProblem(empty, said=empty, seq=at, unwritten=blank))
        return report

    # In time order, not file order: two writers (beat, an export) may append their lines in the
    # other order than they signed them, and each anchor stands on its own against the chain.
    # Every publication anchors every chain at once, so the gaps are looked for over all of them.
    ordered = sorted(anchors, key=lambda item: (item[1].moment, item[0]))
    for (before_line, before), (number, anchor) in itertools.pairwise(ordered):
        if anchor.moment - before.moment > max_age:
            report.problems.append(
                AnchorProblem(
                    f"no anchor between line {before_line} ({before.at}) and line {number} "
                    f"({anchor.at}): {_hours(anchor.moment - before.moment)} apart, allowed "
                    f"{_hours(max_age)} (anchors missing)",
                    said=said(
                        ANCHOR_FILE_GAP,
                        path=str(path),
                        before=before_line,
                        before_at=before.at,
                        line=number,
                        at=anchor.at,
                        apart=_hours(anchor.moment - before.moment, unit=False),
                        allowed=_hours(max_age, unit=False),
                    ),
                    line=number,
                )
            )
    report.newest = ordered[-1][1]
    oldest_line, oldest = ordered[0]
    if recorded is not None and oldest.moment > recorded.since_moment:
        again = said(
            ANCHOR_FILE_STARTED_AGAIN,
            path=str(path),
            at=oldest.at,
            since=recorded.since,
            seq=recorded.seq,
        )
        report.problems.append(AnchorProblem(again, said=again, line=oldest_line, seq=at))
    by_chain: dict[int, list[tuple[int, Anchor]]] = {}
    for number, anchor in ordered:
        by_chain.setdefault(anchor.chain, []).append((number, anchor))
    for chain, chain_anchors in sorted(by_chain.items()):
        number, newest = chain_anchors[-1]
        if now - newest.moment > max_age:
            report.problems.append(
                AnchorProblem(
                    f"{_named(chain)}the newest anchor (line {number}, at {newest.at}) is "
                    f"{_hours(now - newest.moment)} old, allowed {_hours(max_age)} "
                    "(anchors missing or not written since)",
                    said=said(
                        ANCHOR_STALE,
                        line=number,
                        at=newest.at,
                        age=_hours(now - newest.moment, unit=False),
                        allowed=_hours(max_age, unit=False),
                    ),
                    line=number,
                    chain=chain,
                )
            )
        report.problems.extend(_against_the_chain(chain, chain_anchors))
    report.problems.extend(_unanchored_chains(set(by_chain), ordered[-1][1]))
    return report


def _named(chain: int) -> str:
    """How a problem names a casino's chain (the global chain's keep their words of before)."""
    return "" if chain == GLOBAL_CHAIN else f"chain {chain} (casino {chain}): "


def _unanchored_chains(anchored: set[int], newest: Anchor) -> list[AnchorProblem]:
    """A chain that held events before the newest anchor was signed, yet has no anchor at all: its
    lines were removed from the file (every publication anchors every chain)."""
    from audit.selectors import audit_chains

    problems = []
    for chain in audit_chains():
        if chain in anchored:
            continue
        first = AuditEvent.objects.filter(chain=chain, seq=1).values_list("occurred_at", flat=True).first()
        if first is not None and first < newest.moment:
            problems.append(
                AnchorProblem(
                    f"{_named(chain) or 'the global chain: '}no anchor at all, though it held events "
                    f"when the newest anchor was signed ({newest.at}): its anchors were removed",
                    said=said(ANCHOR_CHAIN_UNANCHORED, at=newest.at),
                    chain=chain,
                    seq=1,
                )
            )
    return problems


def _against_the_chain(chain: int, anchors: list[tuple[int, Anchor]]) -> list[AnchorProblem]:
    """Compare every anchored (seq, hash) of ``chain`` with the database: the farthest anchor beyond
    the chain's head once (a deleted tail), the first anchor whose event differs (and how many more
    do)."""
    problems: list[AnchorProblem] = []
    named = _named(chain)
    events = AuditEvent.objects.filter(chain=chain)
    head = events.order_by("-seq").values_list("seq", "hash").first()
    head_seq, head_hash = head if head else (0, GENESIS_HASH)
    ahead = [(n, a) for n, a in anchors if a.seq > head_seq]
    if ahead:
        number, far = max(ahead, key=lambda item: item[1].seq)
        problems.append(
            AnchorProblem(
                f"{named}tail deleted: anchor line {number} (at {far.at}) says head seq {far.seq} "
                f"hash {far.hash}, the database's head is seq {head_seq} hash {head_hash}: events "
                f"{head_seq + 1}..{far.seq} are missing",
                said=said(
                    ANCHOR_TAIL_DELETED,
                    line=number,
                    anchored=far.seq,
                    head=head_seq,
                    first=head_seq + 1,
                    last=far.seq,
                ),
                line=number,
                seq=head_seq + 1,
                chain=chain,
            )
        )
    within = [(n, a) for n, a in anchors if 0 < a.seq <= head_seq]
    stored: dict[int, str] = {}
    wanted = sorted({a.seq for _, a in within})
    for start in range(0, len(wanted), 1000):
        chunk = wanted[start : start + 1000]
        stored.update(events.filter(seq__in=chunk).values_list("seq", "hash"))
    differing = sorted(
        ((a.seq, n, a) for n, a in within if stored.get(a.seq) != a.hash), key=lambda item: (item[0], item[1])
    )
    if differing:
        seq, number, first = differing[0]
        found = stored.get(seq)
        what = f"the database has hash {found}" if found else "the database has no such event"
        more = f" ({len(differing) - 1} later anchors disagree too)" if len(differing) > 1 else ""
        problems.append(
            AnchorProblem(
                f"{named}chain rewritten: anchor line {number} (at {first.at}) says seq {seq} has hash "
                f"{first.hash}, {what}{more}",
                said=said(
                    ANCHOR_REWRITTEN if found else ANCHOR_REWRITTEN_GONE,
                    seq=seq,
                    line=number,
                    count=len(differing),
                ),
                line=number,
                seq=seq,
                chain=chain,
            )
        )
    return problems

"""What only the pit boss's pages say: shares as percentages, the alerts' summaries. The game's own
wording (violation codes, steps, refusals) is tables.wording, shared with the croupier's screens."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from django.utils.translation import get_language, gettext, gettext_noop, ngettext

from audit.anchors import ANCHOR_PROBLEM_PATTERNS
from core import numbers
from core.sentence import Sentence
from tables.wording import ALARM_DETAILS, Stored, read_stored


def percent(value: Fraction | None, digits: int = 2) -> str:
    """A share as a percentage for the screen ("4.56 %"); "—" when undefined."""
    return "—" if value is None else f"{float(value) * 100:.{digits}f} %"


# ------------------------------------------------------------------------------------ alerts
#: an alert's summary as the floor's scan stores it (review.selectors.alerts, English, as the audit
#: trail records it), and as the pages read it back to say it in their language
#: (tables.wording.Stored: the values are read back out of the stored text)
# A coup is named by its table, shoe and number and by its id (#417): shoes are numbered per session,
# so two sessions of one table on one day both have a "shoe 1 coup 1" (the id is the coup's
# everywhere: its review page's address, the cage's chip history); a shoe by the time it started.
ALERT_FLAGGED = gettext_noop("{table} · shoe {shoe} coup {coup} (#{id}) was played against the rules")
ALERT_SHOE_ALARM = gettext_noop("{table} · shoe {shoe} of {started}: {kind} ({detail})")
ALERT_UNFINISHED = gettext_noop(
    "{table} · shoe {shoe} coup {coup} (#{id}) unfinished for {minutes} min ({state})"
)
ALERT_GAME_UNFINISHED = gettext_noop(
    "{table} · {game} coup {number} unfinished for {minutes} min ({steps} steps)"
)
ALERT_AUDIT_BREAK = gettext_noop("The audit chain is broken at seq {seq} ({count} event(s)): {reason}")
ALERT_AUDIT_BREAK_CASINO = gettext_noop(
    "The audit chain of casino {casino} is broken at seq {seq} ({count} event(s)): {reason}"
)
#: the anchor file itself at fault (deleted, emptied, started again: audit.anchors): the file is
#: named in the reason; the seq stored with it is the event that recorded the file, not a break
ALERT_AUDIT_ANCHOR_FILE = gettext_noop("The audit anchor file is at fault: {reason}")
#: an anchor problem (audit.anchors.AnchorProblem.said) as a chain's verification stores it
#: (audit.tasks: after audit.anchors.ANCHORS_REASON), and as the pages read it back: the alerts'
#: reason, the dashboard's audit panel. Another reason (a chain walk's, a row's) is said as stored.
ANCHOR_PROBLEMS: tuple[Stored, ...] = tuple(Stored(pattern) for pattern in ANCHOR_PROBLEM_PATTERNS)
AUDIT_ANCHORS_REASON = gettext_noop("anchors: {reason}")
AUDIT_REASONS: tuple[Stored, ...] = (Stored(AUDIT_ANCHORS_REASON, reason=ANCHOR_PROBLEMS),)
ALERT_BIG_WIN_BANK = gettext_noop(
    "{table} · shoe {shoe} coup {coup} (#{id}): {who} (the bank) won {amount} chips"
)
ALERT_BIG_WIN = gettext_noop("{table} · shoe {shoe} coup {coup} (#{id}): {who} won {amount} chips")
ALERT_ERROR_RATE = gettext_noop(
    "{user}: {wrong} step(s) against the rules in their last {coups} coup(s), {rate}"
)
#: the same summary as the scan worded it before (an alert raised then is stored so; read back too)
ALERT_ERROR_RATE_BEFORE = gettext_noop(
    "{user}: {wrong} step(s) against the rules in his last {coups} coup(s), {rate}"
)
#: money passed between players (review.selectors.flows, docs/flows.md): a pair's flow over the
#: period, and the test that flagged it, the loser's expectation given up against the honest spread
#: or, banking, his worse choices when the winner bet against the others
ALERT_MONEY_FLOW = gettext_noop(
    "{loser} passed {flow} chips to {winner} (gaming days {first} to {last}): {given_up} chips of "
    "expectation given up at {points} option point(s), honest play {mean} ± {sd}"
)
ALERT_MONEY_FLOW_BANKER = gettext_noop(
    "{loser} passed {flow} chips to {winner} (gaming days {first} to {last}): banking, the worse "
    "choice at {wrong_facing} of {facing} option point(s) when {winner} bet, "
    "{wrong_others} of {others} otherwise"
)

ALERT_SUMMARIES: tuple[Stored, ...] = (
    Stored(ALERT_FLAGGED),
    Stored(ALERT_SHOE_ALARM, kind="msgid", detail=ALARM_DETAILS),
    Stored(ALERT_UNFINISHED, state="msgid"),
    Stored(ALERT_GAME_UNFINISHED, game="game"),
    Stored(ALERT_AUDIT_BREAK_CASINO, reason=AUDIT_REASONS),
    Stored(ALERT_AUDIT_BREAK, reason=AUDIT_REASONS),
    Stored(ALERT_AUDIT_ANCHOR_FILE, reason=ANCHOR_PROBLEMS),
    Stored(ALERT_BIG_WIN_BANK),
    Stored(ALERT_BIG_WIN),
    Stored(ALERT_ERROR_RATE),
    Stored(ALERT_ERROR_RATE_BEFORE),
    Stored(ALERT_MONEY_FLOW),
    Stored(ALERT_MONEY_FLOW_BANKER),
)


#: the error-rate alert as a page says it (docs/i18n.md): its counts in the plural the language
#: gives them ("1 step", "2 steps"; Russian's three forms), not "step(s)", its rate as the page
#: writes a percentage ("40,0 %" in French and Russian)
ALERT_ERROR_RATE_SAID = gettext_noop("{user}: {steps} against the rules in {coups}, {rate}")


class _Counted:
    """A count in a sentence said on a page: ``ngettext`` of the language active when it is said."""

    def __init__(self, n: int, kind: str) -> None:
        self.n, self.kind = n, kind

    def __format__(self, spec: str) -> str:
        count = numbers.chips(self.n)
        if self.kind == "steps":
            return ngettext("%(count)s step", "%(count)s steps", self.n) % {"count": count}
        return ngettext("their last coup", "their last %(count)s coups", self.n) % {"count": count}

    def __str__(self) -> str:
        return format(self)


class _Share:
    """A percentage as a summary stores it (``40.0 %``, plain digits), said as the page writes one."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __format__(self, spec: str) -> str:
        match = re.fullmatch(r"(-?\d+(?:\.(\d+))?) %", self.text)
        if match is None:
            return self.text
        try:
            value = Fraction(Decimal(match.group(1))) / 100
        except InvalidOperation:  # pragma: no cover - the pattern reads digits only
            return self.text
        return numbers.percent(value, len(match.group(2) or ""))

    def __str__(self) -> str:
        return format(self)


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _resaid(stored: str, pattern: str, values: dict[str, Any]) -> Sentence:
    """``stored`` (the English text, kept whole: what the audit trail and the tests read) said on a
    page with ``pattern`` and ``values``."""
    sentence = Sentence(stored, {})
    sentence.pattern, sentence.values = pattern, values
    return sentence


def alert_summary(summary: str) -> str:
    """An alert's stored summary as a sentence a page says in its language (tables.wording.say);
    a summary worded otherwise (an older alert) as it is stored. The error-rate alert is said with
    its counts in the language's plural and its rate as the page writes a percentage
    (``ALERT_ERROR_RATE_SAID``; until a catalogue has it, its stored pattern with the rate said so)."""
    read = read_stored(summary, ALERT_SUMMARIES)
    if isinstance(read, Sentence) and read.pattern in (ALERT_ERROR_RATE, ALERT_ERROR_RATE_BEFORE):
        wrong, coups = _count(str(read.values["wrong"])), _count(str(read.values["coups"]))
        rate = _Share(str(read.values["rate"]))
        said_here = get_language() in (None, "en") or gettext(ALERT_ERROR_RATE_SAID) != ALERT_ERROR_RATE_SAID
        if wrong is not None and coups is not None and said_here:
            counted = {"user": read.values["user"], "steps": _Counted(wrong, "steps"),
                       "coups": _Counted(coups, "coups"), "rate": rate}  # fmt: skip
            return _resaid(read, ALERT_ERROR_RATE_SAID, counted)
        return _resaid(read, read.pattern, {**read.values, "rate": rate})
    return read


def audit_reason(reason: str) -> str:
    """A chain verification's stored reason (``ChainVerification.first_broken_reason``) as a
    sentence a page says in its language: an anchor problem's (``AUDIT_REASONS``); any other as
    it is stored."""
    return read_stored(reason, AUDIT_REASONS)

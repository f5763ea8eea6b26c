"""Reading the anchor file (audit.anchors writes and verifies it; docs/audit.md, "Anchors"): an
anchor's shape and signature, and the newest signed anchor of a chain, the point an incremental
verification starts from (audit.selectors). Nothing here reads the chain itself.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from audit.canonical import canonical_json
from audit.keys import audit_keys
from audit.models import GLOBAL_CHAIN

#: the scope of the global chain's anchors (the only scope before the chains were split)
SCOPE = "global"
_CASINO_SCOPE = "casino:"
#: the start of every signed anchor message (versioned: a new layout gets a new label)
SIGNATURE_LABEL = b"chemin-audit-anchor-v1\n"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
SIGNED = ("scope", "seq", "hash", "at", "key_id")


@dataclass(frozen=True, slots=True)
class Anchor:
    scope: str
    seq: int
    hash: str
    at: str  # UTC, "YYYY-MM-DDTHH:MM:SS.ffffffZ" (as the chain writes instants)
    key_id: str
    sig: str

    def as_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "seq": self.seq, "hash": self.hash, "at": self.at,
                "key_id": self.key_id, "sig": self.sig}  # fmt: skip

    def line(self) -> str:
        """The anchor as one JSON line (keys sorted, no whitespace), without the newline."""
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))

    @property
    def moment(self) -> dt.datetime:
        return dt.datetime.strptime(self.at, TIME_FORMAT).replace(tzinfo=dt.UTC)

    @property
    def chain(self) -> int:
        chain = scope_chain(self.scope)
        if chain is None:  # only a parsed or made anchor exists, and both have a valid scope
            raise ValueError(f"not an anchor scope: {self.scope!r}")
        return chain


def chain_scope(chain: int) -> str:
    """The anchor scope of a chain: ``global`` for 0, ``casino:<id>`` for a casino's."""
    return SCOPE if chain == GLOBAL_CHAIN else f"{_CASINO_SCOPE}{chain}"


def scope_chain(scope: Any) -> int | None:
    """The chain an anchor scope names, None for a scope that is not one."""
    if scope == SCOPE:
        return GLOBAL_CHAIN
    if isinstance(scope, str) and scope.startswith(_CASINO_SCOPE):
        digits = scope[len(_CASINO_SCOPE) :]
        # canonical digits only: "casino:07" would be a second name for chain 7
        if digits.isascii() and digits.isdigit() and not digits.startswith("0"):
            return int(digits)
    return None


def anchor_signature(fields: dict[str, Any], key: bytes) -> str:
    """HMAC-SHA256 over the label, then the canonical JSON of the signed fields."""
    message = SIGNATURE_LABEL + canonical_json({k: fields[k] for k in SIGNED})
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def anchor_newest(*, chain: int = GLOBAL_CHAIN, path: str | Path | None = None) -> Anchor | None:
    """The newest correctly signed anchor of ``chain`` in the anchor file (``AUDIT_ANCHOR_FILE``),
    by seq: the point an incremental verification starts from (issue 20: not a row of the database,
    which the application's role could write). None without a file or an anchor of that chain.
    A line that is not a signed anchor is passed over here; ``verify_audit --anchors`` names it."""
    path = path if path is not None else settings.AUDIT_ANCHOR_FILE
    if not path:
        return None
    keys = audit_keys()
    # the file only grows (an anchor every few minutes): its newest lines are at its end, so the
    # tail is read first, and the whole file only if the tail holds no anchor of this chain
    for tail in (_TAIL_BYTES, None):
        try:
            lines = anchor_lines(Path(path), tail)
        except (OSError, UnicodeDecodeError):
            return None
        newest: Anchor | None = None
        for text in lines:
            parsed = anchor_parse(text, keys) if text.strip() else ""
            if (
                isinstance(parsed, Anchor)
                and parsed.chain == chain
                and (newest is None or parsed.seq > newest.seq)
            ):
                newest = parsed
        if newest is not None or tail is None:
            return newest
    return None


#: how much of the anchor file's end :func:`anchor_newest` reads first (some hundred anchors)
_TAIL_BYTES = 64 * 1024


def anchor_signed_last(path: str | Path | None = None) -> dt.datetime | None:
    """When the newest correctly signed anchor of any chain in the anchor file (``AUDIT_ANCHOR_FILE``)
    was signed (beat's or a report's): when the heads were last anchored, what the development
    server's embedded beat asks (core.embedded_beat). Read from the file's end; None without a file
    or an anchor there."""
    path = path if path is not None else settings.AUDIT_ANCHOR_FILE
    if not path:
        return None
    try:
        lines = anchor_lines(Path(path), _TAIL_BYTES)
    except (OSError, UnicodeDecodeError):
        return None
    keys = audit_keys()
    anchors = [anchor_parse(text, keys) for text in lines if text.strip()]
    return max((a.moment for a in anchors if isinstance(a, Anchor)), default=None)


def anchor_lines(path: Path, tail: int | None) -> list[str]:
    """The file's lines, or only those wholly within its last ``tail`` bytes."""
    with path.open("rb") as file:
        size = file.seek(0, os.SEEK_END)
        start = 0 if tail is None else max(0, size - tail)
        file.seek(start)
        data = file.read()
    lines = data.decode("utf-8").splitlines()
    return lines[1:] if start > 0 else lines  # the first may be cut


def anchor_parse(text: str, keys: dict[str, bytes]) -> Anchor | str:
    """An anchor from one line, or why it is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        return "not JSON"
    if not isinstance(data, dict) or set(data) != {*SIGNED, "sig"}:
        return "not an anchor (its keys are wrong)"
    if not (
        scope_chain(data["scope"]) is not None
        and type(data["seq"]) is int
        and data["seq"] >= 0
        and all(isinstance(data[k], str) for k in ("hash", "at", "key_id", "sig"))
    ):
        return "not an anchor (a value is wrong)"
    key = keys.get(data["key_id"])
    if key is None:
        return f"signed with key {data['key_id']!r}, which is not configured"
    if not hmac.compare_digest(anchor_signature(data, key), data["sig"]):
        return "bad signature (altered or forged)"
    anchor = Anchor(**data)
    try:
        anchor.moment  # noqa: B018 (parses the time)
    except ValueError:
        return "not an anchor (bad time)"
    return anchor

"""A request body that does not arrive is a 408 within ``REQUEST_BODY_TIMEOUT_SECONDS`` (issue 20,
item 6), before Django reads a byte of it.

Why here, in front of Django: gunicorn's sync worker (the README's production command) reads the
body when the view asks for it, from a socket with no timeout of its own. A client that sends its
headers and then nothing held the worker until gunicorn's ``--timeout`` killed it (a 500 after
31 s), and three such connections held every worker. This WSGI wrapper reads the whole body first,
against one deadline for all of it (each read waits at most what is left, through the socket's own
timeout, so a client dribbling a byte now and then gets no more time than a silent one), then hands
Django the body it read. What it answers itself, without calling the application:

- **408** when the body is not whole by the deadline (problem JSON under ``/api/``, plain text
  elsewhere; ``Connection: close``): nothing was read by the application, nothing changed;
- **400** when the client ended the body before its ``Content-Length``: a truncated form could
  otherwise read as a smaller amount;
- **413** when ``Content-Length`` is over ``REQUEST_BODY_MAX_BYTES``.

The worker is held at most the deadline, not gunicorn's timeout; a proxy that buffers bodies
(docs/deployment.md, "Slow clients") keeps even that from the workers. Under ``manage.py
runserver`` and the test client there is no gunicorn socket: the deadline is still checked between
reads.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Callable, Iterable
from typing import Any

#: the most of a body kept in memory; beyond it, a temporary file
SPOOL_BYTES = 1 << 20
READ_BYTES = 1 << 16

TIMEOUT_DETAIL = (
    "The request body did not arrive within {seconds:g} seconds: nothing was read or changed. Send it again."
)
SHORT_DETAIL = "The request body ended before its Content-Length: nothing was read or changed."
TOO_LARGE_DETAIL = "The request body is over {limit} bytes: nothing was read or changed."

#: what the wrapper answers for a body it did not hand on: status, code, detail
REFUSALS = {
    "timeout": (408, "body_timeout", TIMEOUT_DETAIL),
    "too_large": (413, "body_too_large", TOO_LARGE_DETAIL),
    "short": (400, "body_incomplete", SHORT_DETAIL),
}

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BodyDeadline:
    def __init__(self, app: WsgiApp, *, seconds: float, max_bytes: int) -> None:
        self.app, self.seconds, self.max_bytes = app, seconds, max_bytes

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        length_header = (environ.get("CONTENT_LENGTH") or "").strip()
        chunked = "chunked" in (environ.get("HTTP_TRANSFER_ENCODING") or "").lower()
        if self.seconds <= 0 or (not chunked and length_header in ("", "0")):
            return self.app(environ, start_response)
        try:
            length = None if chunked else int(length_header)
        except ValueError:  # the server or Django refuses a malformed length as it always has
            return self.app(environ, start_response)
        if length is not None and length > self.max_bytes:
            return self._refuse(environ, start_response, "too_large")
        # not a with-block: the body outlives this call, as the request's input (closed with it by
        # the garbage collector; on disk only past SPOOL_BYTES, and deleted then)
        body = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115
        state, received = _read(environ, body, length, time.monotonic() + self.seconds, self.max_bytes)
        if state != "whole":
            body.close()
            return self._refuse(environ, start_response, state)
        body.seek(0)
        environ["wsgi.input"] = body
        environ["CONTENT_LENGTH"] = str(received)
        environ.pop("HTTP_TRANSFER_ENCODING", None)  # what Django reads now has a length
        return self.app(environ, start_response)

    def _refuse(
        self, environ: dict[str, Any], start_response: Callable[..., Any], state: str
    ) -> Iterable[bytes]:
        status, code, detail = REFUSALS[state]
        return _refuse(
            environ, start_response, status, code, detail.format(seconds=self.seconds, limit=self.max_bytes)
        )


#: gunicorn's errors for a body the client ended or garbled (matched by name: no import of gunicorn)
_ENDED = frozenset({"NoMoreData", "ChunkMissingTerminator", "InvalidChunkSize", "InvalidChunkExtension"})


def _read(
    environ: dict[str, Any], body: Any, length: int | None, deadline: float, max_bytes: int
) -> tuple[str, int]:
    """Copy the request's body into ``body`` by ``deadline``: ("whole" | "short" | "timeout" |
    "too_large", the bytes received)."""
    stream = environ["wsgi.input"]
    sock = environ.get("gunicorn.socket")
    previous = sock.gettimeout() if sock is not None else None
    received = 0
    try:
        while length is None or received < length:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", received
            if sock is not None:
                sock.settimeout(left)
            wanted = READ_BYTES if length is None else min(READ_BYTES, length - received)
            chunk = stream.read(wanted)
            if not chunk:
                break
            body.write(chunk)
            received += len(chunk)
            if received > max_bytes:
                return "too_large", received
    except TimeoutError:  # the socket's own timeout (socket.timeout is TimeoutError)
        return "timeout", received
    except Exception as exc:
        if type(exc).__name__ in _ENDED or isinstance(exc, OSError):  # the client went away
            return "short", received
        raise
    finally:
        if sock is not None:
            with contextlib.suppress(OSError):  # the client already gone
                sock.settimeout(previous)
    if length is not None and received < length:
        return "short", received
    return "whole", received


def _refuse(
    environ: dict[str, Any], start_response: Callable[..., Any], status: int, code: str, detail: str
) -> Iterable[bytes]:
    path = str(environ.get("PATH_INFO", ""))
    reasons = {400: "Bad Request", 408: "Request Timeout", 413: "Content Too Large"}
    if path.startswith("/api/"):
        from core.problems import problem

        payload = json.dumps(problem(status=status, code=code, detail=detail, instance=path)).encode()
        content_type = "application/problem+json"
    else:
        payload, content_type = detail.encode(), "text/plain; charset=utf-8"
    start_response(
        f"{status} {reasons[status]}",
        [("Content-Type", content_type), ("Content-Length", str(len(payload))), ("Connection", "close")],
    )
    return [payload]

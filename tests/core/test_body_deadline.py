"""A body that does not arrive (issue 20, item 6; core/body_deadline.py): 408 within the deadline,
before the application reads anything, whether the client is silent or dribbles; a body that ends
before its Content-Length is a 400, one over the limit a 413; a whole body reaches Django byte for
byte. Then the same through a real gunicorn sync worker, the README's production server, whose
worker is free again at once (not killed by its timeout)."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.body_deadline import BodyDeadline
from tests.browser.default_server import free_port

ROOT = Path(__file__).resolve().parents[2]


class Recorder:
    """The application behind the wrapper: what it was called with."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        self.bodies.append(environ["wsgi.input"].read(length))
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]


class Silent(io.RawIOBase):
    """A client that sent ``head`` of its body, then nothing: each read waits, as a socket would."""

    def __init__(self, head: bytes, wait: float = 0.05) -> None:
        self.head, self.wait = head, wait

    def read(self, size: int = -1) -> bytes:
        if self.head:
            out, self.head = self.head[:size], self.head[size:]
            return out
        time.sleep(self.wait)
        return b"x" if self.wait < 0.05 else self._timeout()

    def _timeout(self) -> bytes:
        raise TimeoutError("timed out")


def call(app: Any, *, body: Any, length: str | None, path: str = "/api/v1/steps/", **extra: Any) -> Any:
    answer: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        answer["status"], answer["headers"] = status, dict(headers)

    environ = {"PATH_INFO": path, "wsgi.input": body, **extra}
    if length is not None:
        environ["CONTENT_LENGTH"] = length
    answer["body"] = b"".join(app(environ, start_response))
    return answer


def test_a_whole_body_reaches_the_application_byte_for_byte() -> None:
    app = Recorder()
    payload = b'{"kind": "deal", "card": "8H"}' * 5000  # 150 kB: several reads
    answer = call(
        BodyDeadline(app, seconds=5, max_bytes=1 << 20), body=io.BytesIO(payload), length=str(len(payload))
    )
    assert answer["status"] == "200 OK" and app.bodies == [payload]


def test_no_body_goes_straight_through() -> None:
    app = Recorder()
    stream = io.BytesIO(b"")
    assert call(BodyDeadline(app, seconds=5, max_bytes=10), body=stream, length=None)["status"] == "200 OK"
    assert call(BodyDeadline(app, seconds=5, max_bytes=10), body=stream, length="0")["status"] == "200 OK"
    assert app.bodies == [b"", b""]


def test_a_body_that_stops_coming_is_a_408_and_the_application_never_sees_it() -> None:
    app = Recorder()
    started = time.monotonic()
    answer = call(BodyDeadline(app, seconds=1, max_bytes=1 << 20), body=Silent(b'{"kind"'), length="100")
    assert time.monotonic() - started < 1.5
    assert answer["status"] == "408 Request Timeout" and app.bodies == []
    assert answer["headers"]["Connection"] == "close"
    assert answer["headers"]["Content-Type"] == "application/problem+json"
    assert json.loads(answer["body"]) == {
        "type": "urn:chemin:problem:body_timeout",
        "title": "Request Timeout",
        "status": 408,
        "detail": (
            "The request body did not arrive within 1 seconds: nothing was read or changed. Send it again."
        ),
        "instance": "/api/v1/steps/",
        "code": "body_timeout",
    }


def test_a_dribbling_client_gets_no_more_time_than_a_silent_one() -> None:
    app = Recorder()
    started = time.monotonic()
    answer = call(
        BodyDeadline(app, seconds=0.5, max_bytes=1 << 20), body=Silent(b"", wait=0.01), length="100000"
    )
    assert answer["status"] == "408 Request Timeout" and app.bodies == []
    assert time.monotonic() - started < 1.0


def test_outside_the_api_the_answer_is_plain_text() -> None:
    answer = call(
        BodyDeadline(Recorder(), seconds=0.2, max_bytes=100), body=Silent(b"a="), length="50", path="/cage/1/"
    )
    assert answer["status"] == "408 Request Timeout"
    assert answer["headers"]["Content-Type"] == "text/plain; charset=utf-8"
    assert (
        answer["body"]
        == b"The request body did not arrive within 0.2 seconds: nothing was read or changed. Send it again."
    )


def test_a_body_ended_before_its_length_is_a_400_not_a_smaller_amount() -> None:
    app = Recorder()
    answer = call(BodyDeadline(app, seconds=5, max_bytes=100), body=io.BytesIO(b"amount=100"), length="11")
    assert answer["status"] == "400 Bad Request" and app.bodies == []
    assert json.loads(answer["body"])["code"] == "body_incomplete"


@pytest.mark.parametrize(("length", "body"), [("101", b"x" * 101), (None, b"x" * 101)])
def test_a_body_over_the_limit_is_a_413(length, body) -> None:
    app = Recorder()
    extra = {} if length else {"HTTP_TRANSFER_ENCODING": "chunked"}
    answer = call(BodyDeadline(app, seconds=5, max_bytes=100), body=io.BytesIO(body), length=length, **extra)
    assert answer["status"] == "413 Content Too Large" and app.bodies == []
    assert json.loads(answer["body"])["code"] == "body_too_large"


def test_a_chunked_body_is_read_whole_and_given_a_length() -> None:
    app = Recorder()
    answer = call(
        BodyDeadline(app, seconds=5, max_bytes=100),
        body=io.BytesIO(b'{"a": 1}'),
        length=None,
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert answer["status"] == "200 OK" and app.bodies == [b'{"a": 1}']


# ------------------------------------------------------------------------------ a real gunicorn
@pytest.fixture
def gunicorn(tmp_path: Path) -> Iterator[int]:
    """``gunicorn casino.wsgi:application`` with ONE sync worker and a 1.5 s body deadline."""
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.test",
        "REQUEST_BODY_TIMEOUT_SECONDS": "1.5",
        "PYTHONUNBUFFERED": "1",
    }
    log = tmp_path / "gunicorn.log"
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "casino.wsgi:application",
            f"--bind=127.0.0.1:{port}",
            "--workers=1",
            "--timeout=30",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert server.poll() is None, log.read_text()
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "WORKER TIMEOUT" not in log.read_text()  # no worker was held until gunicorn killed it


def _ask(port: int, head: bytes, body: bytes = b"", *, then_wait: float = 0.0) -> tuple[str, bytes, float]:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
        conn.sendall(head + body)
        if then_wait:
            time.sleep(then_wait)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    return status_line.decode(), rest.partition(b"\r\n\r\n")[2], time.monotonic() - started


def test_through_gunicorn_a_silent_body_is_a_408_and_the_worker_serves_the_next_at_once(gunicorn) -> None:
    head = (
        b"POST /api/v1/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\nConnection: close\r\n\r\n"
    )
    status, body, took = _ask(gunicorn, head, b'{"username": ')
    assert status == "HTTP/1.1 408 Request Timeout"
    assert json.loads(body)["code"] == "body_timeout"
    assert 1.4 < took < 5
    # the one worker is free: the next request is answered at once, by the application
    status, _, took = _ask(
        gunicorn, b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    assert status == "HTTP/1.1 301 Moved Permanently" and took < 2


def test_through_gunicorn_a_whole_body_reaches_django(gunicorn) -> None:
    body = b'{"username": ["not", "a", "name"], "password": "x"}'
    head = (
        b"POST /api/v1/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    )
    status, answer, took = _ask(gunicorn, head, body)
    # the view read the JSON the wrapper handed on: its field refused, as it always is
    assert status == "HTTP/1.1 400 Bad Request" and took < 5
    problem = json.loads(answer)
    assert (problem["code"], problem["detail"]) == ("invalid", "username: A string is required.")

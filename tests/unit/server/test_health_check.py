"""The images' health check: healthy on a 200 from /health, and it ends the server (SIGTERM to
PID 1) only where /health/live says the engine is failing every request."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from translate_server.server import health_check


def _error(code: str) -> tuple[int, bytes]:
    return 503, json.dumps({"error": {"code": code, "type": "service_unavailable_error"}}).encode()


OK = (200, b'{"status": "ok"}')


@pytest.fixture
def answers() -> Iterator[tuple[dict[str, tuple[int, bytes]], str]]:
    """A server answering each path as the test sets it; yields (the answers, its port)."""
    answers: dict[str, tuple[int, bytes]] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = answers[self.path]
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield answers, str(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def kills(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(health_check.os, "kill", lambda pid, sig: sent.append((pid, sig)))
    return sent


def test_healthy_while_health_answers_200(answers, kills) -> None:
    paths, port = answers
    paths["/health"] = OK
    assert health_check.main(port) == 0
    assert kills == []


def test_a_failing_engine_ends_the_server(answers, kills) -> None:
    paths, port = answers
    paths["/health"] = paths["/health/live"] = _error("engine_failing")
    assert health_check.main(port) == 1
    assert kills == [(1, signal.SIGTERM)]


@pytest.mark.parametrize(
    "live", [OK, _error("engine_unavailable")], ids=["draining", "engine not running"]
)
def test_other_trouble_is_only_reported(answers, kills, live) -> None:
    paths, port = answers
    paths["/health"] = _error("shutting_down")
    paths["/health/live"] = live
    assert health_check.main(port) == 1
    assert kills == []


def test_no_server_is_unhealthy(kills) -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as closed:
        port = str(closed.server_address[1])  # bound, then closed: nothing listens
    assert health_check.main(port) == 1
    assert kills == []

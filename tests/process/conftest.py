from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

SCRIPT = Path(__file__).parent / "fake_server.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_fake_server(*args: str) -> tuple[subprocess.Popen, str]:
    """The real server loop (uvicorn, draining, lifespan) around the engine double."""
    port = free_port()
    # A file, not a pipe: an unread pipe fills up and then blocks the server's logging.
    log = tempfile.TemporaryFile()
    process = subprocess.Popen([sys.executable, str(SCRIPT), str(port), *args],
                               stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health").status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    log.seek(0)
    raise AssertionError(log.read().decode())


@pytest.fixture(scope="module")
def fake_server() -> Iterator[str]:
    process, base = start_fake_server()
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)

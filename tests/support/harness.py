"""Drive the app in-process on the test's own event loop, so concurrent requests really are
concurrent. (Litestar's AsyncTestClient answers each request through a blocking portal, which
serializes them.)"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import httpx
import uvicorn
from litestar import Litestar

from tests.support.ports import free_port

T = TypeVar("T")


class AppClient(httpx.AsyncClient):
    app: Litestar


@asynccontextmanager
async def running(app: Litestar) -> AsyncIterator[AppClient]:
    """The app's lifespan runs in a task of its own: pytest may set a fixture up and tear it
    down in different tasks, and the lifespan must begin and end in the same one."""
    started, stop = asyncio.Event(), asyncio.Event()

    async def lifespan() -> None:
        async with app.lifespan():
            started.set()
            await stop.wait()

    task = asyncio.create_task(lifespan())
    waiter = asyncio.create_task(started.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
        task.result()  # startup failed: raise it
    client = AppClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver", timeout=30
    )
    client.app = app
    try:
        async with client:
            yield client
    finally:
        stop.set()
        await task


async def eventually(condition: Callable[[], T], timeout: float = 10.0, every: float = 0.01) -> T:
    """Wait until `condition()` is true, looking every `every` seconds; fail after `timeout`
    seconds. Returns the true value. For what the app does after a response has gone (an
    engine request closed, a ticket given back): a fixed sleep before the assertion is a race
    on a busy machine."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout} s: {condition}")
        await asyncio.sleep(every)
    return found


async def read_until(
    read: Callable[[], Awaitable[T]],
    done: Callable[[T], object],
    timeout: float = 10.0,
    every: float = 0.01,
) -> T:
    """`await read()` again every `every` seconds until `done(value)`; returns that value, and
    fails after `timeout` seconds with the last one read. For a state only a request shows (a
    job's status, a metric)."""
    deadline = time.monotonic() + timeout
    while not done(found := await read()):
        if time.monotonic() > deadline:
            raise AssertionError(f"still {found!r} after {timeout} s")
        await asyncio.sleep(every)
    return found


def eventually_sync(
    condition: Callable[[], T],
    timeout: float = 10.0,
    every: float = 0.01,
    failure: Callable[[], str] | None = None,
) -> T:
    """`eventually` for a test that runs no event loop (a browser's, a server process's):
    blocks. `failure()` says what went wrong (a server's output), asked once, on timeout."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(
                failure() if failure is not None else f"not true after {timeout} s: {condition}"
            )
        time.sleep(every)
    return found


async def call_and_leave(
    app: Litestar,
    path: str,
    body: dict,
    leave_after: float,
    told: asyncio.Event | None = None,
) -> list[dict]:
    """Drive the ASGI app directly as a client that sends `body` and hangs up `leave_after`
    seconds later (counted from when `told` is set, where one is given: a test that must
    know its requests are in the engine before their clients leave says when); returns the
    messages the app sent before that."""
    payload = json.dumps(body).encode()
    pending = [{"type": "http.request", "body": payload, "more_body": False}]
    sent: list[dict] = []

    async def receive() -> dict:
        if pending:
            return pending.pop()
        if told is not None:
            await told.wait()
        await asyncio.sleep(leave_after)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
        ],
    }
    await app(scope, receive, send)  # type: ignore[arg-type]
    return sent


@asynccontextmanager
async def served(app: Litestar) -> AsyncIterator[str]:
    """The app behind a real uvicorn server on a free loopback port, for clients that only
    speak HTTP (the DeepL and LibreTranslate libraries); yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_config=None))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await eventually(lambda: server.started)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task


# Run as a module from the repository's root, where `tests.support` imports as a package.
REPO_ROOT = Path(__file__).resolve().parents[2]


def start_fake_server(*args: str) -> tuple[subprocess.Popen, str]:
    """The real server loop (uvicorn, draining, lifespan) around the engine double."""
    port = free_port()
    # A file, not a pipe: an unread pipe fills up and then blocks the server's logging.
    log = tempfile.TemporaryFile()  # noqa: SIM115 - the server's output, closed when it stops
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fake_server", str(port), *args],
        cwd=REPO_ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return httpx.get(f"{base}/health").status_code == 200
        except httpx.TransportError:
            return False

    try:
        eventually_sync(healthy, timeout=30, every=0.1)
    except AssertionError:
        process.kill()
        log.seek(0)
        raise AssertionError(log.read().decode()) from None
    return process, base

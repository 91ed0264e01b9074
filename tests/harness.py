"""Drive the app in-process on the test's own event loop, so concurrent requests really are
concurrent. (Litestar's AsyncTestClient answers each request through a blocking portal, which
serializes them.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from litestar import Litestar


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
        task.result()  # startup failed: raise it
    client = AppClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver",
                       timeout=30)
    client.app = app
    try:
        async with client:
            yield client
    finally:
        stop.set()
        await task


async def call_and_leave(app: Litestar, path: str, body: dict, leave_after: float) -> list[dict]:
    """Drive the ASGI app directly as a client that sends `body` and hangs up `leave_after`
    seconds later; returns the messages the app sent before that."""
    payload = json.dumps(body).encode()
    pending = [{"type": "http.request", "body": payload, "more_body": False}]
    sent: list[dict] = []

    async def receive() -> dict:
        if pending:
            return pending.pop()
        await asyncio.sleep(leave_after)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 80),
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(payload)).encode())]}
    await app(scope, receive, send)  # type: ignore[arg-type]
    return sent

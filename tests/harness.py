"""Drive the app in-process on the test's own event loop, so concurrent requests really are
concurrent. (Litestar's AsyncTestClient answers each request through a blocking portal, which
serializes them.)"""

from __future__ import annotations

import asyncio
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

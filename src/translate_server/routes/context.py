"""What every handler needs from the request: its record, its deadline, its client's presence."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from litestar import Request
from litestar.datastructures import State

from translate_server.errors import ApiError
from translate_server.observability import RequestRecord

T = TypeVar("T")


class ClientDisconnectedError(ApiError):
    status_code = 499
    type = "client_closed_request"
    code = "client_disconnected"


def record_of(request: Request) -> RequestRecord:
    return request.scope["state"]["record"]  # type: ignore[no-any-return]


def deadline_for(server_timeout: float, requested: float | None) -> float:
    """Event-loop time by which the request must finish; a client may only shorten it."""
    timeout = server_timeout if requested is None else min(requested, server_timeout)
    return asyncio.get_running_loop().time() + timeout


async def unless_disconnected(request: Request, work: Awaitable[T]) -> T:
    """Await `work`, cancelling it (and so aborting its engine requests) if the client leaves.

    Streaming answers need none of this: the framework stops the stream when the client leaves.
    """
    task = asyncio.current_task()
    assert task is not None
    left = False

    async def watch() -> None:
        nonlocal left
        while (await request.receive())["type"] != "http.disconnect":
            pass
        left = True
        task.cancel()

    watcher = asyncio.create_task(watch())
    try:
        return await work
    except asyncio.CancelledError:
        if left and task.uncancel() == 0:
            raise ClientDisconnectedError("The client closed the connection.") from None
        raise
    finally:
        watcher.cancel()


def app_state(request: Request) -> State:
    """The app's state itself. (A `state: State` handler parameter would be a deep copy made
    for every request: slow, and admission counts would never be shared.)"""
    return request.app.state

"""Noticing that a client hung up while its answer is being generated."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Self

from litestar.types import Receive


class CancelOnDisconnect:
    """While open, the client hanging up cancels the task that opened it, which aborts the
    engine requests that task is waiting on. Leaving the block swallows that cancellation (and
    only that one) and sets `left`; any other cancellation goes on as one.

    One plain asyncio task watches `receive`. (Litestar's own streams watch from an anyio task
    group, which costs about 60 µs of CPU per response and, once the last byte is sent, keeps
    the response open until the watcher has had its event-loop turn.)

    Leave the block before awaiting anything else: once the answer is complete, the server
    reports a disconnect to the watcher for every client.
    """

    __slots__ = ("_receive", "_task", "_watcher", "left")

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self._task: asyncio.Task[object] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self.left = False

    async def __aenter__(self) -> Self:
        self._task = asyncio.current_task()
        self._watcher = asyncio.create_task(self._watch())
        return self

    async def _watch(self) -> None:
        while (await self._receive())["type"] != "http.disconnect":
            pass
        self.left = True
        assert self._task is not None
        self._task.cancel()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        assert self._watcher is not None and self._task is not None
        self._watcher.cancel()
        return exc_type is asyncio.CancelledError and self.left and self._task.uncancel() == 0

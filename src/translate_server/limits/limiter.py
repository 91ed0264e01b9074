"""The limits of one server process: its meter over the shared store, its usage ledger, and
the tickets it gives each request. Built with the app (the gate holds it), it counts in memory
until the app opens the accounts' database (`open`), then shares its state there with every
replica; a front end that opens no store keeps counting in memory."""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import AsyncExitStack

from translate_server.errors import StorageUnavailableError
from translate_server.limits.meter import Meter
from translate_server.limits.store import DatabaseLimits, LocalLimits
from translate_server.limits.ticket import Ticket
from translate_server.limits.usage import UsageLedger
from translate_server.storage.database import Database


class Limiter:
    def __init__(self, *, window: float = 60.0, flush_every: float = 5.0) -> None:
        self.meter = Meter(LocalLimits(), window=window)
        self.usage = UsageLedger()
        self.flush_every = flush_every

    def ticket(self) -> Ticket:
        return Ticket(self.meter, self.usage)

    async def open(self, database: Database | None, resources: AsyncExitStack) -> None:
        """Share the limits and usage through `database` (None: keep them in memory) for the
        app's life: the usage flushed periodically and at the end, reserved quota given back."""
        if database is not None:
            self.meter.store = DatabaseLimits(database)
            self.usage.database = database
            task = asyncio.create_task(self.usage.run(self.flush_every))
            resources.push_async_callback(self._close, task)

    async def _close(self, task: asyncio.Task[None]) -> None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        with contextlib.suppress(StorageUnavailableError):
            await self.usage.flush()
            await self.meter.close()

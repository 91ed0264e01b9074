"""Whether what a replica remembers of a store's rows (a memory's id and revision) may still be
used, without a round trip per request to ask.

A store's writes bump `generation` here at once, and on PostgreSQL say so to every other
replica: `notify(connection)` inside the writing transaction sends `NOTIFY` on `CHANNEL`,
which PostgreSQL delivers when (and only if) it commits. `watch()` listens on a connection of
its own and bumps `generation` at each notification. What was remembered under another
generation is stale.

The fallback: while the listener is not connected (at start, after the database was lost,
or where LISTEN is refused, as behind a transaction-mode pooler), nothing remembered is used
for longer than `POLL_SECONDS`, so another replica's edit is seen within that time anyway.
On SQLite one process owns the file: its own writes are all there is.
"""

from __future__ import annotations

import asyncio
import time

import structlog
from sqlalchemy import Connection
from sqlalchemy.engine import URL

log = structlog.get_logger(__name__)

CHANNEL = "translate_revisions"
POLL_SECONDS = 0.5
RECONNECT_SECONDS = 1.0


class Revisions:
    def __init__(self, url: URL) -> None:
        self.url = url
        self.generation = 0
        self.listening = url.get_backend_name() != "postgresql"

    def changed(self) -> None:
        self.generation += 1

    def current(self, generation: int, stamp: float) -> bool:
        """Whether something remembered at `generation`, at monotonic time `stamp`, may be
        used now."""
        if generation != self.generation:
            return False
        return self.listening or time.monotonic() - stamp < POLL_SECONDS

    async def watch(self) -> None:
        """Listen for other replicas' writes for the app's life (PostgreSQL only)."""
        if self.url.get_backend_name() != "postgresql":
            return
        import psycopg  # the driver SQLAlchemy uses; imported where it is used

        conninfo = self.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    conninfo, autocommit=True, connect_timeout=10
                ) as connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    self.changed()  # anything may have changed while nobody listened
                    self.listening = True
                    async for _ in connection.notifies():
                        self.changed()
            except (OSError, psycopg.Error) as lost:
                if self.listening:
                    log.warning("revisions_not_heard", reason=str(lost).strip()[:200])
            finally:
                self.listening = False
                self.changed()
            await asyncio.sleep(RECONNECT_SECONDS)


def notify(c: Connection) -> None:
    """Inside a writing transaction: every replica hears of it once it commits."""
    if c.dialect.name == "postgresql":
        c.exec_driver_sql(f"NOTIFY {CHANNEL}")

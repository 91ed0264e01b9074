"""The embedded SQLite database the DeepL API keeps per API key (glossaries, usage), so that
both survive restarts.

Keys are stored as SHA-256 digests, never as themselves. Each call opens its own connection in
a worker thread: SQLite's writes wait on the disk, which the event loop must not.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Database:
    """One SQLite file (WAL); `schema` is made idempotently (IF NOT EXISTS) on first use, so
    a database made by an older release gains the tables it lacks."""

    def __init__(self, path: Path, schema: str) -> None:
        self.path = path
        self.schema = schema
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=10)
        if not self._ready:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(self.schema)
            self._ready = True
        return connection

    async def run(self, query: str, *args: object) -> list[tuple]:
        """The query's rows, committed (or rolled back on error) before it returns."""

        def run() -> list[tuple]:
            connection = self._connect()
            try:
                with connection:
                    return connection.execute(query, args).fetchall()
            finally:
                connection.close()

        return await asyncio.to_thread(run)

"""The embedded SQLite database the DeepL API keeps per API key (glossaries, usage), so that
both survive restarts.

Keys are stored as SHA-256 digests, never as themselves. One connection, used from one worker
thread: SQLite's writes wait on the disk, which the event loop must not, and a connection kept
open spares every call opening the file again (a usage write took 1.45 ms with a connection
per call, 0.45 ms with one).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class Database:
    """One SQLite file (WAL); `schema` is made idempotently (IF NOT EXISTS) on first use, so
    a database made by an older release gains the tables it lacks."""

    def __init__(self, path: Path, schema: str) -> None:
        self.path = path
        self.schema = schema
        self._connection: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deepl-db")

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(self.schema)
            self._connection = connection
        return self._connection

    async def run(self, query: str, *args: object) -> list[tuple[Any, ...]]:
        """The query's rows, committed (or rolled back on error) before it returns."""

        def run() -> list[tuple[Any, ...]]:
            connection = self._connect()
            with connection:
                return connection.execute(query, args).fetchall()

        return await asyncio.get_running_loop().run_in_executor(self._thread, run)

    async def transact(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` on the connection in one transaction, committed when it returns (rolled
        back when it raises): a read and the write that depends on it, with nothing between."""

        def run() -> T:
            connection = self._connect()
            with connection:
                return work(connection)

        return await asyncio.get_running_loop().run_in_executor(self._thread, run)

    async def close(self) -> None:
        def close() -> None:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

        await asyncio.get_running_loop().run_in_executor(self._thread, close)
        self._thread.shutdown(wait=True)

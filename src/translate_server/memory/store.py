"""The memories' SQLite file: memories (named, owned), their entries and a full-text index of
the entries' sources, which finds the candidates of a fuzzy match (`memory.matching`).

Two connections, each on a worker thread of its own: imports write on one, while lookups for
/translate read on the other (WAL: readers do not wait for a writer), so a long import never
holds up a translation. Neither the disk nor a scoring loop runs on the event loop.
"""

from __future__ import annotations

import asyncio
import builtins
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from translate_server.memory.entries import Entry, Found, language_key, match_key
from translate_server.memory.matching import best_match, create_index, index_table, index_words

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY,
    public_id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    entries INTEGER NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_by_owner ON memories (owner);
CREATE TABLE IF NOT EXISTS memory_entries (
    id INTEGER PRIMARY KEY,
    memory INTEGER NOT NULL,
    source_key TEXT NOT NULL,
    target_key TEXT NOT NULL,
    key TEXT NOT NULL,
    source_lang TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    note TEXT,
    UNIQUE (memory, source_key, target_key, key)
);
CREATE TABLE IF NOT EXISTS memory_words (
    memory INTEGER NOT NULL,
    word TEXT NOT NULL,
    entries INTEGER NOT NULL,
    PRIMARY KEY (memory, word)
) WITHOUT ROWID;
"""


class MemoryInfo(msgspec.Struct, frozen=True):
    id: str
    name: str
    entries: int
    revision: int
    created: float
    updated: float


class Merged(msgspec.Struct, frozen=True):
    read: int  # entries in the file
    added: int  # new in the memory
    replaced: int  # an entry of the same source and languages, its translation replaced
    entries: int  # in the memory now


class MemoryFull(Exception):
    def __init__(self, entries: int) -> None:
        super().__init__(entries)
        self.entries = entries


_INFO = "public_id, name, entries, revision, created, updated"


class MemoryStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer = _Connection(path, "memory-write")
        self._reader = _Connection(path, "memory-read")

    async def open(self) -> None:
        await self._writer.run(lambda c: c.executescript(SCHEMA))

    async def close(self) -> None:
        await self._reader.close()
        await self._writer.close()

    # -- memories ----------------------------------------------------------------------------
    async def create(self, owner: str, name: str) -> MemoryInfo:
        public_id = "mem_" + secrets.token_hex(8)
        now = time.time()

        def create(c: sqlite3.Connection) -> None:
            made = c.execute(
                "INSERT INTO memories (public_id, owner, name, created, updated) "
                "VALUES (?, ?, ?, ?, ?)",
                (public_id, owner, name, now, now),
            )
            assert made.lastrowid is not None  # an INSERT's
            c.execute(create_index(made.lastrowid))

        await self._writer.run(create)
        return MemoryInfo(public_id, name, 0, 0, now, now)

    async def list(self, owner: str) -> builtins.list[MemoryInfo]:
        rows = await self._reader.run(
            lambda c: c.execute(
                f"SELECT {_INFO} FROM memories WHERE owner = ? ORDER BY created, id", (owner,)
            ).fetchall()
        )
        return [MemoryInfo(*row) for row in rows]

    async def get(self, owner: str, public_id: str) -> MemoryInfo | None:
        row = await self._reader.run(lambda c: _info(c, owner, public_id))
        return MemoryInfo(*row[1:]) if row else None

    async def delete(self, owner: str, public_id: str) -> bool:
        def delete(c: sqlite3.Connection) -> bool:
            found = c.execute(
                "SELECT id FROM memories WHERE owner = ? AND public_id = ?", (owner, public_id)
            ).fetchone()
            if found is None:
                return False
            c.execute("DELETE FROM memory_entries WHERE memory = ?", found)
            c.execute("DELETE FROM memory_words WHERE memory = ?", found)
            c.execute("DELETE FROM memories WHERE id = ?", found)
            c.execute(f"DROP TABLE IF EXISTS {index_table(found[0])}")
            return True

        return await self._writer.run(delete)

    # -- entries -----------------------------------------------------------------------------
    async def add(
        self, owner: str, public_id: str, entries: Sequence[Entry], max_entries: int
    ) -> Merged | None:
        """`entries` merged into the memory, a later one of the same source and languages
        replacing an earlier one (in the file as in the memory); None for an unknown memory.
        Raises MemoryFull, adding nothing, where the memory would hold over `max_entries`."""
        rows = [_row(entry) for entry in entries]

        def add(c: sqlite3.Connection) -> Merged | None:
            found = _info(c, owner, public_id)
            if found is None:
                return None
            memory, before = found[0], found[3]
            _merge(c, memory, rows)
            (count,) = c.execute(
                "SELECT count(*) FROM memory_entries WHERE memory = ?", (memory,)
            ).fetchone()
            if count > max_entries:
                raise MemoryFull(count)
            c.execute(
                "UPDATE memories SET entries = ?, revision = revision + 1, updated = ? "
                "WHERE id = ?",
                (count, time.time(), memory),
            )
            added = count - before
            return Merged(len(rows), added, len(rows) - added, count)

        return await self._writer.run(add)

    async def entries(
        self, owner: str, public_id: str
    ) -> tuple[MemoryInfo, builtins.list[Entry]] | None:
        def read(c: sqlite3.Connection) -> tuple[MemoryInfo, builtins.list[Entry]] | None:
            found = _info(c, owner, public_id)
            if found is None:
                return None
            rows = c.execute(
                "SELECT source, target, source_lang, target_lang, note FROM "
                "memory_entries WHERE memory = ? ORDER BY id",
                (found[0],),
            )
            return MemoryInfo(*found[1:]), [Entry(*row) for row in rows]

        return await self._reader.run(read)

    async def look_up(
        self,
        owner: str,
        public_id: str,
        source_tag: str,
        target_tag: str,
        texts: Sequence[str],
        threshold: float,
    ) -> tuple[MemoryInfo, builtins.list[Found | None]] | None:
        """Each text's best match in the memory, in one trip to the reader's thread; None
        for an unknown memory."""
        source_key, target_key = language_key(source_tag), language_key(target_tag)

        def look_up(c: sqlite3.Connection) -> tuple[MemoryInfo, builtins.list[Found | None]] | None:
            found = _info(c, owner, public_id)
            if found is None:
                return None
            scope = (found[0], source_key, target_key)
            return MemoryInfo(*found[1:]), [best_match(c, scope, t, threshold) for t in texts]

        return await self._reader.run(look_up)


def _merge(c: sqlite3.Connection, memory: int, rows: Sequence[tuple[str | None, ...]]) -> None:
    """Each row added, or where the memory has its source and languages, its translation
    replaced; a new entry's words are indexed and counted."""
    index = index_table(memory)
    c.execute(create_index(memory))  # a memory made before its index was
    words: dict[str, int] = {}
    indexed = []
    for row in rows:
        added = c.execute(
            "INSERT OR IGNORE INTO memory_entries (memory, source_key, target_key, key, "
            "source_lang, target_lang, source, target, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (memory, *row),
        )
        if added.rowcount:
            indexed.append((added.lastrowid, row[2]))
            for word in index_words(row[2] or ""):
                words[word] = words.get(word, 0) + 1
        else:
            c.execute(
                "UPDATE memory_entries SET source = ?, target = ?, note = ?, "
                "source_lang = ?, target_lang = ? WHERE memory = ? AND source_key = ? "
                "AND target_key = ? AND key = ?",
                (*row[5:8], *row[3:5], memory, *row[:3]),
            )
    c.executemany(f"INSERT INTO {index} (rowid, key) VALUES (?, ?)", indexed)
    c.executemany(
        "INSERT INTO memory_words (memory, word, entries) VALUES (?, ?, ?) "
        "ON CONFLICT (memory, word) DO UPDATE SET entries = entries + excluded.entries",
        ((memory, word, count) for word, count in words.items()),
    )


def _info(c: sqlite3.Connection, owner: str, public_id: str) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = c.execute(
        f"SELECT id, {_INFO} FROM memories WHERE owner = ? AND public_id = ?", (owner, public_id)
    ).fetchone()
    return row


def _row(entry: Entry) -> tuple[str, ...]:
    return (
        language_key(entry.source_lang),
        language_key(entry.target_lang),
        match_key(entry.source),
        entry.source_lang,
        entry.target_lang,
        entry.source,
        entry.target,
        entry.note,
    )  # type: ignore[return-value]


class _Connection:
    """One SQLite connection, used from one worker thread only."""

    def __init__(self, path: Path, name: str) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            self._connection = connection
        return self._connection

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work`'s result, its writes committed (or rolled back where it raised)."""

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

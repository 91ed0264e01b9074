"""The memories' database (SQLite or PostgreSQL, `storage`): memories (named, owned), their
entries, and the word index that finds the candidates of a fuzzy match (`memory.matching`,
kept by `memory.merging` as entries come in).

Each call is one piece of work on a connection (`Database.read`/`write`): on SQLite a long
import holds the one writer while lookups for /translate read beside it (WAL), each on a
worker thread, the scoring included; on PostgreSQL a write that reads first locks the memory's
row, so two imports into one memory take turns.
"""

from __future__ import annotations

import builtins
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec
from sqlalchemy import Connection, delete, func, select, update

from translate_server.memory import editing
from translate_server.memory.editing import EntrySearch, StoredEntry
from translate_server.memory.entries import Entry, Found, language_key
from translate_server.memory.matching import best_match
from translate_server.memory.merging import merge, row_of
from translate_server.storage.database import Database
from translate_server.storage.memory_tables import (
    memories,
    memory_entries,
    memory_postings,
    memory_words,
)
from translate_server.storage.revisions import Revisions, notify


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


T = TypeVar("T")
# Memories whose rows a store remembers (the oldest forgotten first).
_REMEMBERED = 1024


class MemoryFull(Exception):
    def __init__(self, entries: int) -> None:
        super().__init__(entries)
        self.entries = entries


_INFO = (
    memories.c.public_id,
    memories.c.name,
    memories.c.entries,
    memories.c.revision,
    memories.c.created,
    memories.c.updated,
)


class MemoryStore:
    def __init__(self, database: Database) -> None:
        self.database = database
        # What a lookup needs of a memory's row (its id, its revision), remembered while no
        # write, here or on another replica, has changed a memory since (`storage.revisions`):
        # a lookup asks the database only for entries.
        self.revisions = Revisions(database.url)
        self._rows: dict[tuple[str, str], tuple[int, float, tuple[Any, ...]]] = {}

    async def _write(self, work: Callable[[Connection], T]) -> T:
        """A write that changes a memory: every replica forgets the rows it remembers."""

        def write(c: Connection) -> T:
            notify(c)
            return work(c)

        try:
            return await self.database.write(write)
        finally:
            self.revisions.changed()

    # -- memories ----------------------------------------------------------------------------
    async def create(self, owner: str, name: str) -> MemoryInfo:
        public_id = "mem_" + secrets.token_hex(8)
        now = time.time()
        made = memories.insert().values(
            public_id=public_id, owner=owner, name=name, created=now, updated=now
        )
        await self.database.write(lambda c: c.execute(made))
        return MemoryInfo(public_id, name, 0, 0, now, now)

    async def list(self, owner: str) -> builtins.list[MemoryInfo]:
        query = select(*_INFO).where(memories.c.owner == owner)
        query = query.order_by(memories.c.created, memories.c.id)
        return await self.database.read(lambda c: [MemoryInfo(*row) for row in c.execute(query)])

    async def get(self, owner: str, public_id: str) -> MemoryInfo | None:
        found = await self.database.read(lambda c: memory_row(c, owner, public_id))
        return None if found is None else info_of(found)

    async def rename(self, owner: str, public_id: str, name: str) -> MemoryInfo | None:
        """The memory with its new name (its revision unchanged: no entry changed); None where
        the owner has no such memory."""

        def rename_memory(c: Connection) -> MemoryInfo | None:
            found = memory_row(c, owner, public_id, lock=True)
            if found is None:
                return None
            c.execute(update(memories).where(memories.c.id == found[0]).values(name=name))
            return info_of((*found[:2], name, *found[3:]))

        return await self.database.write(rename_memory)

    async def delete(self, owner: str, public_id: str) -> bool:
        def delete_memory(c: Connection) -> bool:
            found = memory_row(c, owner, public_id, lock=True)
            if found is None:
                return False
            memory = found[0]
            for table in (memory_postings, memory_words, memory_entries):
                c.execute(delete(table).where(table.c.memory == memory))
            c.execute(delete(memories).where(memories.c.id == memory))
            return True

        return await self._write(delete_memory)

    # -- entries -----------------------------------------------------------------------------
    async def add(
        self, owner: str, public_id: str, entries: Sequence[Entry], max_entries: int
    ) -> Merged | None:
        """`entries` merged into the memory, a later one of the same source and languages
        replacing an earlier one (in the file as in the memory); None for an unknown memory.
        Raises MemoryFull, adding nothing, where the memory would hold over `max_entries`."""
        rows = [row_of(entry) for entry in entries]

        def add(c: Connection) -> Merged | None:
            found = memory_row(c, owner, public_id, lock=True)
            if found is None:
                return None
            memory, before = found[0], found[3]
            merge(c, memory, rows, fresh=before == 0)
            count = c.execute(
                select(func.count()).where(memory_entries.c.memory == memory)
            ).scalar_one()
            if count > max_entries:
                raise MemoryFull(count)
            c.execute(
                update(memories)
                .where(memories.c.id == memory)
                .values(entries=count, revision=memories.c.revision + 1, updated=time.time())
            )
            added = count - before
            return Merged(len(rows), added, len(rows) - added, count)

        return await self._write(add)

    async def entries(
        self, owner: str, public_id: str
    ) -> tuple[MemoryInfo, builtins.list[Entry]] | None:
        columns = (
            memory_entries.c.source,
            memory_entries.c.target,
            memory_entries.c.source_lang,
            memory_entries.c.target_lang,
            memory_entries.c.note,
        )

        def read(c: Connection) -> tuple[MemoryInfo, builtins.list[Entry]] | None:
            found = memory_row(c, owner, public_id)
            if found is None:
                return None
            rows = c.execute(
                select(*columns)
                .where(memory_entries.c.memory == found[0])
                .order_by(memory_entries.c.id)
            )
            return info_of(found), [Entry(*row) for row in rows]

        return await self.database.read(read)

    async def pairs(self, owner: str, public_id: str) -> builtins.list[tuple[str, str]] | None:
        """The (source, target) languages its entries hold, as stored; None for an unknown
        memory."""
        entries = memory_entries.c
        query = select(entries.source_lang, entries.target_lang).distinct()

        def read(c: Connection, memory: int) -> builtins.list[tuple[str, str]]:
            rows = c.execute(query.where(entries.memory == memory).limit(64))
            return sorted((str(source), str(target)) for source, target in rows)

        found = await self._read(owner, public_id, read)
        return None if found is None else found[1]

    # -- one entry at a time (`memory.editing`) ----------------------------------------------
    async def put_entry(
        self, owner: str, public_id: str, entry: Entry, max_entries: int
    ) -> tuple[MemoryInfo, tuple[StoredEntry, bool]] | None:
        """The entry added, or its source's translation replaced: the entry and whether it is
        new. Raises MemoryFull, adding nothing, where the memory would hold over
        `max_entries`."""

        def put(c: Connection, memory: int) -> tuple[StoredEntry, bool]:
            stored, new = editing.put(c, memory, entry)
            count = editing.touched(c, memory)
            if new and count > max_entries:
                raise MemoryFull(count)
            return stored, new

        return await self._change(owner, public_id, put)

    async def edit_entry(
        self, owner: str, public_id: str, entry_id: int, changes: dict[str, Any]
    ) -> tuple[MemoryInfo, StoredEntry | None] | None:
        def edit(c: Connection, memory: int) -> StoredEntry | None:
            edited = editing.edit(c, memory, entry_id, changes)
            if edited is not None:
                editing.touched(c, memory)
            return edited

        return await self._change(owner, public_id, edit)

    async def remove_entry(
        self, owner: str, public_id: str, entry_id: int
    ) -> tuple[MemoryInfo, bool] | None:
        def remove(c: Connection, memory: int) -> bool:
            removed = editing.remove(c, memory, entry_id)
            if removed:
                editing.touched(c, memory)
            return removed

        return await self._change(owner, public_id, remove)

    async def entry(
        self, owner: str, public_id: str, entry_id: int
    ) -> tuple[MemoryInfo, StoredEntry | None] | None:
        return await self._read(owner, public_id, lambda c, m: editing.find(c, m, entry_id))

    async def search_entries(
        self, owner: str, public_id: str, asked: EntrySearch
    ) -> tuple[MemoryInfo, tuple[int, builtins.list[StoredEntry]]] | None:
        return await self._read(owner, public_id, lambda c, m: editing.search(c, m, asked))

    async def _change(
        self, owner: str, public_id: str, work: Callable[[Connection, int], T]
    ) -> tuple[MemoryInfo, T] | None:
        """`work` on the memory's entries with its row locked, and the memory as it is after;
        None for an unknown memory (or another owner's)."""

        def change(c: Connection) -> tuple[MemoryInfo, T] | None:
            found = memory_row(c, owner, public_id, lock=True)
            if found is None:
                return None
            done = work(c, found[0])
            after = memory_row(c, owner, public_id)
            assert after is not None
            return info_of(after), done

        return await self._write(change)

    async def _read(
        self, owner: str, public_id: str, work: Callable[[Connection, int], T]
    ) -> tuple[MemoryInfo, T] | None:
        def read(c: Connection) -> tuple[MemoryInfo, T] | None:
            found = memory_row(c, owner, public_id)
            return None if found is None else (info_of(found), work(c, found[0]))

        return await self.database.read(read)

    async def look_up(
        self,
        owner: str,
        public_id: str,
        source_tag: str,
        target_tag: str,
        texts: Sequence[str],
        threshold: float,
    ) -> tuple[MemoryInfo, builtins.list[Found | None]] | None:
        """Each text's best match in the memory, in one piece of work; None for an unknown
        memory."""
        source_key, target_key = language_key(source_tag), language_key(target_tag)
        generation, stamp = self.revisions.generation, time.monotonic()
        known = self._rows.get((owner, public_id))
        row = known[2] if known and self.revisions.current(known[0], known[1]) else None

        def look_up(c: Connection) -> tuple[MemoryInfo, builtins.list[Found | None]] | None:
            found = row
            if found is None:
                found = memory_row(c, owner, public_id)
                if found is not None:  # under the generation read before: a write makes it stale
                    self._remember((owner, public_id), (generation, stamp, found))
            if found is None:
                return None
            scope = (found[0], source_key, target_key)
            return info_of(found), [best_match(c, scope, t, threshold) for t in texts]

        return await self.database.read(look_up)

    def _remember(self, memory: tuple[str, str], known: tuple[int, float, tuple[Any, ...]]) -> None:
        self._rows[memory] = known
        if len(self._rows) > _REMEMBERED:
            self._rows.pop(next(iter(self._rows)), None)


def memory_row(
    c: Connection, owner: str, public_id: str, *, lock: bool = False
) -> tuple[Any, ...] | None:
    """(id, public_id, name, entries, revision, created, updated) of the owner's memory;
    with `lock`, its row locked until the transaction ends (FOR UPDATE on PostgreSQL; on
    SQLite the writer holds the whole file already, and SQLAlchemy leaves the clause out)."""
    query = select(memories.c.id, *_INFO).where(
        memories.c.owner == owner, memories.c.public_id == public_id
    )
    if lock:
        query = query.with_for_update()
    row = c.execute(query).first()
    return None if row is None else tuple(row)


def info_of(row: tuple[Any, ...]) -> MemoryInfo:
    return MemoryInfo(*row[1:])

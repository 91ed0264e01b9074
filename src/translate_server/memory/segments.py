"""A memory seen as DeepL's translation-memory API shows one: its languages, and its entries
grouped into source segments (one source, its translations into each target language), a
page at a time behind an opaque cursor."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

import msgspec

from translate_server.memory.store import MemoryInfo, MemoryStore


class Languages(msgspec.Struct, frozen=True):
    source: str  # the language most of its entries are in ("" for an empty memory)
    targets: list[str]


class Target(msgspec.Struct, frozen=True):
    entry: int  # the entry's row id
    language: str
    text: str


class Segment(msgspec.Struct, frozen=True):
    first: int  # the lowest row id of its entries: its id, and the cursor's order
    source: str
    targets: list[Target]


class SegmentPage(msgspec.Struct, frozen=True):
    segments: list[Segment]
    after: int | None  # where the next page starts; None on the last page


async def languages(store: MemoryStore, owner: str, public_id: str) -> Languages | None:
    def read(c: sqlite3.Connection) -> Languages | None:
        memory = _memory(c, owner, public_id)
        if memory is None:
            return None
        sources = c.execute(
            "SELECT source_key FROM memory_entries WHERE memory = ? GROUP BY source_key "
            "ORDER BY count(*) DESC, source_key LIMIT 1",
            (memory,),
        ).fetchone()
        targets = c.execute(
            "SELECT DISTINCT target_key FROM memory_entries WHERE memory = ? ORDER BY target_key",
            (memory,),
        ).fetchall()
        return Languages(sources[0] if sources else "", [t for (t,) in targets])

    return await store.read(read)


async def segments(
    store: MemoryStore,
    owner: str,
    public_id: str,
    *,
    after: int,
    size: int,
    contains: str | None = None,
    case_sensitive: bool = False,
) -> tuple[MemoryInfo, SegmentPage] | None:
    """Up to `size` segments whose first entry comes after row `after`; with `contains`, those
    whose source or a translation holds it. None for an unknown memory."""

    def read(c: sqlite3.Connection) -> tuple[MemoryInfo, SegmentPage] | None:
        found = c.execute(
            "SELECT id, public_id, name, entries, revision, created, updated FROM memories "
            "WHERE owner = ? AND public_id = ?",
            (owner, public_id),
        ).fetchone()
        if found is None:
            return None
        memory = found[0]
        where, args = "memory = ?", [memory]
        if contains:
            c.create_function("tm_holds", 2, _holds(contains, case_sensitive), deterministic=True)
            where += " AND (tm_holds(source, ?) OR tm_holds(target, ?))"
            args += [contains, contains]
        groups = c.execute(
            f"SELECT min(id) AS first, source_key, key FROM memory_entries WHERE {where} "
            "GROUP BY source_key, key HAVING first > ? ORDER BY first LIMIT ?",
            (*args, after, size + 1),
        ).fetchall()
        page = [_segment(c, memory, group) for group in groups[:size]]
        more = len(groups) > size
        return MemoryInfo(*found[1:]), SegmentPage(page, page[-1].first if more else None)

    return await store.read(read)


def _segment(c: sqlite3.Connection, memory: int, group: Sequence[object]) -> Segment:
    first, source_key, key = group
    rows = c.execute(
        "SELECT id, source, target_key, target FROM memory_entries WHERE memory = ? "
        "AND source_key = ? AND key = ? ORDER BY id",
        (memory, source_key, key),
    ).fetchall()
    return Segment(
        first=int(first),  # type: ignore[call-overload]
        source=rows[0][1],
        targets=[Target(entry, language, text) for entry, _, language, text in rows],
    )


def _holds(text: str, case_sensitive: bool) -> Callable[[str, str], bool]:
    wanted = text if case_sensitive else text.casefold()

    def holds(value: str, _: str) -> bool:
        return wanted in (value if case_sensitive else value.casefold())

    return holds


def _memory(c: sqlite3.Connection, owner: str, public_id: str) -> int | None:
    row = c.execute(
        "SELECT id FROM memories WHERE owner = ? AND public_id = ?", (owner, public_id)
    ).fetchone()
    return None if row is None else int(row[0])

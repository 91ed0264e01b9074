"""A memory seen as DeepL's translation-memory API shows one: its languages, and its entries
grouped into source segments (one source, its translations into each target language), a
page at a time behind an opaque cursor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from sqlalchemy import Connection, func, select

from translate_server.memory.store import MemoryInfo, MemoryStore, info_of, memory_row
from translate_server.storage.memory_tables import memory_entries

_ENTRIES = memory_entries.c


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
    def read(c: Connection) -> Languages | None:
        found = memory_row(c, owner, public_id)
        if found is None:
            return None
        memory = _ENTRIES.memory == found[0]
        sources = c.execute(
            select(_ENTRIES.source_key)
            .where(memory)
            .group_by(_ENTRIES.source_key)
            .order_by(func.count().desc(), _ENTRIES.source_key)
            .limit(1)
        ).first()
        targets = c.execute(
            select(_ENTRIES.target_key).where(memory).distinct().order_by(_ENTRIES.target_key)
        )
        return Languages(sources[0] if sources else "", list(targets.scalars()))

    return await store.database.read(read)


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

    def read(c: Connection) -> tuple[MemoryInfo, SegmentPage] | None:
        found = memory_row(c, owner, public_id)
        if found is None:
            return None
        memory = found[0]
        if contains:
            firsts = _firsts_holding(c, memory, after, size + 1, contains, case_sensitive)
        else:
            firsts = _firsts(c, memory, after, size + 1)
        page = [_segment(c, memory, first) for first in firsts[:size]]
        more = len(firsts) > size
        return info_of(found), SegmentPage(page, page[-1].first if more else None)

    return await store.database.read(read)


def _firsts(c: Connection, memory: int, after: int, limit: int) -> list[int]:
    first = func.min(_ENTRIES.id)
    rows = c.execute(
        select(first)
        .where(_ENTRIES.memory == memory)
        .group_by(_ENTRIES.source_key, _ENTRIES.key_digest)
        .having(first > after)
        .order_by(first)
        .limit(limit)
    )
    return list(rows.scalars())


def _firsts_holding(
    c: Connection, memory: int, after: int, limit: int, text: str, case_sensitive: bool
) -> list[int]:
    """As `_firsts`, of the entries whose source or translation holds `text`: a segment's
    first such entry. Python's own comparison (`casefold`), identical on both backends, over
    the memory's entries in row order: a filtered listing reads the whole memory once."""
    wanted = text if case_sensitive else text.casefold()
    firsts: dict[tuple[str, str], int] = {}  # segment -> its first entry holding `text`
    rows = c.execution_options(yield_per=2000).execute(
        select(
            _ENTRIES.id, _ENTRIES.source_key, _ENTRIES.key_digest, _ENTRIES.source, _ENTRIES.target
        )
        .where(_ENTRIES.memory == memory)
        .order_by(_ENTRIES.id)
    )
    for entry, source_key, digest, source, target in rows:
        if (source_key, digest) in firsts:
            continue
        values = (source, target) if case_sensitive else (source.casefold(), target.casefold())
        if any(wanted in value for value in values):
            firsts[source_key, digest] = entry
    return sorted(first for first in firsts.values() if first > after)[:limit]


def _segment(c: Connection, memory: int, first: int) -> Segment:
    group = select(_ENTRIES.source_key, _ENTRIES.key_digest).where(_ENTRIES.id == first)
    source_key, digest = c.execute(group).one()
    rows: Sequence[Any] = c.execute(
        select(_ENTRIES.id, _ENTRIES.source, _ENTRIES.target_key, _ENTRIES.target)
        .where(
            _ENTRIES.memory == memory,
            _ENTRIES.source_key == source_key,
            _ENTRIES.key_digest == digest,
        )
        .order_by(_ENTRIES.id)
    ).all()
    return Segment(
        first=first,
        source=rows[0][1],
        targets=[Target(entry, language, text) for entry, _, language, text in rows],
    )

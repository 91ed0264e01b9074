"""One memory's entries one at a time, on a connection the store holds in a transaction: an
entry put (new, or the translation of the same source and languages replaced, as an import
does), found, searched, edited (its words re-indexed where its source changes) and removed.

Each change is made with the memory's row locked and ends in `touched`, which counts the
memory's entries and raises its revision: a cached translation made with the memory before the
change is never served after it (the translation cache keys on the revision)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import msgspec
from sqlalchemy import ColumnElement, Connection, and_, delete, func, or_, select, update

from translate_server.memory.entries import Entry, language_key
from translate_server.memory.merging import Row, identity, merge, reindex, row_of, unindex
from translate_server.storage.memory_tables import memories, memory_entries

_ENTRIES = memory_entries.c
_COLUMNS = (
    _ENTRIES.id,
    _ENTRIES.source,
    _ENTRIES.target,
    _ENTRIES.source_lang,
    _ENTRIES.target_lang,
    _ENTRIES.note,
)


class StoredEntry(msgspec.Struct, frozen=True):
    id: int
    source: str
    target: str
    source_lang: str
    target_lang: str
    note: str | None


class EntrySearch(msgspec.Struct, frozen=True):
    """Which entries a listing shows: those whose source or target (`field`) holds `text`
    (case-insensitive; every entry where None), of a language pair where given."""

    text: str | None = None
    field: str = "any"  # "source", "target" or "any"
    source_lang: str | None = None
    target_lang: str | None = None
    limit: int = 50
    offset: int = 0


class EntryClash(Exception):
    """An edit would give an entry the source and languages of another entry."""

    def __init__(self, other: int) -> None:
        super().__init__(other)
        self.other = other


def put(c: Connection, memory: int, entry: Entry) -> tuple[StoredEntry, bool]:
    """`entry` in the memory: a new entry, or the translation of the entry of the same source
    and languages replaced. Returns the entry and whether it is new."""
    row = row_of(entry)
    before = _find_identity(c, memory, row)
    merge(c, memory, [row], fresh=False)
    entry_id = before if before is not None else _find_identity(c, memory, row)
    assert entry_id is not None  # merged just now, under the memory's lock
    stored = find(c, memory, entry_id)
    assert stored is not None
    return stored, before is None


def find(c: Connection, memory: int, entry_id: int) -> StoredEntry | None:
    row = c.execute(
        select(*_COLUMNS).where(_ENTRIES.memory == memory, _ENTRIES.id == entry_id)
    ).first()
    return None if row is None else StoredEntry(*row)


def search(c: Connection, memory: int, asked: EntrySearch) -> tuple[int, list[StoredEntry]]:
    """How many entries match, and the page of them `asked` for, in the order they came."""
    where = _matching(memory, asked)
    total = c.execute(select(func.count()).select_from(memory_entries).where(where)).scalar_one()
    rows = c.execute(
        select(*_COLUMNS).where(where).order_by(_ENTRIES.id).limit(asked.limit).offset(asked.offset)
    )
    return total, [StoredEntry(*row) for row in rows]


def edit(c: Connection, memory: int, entry_id: int, changes: dict[str, Any]) -> StoredEntry | None:
    """The entry with `changes` (of source, target, languages, note) made; None where the
    memory holds no such entry. Raises EntryClash where the edited source and languages are
    another entry's."""
    found = find(c, memory, entry_id)
    if found is None:
        return None
    fields = {name: getattr(found, name) for name in Entry.__struct_fields__}
    row = row_of(Entry(**{**fields, **changes}))
    other = _find_identity(c, memory, row)
    if other is not None and other != entry_id:
        raise EntryClash(other)
    old_key = c.execute(select(_ENTRIES.key).where(_ENTRIES.id == entry_id)).scalar_one()
    c.execute(update(memory_entries).where(_ENTRIES.id == entry_id).values(row))
    reindex(c, memory, entry_id, old_key, row["key"])
    return find(c, memory, entry_id)


def remove(c: Connection, memory: int, entry_id: int) -> bool:
    key = c.execute(
        select(_ENTRIES.key).where(_ENTRIES.memory == memory, _ENTRIES.id == entry_id)
    ).scalar_one_or_none()
    if key is None:
        return False
    unindex(c, memory, entry_id, key)
    c.execute(delete(memory_entries).where(_ENTRIES.id == entry_id))
    return True


def touched(c: Connection, memory: int) -> int:
    """The memory's entries counted again and its revision raised; returns the count."""
    count = c.execute(select(func.count()).where(_ENTRIES.memory == memory)).scalar_one()
    c.execute(
        update(memories)
        .where(memories.c.id == memory)
        .values(entries=count, revision=memories.c.revision + 1, updated=time.time())
    )
    return int(count)


def _find_identity(c: Connection, memory: int, row: Row) -> int | None:
    source_key, target_key, digest = identity(row)
    found = c.execute(
        select(_ENTRIES.id).where(
            _ENTRIES.memory == memory,
            _ENTRIES.source_key == source_key,
            _ENTRIES.target_key == target_key,
            _ENTRIES.key_digest == digest,
        )
    ).scalar_one_or_none()
    return None if found is None else int(found)


def _matching(memory: int, asked: EntrySearch) -> ColumnElement[bool]:
    conditions: list[ColumnElement[bool]] = [_ENTRIES.memory == memory]
    if asked.source_lang is not None:
        conditions.append(_ENTRIES.source_key == language_key(asked.source_lang))
    if asked.target_lang is not None:
        conditions.append(_ENTRIES.target_key == language_key(asked.target_lang))
    if asked.text:
        # LIKE's wildcards in the text are matched as themselves (autoescape).
        held: Sequence[ColumnElement[bool]] = [
            column.icontains(asked.text, autoescape=True)
            for name, column in (("source", _ENTRIES.source), ("target", _ENTRIES.target))
            if asked.field in (name, "any")
        ]
        conditions.append(or_(*held))
    return and_(*conditions)

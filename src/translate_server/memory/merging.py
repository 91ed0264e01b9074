"""Entries merged into a memory, and its word index kept with them: a new entry's words are
posted (`memory_postings`) and counted (`memory_words`); an entry whose source and languages
the memory has already replaces that one's translation (its words are the same).

In bulk, whichever the backend: the existing entries found by their key digests a batch at a
time, the replaced ones updated, the new ones, their postings and counts each inserted in one
executemany handed straight to the driver."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, select, update

from translate_server.memory.entries import Entry, language_key, match_key
from translate_server.storage.database import bulk_insert
from translate_server.storage.memory_tables import memory_entries, memory_postings, memory_words
from translate_server.text.words import index_words, key_digest

Row = dict[str, Any]
Identity = tuple[str, str, str]  # source_key, target_key, key_digest
_LOOKUP_BATCH = 500
_CHANGED = ("source", "target", "note", "source_lang", "target_lang")
_ENTRY = (
    "source_key", "target_key", "key", "key_digest", "source_lang", "target_lang", "source",
    "target", "note",
)  # fmt: skip


def row_of(entry: Entry) -> Row:
    key = match_key(entry.source)
    return {
        "source_key": language_key(entry.source_lang),
        "target_key": language_key(entry.target_lang),
        "key": key,
        "key_digest": key_digest(key),
        "source_lang": entry.source_lang,
        "target_lang": entry.target_lang,
        "source": entry.source,
        "target": entry.target,
        "note": entry.note,
    }


def merge(c: Connection, memory: int, rows: Sequence[Row], *, fresh: bool) -> None:
    """`rows` merged into `memory` (`fresh`: it holds no entry yet, so none is looked up).
    The caller holds the memory's row locked: no other transaction adds to it meanwhile, so
    the entries this one adds are those past the memory's largest id before it."""
    latest: dict[Identity, Row] = {}
    for row in rows:  # a later row of the same source and languages wins, as in the memory
        latest[identity(row)] = row
    existing = {} if fresh else _existing(c, memory, list(latest))
    replaced = [
        {"entry_id": existing[key], **{name: row[name] for name in _CHANGED}}
        for key, row in latest.items()
        if key in existing
    ]
    if replaced:
        c.execute(
            update(memory_entries)
            .where(memory_entries.c.id == bindparam("entry_id"))
            .values({name: bindparam(name) for name in _CHANGED}),
            replaced,
        )
    new = [
        tuple(row[name] for name in _ENTRY) for key, row in latest.items() if key not in existing
    ]
    if not new:
        return
    entries = memory_entries.c
    before = c.execute(
        select(func.coalesce(func.max(entries.id), 0)).where(entries.memory == memory)
    ).scalar_one()
    bulk_insert(c, memory_entries, ("memory", *_ENTRY), [(memory, *row) for row in new])
    made = c.execute(
        select(entries.id, entries.key).where(entries.memory == memory, entries.id > before)
    )
    _index(c, memory, made)


def reindex(c: Connection, memory: int, entry_id: int, old_key: str, new_key: str) -> None:
    """One entry's words moved from `old_key`'s to `new_key`'s (its source was edited)."""
    if old_key == new_key:
        return
    unindex(c, memory, entry_id, old_key)
    _index(c, memory, [(entry_id, new_key)])


def unindex(c: Connection, memory: int, entry_id: int, key: str) -> None:
    """One entry's words taken out of the index (it is removed, or its source edited): its
    postings deleted, its words' counts lowered, a word no entry holds any more dropped."""
    words = sorted(index_words(key))
    if not words:
        return
    postings, counts = memory_postings.c, memory_words.c
    c.execute(
        delete(memory_postings).where(
            postings.memory == memory, postings.entry == entry_id, postings.word.in_(words)
        )
    )
    held = (counts.memory == memory, counts.word.in_(words))
    c.execute(update(memory_words).where(*held).values(entries=counts.entries - 1))
    c.execute(delete(memory_words).where(*held, counts.entries <= 0))


def _existing(c: Connection, memory: int, identities: Sequence[Identity]) -> dict[Identity, int]:
    found: dict[Identity, int] = {}
    table = memory_entries.c
    for start in range(0, len(identities), _LOOKUP_BATCH):
        batch = identities[start : start + _LOOKUP_BATCH]
        rows = c.execute(
            select(table.id, table.source_key, table.target_key, table.key_digest).where(
                table.memory == memory, table.key_digest.in_({i[2] for i in batch})
            )
        )
        for entry_id, source_key, target_key, digest in rows:
            found[source_key, target_key, digest] = entry_id
    return found


def _index(c: Connection, memory: int, made: Any) -> None:
    postings: list[tuple[int, str, int]] = []
    counts: Counter[str] = Counter()
    for entry_id, key in made:
        for word in index_words(key):
            postings.append((memory, word, entry_id))
            counts[word] += 1
    bulk_insert(c, memory_postings, ("memory", "word", "entry"), postings)
    bulk_insert(
        c,
        memory_words,
        ("memory", "word", "entries"),
        [(memory, word, n) for word, n in counts.items()],
        on_conflict="ON CONFLICT (memory, word) DO UPDATE SET "
        "entries = memory_words.entries + excluded.entries",
    )


def identity(row: Row) -> Identity:
    return row["source_key"], row["target_key"], row["key_digest"]

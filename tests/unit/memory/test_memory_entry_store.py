"""The memory store's entries one at a time: put, edit, remove and search keep the word index
that fuzzy lookups read exact, count the memory's entries and raise its revision once per
change. A contract of the store: every test runs on SQLite and on PostgreSQL (`backend`)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from translate_server.memory.editing import EntryClash, EntrySearch
from translate_server.memory.entries import Entry
from translate_server.memory.store import MemoryFull, MemoryStore
from translate_server.storage.memory_tables import memory_postings, memory_words
from translate_server.storage.opening import StoreDatabases


@pytest.fixture
async def store(databases: StoreDatabases) -> MemoryStore:
    return MemoryStore(await databases.migrated("memory"))


async def words(store: MemoryStore) -> dict[str, int]:
    query = select(memory_words.c.word, memory_words.c.entries)
    return await store.database.read(lambda c: {str(w): int(n) for w, n in c.execute(query)})


async def postings(store: MemoryStore) -> set[tuple[str, int]]:
    query = select(memory_postings.c.word, memory_postings.c.entry)
    return await store.database.read(lambda c: {(w, e) for w, e in c.execute(query)})


async def fuzzy(store: MemoryStore, memory_id: str, text: str) -> list[str]:
    found = await store.look_up("", memory_id, "en", "de", [text], 60)
    assert found is not None
    match = found[1][0]
    return [] if match is None else [target for _, target in match.examples]


async def test_the_word_index_follows_every_edit(store: MemoryStore) -> None:
    memory = await store.create("", "m")
    put = await store.put_entry("", memory.id, Entry("Open the red door.", "A", "en", "de"), 10)
    assert put is not None
    info, (red, new) = put
    assert new and info.entries == 1 and info.revision == 1
    await store.put_entry("", memory.id, Entry("Open the blue door.", "B", "en", "de"), 10)
    assert (await words(store))["door"] == 2 and (await words(store))["red"] == 1
    assert await fuzzy(store, memory.id, "Open the red doors.") != []

    edited = await store.edit_entry("", memory.id, red.id, {"source": "Paint the green wall."})
    assert edited is not None and edited[0].revision == 3
    counted = await words(store)
    assert "red" not in counted and counted["door"] == 1 and counted["green"] == 1
    assert ("red", red.id) not in await postings(store)
    assert ("wall", red.id) in await postings(store)
    assert "A" in await fuzzy(store, memory.id, "Paint the green walls.")

    removed = await store.remove_entry("", memory.id, red.id)
    assert removed is not None and removed[1] and removed[0].revision == 4
    assert removed[0].entries == 1
    assert "green" not in await words(store)
    assert all(entry != red.id for _, entry in await postings(store))
    assert await fuzzy(store, memory.id, "Paint the green walls.") == []
    gone = await store.remove_entry("", memory.id, red.id)
    assert gone is not None and not gone[1] and gone[0].revision == 4  # nothing changed


async def test_a_put_replaces_the_same_source_and_a_clash_is_refused(store: MemoryStore) -> None:
    memory = await store.create("", "m")
    await store.put_entry("", memory.id, Entry("Yes.", "Ja.", "en", "de"), 10)
    done = await store.put_entry("", memory.id, Entry(" Yes. ", "Jawohl.", "en", "de-CH"), 10)
    assert done is not None
    info, (entry, new) = done
    assert not new and entry.target == "Jawohl." and info.entries == 1
    other = await store.put_entry("", memory.id, Entry("No.", "Nein.", "en", "de"), 10)
    assert other is not None
    with pytest.raises(EntryClash):
        await store.edit_entry("", memory.id, other[1][0].id, {"source": "Yes."})
    with pytest.raises(MemoryFull):
        await store.put_entry("", memory.id, Entry("Maybe.", "Vielleicht.", "en", "de"), 2)
    found = await store.search_entries("", memory.id, EntrySearch())
    assert found is not None and found[1][0] == 2 and found[0].revision == 3


async def test_search_and_owners(store: MemoryStore) -> None:
    memory = await store.create("alice", "m")
    for source, target in (("Cat.", "Katze."), ("Dog.", "Hund."), ("Cats & dogs.", "Hunde.")):
        await store.put_entry("alice", memory.id, Entry(source, target, "en", "de"), 10)
    found = await store.search_entries("alice", memory.id, EntrySearch(text="cat"))
    assert found is not None and [e.source for e in found[1][1]] == ["Cat.", "Cats & dogs."]
    by_target = await store.search_entries(
        "alice", memory.id, EntrySearch(text="HUND", field="target", limit=1, offset=1)
    )
    assert by_target is not None and by_target[1][0] == 2
    assert [e.target for e in by_target[1][1]] == ["Hunde."]
    assert await store.search_entries("bob", memory.id, EntrySearch()) is None
    assert await store.put_entry("bob", memory.id, Entry("A.", "B.", "en", "de"), 10) is None
    assert await store.entry("bob", memory.id, 1) is None


async def test_entries_put_at_once_are_all_kept_and_counted(store: MemoryStore) -> None:
    memory = await store.create("", "m")
    await asyncio.gather(
        *(
            store.put_entry("", memory.id, Entry(f"Line {n} here.", f"Z {n}.", "en", "de"), 100)
            for n in range(12)
        )
    )
    info = await store.get("", memory.id)
    assert info is not None and info.entries == 12 and info.revision == 12
    assert (await words(store))["line"] == 12

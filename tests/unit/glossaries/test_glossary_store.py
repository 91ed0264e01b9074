"""The glossary store's contract on both backends (`databases`: SQLite files, and PostgreSQL in
the postgres tier): owners kept apart, revisions raised by every change to entries, a change
refused as a whole, changes to one glossary taking turns."""

from __future__ import annotations

import asyncio

import pytest

from translate_server.errors import InvalidRequestError, PayloadTooLargeError
from translate_server.glossaries import store as glossary_store
from translate_server.glossaries.model import MAX_ENTRIES, GlossaryNotFoundError
from translate_server.glossaries.protocol import (
    CreateGlossaryRequest,
    EntryChangeRequest,
    NewEntryRequest,
)
from translate_server.glossaries.service import Glossaries, Page
from translate_server.glossaries.store import GlossaryStore
from translate_server.storage.opening import StoreDatabases


@pytest.fixture
async def store(databases: StoreDatabases) -> GlossaryStore:
    return GlossaryStore(await databases.migrated("accounts"))


async def test_revisions_rise_with_every_change_to_entries(store: GlossaryStore) -> None:
    glossary_id = await store.create("alice", "pets", [("en", "de", {"cat": "Katze"})])
    revisions = [(await store.describe("alice", glossary_id)).revision]
    await store.merge("alice", glossary_id, [("en", "fr", {"cat": "chat"})])
    revisions.append((await store.describe("alice", glossary_id)).revision)
    await store.replace("alice", glossary_id, "en", "de", {"dog": "Hund"})
    revisions.append((await store.describe("alice", glossary_id)).revision)
    await store.merge("alice", glossary_id, [], name="animals")  # a new name alone: no change
    revisions.append((await store.describe("alice", glossary_id)).revision)
    await store.delete_dictionary("alice", glossary_id, "en", "fr")
    found = await store.describe("alice", glossary_id)
    revisions.append(found.revision)
    assert revisions == [2, 3, 4, 4, 5]
    assert found.name == "animals" and found.pairs == {("en", "de")}
    assert await store.entries("alice", glossary_id, "en", "de") == {"dog": "Hund"}


async def test_another_owners_glossary_is_not_found(store: GlossaryStore) -> None:
    glossary_id = await store.create("alice", "pets", [("en", "de", {"cat": "Katze"})])
    for attempt in (
        store.describe("bob", glossary_id),
        store.entries("bob", glossary_id, "en", "de"),
        store.merge("bob", glossary_id, [("en", "de", {"x": "y"})]),
        store.delete("bob", glossary_id),
    ):
        with pytest.raises(GlossaryNotFoundError):
            await attempt
    assert await store.list("bob") == []
    assert await store.entries("alice", glossary_id, "en", "de") == {"cat": "Katze"}


async def test_glossaries_made_in_one_tick_are_listed_in_creation_order(
    store: GlossaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(glossary_store, "_now", lambda: "2026-12-07T21:00:00.000000Z")
    made = [
        await store.create("alice", f"g{n}", [("en", "de", {"cat": "Katze"})]) for n in range(20)
    ]
    listed = await store.list("alice")
    assert [g.glossary_id for g in listed] == made
    assert [g.name for g in listed] == [f"g{n}" for n in range(20)]


async def test_a_change_past_the_limit_keeps_nothing(store: GlossaryStore) -> None:
    full = {f"t{i}": "x" for i in range(MAX_ENTRIES)}
    glossary_id = await store.create("alice", "big", [("en", "de", full)])
    before = await store.describe("alice", glossary_id)
    with pytest.raises(PayloadTooLargeError):
        await store.merge(
            "alice", glossary_id, [("en", "fr", {"a": "b"}), ("en", "de", {"new": "y"})]
        )
    after = await store.describe("alice", glossary_id)
    assert after.revision == before.revision and after.pairs == {("en", "de")}
    assert after.dictionaries[0].entry_count == MAX_ENTRIES


async def test_entries_added_at_once_are_all_kept(store: GlossaryStore) -> None:
    glossaries = Glossaries(store)
    made = await glossaries.create(
        "alice", CreateGlossaryRequest(name="terms", source_lang="en", target_lang="de")
    )
    await asyncio.gather(
        *(
            glossaries.add("alice", made.glossary_id, NewEntryRequest(source=f"t{i}", target="x"))
            for i in range(20)
        )
    )
    listed = await glossaries.entries("alice", made.glossary_id, None, None, Page(limit=500))
    assert sorted(e.source for e in listed.data) == sorted(f"t{i}" for i in range(20))
    assert listed.revision == (await store.describe("alice", made.glossary_id)).revision == 22


async def test_an_edit_keeps_the_entry_s_place_and_refuses_a_taken_term(
    store: GlossaryStore,
) -> None:
    glossaries = Glossaries(store)
    glossary_id = await store.create("alice", "t", [("en", "de", {"a": "1", "b": "2", "c": "3"})])
    listed = await glossaries.entries("alice", glossary_id, "en", "de", Page())
    b = listed.data[1]
    changed = await glossaries.edit("alice", glossary_id, b.id, EntryChangeRequest(source="B2"))
    assert changed.target == "2"
    assert list(await store.entries("alice", glossary_id, "en", "de")) == ["a", "B2", "c"]
    with pytest.raises(InvalidRequestError):
        await glossaries.edit("alice", glossary_id, changed.id, EntryChangeRequest(source="a"))
    with pytest.raises(GlossaryNotFoundError):  # its id went with its old source term
        await glossaries.remove("alice", glossary_id, b.id)

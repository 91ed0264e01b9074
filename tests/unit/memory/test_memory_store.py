"""The memory store alone: match keys, merging, exact and fuzzy lookups, languages. The store's
behaviour is a contract: every test of it runs on SQLite and on PostgreSQL (`backend`)."""

from __future__ import annotations

import pytest

from translate_server.memory.entries import Entry, carry_spans, language_key, match_key
from translate_server.memory.store import MemoryFull, MemoryStore
from translate_server.storage.opening import StoreDatabases


def test_match_keys_ignore_whitespace_and_placeholder_spelling() -> None:
    assert match_key("  Delete\n %(count)d   files? ") == match_key("Delete {n} files?")
    assert match_key("Save.") != match_key("save.")


def test_an_answer_gets_the_pieces_own_spans() -> None:
    assert (
        carry_spans(
            "Hello {name}, see https://a.example/x",
            "Hallo {name}, siehe https://a.example/x",
            "Hello %s, see https://b.example/y",
        )
        == "Hallo %s, siehe https://b.example/y"
    )


def test_languages_are_keyed_without_region_with_script() -> None:
    assert language_key("pt-BR") == language_key("pt_PT") == "pt"
    assert language_key("zh-Hant") != language_key("zh-Hans")


@pytest.fixture
async def store(databases: StoreDatabases) -> MemoryStore:
    return MemoryStore(await databases.migrated("memory"))


async def test_duplicates_merge_the_latest_wins(store: MemoryStore) -> None:
    memory = await store.create("", "m")
    merged = await store.add(
        "",
        memory.id,
        [
            Entry("Open.", "Öffnen.", "en", "de"),
            Entry("Open. ", "Aufmachen.", "en", "de"),
            Entry("Open.", "Ouvrir.", "en", "fr"),
        ],
        10,
    )
    assert merged is not None and (merged.added, merged.replaced, merged.entries) == (2, 1, 2)
    found = await store.look_up("", memory.id, "en-US", "de-AT", ["Open."], 75)
    assert found is not None and found[1][0] is not None
    assert found[1][0].exact == "Aufmachen."


async def test_a_full_memory_takes_nothing(store: MemoryStore) -> None:
    memory = await store.create("", "m")
    with pytest.raises(MemoryFull):
        await store.add("", memory.id, [Entry(f"Text {i}.", "x", "en", "de") for i in "abc"], 2)
    assert (await store.get("", memory.id)).entries == 0  # type: ignore[union-attr]


async def test_fuzzy_matches_are_scored_and_ordered_closest_last(store: MemoryStore) -> None:
    memory = await store.create("", "m")
    await store.add(
        "",
        memory.id,
        [
            Entry("The printer is out of paper.", "Der Drucker hat kein Papier mehr.", "en", "de"),
            Entry("The printer is out of toner.", "Der Drucker hat keinen Toner mehr.", "en", "de"),
            Entry("Completely different words here.", "Ganz andere Wörter.", "en", "de"),
        ],
        10,
    )
    found = await store.look_up("", memory.id, "en", "de", ["The printer is out of papers."], 75)
    assert found is not None
    match = found[1][0]
    assert match is not None and match.exact is None and 90 < match.score < 100
    assert [source for source, _ in match.examples] == [
        "The printer is out of toner.",
        "The printer is out of paper.",
    ]
    other_pair = await store.look_up(
        "", memory.id, "en", "fr", ["The printer is out of paper."], 75
    )
    assert other_pair is not None and other_pair[1] == [None]


async def test_another_owner_finds_nothing(store: MemoryStore) -> None:
    memory = await store.create("alice", "m")
    assert await store.get("bob", memory.id) is None
    assert await store.look_up("bob", memory.id, "en", "de", ["x"], 75) is None
    assert not await store.delete("bob", memory.id)
    assert await store.delete("alice", memory.id)

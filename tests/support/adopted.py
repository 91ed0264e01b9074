"""What the files of tests/fixtures/stores_before_migrations hold (made by that folder's
make.py with the stores of the release before versioned migrations), read back through today's
stores: after the first migration adopted them in place, or after `db copy` moved them into
PostgreSQL. Nothing may be lost on the way."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import select

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.documents.job import SegmentTranslation
from translate_server.documents.store import JobStore
from translate_server.memory.entries import Entry
from translate_server.memory.jobs import MemoryJobs
from translate_server.memory.segments import languages
from translate_server.memory.store import MemoryStore
from translate_server.owners import owner_of
from translate_server.storage.database import Database
from translate_server.storage.memory_tables import memory_jobs

FIXTURES = Path(__file__).parents[1] / "fixtures" / "stores_before_migrations"
ALICE = owner_of("alice")


def copy_of_fixtures(folder: Path) -> Path:
    """The files copied into `folder` (the originals are never changed)."""
    shutil.copytree(FIXTURES, folder, ignore=shutil.ignore_patterns("make.py"))
    return folder


def job_keys(folder: Path) -> dict[str, tuple[str, str]]:
    """what -> (job id, its secret key), as make.py wrote them down."""
    lines = (folder / "documents" / "KEYS").read_text().splitlines()
    return {what: (job_id, key) for what, job_id, key in (line.split() for line in lines)}


async def check_memories(database: Database) -> None:
    store = MemoryStore(database)
    (shared,) = await store.list("")
    (alices,) = await store.list(ALICE)
    assert (shared.name, shared.entries, shared.revision) == ("Shared UI strings", 4, 1)
    assert (alices.name, alices.entries, alices.revision) == ("Alice's café terms", 2, 2)
    found = await store.entries(ALICE, alices.id)
    assert found is not None
    assert found[1] == [
        Entry("The café opens at nine", "Das Café öffnet um 9 Uhr", "en", "de-AT"),
        Entry("The café closes at six", "Das Café schließt um sechs", "en", "de-AT"),
    ]
    shared_entries = await store.entries("", shared.id)
    assert shared_entries is not None and len(shared_entries[1]) == 4
    assert (
        Entry("Save the document", "Das Dokument speichern", "en", "de", "menu")
        in (shared_entries[1])
    )
    # Exact matches by their keys, spans carried; fuzzy ones from the index the migration built.
    looked = await store.look_up(
        "", shared.id, "en", "de", ["Delete {n} files?", "Save the documents"], 75
    )
    assert looked is not None
    exact, fuzzy = looked[1]
    assert exact is not None and exact.exact == "{n} Dateien löschen?"
    assert fuzzy is not None and fuzzy.exact is None
    assert fuzzy.examples == (("Save the document", "Das Dokument speichern"),)
    looked = await store.look_up(ALICE, alices.id, "en", "de", ["The café opens at ten"], 75)
    assert looked is not None and looked[1][0] is not None
    assert looked[1][0].examples[-1] == ("The café opens at nine", "Das Café öffnet um 9 Uhr")
    assert await languages(store, "", shared.id) is not None
    query = select(memory_jobs.c.job_id, memory_jobs.c.operation)
    ids = await database.read(lambda c: c.execute(query).all())
    jobs = {operation: await MemoryJobs(store).get(ALICE, job_id) for job_id, operation in ids}
    assert jobs["import"] is not None and jobs["export"] is not None
    assert (jobs["import"].status, jobs["import"].memory, jobs["import"].skipped) == (
        "completed",
        alices.id,
        1,
    )
    assert (jobs["export"].file_name, jobs["export"].memory) == ("a.tmx", alices.id)
    # The adopted memory takes new entries, indexed like the old.
    merged = await store.add(ALICE, alices.id, [Entry("The café opens at ten", "x", "en", "de")], 9)
    assert merged is not None and merged.entries == 3


async def check_accounts(database: Database) -> None:
    accounts = DeepLAccounts.over(database)
    glossaries, alice = accounts.glossaries, owner_of("alice")
    listed = {g.name: g for g in await glossaries.list(alice)}
    assert set(listed) == {"Pets", "Trilingual"}
    pets, trilingual = listed["Pets"], listed["Trilingual"]
    # Each dictionary's entries counted by the migration that keeps the count.
    assert [(d.source_lang, d.target_lang, d.entry_count) for d in pets.dictionaries] == [
        ("en", "de", 2)
    ]
    assert await glossaries.entries(alice, pets.glossary_id, "en", "de") == {
        "cat": "Katze",
        "dog": "Hund",
    }
    assert [(d.source_lang, d.target_lang) for d in trilingual.dictionaries] == [
        ("en", "es"),
        ("en", "fr"),
    ]
    assert await glossaries.entries(alice, trilingual.glossary_id, "en", "fr") == {
        "window": "fenêtre"
    }
    assert [g.name for g in await glossaries.list(owner_of("bob"))] == ["Bob's"]
    (rule,) = await accounts.style_rules.list("alice", page=0, page_size=10, detailed=True)
    assert (rule.name, rule.language, rule.version) == ("House style", "de", 1)
    assert rule.configured_rules == {"numbers": {"decimal_separator": "comma"}}
    assert [(i.label, i.source_language) for i in rule.custom_instructions or ()] == [
        ("Formal", None),
        ("From English", "en"),
    ]
    assert (await accounts.characters("alice"), await accounts.characters("bob")) == (1240, 77)
    await accounts.bill("alice", 10)
    assert await accounts.characters("alice") == 1250


async def check_jobs(database: Database, keys: dict[str, tuple[str, str]]) -> None:
    store = JobStore(database, retention_seconds=10 * 365 * 86_400)
    done_id, done_key = keys["done"]
    done = await store.authorize(done_id, done_key, ALICE)
    assert (done.status, done.owner, done.billed_to, done.filename) == (
        "done",
        ALICE,
        ALICE,
        "talk.srt",
    )
    assert await store.read_source(done) == b"1\n00:00:01,000 --> 00:00:02,000\nHello\n"
    assert await store.read_result(done) == b"1\n00:00:01,000 --> 00:00:02,000\nHallo\n"
    unfinished_id, unfinished_key = keys["unfinished"]
    (unfinished,) = await store.unfinished()
    assert unfinished.id == unfinished_id
    # Made without API keys: nobody's, so its key alone authorizes.
    assert (await store.authorize(unfinished_id, unfinished_key, "someone")).owner == ""
    assert (unfinished.status, unfinished.segments_done, unfinished.segments_total) == (
        "translating",
        2,
        3,
    )
    assert unfinished.options == {"glossary": {"Two": "Deux"}}
    # Translated before estimates: none known, none flagged.
    assert await store.translations(unfinished_id) == {
        0: SegmentTranslation("Un."),
        2: SegmentTranslation("Trois."),
    }
    assert await store.read_source(unfinished) == b"One.\n\nTwo.\n\nThree.\n"
    assert await store.count_by_status() == {"done": 1, "translating": 1}

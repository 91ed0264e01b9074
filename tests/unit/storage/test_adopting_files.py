"""Files the release before versioned migrations wrote (tests/fixtures/stores_before_migrations)
upgraded in place by each store's first revision, and read back whole through today's stores;
the per-job folders, their files now in the database, removed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from translate_server.documents.store import JobStore
from translate_server.storage.migrate import head, upgrade
from translate_server.storage.opening import StoreDatabases, migrated_database

from tests.support.adopted import (
    check_accounts,
    check_jobs,
    check_memories,
    copy_of_fixtures,
    job_keys,
)
from tests.support.databases import locations_at


async def test_files_of_the_release_before_are_adopted_with_nothing_lost(tmp_path: Path) -> None:
    folder = copy_of_fixtures(tmp_path / "data")
    keys = job_keys(folder)
    assert all((folder / "documents" / job_id).is_dir() for job_id, _ in keys.values())
    databases = StoreDatabases(locations_at(f"sqlite:///{folder}", folder / "documents"))
    try:
        await check_memories(await databases.migrated("memory"))
        await check_accounts(await databases.migrated("accounts"))
        await check_jobs(await databases.migrated("jobs"), keys)
    finally:
        await databases.close()
    assert not any((folder / "documents" / job_id).exists() for job_id, _ in keys.values())
    with sqlite3.connect(folder / "memories.sqlite3") as connection:
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master")}
    connection.close()
    assert not any(name.startswith("memory_index_") for name in tables)  # FTS5's, dropped


async def test_an_adopted_file_is_not_migrated_again(tmp_path: Path) -> None:
    folder = copy_of_fixtures(tmp_path / "data")
    databases = StoreDatabases(locations_at(f"sqlite:///{folder}", folder / "documents"))
    try:
        for store in ("memory", "accounts", "jobs"):
            first = await upgrade(databases.database(store), store, document_dir=folder)
            again = await upgrade(databases.database(store), store, document_dir=folder)
            assert (first.before, first.after) == (None, head(store))
            assert (again.before, again.after, again.migrated) == (head(store), head(store), False)
    finally:
        await databases.close()


async def test_a_jobs_file_made_before_billing_is_adopted(tmp_path: Path) -> None:
    folder = copy_of_fixtures(tmp_path / "data")
    path = folder / "documents" / "jobs.sqlite3"
    with sqlite3.connect(path) as connection:  # as a release before billing left it
        connection.execute("ALTER TABLE jobs DROP COLUMN billed_to")
    connection.close()
    async with migrated_database(path, "jobs", document_dir=path.parent) as database:
        store = JobStore(database, retention_seconds=10 * 365 * 86_400)
        done_id, _ = job_keys(folder)["done"]
        job = await store.get(done_id)
        assert job is not None and job.billed_to is None and job.status == "done"
        assert await store.read_result(job) == b"1\n00:00:01,000 --> 00:00:02,000\nHallo\n"

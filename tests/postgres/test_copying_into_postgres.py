"""`translate-server db copy`: an SQLite data folder written by the release before versioned
migrations copied into PostgreSQL, read back whole through the stores there; copied again,
nothing is added twice."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from translate_server.memory.entries import Entry
from translate_server.memory.store import MemoryStore
from translate_server.storage.opening import migrated_database

from tests.support.adopted import (
    check_accounts,
    check_jobs,
    check_memories,
    copy_of_fixtures,
    job_keys,
)
from tests.support.postgres import Cluster


async def _db(*arguments: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "translate_server.cli",
        "db",
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()


def _counts(output: str) -> dict[str, tuple[int, int, int]]:
    """table -> (rows, copied, already there), from the copy's report."""
    counts = {}
    for line in output.splitlines():
        if " rows, " in line:
            table, rest = line.strip().split(": ", 1)
            rows, copied, present = (int(part.split()[0]) for part in rest.split(", "))
            counts[table] = (rows, copied, present)
    return counts


async def test_a_data_folder_is_copied_whole_and_a_second_copy_adds_nothing(
    postgres: Cluster, tmp_path: Path
) -> None:
    folder = copy_of_fixtures(tmp_path / "data")
    keys = job_keys(folder)
    target = postgres.new_database()
    code, output = await _db("copy", "--from", str(folder), "--to", target)
    assert code == 0, output
    first = _counts(output)
    assert first["memory_entries"] == (6, 6, 0) and first["document_files"] == (3, 3, 0)
    assert first["deepl_glossary_dictionaries"] == (4, 4, 0) and first["deepl_usage"] == (2, 2, 0)
    # key_revision's one row is made by the migration on both sides: present, not copied.
    assert first.pop("key_revision") == (1, 0, 1)
    assert all(rows == copied for rows, copied, _ in first.values()), first

    async with migrated_database(target, "memory") as database:
        await check_memories(database)  # adds an entry to Alice's memory
    async with migrated_database(target, "accounts") as database:
        await check_accounts(database)  # bills Alice 10 more characters
    async with migrated_database(target, "jobs") as database:
        await check_jobs(database, keys)

    code, output = await _db("copy", "--from", str(folder), "--to", target)
    assert code == 0, output
    again = _counts(output)
    assert set(again) == set(first) | {"key_revision"}
    assert all(copied == 0 and present == rows for rows, copied, present in again.values())
    async with migrated_database(target, "memory") as database:
        store = MemoryStore(database)  # ids go on after the copied ones
        made = await store.create("", "new")
        merged = await store.add("", made.id, [Entry("New one", "Neu", "en", "de")], 10)
        assert merged is not None and merged.added == 1


async def test_a_copy_into_a_database_of_other_memories_is_refused(
    postgres: Cluster, tmp_path: Path
) -> None:
    target = postgres.new_database()
    async with migrated_database(target, "memory") as database:
        await MemoryStore(database).create("", "someone else's")
    folder = copy_of_fixtures(tmp_path / "data")
    code, output = await _db("copy", "--from", str(folder), "--to", target)
    assert code == 1
    assert "copy into an empty database" in output


async def test_a_copy_from_nowhere_is_an_error(postgres: Cluster, tmp_path: Path) -> None:
    code, output = await _db("copy", "--from", str(tmp_path / "missing"), "--to", postgres.url())
    assert code == 1 and "no such folder" in output

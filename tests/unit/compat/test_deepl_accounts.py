"""DeepL usage and glossaries in their database: kept per key, as digests, across opens, on
both backends (`backend`); a file of a release that kept a glossary's one pair in its own row
adopted by the first migration."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import select

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.owners import owner_of
from translate_server.storage.account_tables import deepl_usage
from translate_server.storage.opening import StoreDatabases, migrated_database

from tests.support.databases import locations_at

OLDER_GLOSSARIES = """
CREATE TABLE deepl_glossaries (
    glossary_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    source_lang TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    creation_time TEXT NOT NULL,
    entries TEXT NOT NULL
);
"""


@asynccontextmanager
async def opened(location: str, tmp_path: Path) -> AsyncIterator[DeepLAccounts]:
    databases = StoreDatabases(locations_at(location, tmp_path / "documents"))
    try:
        yield DeepLAccounts.over(await databases.migrated("accounts"))
    finally:
        await databases.close()


async def test_usage_is_counted_per_key_across_opens(
    database_location: str, tmp_path: Path
) -> None:
    async with opened(database_location, tmp_path) as accounts:
        await accounts.bill("alice", 5)
        await accounts.bill("alice", 7)
        await accounts.bill("bob", 3)
    async with opened(database_location, tmp_path) as reopened:
        assert (await reopened.characters("alice"), await reopened.characters("bob")) == (12, 3)
        assert await reopened.characters("carol") == 0
        owners = await reopened.database.read(
            lambda c: set(c.execute(select(deepl_usage.c.owner)).scalars())
        )
    assert owners == {owner_of("alice"), owner_of("bob")}
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("glossaries.sqlite3*"))
    assert b"alice" not in stored and b"bob" not in stored


async def test_usage_counted_at_once_loses_nothing(database_location: str, tmp_path: Path) -> None:
    # Two servers (two engines, two pools) billing one key at once: every count is kept.
    async with (
        opened(database_location, tmp_path) as one,
        opened(database_location, tmp_path) as two,
    ):
        await asyncio.gather(*(server.bill("alice", 1) for server in (one, two) * 100))
        assert await one.characters("alice") == 200


async def test_a_database_made_before_dictionaries_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "glossaries.sqlite3"
    with sqlite3.connect(path) as connection:  # as an older release made it
        connection.executescript(OLDER_GLOSSARIES)
        connection.execute(
            "INSERT INTO deepl_glossaries VALUES ('g1', ?, 'Pets', 'en', 'de', "
            "'2025-01-01T00:00:00Z', '{\"cat\": \"Katze\"}')",
            (owner_of("alice"),),
        )
    connection.close()
    async with migrated_database(path, "accounts") as database:
        accounts = DeepLAccounts.over(database)
        await accounts.bill("alice", 4)
        assert await accounts.characters("alice") == 4
        alice = owner_of("alice")
        (glossary,) = await accounts.glossaries.list(alice)
        assert (glossary.name, glossary.revision) == ("Pets", 1)
        # Its one pair moved into its dictionary, its entries counted: both APIs see it.
        assert await accounts.glossaries.entries(alice, "g1", "en", "de") == {"cat": "Katze"}
        assert [(d.source_lang, d.target_lang, d.entry_count) for d in glossary.dictionaries] == [
            ("en", "de", 1)
        ]
    # Opened again: the move is not made twice, and a dictionary deleted stays deleted.
    async with migrated_database(path, "accounts") as database:
        await DeepLAccounts.over(database).glossaries.delete_dictionary(alice, "g1", "en", "de")
    async with migrated_database(path, "accounts") as database:
        described = await DeepLAccounts.over(database).glossaries.describe(alice, "g1")
        assert described.revision == 2  # the deletion raised it
        assert described.dictionaries == []
    with sqlite3.connect(path) as connection:
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    connection.close()
    assert tables == {
        "alembic_version_accounts",
        "deepl_glossaries",
        "deepl_glossary_dictionaries",
        "deepl_usage",
        "deepl_style_rules",
        "accounts",
        "api_keys",
        "audit_log",
        "key_revision",
        # The limits' and usage's, made by a later revision.
        "limit_buckets",
        "limit_quotas",
        "usage_counts",
        # The answers kept for an Idempotency-Key, made by the revision after.
        "idempotent_answers",
    }

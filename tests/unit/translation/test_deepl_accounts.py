"""DeepL usage and glossaries in their SQLite file: kept per key, as digests, across opens."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.compat.deepl.database import Database
from translate_server.compat.deepl.glossaries import GLOSSARY_SCHEMA, GlossaryStore


async def test_usage_is_counted_per_key_across_opens(tmp_path: Path) -> None:
    path = tmp_path / "deepl.sqlite3"
    accounts = DeepLAccounts.open(path)
    await accounts.bill("alice", 5)
    await accounts.bill("alice", 7)
    await accounts.bill("bob", 3)
    reopened = DeepLAccounts.open(path)
    assert (await reopened.characters("alice"), await reopened.characters("bob")) == (12, 3)
    assert await reopened.characters("carol") == 0
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("deepl.sqlite3*"))
    assert b"alice" not in stored and b"bob" not in stored


async def test_a_database_made_before_usage_gains_its_table(tmp_path: Path) -> None:
    path = tmp_path / "glossaries.sqlite3"
    older = GlossaryStore(Database(path, GLOSSARY_SCHEMA))  # as an older release made it
    await older.create("alice", "Pets", "en", "de", {"cat": "Katze"})
    accounts = DeepLAccounts.open(path)
    await accounts.bill("alice", 4)
    assert await accounts.characters("alice") == 4
    assert [g.name for g in await accounts.glossaries.list("alice")] == ["Pets"]
    with sqlite3.connect(path) as connection:
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    assert tables == {"deepl_glossaries", "deepl_usage", "deepl_style_rules"}

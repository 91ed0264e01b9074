"""DeepL usage and glossaries in their SQLite file: kept per key, as digests, across opens."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.owners import owner_of

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
    with sqlite3.connect(path) as connection:  # as an older release made it
        connection.executescript(OLDER_GLOSSARIES)
        connection.execute(
            "INSERT INTO deepl_glossaries VALUES ('g1', ?, 'Pets', 'en', 'de', "
            "'2025-01-01T00:00:00Z', '{\"cat\": \"Katze\"}')",
            (owner_of("alice"),),
        )
    connection.close()
    accounts = DeepLAccounts.open(path)
    await accounts.bill("alice", 4)
    assert await accounts.characters("alice") == 4
    assert [g.name for g in await accounts.glossaries.list("alice")] == ["Pets"]
    # Its one pair moved into its dictionary: both APIs see it.
    assert await accounts.glossaries.entries_for("alice", "g1", "EN", "DE") == {"cat": "Katze"}
    (v3,) = await accounts.glossaries.list_v3("alice")
    assert [(d.source_lang, d.target_lang, d.entry_count) for d in v3.dictionaries] == [
        ("en", "de", 1)
    ]
    await accounts.close()
    # Opened again: the move is not made twice, and a dictionary deleted stays deleted.
    again = DeepLAccounts.open(path)
    await again.glossaries.delete_dictionary("alice", "g1", "en", "de")
    await again.close()
    third = DeepLAccounts.open(path)
    assert (await third.glossaries.describe("alice", "g1")).dictionaries == []
    await third.close()
    with sqlite3.connect(path) as connection:
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    assert tables == {
        "deepl_glossaries",
        "deepl_glossary_dictionaries",
        "deepl_usage",
        "deepl_style_rules",
    }

"""The characters billed to each API key (its owner digest) in the DeepL database
(database.py): its translated texts and documents, counted across restarts."""

from __future__ import annotations

from translate_server.compat.deepl.database import Database

USAGE_SCHEMA = """
CREATE TABLE IF NOT EXISTS deepl_usage (
    owner TEXT PRIMARY KEY,
    characters INTEGER NOT NULL
);
"""


class UsageStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def add(self, owner: str, characters: int) -> None:
        # One statement: concurrent requests of one key each add theirs, none lost.
        await self.database.run(
            "INSERT INTO deepl_usage (owner, characters) VALUES (?, ?) ON CONFLICT (owner) "
            "DO UPDATE SET characters = characters + excluded.characters",
            owner,
            characters,
        )

    async def characters(self, owner: str) -> int:
        rows = await self.database.run("SELECT characters FROM deepl_usage WHERE owner = ?", owner)
        return rows[0][0] if rows else 0

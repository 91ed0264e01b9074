"""The characters billed to each API key (its owner digest, `owners`) in the DeepL accounts'
database: its translated texts and documents, counted across restarts and replicas."""

from __future__ import annotations

from sqlalchemy import select

from translate_server.storage.account_tables import deepl_usage
from translate_server.storage.database import Database


class UsageStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def add(self, owner: str, characters: int) -> None:
        # One statement (an upsert adding to the count in place): concurrent requests of one
        # key, on any replica, each add theirs and none is lost.
        insert = self.database.insert(deepl_usage).values(owner=owner, characters=characters)
        upsert = insert.on_conflict_do_update(
            index_elements=["owner"],
            set_={"characters": deepl_usage.c.characters + insert.excluded.characters},
        )
        await self.database.write(lambda c: c.execute(upsert))

    async def characters(self, owner: str) -> int:
        query = select(deepl_usage.c.characters).where(deepl_usage.c.owner == owner)
        found = await self.database.read(lambda c: c.execute(query).scalar())
        return int(found or 0)

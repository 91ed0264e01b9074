"""One account for each owner of what the other stores hold (memories, document jobs), made at
start: their owners are the digests of the keys that made them, as they were before accounts
existed. The accounts store's own revision adopts the owners of its tables (glossaries, style
rules, usage); the memories and jobs may live in other databases (SQLite's files), so they are
read here. The account keeps the digest as its id: nothing stored moves."""

from __future__ import annotations

from sqlalchemy import Table, select
from sqlalchemy.engine import Connection

from translate_server.accounts.store import AccountStore
from translate_server.storage.database import Database
from translate_server.storage.job_tables import document_jobs
from translate_server.storage.locations import Store
from translate_server.storage.memory_tables import memories, memory_jobs

OWNED: dict[Store, tuple[Table, ...]] = {
    "memory": (memories, memory_jobs),
    "jobs": (document_jobs,),
}


async def adopt_owners(store: AccountStore, databases: dict[Store, Database]) -> int:
    """How many accounts were made for the owners found in `databases` (by store name)."""
    owners: set[str] = set()
    for name, database in databases.items():

        def read(c: Connection, tables: tuple[Table, ...] = OWNED[name]) -> set[str]:
            return {
                owner
                for table in tables
                for (owner,) in c.execute(select(table.c.owner).distinct())
            }

        owners |= await database.read(read)
    return await store.adopt(owners)

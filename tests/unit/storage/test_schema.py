"""The tables the migrations make are the tables the stores use (storage/*_tables.py), on both
backends: a change to one without a revision for it fails here."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, text
from sqlalchemy.engine import Connection

from translate_server.storage import account_tables, job_tables, memory_tables
from translate_server.storage.locations import Store
from translate_server.storage.migrate import UnknownRevisionError, current, version_table
from translate_server.storage.opening import StoreDatabases

METADATA = {
    "memory": memory_tables.metadata,
    "accounts": account_tables.metadata,
    "jobs": job_tables.metadata,
}


@pytest.mark.parametrize("store", ["memory", "accounts", "jobs"])
async def test_the_migrated_schema_is_the_stores_schema(
    databases: StoreDatabases, store: Store
) -> None:
    database = await databases.migrated(store)
    metadata = METADATA[store]

    def differences(connection: Connection) -> list[object]:
        context = MigrationContext.configure(
            connection,
            opts={
                "compare_type": True,
                "compare_server_default": True,
                # On PostgreSQL the other stores' tables are in the same database.
                "include_name": lambda name, kind, _: kind != "table" or name in metadata.tables,
                "version_table": version_table(store),
            },
        )
        return list(compare_metadata(context, metadata))

    assert await database.read(differences) == []


def test_every_table_belongs_to_one_store() -> None:
    names = [set(metadata.tables) for metadata in METADATA.values()]
    assert sum(len(n) for n in names) == len(set().union(*names))
    assert all(isinstance(m, MetaData) for m in METADATA.values())


@pytest.mark.parametrize("store", ["memory", "accounts", "jobs"])
async def test_tables_a_newer_version_migrated_are_refused_by_name(
    databases: StoreDatabases, store: Store
) -> None:
    database = await databases.migrated(store)

    def stamp_a_revision_from_the_future(connection: Connection) -> None:
        connection.execute(text(f"UPDATE {version_table(store)} SET version_num = '9999'"))

    await database.write(stamp_a_revision_from_the_future)
    with pytest.raises(UnknownRevisionError) as refused:
        await databases.migrated(store)
    assert refused.value.found == "9999"
    assert f"the {store} tables are at schema revision 9999" in str(refused.value)
    assert await current(database, store) == "9999"  # left as it was found

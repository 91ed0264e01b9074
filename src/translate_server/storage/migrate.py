"""Versioned migrations: each store has its own Alembic history (`migrations/<store>/`) and
version table (`alembic_version_<store>`), so the SQLite backend keeps three files and
PostgreSQL holds every store's tables in one database.

`upgrade` runs under a lock, so that replicas starting at once migrate once: the others wait,
then find the schema at its head. PostgreSQL: an advisory lock per store; SQLite: a lock on the
database file itself (flock, which SQLite's own POSIX locks do not see).
"""

from __future__ import annotations

import asyncio
import fcntl
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from translate_server.storage.database import Database, migration_engine
from translate_server.storage.locations import STORES, Store

MIGRATIONS = Path(__file__).parent / "migrations"
# pg_advisory_lock's first key: this service's migrations; the second: the store's number.
_LOCK_CLASS = 0x7472616E  # "tran"


@dataclass(frozen=True)
class Upgraded:
    store: Store
    before: str | None  # the revision found; None: a database without this store's tables
    after: str | None

    @property
    def migrated(self) -> bool:
        return self.before != self.after


@dataclass
class _Run:
    """What a migration run is given and hands back (Alembic's `config.attributes`)."""

    document_dir: Path | None = None
    # Per-job folders whose files a migration moved into the database: removed once the
    # migration has committed.
    adopted_folders: list[Path] = field(default_factory=list)


def version_table(store: Store) -> str:
    return f"alembic_version_{store}"


def head(store: Store) -> str | None:
    return ScriptDirectory.from_config(_config(store)).get_current_head()


async def upgrade(
    database: Database, store: Store, *, document_dir: Path | None = None
) -> Upgraded:
    """`store`'s tables in `database` brought to the head revision, under the lock."""
    run = _Run(document_dir)
    with database.unavailable_as_error():
        engine = migration_engine(database)
        try:
            async with _locked(engine, store, database) as connection:
                before = await connection.run_sync(_revision, store)
                await connection.run_sync(_upgrade, store, run)
                after = await connection.run_sync(_revision, store)
        finally:
            if engine is not database.writer:
                await engine.dispose()
    for folder in run.adopted_folders:
        shutil.rmtree(folder, ignore_errors=True)
    return Upgraded(store, before, after)


async def current(database: Database, store: Store) -> str | None:
    with database.unavailable_as_error():
        async with database.reader.connect() as connection:
            return await connection.run_sync(_revision, store)


async def upgrade_all(databases: dict[Store, Database], document_dir: Path) -> list[Upgraded]:
    return [
        await upgrade(databases[store], store, document_dir=document_dir)
        for store in STORES
        if store in databases
    ]


@asynccontextmanager
async def _locked(
    engine: AsyncEngine, store: Store, database: Database
) -> AsyncIterator[AsyncConnection]:
    if database.dialect == "postgresql":
        async with engine.connect() as connection:
            key = {"a": _LOCK_CLASS, "b": STORES.index(store)}
            await connection.execute(text("SELECT pg_advisory_lock(:a, :b)"), key)
            await connection.commit()
            try:
                yield connection
            finally:
                await connection.rollback()
                await connection.execute(text("SELECT pg_advisory_unlock(:a, :b)"), key)
                await connection.commit()
        return
    path = Path(str(database.url.database))
    # Made empty where missing: SQLite takes an empty file as a new database.
    with await asyncio.to_thread(path.open, "ab") as locked:
        await asyncio.to_thread(fcntl.flock, locked, fcntl.LOCK_EX)
        try:
            async with engine.connect() as connection:
                yield connection
        finally:
            fcntl.flock(locked, fcntl.LOCK_UN)


def _config(store: Store, connection: Connection | None = None, run: _Run | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS / store))
    config.attributes.update(connection=connection, store=store, run=run or _Run())
    return config


def _revision(connection: Connection, store: Store) -> str | None:
    context = MigrationContext.configure(connection, opts={"version_table": version_table(store)})
    return context.get_current_revision()


def _upgrade(connection: Connection, store: Store, run: _Run) -> None:
    command.upgrade(_config(store, connection, run), "head")
    if connection.in_transaction():
        connection.commit()


def run_migrations() -> None:
    """What every store's `env.py` runs: its revisions, on the connection `upgrade` passed."""
    from alembic import context

    attributes: dict[str, Any] = context.config.attributes
    connection: Connection = attributes["connection"]
    context.configure(
        connection=connection,
        version_table=version_table(attributes["store"]),
        transaction_per_migration=False,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_of_migration() -> _Run:
    """Inside a revision: what its run was given (the document folder) and hands back."""
    from alembic import context

    run: _Run = context.config.attributes["run"]
    return run

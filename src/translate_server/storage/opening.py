"""The stores' databases as the app and the `db` commands open them: where each one is
(`locations`), its engines (`engines.Storage`), and its tables migrated to the head revision
before a store uses them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import structlog

from translate_server.errors import StorageUnavailableError
from translate_server.settings import Settings
from translate_server.storage.database import Database
from translate_server.storage.engines import Storage
from translate_server.storage.locations import (
    Locations,
    Store,
    database_url,
    locations,
    shown,
    sqlite_url,
)
from translate_server.storage.migrate import UnknownRevisionError, upgrade

log = structlog.get_logger(__name__)


class StoreDatabases:
    """The databases of one process's stores; `close` disposes of their engines."""

    def __init__(self, where: Locations) -> None:
        self.where = where
        self.storage = Storage()

    @classmethod
    def of(cls, settings: Settings) -> StoreDatabases:
        """Raises BadDatabaseUrlError for a --database-url that is not one."""
        return cls(locations(settings))

    def database(self, store: Store) -> Database:
        """`store`'s database, not migrated (nor even connected to) yet."""
        return self.storage.database(self.where.of(store))

    async def migrated(self, store: Store) -> Database:
        """`store`'s database with its tables at the head revision. A database that cannot be
        reached raises StorageUnavailableError, naming it (password hidden)."""
        database = self.database(store)
        try:
            upgraded = await upgrade(database, store, document_dir=self.where.document_dir)
        except StorageUnavailableError as failed:
            log.error("database_unavailable", store=store, url=failed.url, reason=failed.reason)
            raise
        except UnknownRevisionError as newer:
            log.error("database_newer_than_code", url=shown(database.url), reason=str(newer))
            raise
        if upgraded.migrated:
            log.info(
                "database_migrated",
                store=store,
                url=shown(database.url),
                before=upgraded.before,
                after=upgraded.after,
            )
        return database

    async def close(self) -> None:
        await self.storage.close()


@asynccontextmanager
async def migrated_database(
    where: str | Path, store: Store, *, document_dir: Path | None = None
) -> AsyncIterator[Database]:
    """One store's database, migrated, for a tool or a test: `where` is a database URL
    (postgresql://..., sqlite:///...) or an SQLite file's path."""
    url = sqlite_url(where) if isinstance(where, Path) else database_url(where)
    storage = Storage()
    try:
        database = storage.database(url)
        await upgrade(database, store, document_dir=document_dir)
        yield database
    finally:
        await storage.close()

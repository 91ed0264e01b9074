"""The stores' databases as the app and the `db` commands open them: where each one is
(`locations`), its engines (`engines.Storage`), and its tables migrated to the head revision
before a store uses them."""

from __future__ import annotations

import asyncio
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

# Seconds a database may take to answer readiness's probe: a partition would otherwise hold
# the probe for the whole connect timeout.
PROBE_SECONDS = 2.0


class StoreDatabases:
    """The databases of one process's stores; `close` disposes of their engines."""

    def __init__(self, where: Locations) -> None:
        self.where = where
        self.storage = Storage()
        self.stores: list[Store] = []  # migrated, in the order they were

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
        if store not in self.stores:
            self.stores.append(store)
        if upgraded.migrated:
            log.info(
                "database_migrated",
                store=store,
                url=shown(database.url),
                before=upgraded.before,
                after=upgraded.after,
            )
        return database

    async def unreachable(self) -> dict[Store, str]:
        """The stores whose database does not answer now, and why (each database probed once,
        however many stores it holds)."""
        answers: dict[str, str | None] = {}
        for store in self.stores:
            url = self.where.of(store).render_as_string(hide_password=False)
            if url not in answers:
                answers[url] = await _probe(self.database(store))
        found: dict[Store, str] = {}
        for store in self.stores:
            reason = answers[self.where.of(store).render_as_string(hide_password=False)]
            if reason is not None:
                found[store] = reason
        return found

    async def close(self) -> None:
        await self.storage.close()


async def _probe(database: Database) -> str | None:
    """Why `database` does not answer now, or None where it does."""
    try:
        async with asyncio.timeout(PROBE_SECONDS):
            await database.ping()
    except StorageUnavailableError as lost:
        log.warning("database_unavailable", url=lost.url, reason=lost.reason)
        return lost.reason
    except TimeoutError:
        log.warning("database_unavailable", url=database.shown_url, reason="no answer")
        return f"no answer within {PROBE_SECONDS:g} s"
    return None


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

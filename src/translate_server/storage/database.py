"""One store's database, whichever backend holds it: `read()` and `write()` hand out a
connection in a transaction, and turn the database's absence into StorageUnavailableError.

SQLite (aiosqlite): a file in WAL mode. Writes go through one connection, each transaction
begun IMMEDIATE (the write lock taken first: a read-then-write transaction in WAL mode would
otherwise fail outright, not wait, when another writer commits in between); reads through a
pool of their own, so a long import never holds up a lookup. PostgreSQL (psycopg 3): one pool
for both, connections pinged before use so a restarted server is reconnected to by itself;
a write that reads before it writes locks its rows (`for_update`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Table, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from translate_server.errors import StorageUnavailableError
from translate_server.storage.locations import shown

# Seconds a connection attempt, or a wait for SQLite's write lock, may take.
CONNECT_TIMEOUT = 10
SQLITE_BUSY_TIMEOUT = 30
SQLITE_READERS = 4
POSTGRES_POOL = 10


class Database:
    def __init__(self, url: URL, writer: AsyncEngine, reader: AsyncEngine) -> None:
        self.url = url
        self.writer = writer
        self.reader = reader

    @property
    def dialect(self) -> str:
        return self.url.get_backend_name()

    @property
    def shown_url(self) -> str:
        return shown(self.url)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reading; its transaction is rolled back at the end."""
        with self.unavailable_as_error():
            async with self.reader.connect() as connection:
                yield connection

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a transaction, committed when the block ends (rolled back where it
        raised)."""
        with self.unavailable_as_error():
            async with self.writer.begin() as connection:
                yield connection

    def unavailable_as_error(self) -> _Unavailable:
        return _Unavailable(self.shown_url)

    def insert(self, table: Table) -> Any:
        """An INSERT that takes `.on_conflict_do_update(...)` / `.on_conflict_do_nothing()`:
        both backends spell ON CONFLICT alike, SQLAlchemy in one module per dialect."""
        if self.dialect == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)


class _Unavailable:
    """Turns what means "the database is not there" into StorageUnavailableError."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _: Any) -> None:
        if exc is None or isinstance(exc, StorageUnavailableError):
            return
        if unavailable(exc):
            raise StorageUnavailableError(self.url, _reason(exc)) from exc


def unavailable(exc: BaseException) -> bool:
    """Whether `exc` says the database cannot be reached (or its file opened), rather than
    that a statement was wrong."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(
        exc, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError | OSError
    )


def _reason(exc: BaseException) -> str:
    original = getattr(exc, "orig", None) or exc
    return (str(original).strip().splitlines() or [type(original).__name__])[0]


def open_engines(url: URL) -> tuple[AsyncEngine, AsyncEngine]:
    """(writer, reader) for `url`: two engines on SQLite, one on PostgreSQL."""
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url, writer=True), _sqlite_engine(url, writer=False)
    engine = create_async_engine(
        url,
        pool_pre_ping=True,
        pool_size=POSTGRES_POOL,
        max_overflow=POSTGRES_POOL,
        pool_timeout=CONNECT_TIMEOUT,
        connect_args={"connect_timeout": CONNECT_TIMEOUT},
    )
    return engine, engine


def migration_engine(database: Database) -> AsyncEngine:
    """The engine migrations run on. SQLite's has foreign keys off, as its documentation
    asks for a table rebuilt (with them on, dropping the old table would delete, by cascade,
    the rows that reference it); a connection of its own, since the setting cannot change
    inside a transaction."""
    if database.dialect != "sqlite":
        return database.writer
    return _sqlite_engine(database.url, writer=True, foreign_keys=False, pooled=False)


def _sqlite_engine(
    url: URL, *, writer: bool, foreign_keys: bool = True, pooled: bool = True
) -> AsyncEngine:
    pool: dict[str, Any] = (
        {
            "pool_size": 1 if writer else SQLITE_READERS,
            "max_overflow": 0,
            # A writer waits its turn behind an import of 100,000 entries.
            "pool_timeout": 300 if writer else SQLITE_BUSY_TIMEOUT,
        }
        if pooled
        else {"poolclass": NullPool}
    )
    engine = create_async_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT}, **pool)
    begin = "BEGIN IMMEDIATE" if writer else "BEGIN"

    @event.listens_for(engine.sync_engine, "connect")
    def connect(connection: Any, _: Any) -> None:
        connection.isolation_level = None  # transactions begun below, not by the driver
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint; fast commits
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def begin_transaction(connection: Any) -> None:
        connection.exec_driver_sql(begin)

    return engine

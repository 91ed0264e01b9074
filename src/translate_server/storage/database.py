"""One store's database, whichever backend holds it. A store's work is a plain function over a
SQLAlchemy Core connection (`work(connection) -> result`), written once for both backends;
`read(work)` and `write(work)` run it in a transaction and turn the database's absence into
StorageUnavailableError.

PostgreSQL (psycopg 3, asynchronous): the work runs on the event loop (SQLAlchemy's `run_sync`:
each statement awaits the server without a thread), from one pool whose connections are
pinged before use, so a restarted server is reconnected to by itself. A write that reads
before it writes locks its rows (`with_for_update`).

SQLite (the standard library's driver): the work runs on a worker thread, a whole store call
per thread hop. aiosqlite would hop threads at every statement: 1.4 ms a statement against
0.27 ms a call here, on this project's busy 2-core machines (ARCHITECTURE.md, "Storage").
Writes go through one connection on one thread, each transaction begun IMMEDIATE (the write
lock taken first: a read-then-write transaction in WAL mode would otherwise fail outright,
not wait, when another writer commits in between); reads through connections and threads of
their own, so a long import never holds up a lookup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import Engine, Table, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool
from sqlalchemy.util import await_

from translate_server.errors import StorageUnavailableError
from translate_server.storage.locations import shown

T = TypeVar("T")
Work = Callable[[Connection], T]

# Seconds a connection attempt, or a wait for SQLite's write lock, may take.
CONNECT_TIMEOUT = 10
SQLITE_BUSY_TIMEOUT = 30
SQLITE_READERS = 4
POSTGRES_POOL = 10


class Database:
    """A store's handle on its database; the engines are the `Storage`'s, shared by every
    store in the same database."""

    def __init__(self, url: URL, engines: Engines) -> None:
        self.url = url
        self.engines = engines

    @property
    def dialect(self) -> str:
        return self.url.get_backend_name()

    @property
    def shown_url(self) -> str:
        return shown(self.url)

    async def read(self, work: Work[T]) -> T:
        """`work`'s result, in a transaction that is rolled back after it."""
        with self.unavailable_as_error():
            return await self.engines.run(work, write=False)

    async def write(self, work: Work[T]) -> T:
        """`work`'s result, its transaction committed (rolled back where it raised)."""
        with self.unavailable_as_error():
            return await self.engines.run(work, write=True)

    def unavailable_as_error(self) -> _Unavailable:
        return _Unavailable(self.shown_url)

    def insert(self, table: Table) -> Any:
        """An INSERT that takes `.on_conflict_do_update(...)` / `.on_conflict_do_nothing()`:
        both backends spell ON CONFLICT alike, SQLAlchemy in one module per dialect."""
        if self.dialect == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)


def bulk_insert(
    c: Connection,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[tuple[Any, ...]],
    *,
    on_conflict: str = "",
) -> None:
    """`rows` inserted at once, handed to the driver as they are: SQLAlchemy's per-row
    parameter handling costs more than the insert itself at a million rows (an import of
    100,000 entries posts about that many words). On PostgreSQL a plain insert is a COPY,
    5 times faster than psycopg's executemany (200,000 rows: 2.9 s against 14.3 s on this
    project's busy machines); SQLite's executemany is its own bulk path. `on_conflict` is SQL
    both backends speak alike (`ON CONFLICT (...) DO ...`)."""
    if not rows:
        return
    listed = ", ".join(columns)
    if c.dialect.name == "postgresql" and not on_conflict:
        _copy_rows(c, f"COPY {table.name} ({listed}) FROM STDIN", rows)
        return
    mark = "?" if c.dialect.paramstyle == "qmark" else "%s"
    marks = ", ".join([mark] * len(columns))
    c.exec_driver_sql(
        f"INSERT INTO {table.name} ({listed}) VALUES ({marks}) {on_conflict}", list(rows)
    )


def _copy_rows(c: Connection, statement: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """COPY through psycopg's own connection, inside the transaction: the work runs in
    SQLAlchemy's greenlet (`run_sync`), where `await_` drives the driver's coroutines."""
    driver = c.connection.driver_connection

    async def copy() -> None:
        async with driver.cursor() as cursor, cursor.copy(statement) as copying:  # type: ignore[union-attr]
            for row in rows:
                await copying.write_row(row)

    await_(copy())


class Engines:
    """How work reaches one database: see the module's docstring."""

    async def run(self, work: Work[T], *, write: bool) -> T:
        raise NotImplementedError

    async def migrate(self, work: Work[T]) -> T:
        """`work` on a connection of its own, outside any transaction (it begins and commits
        its own), as migrations need one."""
        raise NotImplementedError

    async def dispose(self) -> None:
        raise NotImplementedError


class PostgresEngines(Engines):
    def __init__(self, url: URL) -> None:
        self.engine: AsyncEngine = create_async_engine(
            url,
            pool_pre_ping=True,
            pool_size=POSTGRES_POOL,
            max_overflow=POSTGRES_POOL,
            pool_timeout=CONNECT_TIMEOUT,
            connect_args={"connect_timeout": CONNECT_TIMEOUT},
        )

    async def run(self, work: Work[T], *, write: bool) -> T:
        if write:
            async with self.engine.begin() as connection:
                return await connection.run_sync(work)
        async with self.engine.connect() as connection:
            return await connection.run_sync(work)

    async def migrate(self, work: Work[T]) -> T:
        async with self.engine.connect() as connection:
            return await connection.run_sync(work)

    async def dispose(self) -> None:
        await self.engine.dispose()


class SqliteEngines(Engines):
    def __init__(self, url: URL) -> None:
        self.url = url
        self.writer = _sqlite_engine(self.url, writer=True)
        self.reader = _sqlite_engine(self.url, writer=False)
        self._writing = ThreadPoolExecutor(1, thread_name_prefix="store-write")
        self._reading = ThreadPoolExecutor(SQLITE_READERS, thread_name_prefix="store-read")

    async def run(self, work: Work[T], *, write: bool) -> T:
        engine, thread = (self.writer, self._writing) if write else (self.reader, self._reading)

        def run() -> T:
            if write:
                with engine.begin() as connection:
                    return work(connection)
            with engine.connect() as connection:
                return work(connection)

        return await asyncio.get_running_loop().run_in_executor(thread, run)

    async def migrate(self, work: Work[T]) -> T:
        # Foreign keys off, as SQLite's documentation asks for a table rebuilt (with them on,
        # dropping the old table would delete, by cascade, the rows that reference it); on a
        # connection of its own, since the setting cannot change inside a transaction.
        engine = _sqlite_engine(self.url, writer=True, foreign_keys=False)

        def run() -> T:
            try:
                with engine.connect() as connection:
                    return work(connection)
            finally:
                engine.dispose()

        return await asyncio.get_running_loop().run_in_executor(self._writing, run)

    async def dispose(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._writing, self.writer.dispose)
        await loop.run_in_executor(self._reading, self.reader.dispose)
        self._writing.shutdown(wait=True)
        self._reading.shutdown(wait=True)


def open_engines(url: URL) -> Engines:
    if url.get_backend_name() == "sqlite":
        return SqliteEngines(url)
    return PostgresEngines(url)


def _sqlite_engine(url: URL, *, writer: bool, foreign_keys: bool = True) -> Engine:
    # As many connections as threads use them (a migration's: one, not kept).
    pool: dict[str, Any] = (
        {"pool_size": 1 if writer else SQLITE_READERS, "max_overflow": 0}
        if foreign_keys
        else {"poolclass": NullPool}
    )
    engine = create_engine(
        url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT, "check_same_thread": False}, **pool
    )
    begin = "BEGIN IMMEDIATE" if writer else "BEGIN"

    @event.listens_for(engine, "connect")
    def connect(connection: Any, _: Any) -> None:
        connection.isolation_level = None  # transactions begun below, not by the driver
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint; fast commits
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin_transaction(connection: Any) -> None:
        connection.exec_driver_sql(begin)

    return engine


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

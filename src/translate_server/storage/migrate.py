"""Versioned migrations: each store has its own Alembic history (`migrations/<store>/`) and
version table (`alembic_version_<store>`), so the SQLite backend keeps three files and
PostgreSQL holds every store's tables in one database.

`upgrade` runs under a lock, so that replicas starting at once migrate once: the others wait,
then find the schema at its head. PostgreSQL: an advisory lock per store; SQLite: a lock on the
database file itself (flock, which SQLite's own POSIX locks do not see).
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from translate_server.storage.database import Database
from translate_server.storage.locations import STORES, Store

MIGRATIONS = Path(__file__).parent / "migrations"
# pg_advisory_lock's first key: this service's migrations; the second: the store's number.
_LOCK_CLASS = 0x7472616E  # "tran"


class UnknownRevisionError(Exception):
    """The store's tables are at a revision this code does not have: a newer translate-server
    migrated them. Upgrading again from here could only guess, so the server does not start."""

    def __init__(self, store: Store, found: str, known: str | None) -> None:
        super().__init__(
            f"the {store} tables are at schema revision {found}, which this version of "
            f"translate-server does not know (its newest is {known}): a newer version migrated "
            "them. Run that version, or point this one at another database."
        )
        self.store = store
        self.found = found


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
    path = Path(str(database.url.database)) if database.dialect == "sqlite" else None

    def migrate(connection: Connection) -> Upgraded:
        with _locked(connection, store, path):
            before = _revision(connection, store)
            _known_or_raise(store, before)
            command.upgrade(_config(store, connection, run), "head")
            connection.commit()
            return Upgraded(store, before, _revision(connection, store))

    with database.unavailable_as_error():
        upgraded = await database.engines.migrate(migrate)
    for folder in run.adopted_folders:
        shutil.rmtree(folder, ignore_errors=True)
    return upgraded


async def current(database: Database, store: Store) -> str | None:
    return await database.read(lambda connection: _revision(connection, store))


async def upgrade_all(databases: dict[Store, Database], document_dir: Path) -> list[Upgraded]:
    return [
        await upgrade(databases[store], store, document_dir=document_dir)
        for store in STORES
        if store in databases
    ]


@contextmanager
def _locked(connection: Connection, store: Store, path: Path | None) -> Iterator[None]:
    """The store's migration lock, held while the block runs (its work commits inside)."""
    if path is None:
        key = {"a": _LOCK_CLASS, "b": STORES.index(store)}
        connection.execute(text("SELECT pg_advisory_lock(:a, :b)"), key)
        connection.commit()
        try:
            yield
        finally:
            connection.rollback()
            connection.execute(text("SELECT pg_advisory_unlock(:a, :b)"), key)
            connection.commit()
        return
    # Made empty where missing: SQLite takes an empty file as a new database.
    with path.open("ab") as locked:
        fcntl.flock(locked, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(locked, fcntl.LOCK_UN)


def _config(store: Store, connection: Connection | None = None, run: _Run | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS / store))
    config.attributes.update(connection=connection, store=store, run=run or _Run())
    return config


def _known_or_raise(store: Store, revision: str | None) -> None:
    script = ScriptDirectory.from_config(_config(store))
    if revision is not None and revision not in {each.revision for each in script.walk_revisions()}:
        raise UnknownRevisionError(store, revision, script.get_current_head())


def _revision(connection: Connection, store: Store) -> str | None:
    context = MigrationContext.configure(connection, opts={"version_table": version_table(store)})
    return context.get_current_revision()


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

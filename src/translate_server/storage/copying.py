"""`translate-server db copy`: every store's rows from one backend into another (an SQLite data
folder into PostgreSQL, as a deployment moves to several replicas). Both sides are migrated
to the head revision first, so the source's files are adopted in place where a release before
versioned migrations wrote them, and both have the same tables.

Idempotent: a row whose key the target has already is left as it is, so a copy run again (or
after an interrupted one) adds only what is missing, and says per table how many rows it
copied and how many were there already. Each store is copied in one transaction of the
target's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, func, select, text

from translate_server.storage import account_tables, job_tables, memory_tables
from translate_server.storage.database import Database, SqliteEngines
from translate_server.storage.locations import Store

# Each store's tables, a referenced table before the tables that reference it.
TABLES: dict[Store, tuple[Table, ...]] = {
    "memory": tuple(memory_tables.metadata.sorted_tables),
    "accounts": tuple(account_tables.metadata.sorted_tables),
    "jobs": tuple(job_tables.metadata.sorted_tables),
}
_BATCH_ROWS = 2000
_BATCH_BYTES = 32 * 2**20  # document files are up to 10 MiB each


class CopyConflictError(Exception):
    """The target holds other rows under the same keys: not a copy of this source."""


@dataclass(frozen=True)
class Copied:
    table: str
    rows: int  # in the source
    copied: int  # new in the target
    present: int  # in the target already

    def __str__(self) -> str:
        return f"{self.table}: {self.rows} rows, {self.copied} copied, {self.present} already there"


async def copy_store(source: Database, target: Database, store: Store) -> list[Copied]:
    """`store`'s rows copied from `source` (SQLite) into `target`, both migrated by the
    caller. The source's file is read on the target's connection, within its transaction."""
    if not isinstance(source.engines, SqliteEngines):
        raise ValueError(f"db copy reads SQLite files, not {source.shown_url}")
    reader = source.engines.reader

    def copy(writing: Connection) -> list[Copied]:
        with reader.connect() as reading:
            if store == "memory":
                _check_memories(reading, writing)
            copied = [_copy_table(reading, writing, target, table) for table in TABLES[store]]
        if target.dialect == "postgresql":
            _advance_sequences(writing, TABLES[store])
        return copied

    with source.unavailable_as_error():
        return await target.write(copy)


def _copy_table(reading: Connection, writing: Connection, target: Database, table: Table) -> Copied:
    before = _count(writing, table)
    rows = 0
    insert = target.insert(table).on_conflict_do_nothing()
    for batch in _batches(reading, table):
        rows += len(batch)
        writing.execute(insert, batch)
    copied = _count(writing, table) - before
    return Copied(table.name, rows, copied, rows - copied)


def _batches(reading: Connection, table: Table) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    size = 0
    for row in reading.execute(select(table).order_by(*table.primary_key.columns)).mappings():
        batch.append(dict(row))
        size += sum(len(v) for v in row.values() if isinstance(v, bytes | str))
        if len(batch) >= _BATCH_ROWS or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _count(c: Connection, table: Table) -> int:
    return int(c.execute(select(func.count()).select_from(table)).scalar_one())


def _check_memories(reading: Connection, writing: Connection) -> None:
    """A memory's row id is the key of its entries: the target's memory of the same id must
    be the same memory, or its entries would be mixed with another's."""
    memories = memory_tables.memories
    theirs = dict(writing.execute(select(memories.c.id, memories.c.public_id)).all())
    if not theirs:
        return
    for memory_id, public_id in reading.execute(select(memories.c.id, memories.c.public_id)):
        if theirs.get(memory_id, public_id) != public_id:
            raise CopyConflictError(
                f"the target's memory {memory_id} is {theirs[memory_id]}, the source's "
                f"{public_id}: copy into an empty database (or one this source was copied to)"
            )


def _advance_sequences(writing: Connection, tables: tuple[Table, ...]) -> None:
    """Rows copied with their ids leave PostgreSQL's sequences behind them: the next id each
    hands out must follow the largest copied."""
    for table in tables:
        if _serial(table):
            name = next(iter(table.primary_key.columns)).name
            writing.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', '{name}'), "
                    f"coalesce((SELECT max({name}) FROM {table.name}), 0) + 1, false)"
                )
            )


def _serial(table: Table) -> bool:
    """An integer primary key of one column: PostgreSQL made it SERIAL."""
    key = list(table.primary_key.columns)
    return len(key) == 1 and key[0].type.python_type is int

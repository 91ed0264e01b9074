"""What the first revision of each store shares: adopting the tables that the release before
versioned migrations made (`CREATE TABLE IF NOT EXISTS` at every start). Its tables are set
aside under another name, the revision's own are made, the rows are copied across (changed
where the schema changed) and the old tables dropped, all in the migration's transaction."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

SET_ASIDE = "{}_before"
BATCH = 2000


def set_aside(tables: Sequence[str], indexes: Sequence[str] = ()) -> set[str]:
    """Those of `tables` that exist, renamed out of the way (with their `indexes` dropped,
    whose names the new tables take); the names of those found."""
    present = set(sa.inspect(op.get_bind()).get_table_names())
    found = {name for name in tables if name in present}
    for name in indexes:
        op.execute(f"DROP INDEX IF EXISTS {name}")
    for name in found:
        op.rename_table(name, SET_ASIDE.format(name))
    return found


def columns(table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(op.get_bind()).get_columns(SET_ASIDE.format(table))}


def rows(table: str, names: Sequence[str], order: str, start: Any) -> Iterator[dict[str, Any]]:
    """The set-aside table's rows, in `order` (a unique column whose values all follow
    `start`), read a batch at a time."""
    bind = op.get_bind()
    listed = ", ".join(names)
    query = sa.text(
        f"SELECT {listed} FROM {SET_ASIDE.format(table)} WHERE {order} > :after "
        f"ORDER BY {order} LIMIT {BATCH}"
    )
    after = start
    while True:
        batch = [dict(row._mapping) for row in bind.execute(query, {"after": after})]
        yield from batch
        if len(batch) < BATCH:
            return
        after = batch[-1][order]


def insert(table: sa.Table, values: Iterable[dict[str, Any]]) -> int:
    """`values` inserted a batch at a time; how many."""
    bind, count, batch = op.get_bind(), 0, []
    for value in values:
        batch.append(value)
        if len(batch) == BATCH:
            bind.execute(table.insert(), batch)
            count, batch = count + len(batch), []
    if batch:
        bind.execute(table.insert(), batch)
    return count + len(batch)


def drop_set_aside(tables: Iterable[str]) -> None:
    for name in tables:
        op.drop_table(SET_ASIDE.format(name))

"""The memory store's tables; a file from the release before versioned migrations adopted.

That release found fuzzy candidates in an FTS5 table per memory (`memory_index_<id>`); here
the words of each entry are rows of `memory_postings` (a plain table, the same on SQLite and
PostgreSQL) and their counts in `memory_words` are rebuilt with the same word folding. Entries
gain the digest of their match key, by which they are unique.

Revision ID: 0001
Revises: -
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from translate_server.storage.migrations.adopting import (
    columns,
    drop_set_aside,
    insert,
    rows,
    set_aside,
)
from translate_server.text.words import index_words, key_digest

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TABLES = ("memories", "memory_entries", "memory_words", "memory_jobs")
ENTRY = (
    "id", "memory", "source_key", "target_key", "key", "source_lang", "target_lang", "source",
    "target", "note",
)  # fmt: skip
MEMORY = ("id", "public_id", "owner", "name", "entries", "revision", "created", "updated")


def upgrade() -> None:
    found = set_aside(TABLES, indexes=("memories_by_owner",))
    memories, entries, words, postings, jobs = _create()
    if "memories" in found:
        insert(memories, rows("memories", MEMORY, "id", -1))
    if "memory_entries" in found:
        counts: Counter[tuple[int, str]] = Counter()
        made: list[dict[str, Any]] = []
        insert(entries, _entries(made))
        insert(postings, _postings(made, counts))
        insert(words, ({"memory": m, "word": w, "entries": n} for (m, w), n in counts.items()))
    if "memory_jobs" in found:
        names = sorted(columns("memory_jobs"))
        insert(jobs, rows("memory_jobs", names, "job_id", ""))
    drop_set_aside(found)
    _drop_full_text_indexes()


def _entries(made: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for row in rows("memory_entries", ENTRY, "id", -1):
        row["key_digest"] = key_digest(row["key"])
        made.append({"memory": row["memory"], "entry": row["id"], "key": row["key"]})
        yield row


def _postings(
    made: list[dict[str, Any]], counts: Counter[tuple[int, str]]
) -> Iterator[dict[str, Any]]:
    for entry in made:
        for word in index_words(entry["key"]):
            counts[entry["memory"], word] += 1
            yield {"memory": entry["memory"], "word": word, "entry": entry["entry"]}


def _drop_full_text_indexes() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    names = bind.execute(
        sa.text(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB "
            "'memory_index_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
        )
    ).scalars()
    for name in list(names):
        op.execute(f'DROP TABLE "{name}"')  # its shadow tables go with it


def _create() -> tuple[sa.Table, ...]:
    memories = op.create_table(
        "memories",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.Text, nullable=False, unique=True),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("entries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created", sa.Double, nullable=False),
        sa.Column("updated", sa.Double, nullable=False),
    )
    op.create_index("memories_by_owner", "memories", ["owner"])
    entries = op.create_table(
        "memory_entries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "memory", sa.Integer, sa.ForeignKey("memories.id", ondelete="CASCADE"), nullable=False
        ),
        *(sa.Column(name, sa.Text, nullable=False) for name in ENTRY[2:5]),
        sa.Column("key_digest", sa.Text, nullable=False),
        *(sa.Column(name, sa.Text, nullable=False) for name in ENTRY[5:9]),
        sa.Column("note", sa.Text),
        sa.UniqueConstraint(
            "memory", "source_key", "target_key", "key_digest", name="memory_entry_key"
        ),
    )
    words = op.create_table(
        "memory_words",
        sa.Column("memory", sa.Integer, nullable=False),
        sa.Column("word", sa.Text, nullable=False),
        sa.Column("entries", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("memory", "word"),
        sqlite_with_rowid=False,
    )
    postings = op.create_table(
        "memory_postings",
        sa.Column("memory", sa.Integer, nullable=False),
        sa.Column("word", sa.Text, nullable=False),
        sa.Column("entry", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("memory", "word", "entry"),
        sqlite_with_rowid=False,
    )
    jobs = op.create_table(
        "memory_jobs",
        sa.Column("job_id", sa.Text, primary_key=True),
        *(sa.Column(name, sa.Text, nullable=False) for name in ("owner", "operation", "status")),
        sa.Column("token", sa.Text, nullable=False, unique=True),
        *(sa.Column(n, sa.Text) for n in ("memory", "display_name", "file_name", "content_type")),
        sa.Column("content_length", sa.Integer),
        sa.Column("error", sa.Text),
        sa.Column("skipped", sa.Integer),
        *(sa.Column(name, sa.Double, nullable=False) for name in ("created", "updated", "expires")),
    )
    return memories, entries, words, postings, jobs

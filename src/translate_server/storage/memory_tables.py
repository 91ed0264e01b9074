"""The memory store's tables: memories, their entries, the word index that finds fuzzy
candidates (`memory.matching`), and DeepL's import and export jobs."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

memories = Table(
    "memories",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("public_id", Text, nullable=False, unique=True),
    Column("owner", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("entries", Integer, nullable=False, server_default="0"),
    Column("revision", Integer, nullable=False, server_default="0"),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
    Index("memories_by_owner", "owner"),
)

# An entry is unique per memory, language pair and match key; the key itself may be long (a
# paragraph), beyond what a B-tree index entry holds, so its SHA-256 digest is what is indexed.
memory_entries = Table(
    "memory_entries",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("memory", Integer, ForeignKey("memories.id", ondelete="CASCADE"), nullable=False),
    Column("source_key", Text, nullable=False),
    Column("target_key", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("key_digest", Text, nullable=False),
    Column("source_lang", Text, nullable=False),
    Column("target_lang", Text, nullable=False),
    Column("source", Text, nullable=False),
    Column("target", Text, nullable=False),
    Column("note", Text),
    UniqueConstraint("memory", "source_key", "target_key", "key_digest", name="memory_entry_key"),
)

# Per memory, how many entries hold each word: a lookup asks its rarest words first.
memory_words = Table(
    "memory_words",
    metadata,
    Column("memory", Integer, nullable=False),
    Column("word", Text, nullable=False),
    Column("entries", Integer, nullable=False),
    PrimaryKeyConstraint("memory", "word"),
    sqlite_with_rowid=False,
)

# Per memory and word, the entries holding it, read in entry order.
memory_postings = Table(
    "memory_postings",
    metadata,
    Column("memory", Integer, nullable=False),
    Column("word", Text, nullable=False),
    Column("entry", Integer, nullable=False),
    PrimaryKeyConstraint("memory", "word", "entry"),
    sqlite_with_rowid=False,
)

memory_jobs = Table(
    "memory_jobs",
    metadata,
    Column("job_id", Text, primary_key=True),
    Column("owner", Text, nullable=False),
    Column("operation", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("token", Text, nullable=False, unique=True),
    Column("memory", Text),
    Column("display_name", Text),
    Column("file_name", Text),
    Column("content_type", Text),
    Column("content_length", Integer),
    Column("error", Text),
    Column("skipped", Integer),
    Column("created", Double, nullable=False),
    Column("updated", Double, nullable=False),
    Column("expires", Double, nullable=False),
)

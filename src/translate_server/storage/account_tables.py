"""The accounts' tables: glossaries and their dictionaries (one per language pair), DeepL's
style rules, and the characters billed to each key. Owners are key digests (`owners`)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
)

metadata = MetaData()

deepl_glossaries = Table(
    "deepl_glossaries",
    metadata,
    Column("glossary_id", Text, primary_key=True),
    Column("owner", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("creation_time", Text, nullable=False),
    # Raised by every change to its dictionaries: what a translation's compiled index of the
    # glossary is kept under, so an edit is never answered from an index made before it.
    Column("revision", Integer, nullable=False, server_default="1"),
    Index("deepl_glossaries_owner", "owner"),
)

deepl_glossary_dictionaries = Table(
    "deepl_glossary_dictionaries",
    metadata,
    Column(
        "glossary_id",
        Text,
        ForeignKey("deepl_glossaries.glossary_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("source_lang", Text, nullable=False),
    Column("target_lang", Text, nullable=False),
    Column("entries", Text, nullable=False),  # JSON: {source term: target term}
    # Its entries counted when written: listing glossaries reads no entries.
    Column("entry_count", Integer, nullable=False, server_default="0"),
    PrimaryKeyConstraint("glossary_id", "source_lang", "target_lang"),
)

deepl_style_rules = Table(
    "deepl_style_rules",
    metadata,
    Column("style_id", Text, primary_key=True),
    Column("owner", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("language", Text, nullable=False),
    Column("creation_time", Text, nullable=False),
    Column("updated_time", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("configured_rules", Text, nullable=False),  # JSON
    Column("custom_instructions", Text, nullable=False),  # JSON
    Index("deepl_style_rules_owner", "owner"),
)

deepl_usage = Table(
    "deepl_usage",
    metadata,
    Column("owner", Text, primary_key=True),
    Column("characters", BigInteger, nullable=False),
)

# The limits' shared state (`limits.store`): each rate limit's bucket as the time it is next
# empty (GCRA's theoretical arrival time, seconds since the epoch), and each monthly quota's
# characters reserved by the replicas. Subjects are `key:<id>` and `account:<name>`.
limit_buckets = Table(
    "limit_buckets",
    metadata,
    Column("subject", Text, nullable=False),
    Column("measure", Text, nullable=False),  # "requests" or "characters"
    Column("tat", Double, nullable=False),
    PrimaryKeyConstraint("subject", "measure"),
)

limit_quotas = Table(
    "limit_quotas",
    metadata,
    Column("subject", Text, nullable=False),
    Column("month", Text, nullable=False),  # YYYY-MM, UTC
    Column("used", BigInteger, nullable=False),
    PrimaryKeyConstraint("subject", "month"),
)

# What was used, per account, key, day (UTC), route and language pair: added to by each
# replica's flush of what it counted in memory.
usage_counts = Table(
    "usage_counts",
    metadata,
    Column("account", Text, nullable=False),
    Column("key_id", Text, nullable=False),
    Column("day", Text, nullable=False),  # YYYY-MM-DD, UTC
    Column("route", Text, nullable=False),
    Column("source_lang", Text, nullable=False),  # "" where none applies
    Column("target_lang", Text, nullable=False),
    Column("requests", BigInteger, nullable=False),
    Column("characters", BigInteger, nullable=False),
    Column("tokens", BigInteger, nullable=False),
    Column("documents", BigInteger, nullable=False),
    PrimaryKeyConstraint("account", "key_id", "day", "route", "source_lang", "target_lang"),
    Index("usage_counts_day", "day"),
)

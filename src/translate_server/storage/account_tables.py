"""The accounts' tables: glossaries and their dictionaries (one per language pair), DeepL's
style rules, the characters billed to each key, and the answers kept for an
`Idempotency-Key`. Owners are key digests (`owners`)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
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

# The answers of requests sent with an `Idempotency-Key` (`http.idempotency`), per caller and
# key, kept a day: the same key and body again gets the first answer on any replica. A row
# without a status is a request still running, claimed until `claimed_until`.
idempotent_answers = Table(
    "idempotent_answers",
    metadata,
    Column("owner", Text, nullable=False),
    Column("idempotency_key", Text, nullable=False),
    Column("request_digest", Text, nullable=False),
    Column("status", Integer),
    Column("headers", Text),
    Column("body", LargeBinary),
    Column("created", Double, nullable=False),
    Column("claimed_until", Double, nullable=False),
    PrimaryKeyConstraint("owner", "idempotency_key"),
    Index("idempotent_answers_by_created", "created"),
)

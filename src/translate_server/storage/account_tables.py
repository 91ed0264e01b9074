"""The accounts' tables: glossaries and their dictionaries (one per language pair), DeepL's
style rules, the characters billed, the accounts that own them with their API keys, and the
answers kept for an `Idempotency-Key`."""

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

# The accounts that own what is stored (`owner` above is an account's id) and are billed, and
# their API keys. An account made from a static `--api-key`'s stored things has its key's
# digest for its id, so that key keeps what it made.
accounts = Table(
    "accounts",
    metadata,
    Column("account_id", Text, primary_key=True),
    Column("name", Text, nullable=False, unique=True),
    Column("limits", Text, nullable=False),  # JSON: limits.policy.Limits
    Column("created", BigInteger, nullable=False),  # Unix seconds
)

# Only a digest of each key: a key is shown once, when it is made.
api_keys = Table(
    "api_keys",
    metadata,
    Column("key_id", Text, primary_key=True),
    Column("digest", Text, nullable=False, unique=True),  # SHA-256 of the whole key, hex
    Column("prefix", Text, nullable=False),  # its first characters, to recognise it by
    Column("name", Text, nullable=False),
    Column(
        "account_id",
        Text,
        ForeignKey("accounts.account_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("scopes", Text, nullable=False),  # JSON: a list of scope names
    Column("limits", Text, nullable=False),  # JSON: limits.policy.Limits
    Column("created", BigInteger, nullable=False),
    # Unix seconds after which it is refused: its expiry, or the end of a rotation's grace.
    Column("expires", BigInteger),
    Column("last_used", BigInteger),  # written lazily, about once a minute
    Column("status", Text, nullable=False),  # "active", "rotated" or "revoked"
    Index("api_keys_account", "account_id"),
)

# Every change ever made to the accounts and keys, newest last; read, never rewritten.
audit_log = Table(
    "audit_log",
    metadata,
    Column("entry_id", Integer, primary_key=True, autoincrement=True),
    Column("at", BigInteger, nullable=False),  # Unix seconds
    Column("actor", Text, nullable=False),  # "cli", a key's id, or "admin-key"
    Column("origin", Text, nullable=False),  # the client's address, or the host the CLI ran on
    Column("action", Text, nullable=False),  # e.g. "keys.create"
    Column("target", Text, nullable=False),  # the account's or the key's id
    Column("detail", Text, nullable=False),  # JSON
)

# One row: raised by every change to accounts and keys, so that every replica's cache of
# them sees a change by reading one number.
key_revision = Table(
    "key_revision",
    metadata,
    Column("singleton", Integer, primary_key=True),
    Column("revision", BigInteger, nullable=False),
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

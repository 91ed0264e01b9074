"""Accounts and their API keys in the database, an audit log of changes to them, and one
account for each owner of what was stored before (a key's digest: the account keeps it as its
id, so nothing stored moves and a static `--api-key` keeps what it made).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

OWNED = ("deepl_glossaries", "deepl_style_rules", "deepl_usage")


def upgrade() -> None:
    accounts = op.create_table(
        "accounts",
        sa.Column("account_id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, unique=True),
        sa.Column("limits", sa.Text, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "api_keys",
        sa.Column("key_id", sa.Text, primary_key=True),
        sa.Column("digest", sa.Text, nullable=False, unique=True),
        sa.Column("prefix", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column(
            "account_id",
            sa.Text,
            sa.ForeignKey("accounts.account_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("scopes", sa.Text, nullable=False),
        sa.Column("limits", sa.Text, nullable=False),
        sa.Column("created", sa.BigInteger, nullable=False),
        sa.Column("expires", sa.BigInteger),
        sa.Column("last_used", sa.BigInteger),
        sa.Column("status", sa.Text, nullable=False),
    )
    op.create_index("api_keys_account", "api_keys", ["account_id"])
    op.create_table(
        "audit_log",
        sa.Column("entry_id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.BigInteger, nullable=False),
        *(sa.Column(name, sa.Text, nullable=False) for name in ("actor", "origin", "action")),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    revisions = op.create_table(
        "key_revision",
        sa.Column("singleton", sa.Integer, primary_key=True),
        sa.Column("revision", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(revisions, [{"singleton": 1, "revision": 1}])
    bind = op.get_bind()
    owners = sorted(
        {
            owner
            for table in OWNED
            for (owner,) in bind.execute(sa.text(f"SELECT DISTINCT owner FROM {table}"))
            if owner  # the shared owner of a server without keys is nobody's account
        }
    )
    now = int(time.time())
    op.bulk_insert(
        accounts,
        [
            {"account_id": owner, "name": adopted_name(owner), "limits": "{}", "created": now}
            for owner in owners
        ],
    )


def adopted_name(owner: str) -> str:
    """The name of the account made for what one key stored (the start of its digest)."""
    return f"key-{owner[:12]}"

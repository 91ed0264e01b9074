"""Limits and usage: each rate limit's bucket and each monthly quota shared by the replicas,
and the usage counted per account, key, day, route and language pair.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "limit_buckets",
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("measure", sa.Text(), nullable=False),
        sa.Column("tat", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("subject", "measure"),
    )
    op.create_table(
        "limit_quotas",
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("month", sa.Text(), nullable=False),
        sa.Column("used", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("subject", "month"),
    )
    op.create_table(
        "usage_counts",
        sa.Column("account", sa.Text(), nullable=False),
        sa.Column("key_id", sa.Text(), nullable=False),
        sa.Column("day", sa.Text(), nullable=False),
        sa.Column("route", sa.Text(), nullable=False),
        sa.Column("source_lang", sa.Text(), nullable=False),
        sa.Column("target_lang", sa.Text(), nullable=False),
        sa.Column("requests", sa.BigInteger(), nullable=False),
        sa.Column("characters", sa.BigInteger(), nullable=False),
        sa.Column("tokens", sa.BigInteger(), nullable=False),
        sa.Column("documents", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("account", "key_id", "day", "route", "source_lang", "target_lang"),
    )
    op.create_index("usage_counts_day", "usage_counts", ["day"])

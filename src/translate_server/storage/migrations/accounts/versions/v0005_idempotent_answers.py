"""The answers kept for requests sent with an `Idempotency-Key` (`http.idempotency`), in the
shared database, so that a replay reaching another replica gets the first answer.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotent_answers",
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("idempotency_key", sa.Text(), nullable=False),
        sa.Column("request_digest", sa.Text(), nullable=False),
        sa.Column("status", sa.Integer()),
        sa.Column("headers", sa.Text()),
        sa.Column("body", sa.LargeBinary()),
        sa.Column("created", sa.Double(), nullable=False),
        sa.Column("claimed_until", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("owner", "idempotency_key"),
    )
    op.create_index("idempotent_answers_by_created", "idempotent_answers", ["created"])

"""A translated segment's warnings, memory match and review (JSON), for a finished job's review
view; a segment translated before this has none (NULL).

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
    op.add_column("document_translations", sa.Column("details", sa.Text))

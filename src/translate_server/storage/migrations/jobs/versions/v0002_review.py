"""How far to trust a job's translations: each translated segment's quality estimate and
whether it needs review, and a finished job's count and report of the segments to review.
A job finished before this has neither (NULL): its status lists nothing to review.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("document_jobs", sa.Column("needs_review", sa.Integer))
    op.add_column("document_jobs", sa.Column("review", sa.Text))
    op.add_column("document_translations", sa.Column("estimate", sa.Double))
    op.add_column("document_translations", sa.Column("needs_review", sa.Boolean))

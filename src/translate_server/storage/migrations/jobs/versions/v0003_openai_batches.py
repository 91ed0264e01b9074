"""OpenAI's Files and Batches: the uploaded and written JSONL files, and the batches, whose
lines run as jobs of the document queue (their results in `document_translations` meanwhile).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "openai_files",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("filename", sa.Text, nullable=False),
        sa.Column("bytes", sa.Integer, nullable=False),
        sa.Column("lines", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    op.create_index("openai_files_owner", "openai_files", ["owner", "created_at"])
    op.create_table(
        "openai_batches",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("job_id", sa.Text),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("input_file_id", sa.Text, nullable=False),
        sa.Column("completion_window", sa.Text, nullable=False),
        sa.Column("metadata", sa.Text),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("completed", sa.Integer, nullable=False, server_default="0"),
        sa.Column("failed", sa.Integer, nullable=False, server_default="0"),
        sa.Column("output_file_id", sa.Text),
        sa.Column("error_file_id", sa.Text),
        sa.Column("errors", sa.Text),
        sa.Column("usage", sa.Text),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("expires_at", sa.Double, nullable=False),
        *(
            sa.Column(name, sa.Double)
            for name in (
                "in_progress_at",
                "finalizing_at",
                "completed_at",
                "failed_at",
                "cancelling_at",
                "cancelled_at",
                "expired_at",
            )
        ),
    )
    op.create_index("openai_batches_owner", "openai_batches", ["owner", "created_at"])
    op.create_index("openai_batches_job", "openai_batches", ["job_id"])

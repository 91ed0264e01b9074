"""Glossaries at the scale of a terminology base: a revision per glossary, raised by every
change (a translation's compiled index of it is kept under it), and each dictionary's entry
count kept beside its entries (listing glossaries parses none).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "deepl_glossaries",
        sa.Column("revision", sa.Integer(), nullable=False, server_default="1"),
    )
    op.add_column(
        "deepl_glossary_dictionaries",
        sa.Column("entry_count", sa.Integer(), nullable=False, server_default="0"),
    )
    dictionaries = sa.table(
        "deepl_glossary_dictionaries",
        sa.column("glossary_id", sa.Text()),
        sa.column("source_lang", sa.Text()),
        sa.column("target_lang", sa.Text()),
        sa.column("entries", sa.Text()),
        sa.column("entry_count", sa.Integer()),
    )
    bind = op.get_bind()
    d = dictionaries.c
    found = bind.execute(sa.select(d.glossary_id, d.source_lang, d.target_lang, d.entries)).all()
    for glossary_id, source, target, entries in found:
        bind.execute(
            sa.update(dictionaries)
            .where(d.glossary_id == glossary_id, d.source_lang == source, d.target_lang == target)
            .values(entry_count=len(json.loads(entries)))
        )

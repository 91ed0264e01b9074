"""The DeepL accounts' tables; a file from the release before versioned migrations adopted.

A glossary of a release before dictionaries kept its one language pair and its entries in its
own row; they become its dictionary (where it has none of that pair yet), and the row loses
those columns. A dictionary now belongs to its glossary (deleted with it).

Revision ID: 0001
Revises: -
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from translate_server.storage.migrations.adopting import (
    columns,
    drop_set_aside,
    insert,
    rows,
    set_aside,
)

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TABLES = ("deepl_glossaries", "deepl_glossary_dictionaries", "deepl_style_rules", "deepl_usage")
GLOSSARY = ("glossary_id", "owner", "name", "creation_time")
PAIR = ("glossary_id", "source_lang", "target_lang", "entries")
STYLE_RULE = (
    "style_id", "owner", "name", "language", "creation_time", "updated_time", "version",
    "configured_rules", "custom_instructions",
)  # fmt: skip


def upgrade() -> None:
    found = set_aside(TABLES, indexes=("deepl_glossaries_owner", "deepl_style_rules_owner"))
    glossaries, dictionaries, style_rules, usage = _create()
    if "deepl_glossaries" in found:
        legacy = {"source_lang", "entries"} <= columns("deepl_glossaries")
        kept = list(
            rows("deepl_glossaries", GLOSSARY + PAIR[1:] if legacy else GLOSSARY, "glossary_id", "")
        )
        insert(glossaries, ({name: row[name] for name in GLOSSARY} for row in kept))
        insert(dictionaries, _dictionaries(found, kept, legacy))
    if "deepl_style_rules" in found:
        insert(style_rules, rows("deepl_style_rules", STYLE_RULE, "style_id", ""))
    if "deepl_usage" in found:
        insert(usage, rows("deepl_usage", ("owner", "characters"), "owner", ""))
    drop_set_aside(found)


def _dictionaries(
    found: set[str], glossaries: list[dict[str, Any]], legacy: bool
) -> Iterator[dict[str, Any]]:
    known = {row["glossary_id"] for row in glossaries}
    seen = set()
    if "deepl_glossary_dictionaries" in found:
        bind = op.get_bind()
        listed = bind.execute(
            sa.text(
                "SELECT glossary_id, source_lang, target_lang, entries FROM "
                "deepl_glossary_dictionaries_before ORDER BY glossary_id, source_lang, target_lang"
            )
        )
        for listed_row in listed:
            pair = dict(listed_row._mapping)
            if pair["glossary_id"] in known:  # one whose glossary was deleted is left out
                seen.add((pair["glossary_id"], pair["source_lang"], pair["target_lang"]))
                yield pair
    if legacy:
        for row in glossaries:
            pair = {name: row[name] for name in PAIR}
            if pair["source_lang"] and tuple(pair[name] for name in PAIR[:3]) not in seen:
                yield pair


def _create() -> tuple[sa.Table, ...]:
    glossaries = op.create_table(
        "deepl_glossaries",
        sa.Column("glossary_id", sa.Text, primary_key=True),
        *(sa.Column(name, sa.Text, nullable=False) for name in GLOSSARY[1:]),
    )
    op.create_index("deepl_glossaries_owner", "deepl_glossaries", ["owner"])
    dictionaries = op.create_table(
        "deepl_glossary_dictionaries",
        sa.Column(
            "glossary_id",
            sa.Text,
            sa.ForeignKey("deepl_glossaries.glossary_id", ondelete="CASCADE"),
            nullable=False,
        ),
        *(sa.Column(name, sa.Text, nullable=False) for name in PAIR[1:]),
        sa.PrimaryKeyConstraint("glossary_id", "source_lang", "target_lang"),
    )
    style_rules = op.create_table(
        "deepl_style_rules",
        sa.Column("style_id", sa.Text, primary_key=True),
        *(sa.Column(name, sa.Text, nullable=False) for name in STYLE_RULE[1:6]),
        sa.Column("version", sa.Integer, nullable=False),
        *(sa.Column(name, sa.Text, nullable=False) for name in STYLE_RULE[7:]),
    )
    op.create_index("deepl_style_rules_owner", "deepl_style_rules", ["owner"])
    usage = op.create_table(
        "deepl_usage",
        sa.Column("owner", sa.Text, primary_key=True),
        sa.Column("characters", sa.BigInteger, nullable=False),
    )
    return glossaries, dictionaries, style_rules, usage

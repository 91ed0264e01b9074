"""DeepL glossaries kept per API key in the DeepL database (database.py): a glossary, and its
dictionaries, one per language pair.

Both APIs see the same glossaries, as DeepL's do: v3 (`/v3/glossaries`) all of them, v2
(`/v2/glossaries`) those of a single dictionary; either id is a `glossary_id` for
`/v2/translate` and `/v2/document`, which uses the dictionary of the request's pair.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
import uuid
from collections.abc import Sequence

from translate_server.compat.deepl.database import Database
from translate_server.compat.deepl.glossaries import (
    MAX_DICTIONARIES,
    DictionaryInfo,
    Glossary,
    GlossaryNotFoundError,
    MultilingualGlossary,
    StoredGlossary,
)
from translate_server.errors import InvalidRequestError
from translate_server.owners import owner_of
from translate_server.translation.planning.glossary import MAX_ENTRIES

# A glossary made before dictionaries kept its one pair and entries in its own row: they
# move into its dictionary once, and the row keeps empty strings in their place.
GLOSSARY_SCHEMA = """
CREATE TABLE IF NOT EXISTS deepl_glossaries (
    glossary_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    source_lang TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    creation_time TEXT NOT NULL,
    entries TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deepl_glossaries_owner ON deepl_glossaries (owner);
CREATE TABLE IF NOT EXISTS deepl_glossary_dictionaries (
    glossary_id TEXT NOT NULL,
    source_lang TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    entries TEXT NOT NULL,
    PRIMARY KEY (glossary_id, source_lang, target_lang)
);
BEGIN;
INSERT OR IGNORE INTO deepl_glossary_dictionaries
    SELECT glossary_id, source_lang, target_lang, entries FROM deepl_glossaries
    WHERE source_lang != '';
UPDATE deepl_glossaries SET source_lang = '', target_lang = '', entries = ''
    WHERE source_lang != '';
COMMIT;
"""
Dictionary = tuple[str, str, dict[str, str]]  # source, target, entries
MAX_GLOSSARY_IDS = 5  # DeepL's


class GlossaryStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def create(self, key: str, name: str, dictionaries: Sequence[Dictionary]) -> str:
        glossary_id, owner = str(uuid.uuid4()), owner_of(key)
        now = datetime.datetime.now(datetime.UTC)
        created = now.isoformat(timespec="microseconds").replace("+00:00", "Z")

        def work(connection: sqlite3.Connection) -> None:
            connection.execute(
                "INSERT INTO deepl_glossaries VALUES (?, ?, ?, '', '', ?, '')",
                (glossary_id, owner, name, created),
            )
            for source, target, entries in dictionaries:
                _put(connection, glossary_id, source, target, entries)

        await self.database.transact(work)
        return glossary_id

    async def create_v2(
        self, key: str, name: str, source_lang: str, target_lang: str, entries: dict[str, str]
    ) -> Glossary:
        glossary_id = await self.create(key, name, [(source_lang, target_lang, entries)])
        return (await self.get(key, glossary_id)).info

    async def describe(self, key: str, glossary_id: str) -> MultilingualGlossary:
        found = await self.list_v3(key, glossary_id)
        if not found:
            raise GlossaryNotFoundError
        return found[0]

    async def list_v3(self, key: str, glossary_id: str | None = None) -> list[MultilingualGlossary]:
        """The key's glossaries (or the one named), oldest first, with their dictionaries."""
        rows = await self.database.run(
            "SELECT g.glossary_id, g.name, g.creation_time, d.source_lang, d.target_lang, "
            "d.entries FROM deepl_glossaries g LEFT JOIN deepl_glossary_dictionaries d "
            "ON d.glossary_id = g.glossary_id WHERE g.owner = ? AND (? IS NULL OR "
            "g.glossary_id = ?) ORDER BY g.creation_time, g.glossary_id, d.source_lang, "
            "d.target_lang",
            owner_of(key),
            glossary_id,
            glossary_id,
        )
        glossaries: dict[str, MultilingualGlossary] = {}
        for found_id, name, created, source, target, entries in rows:
            glossary = glossaries.setdefault(
                found_id,
                MultilingualGlossary(
                    glossary_id=found_id, name=name, creation_time=created, dictionaries=[]
                ),
            )
            if source is not None:
                glossary.dictionaries.append(
                    DictionaryInfo(
                        source_lang=source, target_lang=target, entry_count=len(json.loads(entries))
                    )
                )
        return list(glossaries.values())

    async def list(self, key: str) -> list[Glossary]:
        """v2's list: the glossaries of one dictionary."""
        return [
            _v2(glossary) for glossary in await self.list_v3(key) if len(glossary.dictionaries) == 1
        ]

    async def get(self, key: str, glossary_id: str) -> StoredGlossary:
        """v2's view of a glossary: its one dictionary, entries and all."""
        glossary = await self.describe(key, glossary_id)
        if len(glossary.dictionaries) != 1:
            raise InvalidRequestError(
                f"This glossary has {len(glossary.dictionaries)} dictionaries; the v2 API "
                "serves glossaries of one language pair: use /v3/glossaries.",
                param="glossary_id",
            )
        (pair,) = glossary.dictionaries
        entries = await self.dictionary(key, glossary_id, pair.source_lang, pair.target_lang)
        return StoredGlossary(info=_v2(glossary), entries=entries)

    async def dictionary(
        self, key: str, glossary_id: str, source_lang: str, target_lang: str
    ) -> dict[str, str]:
        await self.describe(key, glossary_id)
        rows = await self.database.run(
            "SELECT entries FROM deepl_glossary_dictionaries WHERE glossary_id = ? AND "
            "source_lang = ? AND target_lang = ?",
            glossary_id,
            source_lang,
            target_lang,
        )
        if not rows:
            raise GlossaryNotFoundError(f"Dictionary {source_lang}-{target_lang}")
        entries: dict[str, str] = json.loads(rows[0][0])
        return entries

    async def entries_for(
        self, key: str, glossary_id: str | None, source_lang: str | None, target_lang: str
    ) -> dict[str, str] | None:
        """The entries of the key's glossary for a request naming it (None when it names
        none): its dictionary of the request's pair. As DeepL, a glossary needs
        `source_lang`."""
        if glossary_id is None:
            return None
        if source_lang is None:
            raise InvalidRequestError(
                "Use of a glossary requires the source_lang parameter to be specified.",
                param="source_lang",
            )
        glossary = await self.describe(key, glossary_id)
        pair = (source_lang.split("-")[0].lower(), target_lang.split("-")[0].lower())
        if pair not in {(d.source_lang, d.target_lang) for d in glossary.dictionaries}:
            raise InvalidRequestError(
                "The glossary's languages do not match source_lang and target_lang: it has "
                "no dictionary for that pair.",
                param="glossary_id",
            )
        return await self.dictionary(key, glossary_id, *pair)

    async def entries_of_all(
        self,
        key: str,
        glossary_id: str | None,
        glossary_ids: Sequence[str] | None,
        source_lang: str | None,
        target_lang: str,
    ) -> dict[str, str] | None:
        """`glossary_id`'s entries, or those of up to five `glossary_ids` applied in order
        (a term of an earlier glossary wins over a later one's)."""
        if not glossary_ids:
            return await self.entries_for(key, glossary_id, source_lang, target_lang)
        if glossary_id is not None:
            raise InvalidRequestError(
                "glossary_ids cannot be used together with glossary_id.", param="glossary_ids"
            )
        if len(glossary_ids) > MAX_GLOSSARY_IDS:
            raise InvalidRequestError(
                f"glossary_ids may name at most {MAX_GLOSSARY_IDS} glossaries.",
                param="glossary_ids",
            )
        merged: dict[str, str] = {}
        for one in glossary_ids:
            for term, required in (
                await self.entries_for(key, one, source_lang, target_lang) or {}
            ).items():
                merged.setdefault(term, required)
        return merged

    async def update(
        self, key: str, glossary_id: str, name: str | None, dictionaries: Sequence[Dictionary]
    ) -> None:
        """A new name, and entries merged into the dictionaries of their pairs (made where
        missing); an entry's new target replaces its old one."""
        owner = owner_of(key)

        def work(connection: sqlite3.Connection) -> None:
            _owned(connection, owner, glossary_id)
            if name is not None:
                connection.execute(
                    "UPDATE deepl_glossaries SET name = ? WHERE glossary_id = ?",
                    (name, glossary_id),
                )
            for source, target, entries in dictionaries:
                rows = connection.execute(
                    "SELECT entries FROM deepl_glossary_dictionaries WHERE glossary_id = ? "
                    "AND source_lang = ? AND target_lang = ?",
                    (glossary_id, source, target),
                ).fetchall()
                merged = {**(json.loads(rows[0][0]) if rows else {}), **entries}
                _put(connection, glossary_id, source, target, merged)

        await self.database.transact(work)

    async def replace(
        self, key: str, glossary_id: str, source: str, target: str, entries: dict[str, str]
    ) -> DictionaryInfo:
        owner = owner_of(key)

        def work(connection: sqlite3.Connection) -> None:
            _owned(connection, owner, glossary_id)
            _put(connection, glossary_id, source, target, entries)

        await self.database.transact(work)
        return DictionaryInfo(source_lang=source, target_lang=target, entry_count=len(entries))

    async def delete_dictionary(self, key: str, glossary_id: str, source: str, target: str) -> None:
        await self.dictionary(key, glossary_id, source, target)
        await self.database.run(
            "DELETE FROM deepl_glossary_dictionaries WHERE glossary_id = ? AND source_lang = ? "
            "AND target_lang = ?",
            glossary_id,
            source,
            target,
        )

    async def delete(self, key: str, glossary_id: str) -> None:
        owner = owner_of(key)

        def work(connection: sqlite3.Connection) -> None:
            _owned(connection, owner, glossary_id)
            connection.execute(
                "DELETE FROM deepl_glossary_dictionaries WHERE glossary_id = ?", (glossary_id,)
            )
            connection.execute("DELETE FROM deepl_glossaries WHERE glossary_id = ?", (glossary_id,))

        await self.database.transact(work)


def _owned(connection: sqlite3.Connection, owner: str, glossary_id: str) -> None:
    if not connection.execute(
        "SELECT 1 FROM deepl_glossaries WHERE owner = ? AND glossary_id = ?", (owner, glossary_id)
    ).fetchall():
        raise GlossaryNotFoundError


def _put(
    connection: sqlite3.Connection,
    glossary_id: str,
    source: str,
    target: str,
    entries: dict[str, str],
) -> None:
    if len(entries) > MAX_ENTRIES:
        raise InvalidRequestError(
            f"A dictionary may hold at most {MAX_ENTRIES} entries.", param="entries"
        )
    connection.execute(
        "INSERT INTO deepl_glossary_dictionaries VALUES (?, ?, ?, ?) ON CONFLICT "
        "(glossary_id, source_lang, target_lang) DO UPDATE SET entries = excluded.entries",
        (glossary_id, source, target, json.dumps(entries, ensure_ascii=False)),
    )
    (count,) = connection.execute(
        "SELECT COUNT(*) FROM deepl_glossary_dictionaries WHERE glossary_id = ?", (glossary_id,)
    ).fetchone()
    if count > MAX_DICTIONARIES:
        raise InvalidRequestError(
            f"A glossary may hold at most {MAX_DICTIONARIES} dictionaries.", param="dictionaries"
        )


def _v2(glossary: MultilingualGlossary) -> Glossary:
    (pair,) = glossary.dictionaries
    return Glossary(
        glossary_id=glossary.glossary_id,
        name=glossary.name,
        ready=True,
        source_lang=pair.source_lang,
        target_lang=pair.target_lang,
        creation_time=glossary.creation_time,
        entry_count=pair.entry_count,
    )

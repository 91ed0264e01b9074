"""DeepL glossaries, kept per API key in the DeepL database (database.py)."""

from __future__ import annotations

import csv
import datetime
import io
import json
import uuid
from typing import Any

import msgspec

from translate_server.compat.deepl.database import Database
from translate_server.errors import ApiError, InvalidRequestError
from translate_server.owners import owner_of
from translate_server.translation.glossary import MAX_ENTRIES, MAX_TERM_CHARS

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
"""
_SELECT = (
    "SELECT glossary_id, name, source_lang, target_lang, creation_time, entries "
    "FROM deepl_glossaries"
)


class GlossaryNotFoundError(ApiError):
    status_code = 404
    code = "glossary_not_found"

    def __init__(self) -> None:
        super().__init__("Glossary not found.", param="glossary_id")


class Glossary(msgspec.Struct, kw_only=True):
    glossary_id: str
    name: str
    ready: bool
    source_lang: str
    target_lang: str
    creation_time: str
    entry_count: int


class StoredGlossary(msgspec.Struct, kw_only=True):
    info: Glossary
    entries: dict[str, str]


def parse_entries(entries: str, entries_format: str) -> dict[str, str]:
    """DeepL's two formats: TSV (`source<TAB>target` per line) and CSV (`source,target`, and
    optionally the two languages after them)."""
    if entries_format == "tsv":
        rows = [line.split("\t") for line in entries.splitlines() if line.strip()]
    elif entries_format == "csv":
        rows = [row for row in csv.reader(io.StringIO(entries)) if any(c.strip() for c in row)]
    else:
        raise InvalidRequestError("entries_format must be `tsv` or `csv`.", param="entries_format")
    parsed: dict[str, str] = {}
    for number, row in enumerate(rows, 1):
        if len(row) < 2 or not row[0].strip() or not row[1].strip():
            raise InvalidRequestError(
                f"Entry {number} needs a source and a target term.", param="entries"
            )
        source, target = row[0].strip(), row[1].strip()
        if source in parsed:
            raise InvalidRequestError(
                f"Entry {number} duplicates the source term `{source}`.", param="entries"
            )
        if len(source) > MAX_TERM_CHARS or len(target) > MAX_TERM_CHARS:
            raise InvalidRequestError(
                f"Terms may be at most {MAX_TERM_CHARS} characters.", param="entries"
            )
        parsed[source] = target
    if not parsed:
        raise InvalidRequestError("A glossary needs at least one entry.", param="entries")
    if len(parsed) > MAX_ENTRIES:
        raise InvalidRequestError(
            f"A glossary may hold at most {MAX_ENTRIES} entries.", param="entries"
        )
    return parsed


def entries_tsv(entries: dict[str, str]) -> str:
    return "\n".join(f"{source}\t{target}" for source, target in entries.items())


class GlossaryStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def create(
        self, key: str, name: str, source_lang: str, target_lang: str, entries: dict[str, str]
    ) -> Glossary:
        now = datetime.datetime.now(datetime.UTC)
        info = Glossary(
            glossary_id=str(uuid.uuid4()),
            name=name,
            ready=True,
            source_lang=source_lang,
            target_lang=target_lang,
            creation_time=now.isoformat(timespec="microseconds").replace("+00:00", "Z"),
            entry_count=len(entries),
        )
        await self.database.run(
            "INSERT INTO deepl_glossaries VALUES (?, ?, ?, ?, ?, ?, ?)",
            info.glossary_id,
            owner_of(key),
            name,
            source_lang,
            target_lang,
            info.creation_time,
            json.dumps(entries, ensure_ascii=False),
        )
        return info

    async def list(self, key: str) -> list[Glossary]:
        rows = await self.database.run(
            f"{_SELECT} WHERE owner = ? ORDER BY creation_time", owner_of(key)
        )
        return [_stored(row).info for row in rows]

    async def get(self, key: str, glossary_id: str) -> StoredGlossary:
        rows = await self.database.run(
            f"{_SELECT} WHERE owner = ? AND glossary_id = ?", owner_of(key), glossary_id
        )
        if not rows:
            raise GlossaryNotFoundError
        return _stored(rows[0])

    async def entries_for(
        self, key: str, glossary_id: str | None, source_lang: str | None, target_lang: str
    ) -> dict[str, str] | None:
        """The entries of the key's glossary for a request naming it (None when it names
        none); as DeepL, a glossary needs `source_lang`, and its pair must be the request's."""
        if glossary_id is None:
            return None
        if source_lang is None:
            raise InvalidRequestError(
                "Use of a glossary requires the source_lang parameter to be specified.",
                param="source_lang",
            )
        stored = await self.get(key, glossary_id)
        pair = (source_lang.split("-")[0].lower(), target_lang.split("-")[0].lower())
        if pair != (stored.info.source_lang, stored.info.target_lang):
            raise InvalidRequestError(
                "The glossary's languages do not match source_lang and target_lang.",
                param="glossary_id",
            )
        return stored.entries

    async def delete(self, key: str, glossary_id: str) -> None:
        await self.get(key, glossary_id)
        await self.database.run(
            "DELETE FROM deepl_glossaries WHERE owner = ? AND glossary_id = ?",
            owner_of(key),
            glossary_id,
        )


def _stored(row: tuple[Any, ...]) -> StoredGlossary:
    glossary_id, name, source_lang, target_lang, creation_time, entries_json = row
    entries = json.loads(entries_json)
    return StoredGlossary(
        info=Glossary(
            glossary_id=glossary_id,
            name=name,
            ready=True,
            source_lang=source_lang,
            target_lang=target_lang,
            creation_time=creation_time,
            entry_count=len(entries),
        ),
        entries=entries,
    )

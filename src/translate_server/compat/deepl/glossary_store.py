"""DeepL glossaries kept per API key in the DeepL accounts' database: a glossary, and its
dictionaries, one per language pair.

Both APIs see the same glossaries, as DeepL's do: v3 (`/v3/glossaries`) all of them, v2
(`/v2/glossaries`) those of a single dictionary; either id is a `glossary_id` for
`/v2/translate` and `/v2/document`, which uses the dictionary of the request's pair.
"""

from __future__ import annotations

import datetime
import json
import uuid
from collections.abc import Sequence

from sqlalchemy import Connection, delete, func, select, update

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
from translate_server.storage.account_tables import deepl_glossaries, deepl_glossary_dictionaries
from translate_server.storage.database import Database
from translate_server.translation.planning.glossary import MAX_ENTRIES

Dictionary = tuple[str, str, dict[str, str]]  # source, target, entries
MAX_GLOSSARY_IDS = 5  # DeepL's


class GlossaryStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def create(self, key: str, name: str, dictionaries: Sequence[Dictionary]) -> str:
        glossary_id, owner = str(uuid.uuid4()), owner_of(key)
        now = datetime.datetime.now(datetime.UTC)
        created = now.isoformat(timespec="microseconds").replace("+00:00", "Z")

        def create(c: Connection) -> None:
            c.execute(
                deepl_glossaries.insert().values(
                    glossary_id=glossary_id, owner=owner, name=name, creation_time=created
                )
            )
            for source, target, entries in dictionaries:
                _put(c, self.database, glossary_id, source, target, entries)

        await self.database.write(create)
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
        g, d = deepl_glossaries.c, deepl_glossary_dictionaries.c
        query = (
            select(g.glossary_id, g.name, g.creation_time, d.source_lang, d.target_lang, d.entries)
            .select_from(deepl_glossaries.outerjoin(deepl_glossary_dictionaries))
            .where(g.owner == owner_of(key))
            .order_by(g.creation_time, g.glossary_id, d.source_lang, d.target_lang)
        )
        if glossary_id is not None:
            query = query.where(g.glossary_id == glossary_id)
        rows = await self.database.read(lambda c: c.execute(query).all())
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
        found = await self.database.read(
            lambda c: _entries(c, glossary_id, source_lang, target_lang)
        )
        if found is None:
            raise GlossaryNotFoundError(f"Dictionary {source_lang}-{target_lang}")
        return found

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

        def update_glossary(c: Connection) -> None:
            _owned(c, owner, glossary_id)
            if name is not None:
                c.execute(
                    update(deepl_glossaries)
                    .where(deepl_glossaries.c.glossary_id == glossary_id)
                    .values(name=name)
                )
            for source, target, entries in dictionaries:
                before = _entries(c, glossary_id, source, target)
                merged = {**(before or {}), **entries}
                _put(c, self.database, glossary_id, source, target, merged)

        await self.database.write(update_glossary)

    async def replace(
        self, key: str, glossary_id: str, source: str, target: str, entries: dict[str, str]
    ) -> DictionaryInfo:
        owner = owner_of(key)

        def replace(c: Connection) -> None:
            _owned(c, owner, glossary_id)
            _put(c, self.database, glossary_id, source, target, entries)

        await self.database.write(replace)
        return DictionaryInfo(source_lang=source, target_lang=target, entry_count=len(entries))

    async def delete_dictionary(self, key: str, glossary_id: str, source: str, target: str) -> None:
        await self.dictionary(key, glossary_id, source, target)
        d = deepl_glossary_dictionaries.c
        deleted = delete(deepl_glossary_dictionaries).where(
            d.glossary_id == glossary_id, d.source_lang == source, d.target_lang == target
        )
        await self.database.write(lambda c: c.execute(deleted))

    async def delete(self, key: str, glossary_id: str) -> None:
        owner = owner_of(key)

        def delete_glossary(c: Connection) -> None:
            _owned(c, owner, glossary_id)
            for table in (deepl_glossary_dictionaries, deepl_glossaries):
                c.execute(delete(table).where(table.c.glossary_id == glossary_id))

        await self.database.write(delete_glossary)


def _owned(c: Connection, owner: str, glossary_id: str) -> None:
    """The glossary is the owner's (else the 404), its row locked until the transaction ends
    (PostgreSQL: two changes to one glossary's dictionaries take turns)."""
    g = deepl_glossaries.c
    query = select(g.glossary_id).where(g.owner == owner, g.glossary_id == glossary_id)
    if c.execute(query.with_for_update()).first() is None:
        raise GlossaryNotFoundError


def _entries(c: Connection, glossary_id: str, source: str, target: str) -> dict[str, str] | None:
    d = deepl_glossary_dictionaries.c
    found = (
        c.execute(
            select(d.entries).where(
                d.glossary_id == glossary_id, d.source_lang == source, d.target_lang == target
            )
        )
    ).scalar()
    return None if found is None else dict(json.loads(found))


def _put(
    c: Connection,
    database: Database,
    glossary_id: str,
    source: str,
    target: str,
    entries: dict[str, str],
) -> None:
    if len(entries) > MAX_ENTRIES:
        raise InvalidRequestError(
            f"A dictionary may hold at most {MAX_ENTRIES} entries.", param="entries"
        )
    encoded = json.dumps(entries, ensure_ascii=False)
    insert = database.insert(deepl_glossary_dictionaries).values(
        glossary_id=glossary_id, source_lang=source, target_lang=target, entries=encoded
    )
    c.execute(
        insert.on_conflict_do_update(
            index_elements=["glossary_id", "source_lang", "target_lang"],
            set_={"entries": insert.excluded.entries},
        )
    )
    d = deepl_glossary_dictionaries.c
    count = c.execute(select(func.count()).where(d.glossary_id == glossary_id)).scalar_one()
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

"""Glossaries kept per owner (an API key's digest) in the accounts' database: a glossary, its
dictionaries, one per language pair, and each dictionary's entries.

Every surface sees the same glossaries: DeepL's v3 (`/v3/glossaries`) all of them, its v2
those of a single dictionary, our own API (`/glossaries`) and `glossary_id` on `/translate`
all of them. Every change to a glossary's dictionaries raises its revision, under which a
translation keeps the glossary's compiled index.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Sequence

from sqlalchemy import Connection, delete, func, select, update

from translate_server.errors import InvalidRequestError
from translate_server.glossaries.model import (
    MAX_DICTIONARIES,
    DictionaryInfo,
    GlossaryNotFoundError,
    GlossaryRecord,
    check_size,
)
from translate_server.storage.account_tables import deepl_glossaries, deepl_glossary_dictionaries
from translate_server.storage.database import Database
from translate_server.storage.row_ids import new_row_id

Dictionary = tuple[str, str, dict[str, str]]  # source, target, entries
# A change to one dictionary's entries: the entries before (None: no such dictionary yet) ->
# the entries after, or a 4xx raised.
Change = Callable[[dict[str, str] | None], dict[str, str]]


class GlossaryStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def create(self, owner: str, name: str, dictionaries: Sequence[Dictionary]) -> str:
        glossary_id = str(new_row_id())  # the tiebreaker of glossaries made in one tick
        created = _now()

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

    async def describe(self, owner: str, glossary_id: str) -> GlossaryRecord:
        """The glossary (a 404 for an unknown one or another owner's), without its entries."""
        found = await self.list(owner, glossary_id)
        if not found:
            raise GlossaryNotFoundError
        return found[0]

    async def list(self, owner: str, glossary_id: str | None = None) -> list[GlossaryRecord]:
        """The owner's glossaries (or the one named), oldest first, with their dictionaries."""
        g, d = deepl_glossaries.c, deepl_glossary_dictionaries.c
        query = (
            select(
                g.glossary_id,
                g.name,
                g.creation_time,
                g.revision,
                d.source_lang,
                d.target_lang,
                d.entry_count,
            )
            .select_from(deepl_glossaries.outerjoin(deepl_glossary_dictionaries))
            .where(g.owner == owner)
            .order_by(g.creation_time, g.glossary_id, d.source_lang, d.target_lang)
        )
        if glossary_id is not None:
            query = query.where(g.glossary_id == glossary_id)
        rows = await self.database.read(lambda c: c.execute(query).all())
        glossaries: dict[str, GlossaryRecord] = {}
        for found_id, name, created, revision, source, target, count in rows:
            glossary = glossaries.setdefault(
                found_id, GlossaryRecord(found_id, name, created, revision, [])
            )
            if source is not None:
                glossary.dictionaries.append(
                    DictionaryInfo(source_lang=source, target_lang=target, entry_count=count)
                )
        return list(glossaries.values())

    async def entries(
        self, owner: str, glossary_id: str, source_lang: str, target_lang: str
    ) -> dict[str, str]:
        """A dictionary's entries, in the order they were added (a 404 for a glossary the
        owner does not have, or a pair it has no dictionary of)."""

        def read(c: Connection) -> dict[str, str]:
            if _owned(c, owner, glossary_id, lock=False) is None:
                raise GlossaryNotFoundError
            found = _entries(c, glossary_id, source_lang, target_lang)
            if found is None:
                raise GlossaryNotFoundError(f"Dictionary {source_lang}-{target_lang}")
            return found

        return await self.database.read(read)

    async def change(
        self, owner: str, glossary_id: str, source: str, target: str, change: Change
    ) -> dict[str, str]:
        """One dictionary's entries changed in one transaction, the glossary's row locked
        (two changes to one glossary take turns) and its revision raised; the entries after."""

        def change_entries(c: Connection) -> dict[str, str]:
            _owned(c, owner, glossary_id)
            after = change(_entries(c, glossary_id, source, target))
            _put(c, self.database, glossary_id, source, target, after)
            return after

        return await self.database.write(change_entries)

    async def merge(
        self,
        owner: str,
        glossary_id: str,
        dictionaries: Sequence[Dictionary],
        name: str | None = None,
    ) -> None:
        """Entries merged into the dictionaries of their pairs (made where missing), an
        entry's new target replacing its old one; a new name, where given."""

        def merge(c: Connection) -> None:
            _owned(c, owner, glossary_id)
            if name is not None:
                c.execute(
                    update(deepl_glossaries)
                    .where(deepl_glossaries.c.glossary_id == glossary_id)
                    .values(name=name)
                )
            for source, target, entries in dictionaries:
                before = _entries(c, glossary_id, source, target)
                _put(c, self.database, glossary_id, source, target, {**(before or {}), **entries})

        await self.database.write(merge)

    async def replace(
        self, owner: str, glossary_id: str, source: str, target: str, entries: dict[str, str]
    ) -> DictionaryInfo:
        await self.change(owner, glossary_id, source, target, lambda before: entries)
        return DictionaryInfo(source_lang=source, target_lang=target, entry_count=len(entries))

    async def delete_dictionary(
        self, owner: str, glossary_id: str, source: str, target: str
    ) -> None:
        d = deepl_glossary_dictionaries.c

        def delete_one(c: Connection) -> None:
            _owned(c, owner, glossary_id)
            deleted = c.execute(
                delete(deepl_glossary_dictionaries).where(
                    d.glossary_id == glossary_id, d.source_lang == source, d.target_lang == target
                )
            )
            if not deleted.rowcount:
                raise GlossaryNotFoundError(f"Dictionary {source}-{target}")
            _raise_revision(c, glossary_id)

        await self.database.write(delete_one)

    async def delete(self, owner: str, glossary_id: str) -> None:
        def delete_glossary(c: Connection) -> None:
            _owned(c, owner, glossary_id)
            for table in (deepl_glossary_dictionaries, deepl_glossaries):
                c.execute(delete(table).where(table.c.glossary_id == glossary_id))

        await self.database.write(delete_glossary)


def _now() -> str:
    now = datetime.datetime.now(datetime.UTC)
    return now.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _owned(c: Connection, owner: str, glossary_id: str, *, lock: bool = True) -> str | None:
    """The glossary is the owner's (else the 404 where `lock`), its row locked until the
    transaction ends (PostgreSQL: two changes to one glossary's dictionaries take turns)."""
    g = deepl_glossaries.c
    query = select(g.glossary_id).where(g.owner == owner, g.glossary_id == glossary_id)
    found = c.execute(query.with_for_update() if lock else query).scalar()
    if found is None and lock:
        raise GlossaryNotFoundError
    return found


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


def _raise_revision(c: Connection, glossary_id: str) -> None:
    g = deepl_glossaries.c
    c.execute(
        update(deepl_glossaries).where(g.glossary_id == glossary_id).values(revision=g.revision + 1)
    )


def _put(
    c: Connection,
    database: Database,
    glossary_id: str,
    source: str,
    target: str,
    entries: dict[str, str],
) -> None:
    check_size(entries)
    encoded = json.dumps(entries, ensure_ascii=False)
    insert = database.insert(deepl_glossary_dictionaries).values(
        glossary_id=glossary_id,
        source_lang=source,
        target_lang=target,
        entries=encoded,
        entry_count=len(entries),
    )
    c.execute(
        insert.on_conflict_do_update(
            index_elements=["glossary_id", "source_lang", "target_lang"],
            set_={"entries": insert.excluded.entries, "entry_count": insert.excluded.entry_count},
        )
    )
    _raise_revision(c, glossary_id)
    d = deepl_glossary_dictionaries.c
    count = c.execute(select(func.count()).where(d.glossary_id == glossary_id)).scalar_one()
    if count > MAX_DICTIONARIES:
        raise InvalidRequestError(
            f"A glossary may hold at most {MAX_DICTIONARIES} dictionaries.", param="dictionaries"
        )

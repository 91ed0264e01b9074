"""Our own glossary API over the store: glossaries made, listed and deleted, their entries
listed (paged, searched), added, edited and removed one by one, and a dictionary imported
from or exported as TBX. Every change raises the glossary's revision (store.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from translate_server.errors import InvalidRequestError
from translate_server.glossaries.model import (
    GlossaryNotFoundError,
    GlossaryRecord,
    base_language,
    check_size,
    check_term,
    entry_id,
    entry_pair,
)
from translate_server.glossaries.protocol import (
    CreateGlossaryRequest,
    EntryChangeRequest,
    EntryList,
    EntryObject,
    NewEntryRequest,
)
from translate_server.glossaries.store import GlossaryStore
from translate_server.glossaries.tbx import read_tbx, write_tbx

MAX_PAGE = 500


@dataclass(frozen=True, slots=True)
class Page:
    offset: int = 0
    limit: int = 50
    search: str | None = None  # in the source or the target term, whatever the case

    def checked(self) -> Page:
        if self.offset < 0:
            raise InvalidRequestError("`offset` is 0 or more.", param="offset")
        if not 1 <= self.limit <= MAX_PAGE:
            raise InvalidRequestError(f"`limit` is from 1 to {MAX_PAGE}.", param="limit")
        return self


class Glossaries:
    def __init__(self, store: GlossaryStore) -> None:
        self.store = store

    async def create(self, owner: str, body: CreateGlossaryRequest) -> GlossaryRecord:
        dictionaries = []
        if body.source_lang or body.target_lang or body.entries:
            source, target = self.pair(body.source_lang, body.target_lang)
            entries = {
                check_term(term, "entries"): check_term(required, f"entries.{term}")
                for term, required in (body.entries or {}).items()
            }
            check_size(entries)
            dictionaries.append((source, target, entries))
        glossary_id = await self.store.create(owner, body.name, dictionaries)
        return await self.store.describe(owner, glossary_id)

    # -- entries, one by one ---------------------------------------------------------------
    async def entries(
        self,
        owner: str,
        glossary_id: str,
        source_lang: str | None,
        target_lang: str | None,
        page: Page,
    ) -> EntryList:
        """Entries in the order they were added, of one dictionary or of all of them."""
        glossary = await self.store.describe(owner, glossary_id)
        pairs = [(d.source_lang, d.target_lang) for d in glossary.dictionaries]
        if source_lang or target_lang:
            pairs = [self.pair(source_lang, target_lang)]
            glossary.dictionary(*pairs[0])
        page = page.checked()
        wanted = page.search.casefold() if page.search else None
        found: list[EntryObject] = []
        for source, target in pairs:
            entries = await self.store.entries(owner, glossary_id, source, target)
            found.extend(
                _entry(source, target, term, required)
                for term, required in entries.items()
                if wanted is None or wanted in term.casefold() or wanted in required.casefold()
            )
        return EntryList(
            data=found[page.offset : page.offset + page.limit],
            total=len(found),
            offset=page.offset,
            limit=page.limit,
            revision=glossary.revision,
        )

    async def entry(self, owner: str, glossary_id: str, entry: str) -> EntryObject:
        source, target, _ = entry_pair(entry)
        entries = await self.store.entries(owner, glossary_id, source, target)
        term = _term_of(entries, source, target, entry)
        return _entry(source, target, term, entries[term])

    async def add(self, owner: str, glossary_id: str, body: NewEntryRequest) -> EntryObject:
        """A new entry; its dictionary is made where the glossary has none of its pair. A
        source term the dictionary has already is a 400 (`glossary_entry_exists`) naming
        the entry to change instead."""
        source_lang, target_lang = await self._pair_of(owner, glossary_id, body)
        term, required = check_term(body.source, "source"), check_term(body.target, "target")

        def add(before: dict[str, str] | None) -> dict[str, str]:
            entries = dict(before or {})
            if term in entries:
                raise InvalidRequestError(
                    "The dictionary has this source term already: change that entry "
                    f"({entry_id(source_lang, target_lang, term)}).",
                    param="source",
                    code="glossary_entry_exists",
                )
            entries[term] = required
            return entries

        await self.store.change(owner, glossary_id, source_lang, target_lang, add)
        return _entry(source_lang, target_lang, term, required)

    async def edit(
        self, owner: str, glossary_id: str, entry: str, body: EntryChangeRequest
    ) -> EntryObject:
        """The entry's source term or translation changed, in its place in the dictionary."""
        if body.source is None and body.target is None:
            raise InvalidRequestError("Give a `source` or a `target` to change.")
        source_lang, target_lang, _ = entry_pair(entry)
        changed: list[tuple[str, str]] = []

        def edit(before: dict[str, str] | None) -> dict[str, str]:
            entries = before or {}
            term = _term_of(entries, source_lang, target_lang, entry)
            new_term = check_term(body.source, "source") if body.source is not None else term
            required = check_term(body.target, "target") if body.target is not None else None
            if new_term != term and new_term in entries:
                raise InvalidRequestError(
                    "The dictionary has this source term already.",
                    param="source",
                    code="glossary_entry_exists",
                )
            after = {
                (new_term if found == term else found): (
                    (required or value) if found == term else value
                )
                for found, value in entries.items()
            }
            changed.append((new_term, after[new_term]))
            return after

        await self.store.change(owner, glossary_id, source_lang, target_lang, edit)
        return _entry(source_lang, target_lang, *changed[0])

    async def remove(self, owner: str, glossary_id: str, entry: str) -> int:
        """The entry removed; the glossary's revision after."""
        source_lang, target_lang, _ = entry_pair(entry)

        def remove(before: dict[str, str] | None) -> dict[str, str]:
            entries = dict(before or {})
            del entries[_term_of(entries, source_lang, target_lang, entry)]
            return entries

        await self.store.change(owner, glossary_id, source_lang, target_lang, remove)
        return (await self.store.describe(owner, glossary_id)).revision

    # -- TBX -------------------------------------------------------------------------------
    async def import_tbx(
        self,
        owner: str,
        glossary_id: str,
        data: bytes,
        source_lang: str | None,
        target_lang: str | None,
    ) -> tuple[GlossaryRecord, int, int, int]:
        """The file's terms of the pair merged into its dictionary (made where missing): a
        term the dictionary has gets the file's translation. (glossary, read, added,
        replaced)."""
        source, target = self.pair(source_lang, target_lang)
        await self.store.describe(owner, glossary_id)  # the 404 before reading a large file
        read = await asyncio.to_thread(read_tbx, data, source, target)
        counts: list[int] = []

        def merge(before: dict[str, str] | None) -> dict[str, str]:
            entries = dict(before or {})
            counts.append(sum(1 for term in read if term in entries))
            entries.update(read)
            return entries

        await self.store.change(owner, glossary_id, source, target, merge)
        glossary = await self.store.describe(owner, glossary_id)
        return glossary, len(read), len(read) - counts[0], counts[0]

    async def export_tbx(
        self, owner: str, glossary_id: str, source_lang: str | None, target_lang: str | None
    ) -> tuple[GlossaryRecord, bytes]:
        """One dictionary as a TBX file (the only one, where no pair is named)."""
        glossary = await self.store.describe(owner, glossary_id)
        if source_lang or target_lang:
            source, target = self.pair(source_lang, target_lang)
        elif len(glossary.dictionaries) == 1:
            source, target = (
                glossary.dictionaries[0].source_lang,
                glossary.dictionaries[0].target_lang,
            )
        else:
            raise InvalidRequestError(
                "The glossary has several dictionaries: name one by `source_lang` and "
                "`target_lang`.",
                param="source_lang",
            )
        entries = await self.store.entries(owner, glossary_id, source, target)
        return glossary, await asyncio.to_thread(write_tbx, entries, source, target)

    @staticmethod
    def pair(source_lang: str | None, target_lang: str | None) -> tuple[str, str]:
        if not source_lang or not target_lang:
            raise InvalidRequestError(
                "Give both `source_lang` and `target_lang`.",
                param="target_lang" if source_lang else "source_lang",
            )
        return base_language(source_lang, "source_lang"), base_language(target_lang, "target_lang")

    async def _pair_of(
        self, owner: str, glossary_id: str, body: NewEntryRequest
    ) -> tuple[str, str]:
        """The dictionary a new entry goes to: the one named, else the glossary's only one."""
        if body.source_lang or body.target_lang:
            return self.pair(body.source_lang, body.target_lang)
        glossary = await self.store.describe(owner, glossary_id)
        if len(glossary.dictionaries) != 1:
            raise InvalidRequestError(
                "Name the entry's dictionary by `source_lang` and `target_lang`.",
                param="source_lang",
            )
        only = glossary.dictionaries[0]
        return only.source_lang, only.target_lang


def _entry(source_lang: str, target_lang: str, term: str, required: str) -> EntryObject:
    return EntryObject(
        id=entry_id(source_lang, target_lang, term),
        source_lang=source_lang,
        target_lang=target_lang,
        source=term,
        target=required,
    )


def _term_of(entries: dict[str, str], source_lang: str, target_lang: str, entry: str) -> str:
    """The source term of the entry `entry` names (the 404 where it has none)."""
    for term in entries:
        if entry_id(source_lang, target_lang, term) == entry:
            return term
    raise GlossaryNotFoundError("Glossary entry", param="entry_id")

"""A memory's entries edited one at a time, as /memories/{id}/entries and the corrections use
them: each entry checked (a source and a translation that are not blank, languages that are
known), the memory's limit kept, and the answers for an unknown memory, an unknown entry and
an edit that would repeat another entry's source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from translate_server.errors import (
    InvalidRequestError,
    MemoryEntryConflictError,
    MemoryEntryNotFoundError,
    MemoryNotFoundError,
    PayloadTooLargeError,
)
from translate_server.memory.editing import EntryClash, EntrySearch, StoredEntry
from translate_server.memory.entries import (
    Entry,
    UnknownLanguageError,
    collapse,
    normalized_tag,
)
from translate_server.memory.store import MemoryFull, MemoryInfo, MemoryStore

_TEXTS = ("source", "target")
_LANGUAGES = ("source_lang", "target_lang")


@dataclass(frozen=True, slots=True)
class MemoryEntries:
    store: MemoryStore
    max_entries: int

    async def add(
        self, owner: str, memory_id: str, entry: Entry, param: str = "memory_id"
    ) -> tuple[MemoryInfo, StoredEntry, bool]:
        """The entry in the memory (its source's translation replaced where the memory has
        that source in these languages): the memory after, the entry, whether it is new."""
        entry = checked(entry)
        try:
            done = await self.store.put_entry(owner, memory_id, entry, self.max_entries)
        except MemoryFull:
            raise PayloadTooLargeError(
                f"The memory holds {self.max_entries} entries, as many as it may "
                "(--max-memory-entries): remove some first.",
                code="memory_too_large",
            ) from None
        if done is None:
            raise memory_not_found(param)
        info, (stored, new) = done
        return info, stored, new

    async def search(
        self, owner: str, memory_id: str, asked: EntrySearch
    ) -> tuple[MemoryInfo, int, list[StoredEntry]]:
        for name in _LANGUAGES:
            if (tag := getattr(asked, name)) is not None:
                _language(tag, name)
        found = await self.store.search_entries(owner, memory_id, asked)
        if found is None:
            raise memory_not_found()
        info, (total, entries) = found
        return info, total, entries

    async def get(
        self, owner: str, memory_id: str, entry_id: int
    ) -> tuple[MemoryInfo, StoredEntry]:
        found = await self.store.entry(owner, memory_id, entry_id)
        if found is None:
            raise memory_not_found()
        return found[0], _entry_found(found[1])

    async def edit(
        self, owner: str, memory_id: str, entry_id: int, changes: dict[str, Any]
    ) -> tuple[MemoryInfo, StoredEntry]:
        for name in _TEXTS:
            if name in changes:
                _text(changes[name], name)
        for name in _LANGUAGES:
            if name in changes:
                changes[name] = _language(changes[name], name)
        try:
            found = await self.store.edit_entry(owner, memory_id, entry_id, changes)
        except EntryClash as clash:
            raise MemoryEntryConflictError(
                f"Entry {clash.other} of this memory has this source in these languages: edit "
                "or remove that one instead.",
                param="source",
            ) from None
        if found is None:
            raise memory_not_found()
        return found[0], _entry_found(found[1])

    async def remove(self, owner: str, memory_id: str, entry_id: int) -> MemoryInfo:
        found = await self.store.remove_entry(owner, memory_id, entry_id)
        if found is None:
            raise memory_not_found()
        if not found[1]:
            raise _entry_not_found()
        return found[0]


def checked(entry: Entry) -> Entry:
    """The entry with its languages as BCP-47 tags; 400 naming the field that is blank or
    the language that is unknown."""
    for name in _TEXTS:
        _text(getattr(entry, name), name)
    return Entry(
        source=entry.source,
        target=entry.target,
        source_lang=_language(entry.source_lang, "source_lang"),
        target_lang=_language(entry.target_lang, "target_lang"),
        note=entry.note or None,
    )


def _text(value: str, param: str) -> None:
    if not collapse(value):
        raise InvalidRequestError(f"`{param}` is blank: an entry needs a text.", param=param)


def _language(tag: str, param: str) -> str:
    try:
        return normalized_tag(tag)
    except UnknownLanguageError:
        raise InvalidRequestError(
            f"`{tag}` is not a language this server knows.", param=param
        ) from None


def _entry_found(entry: StoredEntry | None) -> StoredEntry:
    if entry is None:
        raise _entry_not_found()
    return entry


def _entry_not_found() -> MemoryEntryNotFoundError:
    return MemoryEntryNotFoundError("This memory holds no entry with this id.", param="entry_id")


def memory_not_found(param: str = "memory_id") -> MemoryNotFoundError:
    """The one answer for an unknown memory and another key's alike."""
    return MemoryNotFoundError(
        "No translation memory with this id (for this API key).", param=param
    )

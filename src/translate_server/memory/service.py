"""Translation memories as the routes and /translate use them: who owns which (the digest of
the API key that made it; without API keys, everyone shares them), the limits on a file and
on a memory, and the one 404 for an unknown memory and another key's alike."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Sequence
from dataclasses import dataclass

from translate_server.errors import PayloadTooLargeError
from translate_server.memory.entries import Entry, Found
from translate_server.memory.entry_edits import MemoryEntries, memory_not_found
from translate_server.memory.formats import read_entries, write_tmx
from translate_server.memory.jobs import MemoryJobs
from translate_server.memory.store import MemoryFull, MemoryInfo, MemoryStore, Merged


@dataclass(frozen=True, slots=True)
class Memories:
    store: MemoryStore
    max_entries: int
    max_bytes: int

    @property
    def jobs(self) -> MemoryJobs:
        """DeepL's import and export jobs, kept beside the memories."""
        return MemoryJobs(self.store)

    @property
    def entries(self) -> MemoryEntries:
        """A memory's entries one at a time."""
        return MemoryEntries(self.store, self.max_entries)

    async def create(self, owner: str, name: str) -> MemoryInfo:
        return await self.store.create(owner, name)

    async def list(self, owner: str) -> builtins.list[MemoryInfo]:
        return await self.store.list(owner)

    async def get(self, owner: str, memory_id: str, param: str = "memory_id") -> MemoryInfo:
        found = await self.store.get(owner, memory_id)
        if found is None:
            raise memory_not_found(param)
        return found

    async def rename(self, owner: str, memory_id: str, name: str) -> MemoryInfo:
        found = await self.store.rename(owner, memory_id, name)
        if found is None:
            raise memory_not_found()
        return found

    async def pairs(
        self, owner: str, memory_id: str, param: str = "memory_id"
    ) -> builtins.list[tuple[str, str]]:
        """The (source, target) language pairs of its entries."""
        found = await self.store.pairs(owner, memory_id)
        if found is None:
            raise memory_not_found(param)
        return found

    async def delete(self, owner: str, memory_id: str) -> None:
        if not await self.store.delete(owner, memory_id):
            raise memory_not_found()

    async def import_file(
        self,
        owner: str,
        memory_id: str,
        data: bytes,
        filename: str | None,
        source_lang: str | None,
        target_lang: str | None,
    ) -> tuple[MemoryInfo, Merged]:
        """The file's entries merged into the memory: 413 for a file over `max_bytes` or a
        memory that would hold over `max_entries`, 400 naming the line or unit of a file
        that cannot be read."""
        self.check_size(len(data))
        await self.get(owner, memory_id)
        # Parsing a large file is CPU work of seconds: off the event loop.
        entries = await asyncio.to_thread(read_entries, data, filename, source_lang, target_lang)
        return await self.add(owner, memory_id, entries)

    async def add(
        self, owner: str, memory_id: str, entries: Sequence[Entry]
    ) -> tuple[MemoryInfo, Merged]:
        try:
            merged = await self.store.add(owner, memory_id, entries, self.max_entries)
        except MemoryFull as full:
            raise PayloadTooLargeError(
                f"The memory would hold {full.entries} entries; at most {self.max_entries} "
                "are kept (--max-memory-entries). Nothing of this file was added.",
                param="file",
                code="memory_too_large",
            ) from None
        if merged is None:
            raise memory_not_found()
        return await self.get(owner, memory_id), merged

    async def export(self, owner: str, memory_id: str) -> tuple[MemoryInfo, bytes]:
        found = await self.store.entries(owner, memory_id)
        if found is None:
            raise memory_not_found()
        info, entries = found
        return info, await asyncio.to_thread(write_tmx, entries)

    async def look_up(
        self,
        owner: str,
        memory_id: str,
        source_tag: str,
        target_tag: str,
        texts: Sequence[str],
        threshold: float,
    ) -> builtins.list[Found | None]:
        found = await self.store.look_up(owner, memory_id, source_tag, target_tag, texts, threshold)
        if found is None:
            raise memory_not_found("memory")
        return found[1]

    def check_size(self, size: int) -> None:
        if size > self.max_bytes:
            raise PayloadTooLargeError(
                f"The file has {size} bytes; at most {self.max_bytes} are accepted "
                "(--max-memory-bytes).",
                param="file",
                code="memory_file_too_large",
            )

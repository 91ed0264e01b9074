"""LibreTranslate's suggestions, kept for real: a suggested translation goes into a translation
memory of the caller's (its API key's, or everyone's where the server has no keys) named by
--suggestions-memory, made on its first suggestion. A request that names that memory on
/translate then finds the suggestion as its exact match.

LibreTranslate's page sends the source language it shows, `auto` included: such a source is
detected, as LibreTranslate's /translate would."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from translate_server.compat.libretranslate.protocol import LibreSuggestRequest, ours
from translate_server.errors import InvalidRequestError
from translate_server.memory.entries import Entry
from translate_server.memory.entry_edits import checked
from translate_server.translation.protocol import DetectRequest

if TYPE_CHECKING:
    from translate_server.memory.service import Memories
    from translate_server.memory.store import MemoryInfo
    from translate_server.translation.service.translation_service import TranslationService

SUGGESTION_NOTE = "LibreTranslate suggestion"


class SuggestionBox:
    def __init__(
        self, memories: Memories, translation: TranslationService, memory_name: str
    ) -> None:
        self.memories = memories
        self.translation = translation
        self.memory_name = memory_name
        # One memory per owner even when its first suggestions arrive together.
        self._making = asyncio.Lock()

    async def suggest(self, owner: str, body: LibreSuggestRequest) -> None:
        """The suggested pair in the owner's suggestions memory (LibreTranslate's 400s, with
        its messages, for a field left out)."""
        for name in ("q", "s", "source", "target"):
            if not getattr(body, name).strip():
                raise InvalidRequestError(f"Invalid request: missing {name} parameter", param=name)
        source = ours(body.source)
        if source == "auto":
            source = self.translation.detect(DetectRequest(text=body.q)).language
        # Checked before a memory is made for it: a refused suggestion leaves nothing behind.
        entry = checked(Entry(body.q, body.s, source, ours(body.target), SUGGESTION_NOTE))
        memory = await self.memory(owner)
        await self.memories.entries.add(owner, memory.id, entry)

    async def memory(self, owner: str) -> MemoryInfo:
        """The owner's suggestions memory (its oldest of that name), made where it has none."""
        async with self._making:
            for info in await self.memories.list(owner):
                if info.name == self.memory_name:
                    return info
            return await self.memories.create(owner, self.memory_name)

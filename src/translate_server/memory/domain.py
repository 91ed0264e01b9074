"""The memory domain: translation memories in their database, /memories and their entries,
corrections (/translate/corrections, counted in its metrics), and DeepL's memory import and
export jobs kept beside them."""

from __future__ import annotations

from translate_server.memory.corrections import CorrectionMetrics
from translate_server.memory.keys import MEMORIES
from translate_server.memory.routes import memory_router
from translate_server.registration import Domain, Opening


async def _open(opening: Opening) -> None:
    if not opening.owns_stores:  # another front end owns them; requests are forwarded there
        return
    # Imported here: the store and the file formats' libraries load with the engine.
    from translate_server.memory.service import Memories
    from translate_server.memory.store import MemoryStore

    options = opening.settings.translation
    store = MemoryStore(opening.database("memory"))  # DeepL's import and export jobs too
    opening.start_task(store.revisions.watch())  # other replicas' edits (PostgreSQL)
    memories = Memories(store, options.max_memory_entries, options.max_memory_bytes)
    opening.services.provide(MEMORIES, memories)


DOMAIN = Domain(
    "memory",
    routes=lambda settings: [memory_router(settings.translation.max_memory_bytes)],
    open=_open,
    stores=lambda settings: ["memory"],
    metrics=lambda settings: [CorrectionMetrics],
    provides=(MEMORIES,),
)

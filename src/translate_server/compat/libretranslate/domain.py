"""The LibreTranslate domain: LibreTranslate's API under /libretranslate/, its files included
where documents are served, its suggestions kept in a memory of each key's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from translate_server.compat.libretranslate.file_routes import libretranslate_file_routers
from translate_server.compat.libretranslate.keys import LIBRE_SUGGESTIONS, LIBRETRANSLATE
from translate_server.compat.libretranslate.routes import libretranslate_router
from translate_server.documents.keys import DOCUMENTS
from translate_server.memory.keys import MEMORIES
from translate_server.registration import Domain, Opening
from translate_server.settings import Settings
from translate_server.translation.keys import TRANSLATION


async def _open(opening: Opening) -> None:
    from translate_server.compat.libretranslate.service import LibreTranslateService

    found = opening.services
    suggestions_memory = opening.settings.translation.suggestions_memory
    service = LibreTranslateService(
        found[TRANSLATION],
        found.get(DOCUMENTS),
        keys=found.keys,
        suggestions=bool(suggestions_memory),
    )
    found.provide(LIBRETRANSLATE, service)
    memories = found.get(MEMORIES)  # only where this process owns the stores
    if suggestions_memory and memories is not None:
        from translate_server.compat.libretranslate.suggestions import SuggestionBox

        box = SuggestionBox(memories, found[TRANSLATION], suggestions_memory)
        found.provide(LIBRE_SUGGESTIONS, box)


def _routes(settings: Settings) -> Sequence[Any]:
    documents = settings.documents
    files = libretranslate_file_routers(documents.max_document_bytes) if documents.documents else []
    return [libretranslate_router(), *files]


DOMAIN = Domain(
    "libretranslate",
    routes=_routes,
    open=_open,
    needs=(TRANSLATION,),
    # The documents may be off; the memories are only where this process owns the stores.
    uses=(DOCUMENTS, MEMORIES),
    provides=(LIBRETRANSLATE, LIBRE_SUGGESTIONS),
)

"""The LibreTranslate domain: LibreTranslate's API under /libretranslate/, its files included
where documents are served."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from translate_server.compat.libretranslate.file_routes import libretranslate_file_routers
from translate_server.compat.libretranslate.keys import LIBRETRANSLATE
from translate_server.compat.libretranslate.routes import libretranslate_router
from translate_server.documents.keys import DOCUMENTS
from translate_server.registration import Domain, Opening
from translate_server.settings import Settings
from translate_server.translation.keys import TRANSLATION


async def _open(opening: Opening) -> None:
    from translate_server.compat.libretranslate.service import LibreTranslateService

    found = opening.services
    service = LibreTranslateService(
        found[TRANSLATION], found.get(DOCUMENTS), keyed=bool(opening.settings.server.api_keys)
    )
    found.provide(LIBRETRANSLATE, service)


def _routes(settings: Settings) -> Sequence[Any]:
    documents = settings.documents
    files = libretranslate_file_routers(documents.max_document_bytes) if documents.documents else []
    return [libretranslate_router(), *files]


DOMAIN = Domain("libretranslate", routes=_routes, open=_open)

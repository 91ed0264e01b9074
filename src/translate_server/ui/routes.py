"""The translator page at `/`, its assets under `/ui/`, and `/ui/config.json`: what the page
needs to know about this server that the API does not say. None of it is in the OpenAPI
document, and none of it needs an API key (the page asks for the key itself)."""

from __future__ import annotations

import functools
from pathlib import Path

import msgspec
from litestar import Router, get
from litestar.datastructures import CacheControlHeader
from litestar.response import File
from litestar.static_files import create_static_files_router

from translate_server.http.route_paths import OPEN
from translate_server.settings import Settings

STATIC = Path(__file__).parent / "static"
# Revalidated on every load: after an upgrade, the page and its script never disagree.
REVALIDATE = CacheControlHeader(no_cache=True)


class PageConfig(msgspec.Struct, kw_only=True):
    max_text_chars: int
    api_key_required: bool
    # Document translation: the page shows its file panel only when this is true, and refuses
    # a file over the size limit or of a type not listed before uploading it.
    documents: bool = False
    max_document_bytes: int | None = None
    document_extensions: tuple[str, ...] = ()


def ui_router(settings: Settings, *, documents: bool = False) -> Router:
    """The page's routes; `documents` says whether the app serves the document routes."""
    config = PageConfig(
        max_text_chars=settings.limits.max_text_chars,
        api_key_required=bool(settings.server.api_keys),
        documents=documents,
        max_document_bytes=settings.documents.max_document_bytes if documents else None,
    )

    # Every route here is open without an API key (`opt=OPEN`): the page asks for the key.
    @get("/", include_in_schema=False, name="ui/index", cache_control=REVALIDATE, opt=OPEN)
    async def index() -> File:
        # The page's own links are relative ("ui/app.js", "translate"), so it works under
        # whatever path prefix a proxy in front gives the service.
        return File(
            STATIC / "index.html", content_disposition_type="inline", media_type="text/html"
        )

    @get("/ui/config.json", include_in_schema=False, name="ui/config", opt=OPEN)
    async def page_config() -> PageConfig:
        if documents:
            return msgspec.structs.replace(config, document_extensions=document_extensions())
        return config

    assets = create_static_files_router(
        "/ui",
        [STATIC],
        name="ui/assets",
        opt=OPEN,
        cache_control=REVALIDATE,
        include_in_schema=False,
    )
    return Router("/", route_handlers=[index, page_config, assets], include_in_schema=False)


@functools.cache
def document_extensions() -> tuple[str, ...]:
    """The file name extensions the document formats know (a file without one is recognised
    by its content, so the page lets those through)."""
    # Imported here, as app.py does: the formats pull in their libraries, loaded by the time
    # the page asks (the document jobs start with the app).
    from translate_server.documents.formats import known_extensions

    return known_extensions()

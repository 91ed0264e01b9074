"""/glossaries: stored glossaries on our own API, the same ones DeepL's routes keep: made,
listed, deleted; their entries listed (paged, searched), added, edited and removed one by
one; a dictionary imported from a TBX file or exported as one. A glossary is named on
/translate and /translate/document by `glossary_id`.

Where API keys are configured a glossary belongs to the key that made it, and another key's
is the same 404 as an unknown id; without keys, every client shares them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response, Router, post, route
from litestar.datastructures import UploadFile
from litestar.openapi import ResponseSpec

from translate_server.accounts import scopes
from translate_server.errors import InvalidRequestError
from translate_server.glossaries.keys import GLOSSARIES
from translate_server.glossaries.protocol import (
    CreateGlossaryRequest,
    EntryChangeRequest,
    EntryDeleted,
    EntryList,
    EntryObject,
    GlossaryDeleted,
    GlossaryList,
    GlossaryObject,
    NewEntryRequest,
    RenameGlossaryRequest,
    TbxImported,
)
from translate_server.glossaries.service import Glossaries, Page
from translate_server.glossaries.tbx import TBX_MEDIA_TYPE
from translate_server.http.bodies import FORM_OVERHEAD, read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import FILE, FormField, error_responses, form_body, idempotent
from translate_server.http.requests import request_owner
from translate_server.http.route_paths import IDEMPOTENT, JSON, STORES, scoped
from translate_server.services import services

_ERRORS = error_responses(400, 401, 404)
_GLOSSARY = "/glossaries/{glossary_id:str}"
_ENTRY = _GLOSSARY + "/entries/{entry_id:str}"


def _glossaries(request: Request[Any, Any, Any]) -> tuple[Glossaries, str]:
    return services(request)[GLOSSARIES], request_owner(request)


@route(
    "/glossaries",
    http_method=["GET", "POST"],
    status_code=200,
    summary="The caller's glossaries (GET), or a new one (POST, 201)",
    description='POST: `{"name"}`, and optionally `source_lang`, `target_lang` and `entries` '
    "(an object of terms) for its first dictionary.",
    tags=["glossaries"],
    opt=JSON,
    responses={
        201: ResponseSpec(
            data_container=GlossaryObject, generate_examples=False, description="Made"
        ),
        **error_responses(400, 401, 413, 415),
    },
)
async def glossary_collection(
    request: Request[Any, Any, Any],
) -> Response[GlossaryList | GlossaryObject]:
    glossaries, owner = _glossaries(request)
    if request.method == "GET":
        found = await glossaries.store.list(owner)
        return Response(GlossaryList(data=[GlossaryObject.of(g) for g in found]))
    body = await read_body(request, CreateGlossaryRequest)
    return Response(GlossaryObject.of(await glossaries.create(owner, body)), status_code=201)


@route(
    _GLOSSARY,
    http_method=["GET", "PATCH", "DELETE"],
    status_code=200,
    summary='A glossary; PATCH `{"name"}` renames it; DELETE deletes it and its entries',
    tags=["glossaries"],
    opt=JSON,
    responses={**_ERRORS, **error_responses(415)},
)
async def glossary(
    request: Request[Any, Any, Any], glossary_id: str
) -> GlossaryObject | GlossaryDeleted:
    glossaries, owner = _glossaries(request)
    if request.method == "PATCH":
        body = await read_body(request, RenameGlossaryRequest)
        await glossaries.store.merge(owner, glossary_id, (), name=body.name)
        return GlossaryObject.of(await glossaries.store.describe(owner, glossary_id))
    if request.method == "DELETE":
        await glossaries.store.delete(owner, glossary_id)
        return GlossaryDeleted(id=glossary_id, deleted=True)
    return GlossaryObject.of(await glossaries.store.describe(owner, glossary_id))


@route(
    _GLOSSARY + "/entries",
    http_method=["GET", "POST"],
    status_code=200,
    summary="A glossary's entries, paged and searched (GET), or a new one (POST, 201)",
    description="GET: `source_lang` and `target_lang` name one dictionary (else all of them); "
    "`q` keeps the entries whose source or target holds it, whatever the case; `offset` and "
    "`limit` (1-500, 50) page them. POST: `source`, `target`, and the dictionary's "
    "`source_lang` and `target_lang` where the glossary has more than one (one is made "
    "where it has none of that pair). Every change raises the glossary's `revision`.",
    tags=["glossaries"],
    opt=JSON,
    responses={
        201: ResponseSpec(data_container=EntryObject, generate_examples=False, description="Added"),
        **error_responses(400, 401, 404, 413, 415),
    },
)
async def entry_collection(
    request: Request[Any, Any, Any],
    glossary_id: str,
    source_lang: str | None = None,
    target_lang: str | None = None,
    q: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Response[EntryList | EntryObject]:
    glossaries, owner = _glossaries(request)
    if request.method == "GET":
        page = Page(offset=offset, limit=limit, search=q or None)
        listed = await glossaries.entries(owner, glossary_id, source_lang, target_lang, page)
        return Response(listed)
    body = await read_body(request, NewEntryRequest)
    return Response(await glossaries.add(owner, glossary_id, body), status_code=201)


@route(
    _ENTRY,
    http_method=["GET", "PATCH", "DELETE"],
    status_code=200,
    summary="One glossary entry (GET); its source term or translation changed (PATCH); "
    "removed (DELETE)",
    tags=["glossaries"],
    opt=JSON,
    responses=error_responses(400, 401, 404, 415),
)
async def entry(
    request: Request[Any, Any, Any], glossary_id: str, entry_id: str
) -> EntryObject | EntryDeleted:
    glossaries, owner = _glossaries(request)
    if request.method == "DELETE":
        revision = await glossaries.remove(owner, glossary_id, entry_id)
        return EntryDeleted(id=entry_id, deleted=True, revision=revision)
    if request.method == "PATCH":
        body = await read_body(request, EntryChangeRequest)
        return await glossaries.edit(owner, glossary_id, entry_id, body)
    return await glossaries.entry(owner, glossary_id, entry_id)


@route(_GLOSSARY + "/tbx", http_method=["OPTIONS"], include_in_schema=False)
async def tbx_options() -> Response[None]:
    # Litestar 2 answers OPTIONS on a path of two handlers with the first one's methods only
    # (litestar-org/litestar#4169): this path's answer is its own.
    return Response(None, status_code=204, headers={"Allow": "GET, OPTIONS, POST"})


@route(
    _GLOSSARY + "/tbx",
    http_method=["GET"],
    summary="A glossary's dictionary as a TBX file",
    description="`source_lang` and `target_lang` name the dictionary (optional where the "
    "glossary has only one).",
    tags=["glossaries"],
    responses=_ERRORS,
    media_type=TBX_MEDIA_TYPE,
)
async def export_tbx(
    request: Request[Any, Any, Any],
    glossary_id: str,
    source_lang: str | None = None,
    target_lang: str | None = None,
) -> Response[bytes]:
    glossaries, owner = _glossaries(request)
    found, data = await glossaries.export_tbx(owner, glossary_id, source_lang, target_lang)
    filename = quote(f"{found.name}.tbx")
    return Response(
        content=data,
        media_type=TBX_MEDIA_TYPE,
        headers={"content-disposition": f"attachment; filename*=UTF-8''{filename}"},
    )


@post(
    _GLOSSARY + "/tbx",
    status_code=200,
    summary="Add a TBX file's terms to a glossary's dictionary",
    opt={IDEMPOTENT: True},
    description="Multipart form: `file` (TBX), `source_lang` and `target_lang`: each concept "
    "with a term in both languages (the first of each) becomes an entry of that pair's "
    "dictionary (made where missing); a term the dictionary has gets the file's translation. "
    "A file that cannot be read is a 400 naming the line; more entries than a dictionary "
    "holds, a 413.",
    tags=["glossaries"],
    responses={**_ERRORS, **error_responses(413)},
    operation_class=idempotent(
        form_body(
            (
                FormField(FILE, "The TBX file.", required=True),
                FormField("source_lang", "The dictionary's source language.", required=True),
                FormField("target_lang", "The dictionary's target language.", required=True),
            )
        )
    ),
)
async def import_tbx(request: Request[Any, Any, Any], glossary_id: str) -> TbxImported:
    glossaries, owner = _glossaries(request)
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "multipart/form-data":
        raise InvalidRequestError(
            "Send the TBX file as multipart/form-data in the field `file`.", param="file"
        )
    form = await request.form()
    upload = form.get(FILE)
    if not isinstance(upload, UploadFile):
        raise InvalidRequestError("The form has no file in the field `file`.", param="file")
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    found, read, added, replaced = await glossaries.import_tbx(
        owner,
        glossary_id,
        await upload.read(),
        fields.get("source_lang") or None,
        fields.get("target_lang") or None,
    )
    return TbxImported(glossary=GlossaryObject.of(found), read=read, added=added, replaced=replaced)


def glossary_router(max_bytes: int) -> Router:
    """The glossary routes; a TBX import takes bodies up to `max_bytes` (the app's body limit
    is for JSON requests)."""
    return Router(
        path="/",
        route_handlers=[
            glossary_collection,
            glossary,
            entry_collection,
            entry,
            tbx_options,  # before the path's other handlers, so that Litestar adds none
            export_tbx,
            import_tbx,
        ],
        request_max_body_size=max_bytes + FORM_OVERHEAD,
        exception_handlers=exception_handlers(),
        opt={STORES: "always", **scoped(scopes.GLOSSARIES_READ, scopes.GLOSSARIES_WRITE)},
    )

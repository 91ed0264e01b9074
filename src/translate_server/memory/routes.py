"""/memories: translation memories made, listed, filled from files, exported and deleted.

Where API keys are configured a memory belongs to the key that made it, and another key's
memory is the same 404 as an unknown id; without keys, every client shares them. Imports are
multipart forms (`file`, and `source_lang`/`target_lang` for files that do not say their
languages), taken up to --max-memory-bytes on a router of their own.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response, Router, get, post, route
from litestar.datastructures import UploadFile
from litestar.openapi import ResponseSpec

from translate_server.accounts import scopes
from translate_server.errors import InvalidRequestError
from translate_server.http.bodies import FORM_OVERHEAD, read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import FILE, FormField, error_responses, form_body, idempotent
from translate_server.http.requests import request_owner
from translate_server.http.route_paths import IDEMPOTENT, JSON, STORES, scoped
from translate_server.memory.entry_routes import ENTRY_ROUTES
from translate_server.memory.formats import TMX_MEDIA_TYPE
from translate_server.memory.keys import MEMORIES
from translate_server.memory.protocol import (
    CreateMemoryRequest,
    MemoryDeleted,
    MemoryImported,
    MemoryList,
    MemoryObject,
    RenameMemoryRequest,
)
from translate_server.services import services

_ERRORS = error_responses(400, 401, 404)


# One handler for both methods: Litestar's automatic OPTIONS answer (`Allow`) lists only the
# methods of the first handler registered for a path.
@route(
    "/memories",
    http_method=["GET", "POST"],
    status_code=200,
    summary='The caller\'s translation memories (GET), or a new one (POST `{"name"}`, 201)',
    tags=["memories"],
    opt=JSON,
    responses={
        201: ResponseSpec(
            data_container=MemoryObject, generate_examples=False, description="The memory made"
        ),
        **error_responses(400, 401, 415),
    },
)
async def memory_collection(
    request: Request[Any, Any, Any],
) -> Response[MemoryList | MemoryObject]:
    found, owner = services(request)[MEMORIES], request_owner(request)
    if request.method == "GET":
        listed = await found.list(owner)
        return Response(MemoryList(data=[MemoryObject.of(info) for info in listed]))
    body = await read_body(request, CreateMemoryRequest)
    return Response(MemoryObject.of(await found.create(owner, body.name)), status_code=201)


# One handler for both methods: Litestar's automatic OPTIONS answer lists only the methods
# of the first handler registered for a path.
@route(
    "/memories/{memory_id:str}",
    http_method=["GET", "PATCH", "DELETE"],
    status_code=200,
    summary='A translation memory; PATCH `{"name"}` renames it; DELETE deletes it and its entries',
    tags=["memories"],
    opt=JSON,
    responses={**_ERRORS, **error_responses(415)},
)
async def memory(request: Request[Any, Any, Any], memory_id: str) -> MemoryObject | MemoryDeleted:
    memories, owner = services(request)[MEMORIES], request_owner(request)
    if request.method == "PATCH":
        body = await read_body(request, RenameMemoryRequest)
        return MemoryObject.of(await memories.rename(owner, memory_id, body.name))
    if request.method == "DELETE":
        await memories.delete(owner, memory_id)
        return MemoryDeleted(id=memory_id, deleted=True)
    return MemoryObject.of(await memories.get(owner, memory_id))


@get(
    "/memories/{memory_id:str}/export",
    summary="A translation memory as a TMX 1.4 file",
    tags=["memories"],
    responses=_ERRORS,
    media_type=TMX_MEDIA_TYPE,
)
async def export_memory(request: Request[Any, Any, Any], memory_id: str) -> Response[bytes]:
    info, data = await services(request)[MEMORIES].export(request_owner(request), memory_id)
    filename = quote(f"{info.name}.tmx")
    return Response(
        content=data,
        media_type=TMX_MEDIA_TYPE,
        headers={"content-disposition": f"attachment; filename*=UTF-8''{filename}"},
    )


@post(
    "/memories/{memory_id:str}/import",
    status_code=200,
    tags=["memories"],
    summary="Add a file's translations to a translation memory",
    opt={IDEMPOTENT: True},
    description="Multipart form: `file` (TMX 1.4, XLIFF 1.2 or 2.0, gettext PO, POT or MO, "
    "CSV or TSV: its extension names its format), and `source_lang`, `target_lang` for a "
    "file that does not say its languages (a PO file's header gives only its target; a CSV "
    "file's may be a first row of two language tags, else rows are `source,target[,note]`). "
    "An entry whose source and languages the memory already has replaces its translation.",
    responses={**_ERRORS, **error_responses(413)},
    operation_class=idempotent(
        form_body(
            (
                FormField(FILE, "The memory file.", required=True),
                FormField("source_lang", "Source language, where the file does not say it."),
                FormField("target_lang", "Target language, where the file does not say it."),
            )
        )
    ),
)
async def import_memory(request: Request[Any, Any, Any], memory_id: str) -> MemoryImported:
    memories = services(request)[MEMORIES]
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "multipart/form-data":
        raise InvalidRequestError(
            "Send the memory file as multipart/form-data in the field `file`.", param="file"
        )
    form = await request.form()
    upload = form.get(FILE)
    if not isinstance(upload, UploadFile):
        raise InvalidRequestError("The form has no file in the field `file`.", param="file")
    data = await upload.read()
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    info, merged = await memories.import_file(
        request_owner(request),
        memory_id,
        data,
        upload.filename or None,
        fields.get("source_lang") or None,
        fields.get("target_lang") or None,
    )
    return MemoryImported.of(info, merged)


def memory_router(max_bytes: int) -> Router:
    """The memory routes, their entries' and the corrections'; the import takes bodies up to
    a memory file's size (the app's body limit is for JSON requests)."""
    return Router(
        path="/",
        route_handlers=[memory_collection, memory, export_memory, import_memory, *ENTRY_ROUTES],
        request_max_body_size=max_bytes + FORM_OVERHEAD,
        exception_handlers=exception_handlers(),
        opt={STORES: "always", **scoped(scopes.MEMORIES_READ, scopes.MEMORIES_WRITE)},
    )

"""/memories/{id}/entries: a memory's entries added, listed and searched, read, edited and
removed one at a time; and /translate/corrections, a machine translation corrected into a
memory. Each change raises the memory's revision (`memory.editing`). The memory is the
caller's, as on /memories: another key's is the same 404 as an unknown one."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Request, Response, post, route
from litestar.openapi import ResponseSpec
from litestar.params import Parameter

from translate_server.http.bodies import read_body
from translate_server.http.openapi import error_responses, idempotent
from translate_server.http.requests import record_of, request_owner
from translate_server.http.route_paths import IDEMPOTENT, JSON
from translate_server.memory.corrections import correct
from translate_server.memory.editing import EntrySearch
from translate_server.memory.entry_protocol import (
    CorrectionObject,
    CorrectionRequest,
    MemoryEntryDeleted,
    MemoryEntryList,
    MemoryEntryObject,
    MemoryEntryPatch,
    MemoryEntryRequest,
)
from translate_server.memory.keys import MEMORIES
from translate_server.services import services

_ENTRIES_PATH = "/memories/{memory_id:str}/entries"
MAX_PAGE = 500


# One handler for both methods: Litestar's automatic OPTIONS answer lists only the methods of
# the first handler registered for a path.
@route(
    _ENTRIES_PATH,
    http_method=["GET", "POST"],
    status_code=200,
    summary="A memory's entries, searched and paged (GET), or a new entry (POST, 201)",
    description="GET lists the entries in the order they came, `limit` at a time from "
    "`offset`; `q` keeps those whose source or target (`field`) holds it, case-insensitive, "
    "and `source_lang`/`target_lang` those of a language pair. POST adds an entry: where the "
    "memory has its source in these languages already (whitespace collapsed, placeholders "
    "masked), that entry's translation is replaced and the answer is 200, else 201.",
    tags=["memories"],
    opt=JSON,
    responses={
        201: ResponseSpec(
            data_container=MemoryEntryObject, generate_examples=False, description="The entry added"
        ),
        **error_responses(400, 401, 404, 413, 415),
    },
)
async def memory_entries(
    request: Request[Any, Any, Any],
    memory_id: str,
    q: Annotated[str | None, Parameter(description="Text the entries hold.")] = None,
    field: Annotated[
        Literal["source", "target", "any"], Parameter(description="Where `q` is looked for.")
    ] = "any",
    source_lang: str | None = None,
    target_lang: str | None = None,
    limit: Annotated[int, Parameter(ge=1, le=MAX_PAGE)] = 50,
    offset: Annotated[int, Parameter(ge=0)] = 0,
) -> Response[MemoryEntryList | MemoryEntryObject]:
    entries, owner = services(request)[MEMORIES].entries, request_owner(request)
    if request.method == "POST":
        body = await read_body(request, MemoryEntryRequest)
        info, stored, new = await entries.add(owner, memory_id, body.entry())
        return Response(MemoryEntryObject.of(info, stored), status_code=201 if new else 200)
    asked = EntrySearch(q, field, source_lang, target_lang, limit, offset)
    info, total, found = await entries.search(owner, memory_id, asked)
    listed = [MemoryEntryObject.of(info, entry) for entry in found]
    more = offset + len(listed) < total
    page = MemoryEntryList(data=listed, total=total, offset=offset, limit=limit, has_more=more)
    return Response(page)


@route(
    _ENTRIES_PATH + "/{entry_id:int}",
    http_method=["GET", "PATCH", "DELETE"],
    status_code=200,
    summary="One entry of a memory; PATCH changes the fields sent, DELETE removes it",
    tags=["memories"],
    opt=JSON,
    responses=error_responses(400, 401, 404, 409, 415),
)
async def memory_entry(
    request: Request[Any, Any, Any], memory_id: str, entry_id: int
) -> MemoryEntryObject | MemoryEntryDeleted:
    entries, owner = services(request)[MEMORIES].entries, request_owner(request)
    if request.method == "DELETE":
        info = await entries.remove(owner, memory_id, entry_id)
        return MemoryEntryDeleted(id=entry_id, deleted=True, memory_revision=info.revision)
    if request.method == "PATCH":
        patch = await read_body(request, MemoryEntryPatch)
        info, stored = await entries.edit(owner, memory_id, entry_id, patch.changes())
        return MemoryEntryObject.of(info, stored)
    return MemoryEntryObject.of(*await entries.get(owner, memory_id, entry_id))


@post(
    "/translate/corrections",
    status_code=200,
    summary="A machine translation corrected: the corrected pair kept in a memory",
    description="The corrected pair goes into the memory at once (the same text translated "
    "again with `memory` is then its exact match), replacing the translation the memory had "
    "for this source. The correction is counted by language pair "
    "(`translate_corrections_total` in /metrics) and named in the request's log line.",
    tags=["memories", "translation"],
    opt={**JSON, IDEMPOTENT: True},
    operation_class=idempotent(),
    responses=error_responses(400, 401, 404, 413, 415),
)
async def corrections(request: Request[Any, Any, Any]) -> CorrectionObject:
    body = await read_body(request, CorrectionRequest)
    memories = services(request)[MEMORIES]
    return await correct(memories, request_owner(request), body, record_of(request))


ENTRY_ROUTES = (memory_entries, memory_entry, corrections)

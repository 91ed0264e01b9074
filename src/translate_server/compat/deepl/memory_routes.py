"""DeepL's translation-memory API (`/v3/translation_memories...`) over the server's own memories
(/memories): a memory imported here is one of the key's memories, and one made on /memories is
listed here. The official `deepl` client imports a TMX file in three steps (an import job, a
PUT of the file to the job's upload URL, then polling the job) and exports one likewise.

The upload and download URLs carry a token of their own, as DeepL's pre-signed storage URLs
do: the client sends no API key to them. An upload is read as it arrives, so the job it
completes is done by the client's first poll (the client sleeps 5 s between polls).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, Router, get, post, put, route
from litestar.openapi.datastructures import ResponseSpec

from translate_server.accounts import scopes
from translate_server.compat.common import body_key_check
from translate_server.compat.deepl.keys import DEEPL
from translate_server.compat.deepl.memory_protocol import (
    ExportCreated,
    ImportCreated,
    ImportRequest,
    JobStatusBody,
    SegmentsPage,
    TranslationMemories,
    TranslationMemory,
    read_cursor,
    timestamp,
    upload_url,
)
from translate_server.compat.deepl.memory_service import DeepLMemories
from translate_server.compat.deepl.protocol import DeepLError
from translate_server.compat.deepl.routes import KEY_FIELD, error_shape
from translate_server.errors import InvalidRequestError
from translate_server.http.bodies import FORM_OVERHEAD, read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.http.requests import request_owner
from translate_server.http.route_paths import OPEN, compatible, scoped
from translate_server.memory.formats import TMX_MEDIA_TYPE
from translate_server.services import services

_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)
MAX_PAGE_SIZE = 25  # memories listed per page, as DeepL
MAX_SEGMENT_PAGE = 100
DEFAULT_SEGMENT_PAGE = 50


def _memories(request: Request[Any, Any, Any]) -> DeepLMemories:
    return services(request)[DEEPL].translation_memories


def _base(request: Request[Any, Any, Any]) -> str:
    return str(request.base_url).rstrip("/")


def _int_param(request: Request[Any, Any, Any], name: str, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise InvalidRequestError(
            f"Value for '{name}' must be between {low} and {high}.", param=name
        )
    return value


@post(
    "/translation_memories/import",
    status_code=201,
    summary="DeepL v3: an import job for a new translation memory (then PUT the TMX file)",
    tags=["deepl"],
    responses=_ERRORS,
)
async def create_import(request: Request[Any, Any, Any]) -> ImportCreated:
    body = await read_body(request, ImportRequest)
    job = await _memories(request).create_import(request_owner(request), body)
    return ImportCreated(
        job_id=job.job_id,
        upload_url=upload_url(_base(request), job),
        expires_at=timestamp(job.expires),
    )


@put(
    "/translation_memories/uploads/{token:str}",
    status_code=200,
    summary="DeepL v3: an import job's file (the upload URL; no API key)",
    tags=["deepl"],
    responses=_ERRORS,
    opt=OPEN,
)
async def upload_file(request: Request[Any, Any, Any], token: str) -> Response[None]:
    """The file is read and merged before the answer; the job records how it went."""
    memories = _memories(request)
    job = await memories.awaiting_upload(token)  # checked before the file is read
    await memories.receive_upload(job, await request.body())
    return Response(None, status_code=200)


@get(
    "/translation_memories/jobs/{job_id:str}",
    summary="DeepL v3: a translation memory import or export job",
    tags=["deepl"],
    responses=_ERRORS,
)
async def memory_job(request: Request[Any, Any, Any], job_id: str) -> JobStatusBody:
    job = await _memories(request).job(request_owner(request), job_id)
    return JobStatusBody.of(job, _base(request))


@get(
    "/translation_memories",
    summary="DeepL v3: the key's translation memories",
    tags=["deepl"],
    responses=_ERRORS,
)
async def list_memories(request: Request[Any, Any, Any]) -> TranslationMemories:
    page = _int_param(request, "page", 0, 1_000_000) or 0
    size = _int_param(request, "page_size", 1, MAX_PAGE_SIZE) or MAX_PAGE_SIZE
    return await _memories(request).page(request_owner(request), page, size)


@route(
    "/translation_memories/{memory_id:str}",
    http_method=["GET", "DELETE"],
    status_code=200,
    summary="DeepL v3: a translation memory (GET), or delete it (DELETE, 204)",
    tags=["deepl"],
    responses={204: ResponseSpec(data_container=None, description="Deleted"), **_ERRORS},
)
async def translation_memory(
    request: Request[Any, Any, Any], memory_id: str
) -> Response[TranslationMemory | None]:
    memories, owner = _memories(request), request_owner(request)
    if request.method == "DELETE":
        await memories.delete(owner, memory_id)
        return Response(None, status_code=204)
    return Response(await memories.describe(owner, memory_id))


@get(
    "/translation_memories/{memory_id:str}/segments",
    summary="DeepL v3: a page of a translation memory's segments",
    tags=["deepl"],
    responses=_ERRORS,
)
async def memory_segments(request: Request[Any, Any, Any], memory_id: str) -> SegmentsPage:
    size = _int_param(request, "page_size", 1, MAX_SEGMENT_PAGE) or DEFAULT_SEGMENT_PAGE
    after = 0
    if (raw := request.query_params.get("page_cursor")) is not None:
        read = read_cursor(raw)
        if read is None:
            raise InvalidRequestError("Value for 'page_cursor' is not valid.", param="page_cursor")
        after = read
    contains = request.query_params.get("filter_text")
    if contains is not None and len(contains) < 2:
        raise InvalidRequestError(
            "Value for 'filter_text' must have at least 2 characters.", param="filter_text"
        )
    case = request.query_params.get("filter_case_sensitive", "false").lower()
    if case not in ("true", "false"):
        raise InvalidRequestError(
            "Value for 'filter_case_sensitive' is true or false.", param="filter_case_sensitive"
        )
    return await _memories(request).segments(
        request_owner(request),
        memory_id,
        after=after,
        size=size,
        contains=contains,
        case_sensitive=case == "true",
    )


@post(
    "/translation_memories/{memory_id:str}/export",
    status_code=202,
    summary="DeepL v3: an export job for a translation memory (a TMX file)",
    tags=["deepl"],
    responses=_ERRORS,
    opt=scoped(scopes.MEMORIES_READ),  # a POST that only reads
)
async def create_export(request: Request[Any, Any, Any], memory_id: str) -> ExportCreated:
    return await _memories(request).create_export(request_owner(request), memory_id)


@get(
    "/translation_memories/downloads/{token:str}",
    summary="DeepL v3: an export job's TMX file (the download URL; no API key)",
    tags=["deepl"],
    responses=_ERRORS,
    media_type=TMX_MEDIA_TYPE,
    opt=OPEN,
)
async def download_export(request: Request[Any, Any, Any], token: str) -> Response[bytes]:
    info, data = await _memories(request).download(token)
    return Response(
        content=data,
        media_type=TMX_MEDIA_TYPE,
        headers={"content-disposition": f'attachment; filename="{info.id}.tmx"'},
    )


def deepl_memory_router(max_bytes: int) -> Router:
    """Under /v3, in DeepL's error shape; the upload takes a memory file's size."""
    return Router(
        path="/v3",
        route_handlers=[
            create_import,
            upload_file,
            memory_job,
            list_memories,
            translation_memory,
            memory_segments,
            create_export,
            download_export,
        ],
        request_max_body_size=max_bytes + FORM_OVERHEAD,
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(KEY_FIELD),
        opt=compatible(
            error_shape,
            scope=(scopes.MEMORIES_READ, scopes.MEMORIES_WRITE),
            stores=True,
        ),
    )

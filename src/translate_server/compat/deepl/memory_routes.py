"""DeepL's translation-memory API (`/v3/translation_memories...`) over the server's own memories
(/memories): a memory imported here is one of the key's memories, and one made on /memories is
listed here. The official `deepl` client imports a TMX file in three steps (an import job, a
PUT of the file to the job's upload URL, then polling the job) and exports one likewise.

The upload and download URLs carry a token of their own, as DeepL's pre-signed storage URLs
do: the client sends no API key to them. An upload is read as it arrives, so the job it
completes is done by the client's first poll (the client sleeps 5 s between polls).
"""

from __future__ import annotations

import time
from typing import Any

from litestar import Request, Response, Router, get, post, put, route
from litestar.openapi.datastructures import ResponseSpec

from translate_server.compat.common import body_key_check
from translate_server.compat.deepl.memory_protocol import (
    ExportCreated,
    ImportCreated,
    ImportRequest,
    JobParameters,
    JobStatusBody,
    SegmentsPage,
    SourceSegment,
    TranslationMemories,
    TranslationMemory,
    cursor,
    read_cursor,
    timestamp,
    upload_url,
)
from translate_server.compat.deepl.protocol import DeepLError
from translate_server.compat.deepl.routes import KEY_FIELD, NotFoundError, error_shape
from translate_server.errors import ApiError, InvalidRequestError
from translate_server.http.bodies import read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.http.requests import request_owner
from translate_server.http.route_paths import OPEN, compatible
from translate_server.memory.jobs import MemoryJob
from translate_server.memory.keys import MEMORIES
from translate_server.memory.routes import FORM_OVERHEAD, TMX_MEDIA_TYPE
from translate_server.memory.segments import languages, segments
from translate_server.memory.service import Memories
from translate_server.memory.store import MemoryInfo
from translate_server.services import services

_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)
MAX_PAGE_SIZE = 25  # memories listed per page, as DeepL
MAX_SEGMENT_PAGE = 100
DEFAULT_SEGMENT_PAGE = 50


def _base(request: Request[Any, Any, Any]) -> str:
    return str(request.base_url).rstrip("/")


async def _described(memories: Memories, owner: str, info: MemoryInfo) -> TranslationMemory:
    found = await languages(memories.store, owner, info.id)
    if found is None:  # deleted meanwhile
        raise _memory_not_found()
    return TranslationMemory.of(info, found)


def _memory_not_found() -> NotFoundError:
    return NotFoundError("Translation memory not found.", param="translation_memory_id")


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
    memories = services(request)[MEMORIES]
    memories.check_size(body.source_file.content_length)
    parameters = body.parameters
    job = await memories.jobs.create(
        request_owner(request),
        "import",
        status="awaiting_input",
        display_name=parameters.display_name if parameters else None,
        file_name=body.source_file.file_name,
        content_type=body.source_file.content_type or "application/xml",
        content_length=body.source_file.content_length,
    )
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
    """The file is read and merged before the answer; the job records how it went (a file
    that cannot be read fails the job, with the line or unit named, as DeepL's jobs do)."""
    memories = services(request)[MEMORIES]
    job = await memories.jobs.by_token(token)
    if job is None or job.operation != "import":
        raise NotFoundError("No upload is expected at this URL.")
    if job.status == "expired":
        raise InvalidRequestError("The upload URL has expired: create a new import job.")
    if job.status != "awaiting_input":
        raise InvalidRequestError("This import job has its file already.")
    data = await request.body()
    if len(data) != job.content_length:
        raise InvalidRequestError(
            f"The file has {len(data)} bytes; the import job declared {job.content_length}.",
            param="content_length",
        )
    if not await memories.jobs.claim(job):
        raise InvalidRequestError("This import job has its file already.")
    await _import(memories, job, data)
    return Response(None, status_code=200)


async def _import(memories: Memories, job: MemoryJob, data: bytes) -> None:
    name = job.display_name or job.file_name or "translation memory"
    made = await memories.create(job.owner, name)
    try:
        _, merged = await memories.import_file(job.owner, made.id, data, job.file_name, None, None)
    except ApiError as failure:
        await memories.delete(job.owner, made.id)
        await memories.jobs.finish(job, "failed", error=failure.message)
        return
    except BaseException:
        await memories.delete(job.owner, made.id)
        await memories.jobs.finish(job, "failed", error="The file could not be imported.")
        raise
    # DeepL counts the segments an import skipped; here those are the file's duplicates,
    # merged into one entry (the later translation kept).
    await memories.jobs.finish(job, "completed", memory=made.id, skipped=merged.replaced)


@get(
    "/translation_memories/jobs/{job_id:str}",
    summary="DeepL v3: a translation memory import or export job",
    tags=["deepl"],
    responses=_ERRORS,
)
async def memory_job(request: Request[Any, Any, Any], job_id: str) -> JobStatusBody:
    job = await services(request)[MEMORIES].jobs.get(request_owner(request), job_id)
    if job is None:
        raise NotFoundError("Translation memory job not found.", param="job_id")
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
    memories, owner = services(request)[MEMORIES], request_owner(request)
    listed = await memories.list(owner)
    shown = listed[page * size : (page + 1) * size]
    return TranslationMemories(
        translation_memories=[await _described(memories, owner, info) for info in shown],
        total_count=len(listed),
    )


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
    memories, owner = services(request)[MEMORIES], request_owner(request)
    info = await memories.store.get(owner, memory_id)
    if info is None:
        raise _memory_not_found()
    if request.method == "DELETE":
        await memories.store.delete(owner, memory_id)
        return Response(None, status_code=204)
    return Response(await _described(memories, owner, info))


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
    found = await segments(
        services(request)[MEMORIES].store,
        request_owner(request),
        memory_id,
        after=after,
        size=size,
        contains=contains,
        case_sensitive=case == "true",
    )
    if found is None:
        raise _memory_not_found()
    info, page = found
    return SegmentsPage(
        segments=[SourceSegment.of(segment) for segment in page.segments],
        segment_count=info.entries,
        next_page_cursor=None if page.after is None else cursor(page.after),
    )


@post(
    "/translation_memories/{memory_id:str}/export",
    status_code=202,
    summary="DeepL v3: an export job for a translation memory (a TMX file)",
    tags=["deepl"],
    responses=_ERRORS,
)
async def create_export(request: Request[Any, Any, Any], memory_id: str) -> ExportCreated:
    memories, owner = services(request)[MEMORIES], request_owner(request)
    if await memories.store.get(owner, memory_id) is None:
        raise _memory_not_found()
    # Written when downloaded: the job is done at once.
    job = await memories.jobs.create(owner, "export", status="completed", memory=memory_id)
    return ExportCreated(
        job_id=job.job_id, parameters=JobParameters(translation_memory_id=memory_id)
    )


@get(
    "/translation_memories/downloads/{token:str}",
    summary="DeepL v3: an export job's TMX file (the download URL; no API key)",
    tags=["deepl"],
    responses=_ERRORS,
    media_type=TMX_MEDIA_TYPE,
    opt=OPEN,
)
async def download_export(request: Request[Any, Any, Any], token: str) -> Response[bytes]:
    memories = services(request)[MEMORIES]
    job = await memories.jobs.by_token(token)
    if job is None or job.operation != "export" or job.memory is None:
        raise NotFoundError("No download at this URL.")
    if time.time() > job.expires:
        raise NotFoundError("The download URL has expired: create a new export job.")
    info, data = await memories.export(job.owner, job.memory)
    await memories.jobs.finish(job, "downloaded")
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
        opt=compatible(error_shape, stores=True),
    )

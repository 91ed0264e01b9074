"""A finished document job's review: `GET /translate/document/{id}/segments` lists its segments
beside their sources, and `PATCH .../segments/{n}` edits one's translation, approves it (its
review flag cleared in the result: PO without `#, fuzzy`, XLIFF `translated`) and, where the
body names a memory, saves it into that memory as a correction (as /translate/corrections).
Read with the document's key, as its other routes are."""

from __future__ import annotations

from typing import Any

from litestar import Request, route

from translate_server.documents import review
from translate_server.documents.keys import DOCUMENTS
from translate_server.documents.protocol import (
    DocumentSegment,
    DocumentSegments,
    SegmentEdited,
    SegmentPatch,
)
from translate_server.documents.route_helpers import caller, document_errors, document_key
from translate_server.errors import InvalidRequestError
from translate_server.http.bodies import read_body
from translate_server.http.requests import record_of, request_owner
from translate_server.http.route_paths import JSON
from translate_server.memory.corrections import correct
from translate_server.memory.entry_protocol import CorrectionObject, CorrectionRequest
from translate_server.memory.keys import MEMORIES
from translate_server.services import services

_ERRORS = document_errors(400, 401, 404, 409)


@route(
    "/translate/document/{document_id:str}/segments",
    http_method=["GET"],
    summary="A translated document's segments, for its review",
    description="Every segment of a finished job in the file's order: its source, its "
    "translation, the quality estimate, warnings and memory match it was translated with, "
    "whether it needs review, and whether a person edited or approved it. 409 before the "
    "job is done.",
    tags=["documents"],
    responses=_ERRORS,
)
async def document_segments(request: Request[Any, Any, Any], document_id: str) -> DocumentSegments:
    documents = services(request)[DOCUMENTS]
    found = await review.reviewed(
        documents.jobs, document_id, document_key(request), caller(request, documents)
    )
    job = found.job
    return DocumentSegments(
        document_id=job.id,
        filename=job.filename,
        source_lang=job.source_lang,
        target_lang=job.target_lang,
        needs_review=found.needs_review,
        data=[
            DocumentSegment.of(i, source, translation)
            for i, (source, translation) in enumerate(
                zip(found.sources, found.translations, strict=True)
            )
        ],
    )


@route(
    "/translate/document/{document_id:str}/segments/{index:int}",
    http_method=["PATCH"],
    status_code=200,
    summary="A translated document's segment edited, approved, or saved as a correction",
    description="JSON body: `translation` (the new translation), `approved` (true clears the "
    "segment's review flag, false sets it), `memory` (a translation memory the segment's "
    "translation is saved into as a correction) and `source_lang` (the correction's source "
    "language where the job's was detected). The result (`/result`) is rebuilt at once.",
    tags=["documents"],
    opt=JSON,
    responses=_ERRORS,
)
async def document_segment(
    request: Request[Any, Any, Any], document_id: str, index: int
) -> SegmentEdited:
    documents = services(request)[DOCUMENTS]
    patch = await read_body(request, SegmentPatch)
    found = await review.reviewed(
        documents.jobs, document_id, document_key(request), caller(request, documents)
    )
    source, _ = review.segment(found, index)  # the 404 first, before any correction
    correction = None
    if patch.memory:
        correction = await _correct(request, found, index, patch)
    edited = await review.edit(documents.jobs, found.job, index, patch.translation, patch.approved)
    return SegmentEdited(
        segment=DocumentSegment.of(index, source, edited.translations[index]),
        needs_review=edited.needs_review,
        correction=correction,
    )


async def _correct(
    request: Request[Any, Any, Any],
    found: review.Reviewed,
    index: int,
    patch: SegmentPatch,
) -> CorrectionObject:
    """The segment's translation (as the patch leaves it) kept in the memory named; the
    machine's translation is what was corrected."""
    source, translation = review.segment(found, index)
    source_lang = patch.source_lang or found.job.source_lang
    if not source_lang:
        raise InvalidRequestError(
            "The document's language was detected: give the correction's `source_lang`.",
            param="source_lang",
        )
    machine = translation.details.machine
    body = CorrectionRequest(
        source=source,
        translation=translation.text if machine is None else machine,
        corrected=translation.text if patch.translation is None else patch.translation,
        source_lang=source_lang,
        target_lang=found.job.target_lang,
        memory=patch.memory or "",
    )
    memories = services(request)[MEMORIES]
    return await correct(memories, request_owner(request), body, record_of(request))


REVIEW_ROUTES = (document_segments, document_segment)

"""POST /translate/document and its status, result and progress stream: documents translated as
background jobs, for curl users (`curl -F file=@talk.srt -F target_lang=de .../translate/document`).

A job is read with its key, as the query parameter `key` or the header `X-Document-Key`; where
API keys are configured, only the key that submitted it can read it. Bodies are multipart
forms, so no route here declares a JSON body in its `opt`; none is open without an API key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from litestar import Request, Response, Router, get, post, route

from translate_server.accounts import scopes
from translate_server.documents.keys import DOCUMENTS
from translate_server.documents.protocol import DocumentStatus, DocumentSubmitted
from translate_server.documents.review_routes import REVIEW_ROUTES
from translate_server.documents.route_helpers import (
    caller,
    document_errors,
    document_key,
    naming_job,
    read_upload,
    result_response,
)
from translate_server.documents.upload import DocumentOrder, Upload
from translate_server.errors import InvalidRequestError
from translate_server.http import sse
from translate_server.http.bodies import FORM_OVERHEAD
from translate_server.http.openapi import FILE, FormField, form_body, idempotent
from translate_server.http.requests import request_owner
from translate_server.http.route_paths import IDEMPOTENT, STORES, scoped
from translate_server.services import services
from translate_server.translation.protocol import MAX_CANDIDATES

if TYPE_CHECKING:
    from translate_server.documents.job import Job
    from translate_server.documents.service import Documents

T = TypeVar("T")

_ERRORS = document_errors(400, 401, 404, 409, 413, 429)
_FORMALITY = ("default", "formal", "informal")


@post(
    "/translate/document",
    status_code=202,
    summary="Translate a document (background job)",
    opt={IDEMPOTENT: True},
    description="Multipart form: `file`, `target_lang`, optional `source_lang` (default: "
    "detected), `formality` (default, formal, informal), `glossary` (a JSON object of "
    "required term translations), `glossary_id` (a stored glossary, as on /translate), "
    "`retranslate` (catalogs: translate entries that already "
    "have a translation), `memory` and `memory_threshold` (a translation memory, as on "
    "/translate), `instructions` (repeated; as on /translate), `candidates` and `min_quality` "
    "(as on /translate). Answers the job's id and key and where to follow it; once done, its "
    "status lists the segments whose translation needs review (catalogs mark them in the "
    "file too: PO `#, fuzzy`, XLIFF's review states, string catalogs' `needs_review`, Qt's "
    "`unfinished`).",
    tags=["documents"],
    responses=_ERRORS,
    operation_class=idempotent(
        form_body(
            (
                FormField(FILE, "The document (its extension names its format).", required=True),
                FormField("target_lang", "Language to translate into.", required=True),
                FormField("source_lang", "Language of the document (default: detected)."),
                FormField("formality", "Formality of the translation.", enum=_FORMALITY),
                FormField("glossary", "A JSON object of required term translations."),
                FormField(
                    "glossary_id", "A stored glossary's id (GET /glossaries), as on /translate."
                ),
                FormField(
                    "retranslate",
                    "Catalogs: translate entries that already have a translation (true or false).",
                ),
                FormField("memory", "A translation memory's id (POST /memories)."),
                FormField("memory_threshold", "The least fuzzy-match score shown (0-100, 75)."),
                FormField(
                    "file_memory",
                    "Catalogs: their translated entries are the memory of the untranslated ones "
                    "where no `memory` is named (true, the default, or false).",
                ),
                FormField(
                    "neighbours",
                    "Each segment translated with the segments before and after it as context "
                    "(true or false, the default).",
                ),
                FormField(
                    "instructions",
                    "An instruction to the model, as on /translate (repeat the field for more; at "
                    "most 10 of 300 characters; an instruction-tuned model only).",
                ),
                FormField(
                    "candidates",
                    "Answers written per segment's piece, the best estimated kept (1 to 4; as on "
                    "/translate).",
                ),
                FormField(
                    "min_quality",
                    "The least quality estimate wanted, 0 to 1: a piece under it is translated "
                    "again (as on /translate).",
                ),
            )
        )
    ),
)
async def submit_document(request: Request[Any, Any, Any]) -> Response[DocumentSubmitted]:
    documents = services(request)[DOCUMENTS]
    upload = await read_upload(request, documents.max_bytes)
    order = await _order(upload, documents, request_owner(request))
    job, key = await documents.submit(upload, order, caller(request, documents))
    base = f"{str(request.base_url).rstrip('/')}/translate/document/{job.id}"
    query = f"?key={key}"
    return naming_job(
        DocumentSubmitted(
            document_id=job.id,
            document_key=key,
            status=job.status,
            status_url=base + query,
            result_url=f"{base}/result{query}",
            events_url=f"{base}/events{query}",
        ),
        job.id,
        202,
    )


async def _order(upload: Upload, documents: Documents, memory_owner: str) -> DocumentOrder:
    """Our form's fields as the order, each checked in turn (the first wrong one answered)."""
    target = upload.required("target_lang", "Give `target_lang`.")
    formality = upload.value("formality") or "default"
    if formality not in _FORMALITY:
        raise InvalidRequestError(
            f"`formality` is one of {', '.join(_FORMALITY)}.", param="formality"
        )
    memory = await documents.memory(
        upload.value("memory"), upload.value("memory_threshold"), memory_owner
    )
    instructions = documents.instructions(upload.lists.get("instructions"), "instructions")
    glossary_id = await documents.glossary(upload.value("glossary_id"), memory_owner)
    return DocumentOrder(
        target_lang=target,
        source_lang=upload.source_language("source_lang"),
        formality=formality,
        glossary=_glossary(upload.value("glossary")),
        glossary_id=glossary_id,
        glossary_owner=memory_owner,
        instructions=instructions,
        memory=memory,
        retranslate=upload.flag("retranslate", default=False),
        file_memory=upload.flag("file_memory", default=True),
        neighbours=upload.flag("neighbours", default=False),
        candidates=int(upload.number("candidates", int, 1, MAX_CANDIDATES) or 1),
        min_quality=upload.number("min_quality", float, 0.0, 1.0),
    )


def _glossary(raw: str | None) -> dict[str, str] | None:
    if not raw:
        return None
    try:
        return msgspec.json.decode(raw, type=dict[str, str])
    except msgspec.DecodeError:
        raise InvalidRequestError(
            "`glossary` is a JSON object of term translations.", param="glossary"
        ) from None


# One handler for both methods: Litestar's automatic OPTIONS answer lists only the methods
# of the first handler registered for a path.
@route(
    "/translate/document/{document_id:str}",
    http_method=["GET", "DELETE"],
    status_code=200,
    summary="A document job's status; DELETE cancels it",
    description="GET: the job's status. DELETE: stops the job where it stands (its engine "
    "requests are aborted) and deletes it and its files now, finished or not; the answer is "
    "its status as it stood when it was stopped.",
    tags=["documents"],
    responses=_ERRORS,
)
async def document_status(request: Request[Any, Any, Any], document_id: str) -> DocumentStatus:
    documents = services(request)[DOCUMENTS]
    key, owner = document_key(request), caller(request, documents)
    if request.method == "DELETE":
        return DocumentStatus.of(await documents.jobs.cancel(document_id, key, owner))
    return DocumentStatus.of(await documents.jobs.status(document_id, key, owner))


@get(
    "/translate/document/{document_id:str}/result",
    summary="A translated document",
    tags=["documents"],
    responses=_ERRORS,
    media_type="application/octet-stream",
)
async def document_result(request: Request[Any, Any, Any], document_id: str) -> Response[bytes]:
    documents = services(request)[DOCUMENTS]
    job, data = await documents.jobs.result(
        document_id, document_key(request), caller(request, documents)
    )
    return result_response(job, data)


@get(
    "/translate/document/{document_id:str}/events",
    summary="A document job's progress as server-sent events",
    description="The job's status now and after each translated batch, as `data: <status>` "
    "events, until it is done or failed; then `[DONE]`.",
    tags=["documents"],
    responses=_ERRORS,
    media_type=sse.MEDIA_TYPE,
)
async def document_events(request: Request[Any, Any, Any], document_id: str) -> sse.EventStream:
    documents = services(request)[DOCUMENTS]
    key, owner = document_key(request), caller(request, documents)
    # Checked before the stream starts, so a wrong key is a 404, not a broken stream.
    await documents.jobs.status(document_id, key, owner)
    return sse.EventStream(documents.jobs.watch(document_id, key, owner), _status_event)


def _status_event(job: Job) -> bytes:
    return sse.event(DocumentStatus.of(job))


def document_router(max_bytes: int) -> Router:
    """The document routes, taking bodies up to a document's size (the app's body limit is for
    JSON requests)."""
    return Router(
        path="/",
        route_handlers=[
            submit_document,
            document_status,
            document_result,
            document_events,
            *REVIEW_ROUTES,
        ],
        request_max_body_size=max_bytes + FORM_OVERHEAD,
        opt={STORES: "always", **scoped(scopes.DOCUMENTS)},
    )

"""POST /translate/document and its status, result and progress stream: documents translated as
background jobs, for curl users (`curl -F file=@talk.srt -F target_lang=de .../translate/document`).

A job is read with its key, as the query parameter `key` or the header `X-Document-Key`; where
API keys are configured, only the key that submitted it can read it. Bodies are multipart
forms, so no route here declares a JSON body in its `opt`; none is open without an API key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import msgspec
from litestar import Request, Response, get, post, route
from litestar.datastructures import UploadFile
from litestar.openapi.datastructures import ResponseSpec

from translate_server.documents.protocol import DocumentStatus, DocumentSubmitted
from translate_server.errors import InvalidRequestError, PayloadTooLargeError
from translate_server.http import sse
from translate_server.http.openapi import FILE, FormField, error_responses, form_body
from translate_server.http.requests import accepted_key
from translate_server.memory.routes import job_memory
from translate_server.services import services
from translate_server.translation.prompts.instructions import (
    refuse_on_base_model,
    validate_instructions,
)
from translate_server.translation.protocol import MAX_CANDIDATES
from translate_server.wire import ErrorResponse

if TYPE_CHECKING:
    from translate_server.documents.job import Job
    from translate_server.documents.service import Documents

T = TypeVar("T")

_DESCRIPTIONS = {
    400: "Invalid request, unsupported document format (`unsupported_document_format`) or a "
    "file its format's library cannot read (`invalid_document`)",
    404: "No document with this id and key (for this API key)",
    409: "The document is not translated yet",
    413: "File over --max-document-bytes (`document_too_large`) or text over "
    "--max-document-chars (`document_too_long`)",
    429: "Too many documents in translation for this API key (`too_many_documents`)",
}


def document_errors(*statuses: int, shape: type = ErrorResponse) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the document routes' error answers."""
    found = error_responses(*(s for s in statuses if s not in _DESCRIPTIONS), shape=shape)
    for status in statuses:
        if status in _DESCRIPTIONS:
            found[status] = ResponseSpec(
                data_container=shape, generate_examples=False, description=_DESCRIPTIONS[status]
            )
    return found


_ERRORS = document_errors(400, 401, 404, 409, 413, 429)
_FORMALITY = ("default", "formal", "informal")
# Room for a multipart body's boundaries and form fields beside the file itself.
FORM_OVERHEAD = 64 * 1024


def documents_of(request: Request[Any, Any, Any]) -> Documents:
    found = services(request).documents
    if found is None:  # only while the app starts or stops
        raise RuntimeError("document jobs are not running")
    return found


def caller(request: Request[Any, Any, Any], documents: Documents) -> str | None:
    """Whose jobs the caller may see (`Documents.owner` of the key it was let in with)."""
    return documents.owner(accepted_key(request))


@dataclass(frozen=True, slots=True)
class Upload:
    data: bytes
    filename: str | None
    fields: dict[str, str]  # a field sent more than once: its last value
    # Every value of each field, in order: a client sends a list as the field repeated.
    lists: dict[str, list[str]] = field(default_factory=dict)


async def read_upload(request: Request[Any, Any, Any], max_bytes: int) -> Upload:
    """The multipart form's `file` and its other fields; 413 for a file too large."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "multipart/form-data":
        raise InvalidRequestError(
            "Send the document as multipart/form-data with the file in the field `file`.",
            param="file",
        )
    form = await request.form()
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise InvalidRequestError("The form has no file in the field `file`.", param="file")
    data = await upload.read()
    if len(data) > max_bytes:
        raise PayloadTooLargeError(
            f"The file has {len(data)} bytes; at most {max_bytes} are accepted.",
            param="file",
            code="document_too_large",
        )
    lists: dict[str, list[str]] = {}
    for key, value in form.items():
        if isinstance(value, str):
            lists.setdefault(key, []).append(value)
    fields = {key: values[-1] for key, values in lists.items()}
    return Upload(data, upload.filename or None, fields, lists)


def document_key(request: Request[Any, Any, Any]) -> str:
    key = request.query_params.get("key") or request.headers.get("x-document-key")
    if not key:
        raise InvalidRequestError(
            "Give the document's key as `?key=` or `X-Document-Key`.", param="key"
        )
    return key


def result_response(job: Job, data: bytes, **kwargs: Any) -> Response[bytes]:
    """The translated file, with its format's media type and its upload's name."""
    from translate_server.documents.formats import format_named

    filename = job.filename or f"document{format_named(job.format).extensions[0]}"
    return Response(
        content=data,
        media_type=format_named(job.format).media_type,
        headers={"content-disposition": f"attachment; filename*=UTF-8''{quote(filename)}"},
        **kwargs,
    )  # Response's own keyword arguments, passed through


# The response header that names a new document job. A load balancer in front of several
# replicas reads it to send the job's later requests (status, result, events) to the replica
# that holds it (deploy/haproxy/haproxy.cfg, a stick table keyed by it).
DOCUMENT_ID_HEADER = "X-Document-Id"


def naming_job(content: T, document_id: str, status_code: int) -> Response[T]:
    """`content` as the response, with the header that names the job it created."""
    return Response(content, status_code=status_code, headers={DOCUMENT_ID_HEADER: document_id})


@post(
    "/translate/document",
    status_code=202,
    summary="Translate a document (background job)",
    description="Multipart form: `file`, `target_lang`, optional `source_lang` (default: "
    "detected), `formality` (default, formal, informal), `glossary` (a JSON object of "
    "required term translations), `retranslate` (catalogs: translate entries that already "
    "have a translation), `memory` and `memory_threshold` (a translation memory, as on "
    "/translate), `instructions` (repeated; as on /translate), `candidates` and `min_quality` "
    "(as on /translate). Answers the job's id and key and where to follow it; once done, its "
    "status lists the segments whose translation needs review (catalogs mark them in the "
    "file too: PO `#, fuzzy`, XLIFF's review states).",
    tags=["documents"],
    responses=_ERRORS,
    operation_class=form_body(
        (
            FormField(FILE, "The document (its extension names its format).", required=True),
            FormField("target_lang", "Language to translate into.", required=True),
            FormField("source_lang", "Language of the document (default: detected)."),
            FormField("formality", "Formality of the translation.", enum=_FORMALITY),
            FormField("glossary", "A JSON object of required term translations."),
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
    ),
)
async def submit_document(request: Request[Any, Any, Any]) -> Response[DocumentSubmitted]:
    from translate_server.documents.job import DocumentOptions

    documents = documents_of(request)
    upload = await read_upload(request, documents.max_bytes)
    fields = upload.fields
    target = fields.get("target_lang")
    if not target:
        raise InvalidRequestError("Give `target_lang`.", param="target_lang")
    formality = fields.get("formality") or "default"
    if formality not in _FORMALITY:
        raise InvalidRequestError(
            f"`formality` is one of {', '.join(_FORMALITY)}.", param="formality"
        )
    memory = await job_memory(request, fields.get("memory"), fields.get("memory_threshold"))
    instructions = _instructions(request, upload.lists.get("instructions"))
    options = DocumentOptions(
        formality=formality,
        glossary=_glossary(fields.get("glossary")),
        retranslate=fields.get("retranslate", "").lower() in ("1", "true", "yes", "on"),
        file_memory=fields.get("file_memory", "").lower() not in ("0", "false", "no", "off"),
        neighbours=fields.get("neighbours", "").lower() in ("1", "true", "yes", "on"),
        instructions=instructions,
        candidates=_number(fields.get("candidates"), "candidates", int, 1, MAX_CANDIDATES) or 1,
        min_quality=_number(fields.get("min_quality"), "min_quality", float, 0.0, 1.0),
        **msgspec.structs.asdict(memory),
    )
    source = fields.get("source_lang")
    job, key = await documents.jobs.submit(
        upload.data,
        filename=upload.filename,
        target_lang=target,
        source_lang=None if source in (None, "", "auto") else source,
        owner=caller(request, documents),
        options=options,
    )
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


def _instructions(request: Request[Any, Any, Any], given: list[str] | None) -> tuple[str, ...]:
    """The client's instructions, checked at upload as /translate checks them (its limits,
    the base model's 400), so a job never fails on them halfway."""
    instructions = validate_instructions(given, "instructions")
    if instructions:
        translation = services(request).translation
        refuse_on_base_model(
            translation.model_name, translation.planner.follows_instructions, "instructions"
        )
    return instructions


def _number(
    raw: str | None, param: str, kind: type[int] | type[float], low: float, high: float
) -> Any:
    """A form field's number within [low, high]; None where the field is absent."""
    if raw is None or not raw.strip():
        return None
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise InvalidRequestError(f"`{param}` is a number from {low:g} to {high:g}.", param=param)
    return value


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
    documents = documents_of(request)
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
    documents = documents_of(request)
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
    documents = documents_of(request)
    key, owner = document_key(request), caller(request, documents)
    # Checked before the stream starts, so a wrong key is a 404, not a broken stream.
    await documents.jobs.status(document_id, key, owner)
    return sse.EventStream(documents.jobs.watch(document_id, key, owner), _status_event)


def _status_event(job: Job) -> bytes:
    return sse.event(DocumentStatus.of(job))

"""OpenAI's /v1/files and /v1/batches, as the `openai` SDK calls them: thin handlers over the
batches' service. Every file and batch is its caller's (the key it was let in with, where keys
are configured); another key's is the same 404 as an unknown one."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, Router, get, post, route
from litestar.datastructures import UploadFile
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from translate_server.accounts import scopes
from translate_server.batches.keys import BATCHES
from translate_server.batches.protocol import (
    Batch,
    BatchCreateRequest,
    BatchList,
    FileDeleted,
    FileList,
    FileObject,
)
from translate_server.batches.service import Batches
from translate_server.errors import InvalidRequestError, PayloadTooLargeError
from translate_server.http.bodies import FORM_OVERHEAD
from translate_server.http.openapi import FILE, FormField, error_responses, form_body
from translate_server.http.requests import request_owner
from translate_server.http.route_paths import JSON, STORES, scoped
from translate_server.services import services

_ERRORS = error_responses(400, 401, 403, 404, 413, 415)
_LIMITED = {
    **_ERRORS,
    429: ResponseSpec(
        data_container=error_responses(429)[429].data_container,
        generate_examples=False,
        description="Too many files kept (`too_many_files`) or batches in progress "
        "(`too_many_batches`) for this API key",
    ),
}
Limit = Annotated[int, Parameter(ge=1, le=100, description="Objects per page (1 to 100).")]


# Litestar 2 answers OPTIONS on a path of two handlers with the first one's methods only
# (litestar-org/litestar#4169): each such path answers for itself, as glossaries' /tbx does.
_BOTH = {"Allow": "GET, OPTIONS, POST"}


@route("/v1/files", http_method=["OPTIONS"], include_in_schema=False)
async def files_options() -> Response[None]:
    return Response(None, status_code=204, headers=_BOTH)


@route("/v1/batches", http_method=["OPTIONS"], include_in_schema=False)
async def batches_options() -> Response[None]:
    return Response(None, status_code=204, headers=_BOTH)


def _found(request: Request[Any, Any, Any]) -> tuple[Batches, str]:
    batches = services(request)[BATCHES]
    return batches, request_owner(request)


@post(
    "/v1/files",
    status_code=200,
    summary="Upload a batch input file",
    description="Multipart form: `file` (JSONL: one `{custom_id, method: POST, url, body}` per "
    "line, `url` one of /v1/chat/completions, /v1/completions, /v1/responses, /translate, each "
    "`custom_id` once) and `purpose` (`batch`). Every line is checked: the first wrong one is "
    "a 400 naming it. At most --max-batch-file-bytes and --max-batch-requests lines.",
    tags=["batches"],
    responses=_LIMITED,
    operation_class=form_body(
        (
            FormField(FILE, "The JSONL file of requests.", required=True),
            FormField("purpose", "What the file is for.", required=True, enum=("batch",)),
        )
    ),
)
async def upload_file(request: Request[Any, Any, Any]) -> FileObject:
    batches, owner = _found(request)
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "multipart/form-data":
        raise InvalidRequestError("Send the file as multipart/form-data.", param="file")
    form = await request.form()
    upload, purpose = form.get("file"), form.get("purpose")
    if not isinstance(upload, UploadFile):
        raise InvalidRequestError("The form has no file in the field `file`.", param="file")
    data = await upload.read()
    limit = batches.limits.max_file_bytes
    if len(data) > limit:
        raise PayloadTooLargeError(
            f"The file has {len(data)} bytes; at most {limit} are accepted.",
            param="file",
            code="file_too_large",
        )
    name = upload.filename or "batch.jsonl"
    return await batches.upload(owner, name, data, purpose if isinstance(purpose, str) else "")


@get("/v1/files", summary="List files", tags=["batches"], responses=_ERRORS)
async def list_files(
    request: Request[Any, Any, Any],
    after: str | None = None,
    limit: Limit = 20,
    order: str = "desc",
    purpose: str | None = None,
) -> FileList:
    batches, owner = _found(request)
    return await batches.files.list(owner, after, limit, order, purpose)


# One handler for both methods: Litestar's automatic OPTIONS answer lists only the methods
# of the first handler registered for a path.
@route(
    "/v1/files/{file_id:str}",
    http_method=["GET", "DELETE"],
    status_code=200,
    summary="A file; DELETE deletes it",
    tags=["batches"],
    responses=_ERRORS,
)
async def file_object(request: Request[Any, Any, Any], file_id: str) -> FileObject | FileDeleted:
    batches, owner = _found(request)
    if request.method == "DELETE":
        return await batches.files.delete(owner, file_id)
    return await batches.files.get(owner, file_id)


@get(
    "/v1/files/{file_id:str}/content",
    summary="A file's content",
    tags=["batches"],
    responses=_ERRORS,
    media_type="application/jsonl",
)
async def file_content(request: Request[Any, Any, Any], file_id: str) -> Response[bytes]:
    batches, owner = _found(request)
    data = await batches.files.content(owner, file_id)
    return Response(data, media_type="application/jsonl")


@post(
    "/v1/batches",
    status_code=200,
    summary="Create a batch",
    description="Runs every request of `input_file_id` against `endpoint` (/v1/chat/completions, "
    "/v1/completions, /v1/responses or /translate) in the background, at the document jobs' "
    "low priority, on whichever replica has room; `completion_window` is `24h`.",
    tags=["batches"],
    opt=JSON,
    responses=_LIMITED,
)
async def create_batch(data: BatchCreateRequest, request: Request[Any, Any, Any]) -> Batch:
    batches, owner = _found(request)
    return await batches.create(owner, data)


@get("/v1/batches", summary="List batches", tags=["batches"], responses=_ERRORS)
async def list_batches(
    request: Request[Any, Any, Any],
    after: str | None = None,
    limit: Limit = 20,
) -> BatchList:
    batches, owner = _found(request)
    return await batches.batches.list(owner, after, limit)


@get("/v1/batches/{batch_id:str}", summary="A batch", tags=["batches"], responses=_ERRORS)
async def retrieve_batch(request: Request[Any, Any, Any], batch_id: str) -> Batch:
    batches, owner = _found(request)
    return await batches.batches.get(owner, batch_id)


@post(
    "/v1/batches/{batch_id:str}/cancel",
    status_code=200,
    summary="Cancel a batch",
    description="The batch is `cancelling` until the server running it stops it (its requests "
    "in flight finish first), then `cancelled`: its output file has the answers so far, its "
    "error file the requests never run (`batch_cancelled`). An ended batch is answered as it "
    "stands.",
    tags=["batches"],
    responses=_ERRORS,
)
async def cancel_batch(request: Request[Any, Any, Any], batch_id: str) -> Batch:
    batches, owner = _found(request)
    return await batches.cancel(owner, batch_id)


def batch_router(max_file_bytes: int) -> Router:
    """The routes, taking upload bodies up to a batch file's size."""
    return Router(
        path="/",
        route_handlers=[
            files_options,
            batches_options,
            upload_file,
            list_files,
            file_object,
            file_content,
            create_batch,
            list_batches,
            retrieve_batch,
            cancel_batch,
        ],
        request_max_body_size=max_file_bytes + FORM_OVERHEAD,
        # A batch's lines are translation and chat requests: the scope that runs those.
        opt={STORES: "always", **scoped(scopes.TRANSLATE)},
    )

"""What every surface's document routes share (/translate/document, DeepL's /v2/document,
LibreTranslate's translate_file): the upload's multipart form read once into plain values
(`read_upload`, into `upload.Upload`), the translated file as a response, the header that names
a new job, and the OpenAPI entries of their error answers. The HTTP side of the documents, kept
apart from their routes so that each surface's routes import this and never another's routes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from litestar import Request, Response
from litestar.datastructures import UploadFile
from litestar.openapi.datastructures import ResponseSpec

from translate_server.documents.upload import Upload
from translate_server.errors import InvalidRequestError, PayloadTooLargeError
from translate_server.http.openapi import error_responses
from translate_server.http.requests import accepted_key
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


async def read_upload(request: Request[Any, Any, Any], max_bytes: int) -> Upload:
    """The multipart form's `file` and its other fields, read once into plain values (every
    surface's upload route reads it here); 413 for a file too large."""
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


def caller(request: Request[Any, Any, Any], documents: Documents) -> str | None:
    """Whose jobs the caller may see (`Documents.owner` of the key it was let in with)."""
    return documents.owner(accepted_key(request))


def document_key(request: Request[Any, Any, Any]) -> str:
    """The job's key, as the query parameter `key` or the header `X-Document-Key`."""
    key = request.query_params.get("key") or request.headers.get("x-document-key")
    if not key:
        raise InvalidRequestError(
            "Give the document's key as `?key=` or `X-Document-Key`.", param="key"
        )
    return key

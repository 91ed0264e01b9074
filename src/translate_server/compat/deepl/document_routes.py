"""DeepL's document API (`/v2/document...`), over the same document jobs as
`/translate/document`.

The official clients upload a multipart form, then poll the status and fetch the result with
`{"document_key": ...}` as JSON (older ones and curl send it as a form: both are read). A result
is deleted once downloaded, as DeepL does. `glossary_id` names one of the key's glossaries
(`/v2/glossaries`): its terms are read at upload and kept with the job, as are the instructions
of `custom_instructions` (the field repeated) and `style_id`, resolved as on `/v2/translate`. A
document's characters are added to the key's `/v2/usage` once it is translated (not when it
fails or is cancelled).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, Router, post

from translate_server.accounts import scopes
from translate_server.compat.common import body_key_check, presented_key
from translate_server.compat.deepl.keys import DEEPL
from translate_server.compat.deepl.protocol import DeepLError
from translate_server.compat.deepl.routes import KEY_FIELD, error_shape
from translate_server.documents.keys import DOCUMENTS
from translate_server.documents.protocol import (
    DeepLDocumentHandle,
    DeepLDocumentKey,
    DeepLDocumentStatus,
)
from translate_server.documents.route_helpers import (
    document_errors,
    naming_job,
    read_upload,
    result_response,
)
from translate_server.http.bodies import FORM_OVERHEAD, read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import COMPAT_ERRORS, FILE, FormField, form_body
from translate_server.http.requests import header_key
from translate_server.http.route_paths import compatible
from translate_server.services import services

_DEEPL_ERRORS = document_errors(*COMPAT_ERRORS, 409, shape=DeepLError)
# DeepL's clients send the key as a form; JSON is read too.
_DOCUMENT_KEY = form_body(
    (FormField("document_key", "The key the upload answered.", required=True),),
    media_type="application/x-www-form-urlencoded",
)


@post(
    "/document",
    status_code=200,
    summary="DeepL v2: upload a document to translate",
    tags=["deepl"],
    responses=_DEEPL_ERRORS,
    operation_class=form_body(
        (
            FormField(FILE, "The document (its extension names its format).", required=True),
            FormField("target_lang", "Language to translate into (DE, EN-GB...).", required=True),
            FormField("source_lang", "Language of the document (default: detected)."),
            FormField("formality", "default, more, less, prefer_more or prefer_less."),
            FormField("glossary_id", "A glossary made with POST /v2/glossaries."),
            FormField(
                "custom_instructions",
                "An instruction to the model (repeat the field for more; at most 10 of 300 "
                "characters; an instruction-tuned model only).",
            ),
            FormField("style_id", "A style rule made with POST /v3/style_rules."),
            FormField("output_format", "Only the document's own format is served."),
            FormField("translation_memory_id", "One of the key's translation memories."),
            FormField("translation_memory_threshold", "The least fuzzy-match score (0-100)."),
        )
    ),
)
async def deepl_upload_document(request: Request[Any, Any, Any]) -> Response[DeepLDocumentHandle]:
    deepl = services(request)[DEEPL]
    upload = await read_upload(request, services(request)[DOCUMENTS].max_bytes)
    key = header_key(request) or upload.fields.get(KEY_FIELD, "")
    job, document_key = await deepl.upload_document(upload, key)
    return naming_job(
        DeepLDocumentHandle(document_id=job.id, document_key=document_key), job.id, 200
    )


@post(
    "/document/{document_id:str}",
    status_code=200,
    summary="DeepL v2: a document's translation status",
    tags=["deepl"],
    responses=_DEEPL_ERRORS,
    operation_class=_DOCUMENT_KEY,
)
async def deepl_document_status(
    request: Request[Any, Any, Any], document_id: str
) -> DeepLDocumentStatus:
    body = await read_body(request, DeepLDocumentKey)
    key = await presented_key(request, KEY_FIELD)
    job = await services(request)[DEEPL].document_status(document_id, body.document_key, key)
    return DeepLDocumentStatus.of(job)


@post(
    "/document/{document_id:str}/result",
    status_code=200,
    summary="DeepL v2: download a translated document (once)",
    tags=["deepl"],
    responses=_DEEPL_ERRORS,
    media_type="application/octet-stream",
    operation_class=_DOCUMENT_KEY,
)
async def deepl_document_result(
    request: Request[Any, Any, Any], document_id: str
) -> Response[bytes]:
    from litestar.background_tasks import BackgroundTask

    deepl = services(request)[DEEPL]
    body = await read_body(request, DeepLDocumentKey)
    key = await presented_key(request, KEY_FIELD)
    job, data = await deepl.document_result(document_id, body.document_key, key)
    # Deleted once sent, as DeepL does.
    forget = BackgroundTask(deepl.forget_document, document_id, body.document_key, key)
    return result_response(job, data, background=forget)


def deepl_document_router(max_bytes: int) -> Router:
    """DeepL's document routes, taking bodies up to a document's size; where the gate left the
    key check to the route (a key sent in the body), they check."""
    return Router(
        path="/v2",
        route_handlers=[deepl_upload_document, deepl_document_status, deepl_document_result],
        request_max_body_size=max_bytes + FORM_OVERHEAD,
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(KEY_FIELD),
        opt=compatible(error_shape, scope=scopes.DOCUMENTS, stores=True),
    )

"""LibreTranslate's `translate_file` and its download link, over the same document jobs as
`/translate/document`: `translate_file` answers once the file is translated (as LibreTranslate
does) with `translatedFileUrl`, a download link that carries the job's id and key.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, Router, get, post

from translate_server.accounts import scopes
from translate_server.compat.common import body_key_check
from translate_server.compat.libretranslate.keys import LIBRETRANSLATE
from translate_server.compat.libretranslate.protocol import LibreError
from translate_server.compat.libretranslate.routes import KEY_FIELD, PREFIX, error_shape
from translate_server.documents.keys import DOCUMENTS
from translate_server.documents.protocol import LibreFileTranslated
from translate_server.documents.route_helpers import (
    document_errors,
    naming_job,
    read_upload,
    result_response,
)
from translate_server.http.bodies import FORM_OVERHEAD
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import COMPAT_ERRORS, FILE, FormField, form_body
from translate_server.http.requests import accepted_key
from translate_server.http.route_paths import compatible
from translate_server.services import services

_LIBRE_ERRORS = document_errors(*COMPAT_ERRORS, shape=LibreError)


@post(
    "/translate_file",
    status_code=200,
    summary="LibreTranslate: translate a file",
    tags=["libretranslate"],
    responses=_LIBRE_ERRORS,
    operation_class=form_body(
        (
            FormField(FILE, "The file (its extension names its format).", required=True),
            FormField("target", "Language to translate into.", required=True),
            FormField("source", "Language of the file, or auto (the default)."),
            FormField("api_key", "The API key, where keys are configured."),
        )
    ),
)
async def libre_translate_file(request: Request[Any, Any, Any]) -> Response[LibreFileTranslated]:
    libretranslate = services(request)[LIBRETRANSLATE]
    documents = services(request)[DOCUMENTS]
    upload = await read_upload(request, documents.max_bytes)
    job, key = await libretranslate.translate_file(upload, accepted_key(request))
    base = str(request.base_url).rstrip("/")
    return naming_job(
        LibreFileTranslated(f"{base}/libretranslate/download_file/{job.id}/{key}"), job.id, 200
    )


@get(
    "/download_file/{document_id:str}/{document_key:str}",
    summary="LibreTranslate: download a translated file",
    tags=["libretranslate"],
    responses=_LIBRE_ERRORS,
    media_type="application/octet-stream",
)
async def libre_download_file(
    request: Request[Any, Any, Any], document_id: str, document_key: str
) -> Response[bytes]:
    libretranslate = services(request)[LIBRETRANSLATE]
    return result_response(*await libretranslate.translated_file(document_id, document_key))


def libretranslate_file_routers(max_bytes: int) -> list[Router]:
    """`translate_file`, taking bodies up to a document's size, and the download link."""
    return [
        # Where the gate left the key check to the route (a key sent in the body), it checks.
        Router(
            path=PREFIX,
            route_handlers=[libre_translate_file],
            request_max_body_size=max_bytes + FORM_OVERHEAD,
            exception_handlers=exception_handlers(error_shape),
            before_request=body_key_check(KEY_FIELD),
            opt=compatible(error_shape, scope=scopes.DOCUMENTS, cors=True, stores=True),
        ),
        # LibreTranslate's download link is followed as it is (a browser link, no key): the
        # job's id and secret key in its path are what authorizes it, as there.
        Router(
            path=PREFIX,
            route_handlers=[libre_download_file],
            exception_handlers=exception_handlers(error_shape),
            opt=compatible(error_shape, scope=scopes.DOCUMENTS, cors=True, stores=True),
        ),
    ]

"""LibreTranslate's API under `/libretranslate/`: its clients work against this server by
changing their base URL."""

from __future__ import annotations

from litestar import Request, Router, get, post

from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.services import services
from translate_server.translation.compat.common import compat_status, read_body
from translate_server.translation.compat.libretranslate.protocol import (
    LibreDetected,
    LibreDetectRequest,
    LibreError,
    LibreLanguage,
    LibreTranslateRequest,
    LibreTranslateResponse,
    libre_detections,
)
from translate_server.translation.protocol import DetectRequest
from translate_server.wire import ErrorBody

PREFIX = "/libretranslate"


_ERRORS = error_responses(*COMPAT_ERRORS, shape=LibreError)


@post("/translate", status_code=200, summary="LibreTranslate: translate",
      tags=["libretranslate"],
      responses=_ERRORS)
async def libre_translate(request: Request) -> LibreTranslateResponse:
    body = await read_body(request, LibreTranslateRequest)
    found = services(request)
    deadline = deadline_for(found.limits.request_timeout, None)
    response = await unless_disconnected(request, found.translation.translate(
        body.to_translate_request(), record_of(request), deadline))
    return LibreTranslateResponse.of(response)


@post("/detect", status_code=200, summary="LibreTranslate: detect the language",
      tags=["libretranslate"],
      responses=_ERRORS)
async def libre_detect(request: Request) -> list[LibreDetected]:
    body = await read_body(request, LibreDetectRequest)
    response = services(request).translation.detect(DetectRequest(text=body.q))
    return libre_detections(response)


@get("/languages", summary="LibreTranslate: languages", tags=["libretranslate"],
      responses=_ERRORS)
async def libre_languages(request: Request) -> list[LibreLanguage]:
    languages = services(request).translation.languages().languages
    codes = [language.code for language in languages]
    return [LibreLanguage(code=language.code, name=language.name, targets=codes)
            for language in languages]


def error_shape(status: int, error: ErrorBody) -> tuple[int, LibreError]:
    return compat_status(status, error), LibreError(error=error.message)


def libretranslate_router() -> Router:
    return Router(path=PREFIX, route_handlers=[libre_translate, libre_detect, libre_languages],
                  exception_handlers=exception_handlers(error_shape))

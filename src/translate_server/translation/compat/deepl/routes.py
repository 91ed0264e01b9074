"""DeepL API v2: the official `deepl` clients work against this server by changing their
server URL. Keys, when set, come as `Authorization: DeepL-Auth-Key <key>`."""

from __future__ import annotations

from litestar import Request, Router, get, post

from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.services import services
from translate_server.translation.compat.common import (
    compat_status,
    query_or_form,
    read_body,
)
from translate_server.translation.compat.deepl.protocol import (
    DeepLError,
    DeepLLanguage,
    DeepLTranslateRequest,
    DeepLTranslateResponse,
    deepl_languages,
)
from translate_server.translation.detection import detectable_languages
from translate_server.wire import ErrorBody

_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)


@post("/translate", status_code=200, summary="DeepL v2: translate texts", tags=["deepl"],
      responses=_ERRORS)
async def deepl_translate(request: Request) -> DeepLTranslateResponse:
    body = await read_body(request, DeepLTranslateRequest, lists=("text",))
    found = services(request)
    deadline = deadline_for(found.limits.request_timeout, None)
    response = await unless_disconnected(request, found.translation.translate(
        body.to_translate_request(), record_of(request), deadline))
    return DeepLTranslateResponse.of(body, response)


@get("/languages", summary="DeepL v2: source or target languages", tags=["deepl"],
      responses=_ERRORS)
async def deepl_list_languages(request: Request) -> list[DeepLLanguage]:
    kind = await query_or_form(request, "type") or "source"
    return deepl_languages(list(detectable_languages()), kind.lower())


def error_shape(status: int, error: ErrorBody) -> tuple[int, DeepLError]:
    return compat_status(status, error), DeepLError(message=error.message)


def deepl_router() -> Router:
    return Router(path="/v2", route_handlers=[deepl_translate, deepl_list_languages],
                  exception_handlers=exception_handlers(error_shape))

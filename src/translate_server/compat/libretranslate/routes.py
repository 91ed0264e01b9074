"""LibreTranslate's API under `/libretranslate/`: its clients work against this server by
changing their base URL. Keys, when set, come as LibreTranslate's clients send them, in an
`api_key` field (or an Authorization header)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Router, get, post

from translate_server.accounts import scopes
from translate_server.compat.common import body_key_check, compat_status
from translate_server.compat.libretranslate.keys import LIBRE_SUGGESTIONS, LIBRETRANSLATE
from translate_server.compat.libretranslate.protocol import (
    FrontendSettings,
    LibreDetected,
    LibreDetectRequest,
    LibreError,
    LibreLanguage,
    LibreSuggestRequest,
    LibreSuggestResponse,
    LibreTranslateRequest,
    LibreTranslateResponse,
)
from translate_server.errors import ApiError
from translate_server.http.bodies import read_body
from translate_server.http.errors import (
    QUOTA_EXCEEDED,
    RATE_LIMITED,
    exception_handlers,
    limit_status,
)
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.http.requests import (
    deadline_for,
    record_of,
    request_owner,
    unless_disconnected,
)
from translate_server.http.route_paths import OPEN, STORES, compatible, scoped
from translate_server.services import services
from translate_server.wire import ErrorBody

PREFIX = "/libretranslate"
KEY_FIELD = "api_key"


_ERRORS = error_responses(*COMPAT_ERRORS, shape=LibreError)


@post(
    "/translate",
    status_code=200,
    summary="LibreTranslate: translate",
    tags=["libretranslate"],
    responses=_ERRORS,
)
async def libre_translate(request: Request[Any, Any, Any]) -> LibreTranslateResponse:
    body = await read_body(request, LibreTranslateRequest)
    deadline = deadline_for(services(request).limits.request_timeout, None)
    return await unless_disconnected(
        request, services(request)[LIBRETRANSLATE].translate(body, record_of(request), deadline)
    )


@post(
    "/detect",
    status_code=200,
    summary="LibreTranslate: detect the language",
    tags=["libretranslate"],
    responses=_ERRORS,
)
async def libre_detect(request: Request[Any, Any, Any]) -> list[LibreDetected]:
    body = await read_body(request, LibreDetectRequest)
    return services(request)[LIBRETRANSLATE].detect(body)


@get(
    "/languages",
    summary="LibreTranslate: languages",
    tags=["libretranslate"],
    responses=_ERRORS,
    opt=OPEN,
)  # open, as LibreTranslate's own
async def libre_languages(request: Request[Any, Any, Any]) -> list[LibreLanguage]:
    return services(request)[LIBRETRANSLATE].languages()


@get(
    "/frontend/settings",
    summary="LibreTranslate: settings its web page reads",
    tags=["libretranslate"],
    # Whether files are translated is the owner of the stores' to say.
    opt={**OPEN, STORES: "always"},
)
async def libre_frontend_settings(request: Request[Any, Any, Any]) -> FrontendSettings:
    return services(request)[LIBRETRANSLATE].frontend_settings()


class SuggestionsDisabledError(ApiError):
    status_code = 403
    type = "permission_error"
    code = "suggestions_disabled"


@post(
    "/suggest",
    status_code=200,
    summary="LibreTranslate: suggest a translation",
    description="The suggestion (`q` translated as `s`, from `source` to `target`; a "
    "`source` of `auto` is detected) is kept in the caller's translation memory named by "
    "--suggestions-memory (`suggestions` unless set), made on its first suggestion: "
    "/translate with that memory then answers `q` with `s`. 403, as LibreTranslate without "
    "suggestions, where --suggestions-memory is empty.",
    tags=["libretranslate"],
    responses=_ERRORS,
    opt={STORES: "always", **scoped(scopes.MEMORIES_WRITE)},  # the stores' owner's memories
)
async def libre_suggest(request: Request[Any, Any, Any]) -> LibreSuggestResponse:
    box = services(request).get(LIBRE_SUGGESTIONS)
    if box is None:
        raise SuggestionsDisabledError("Suggestions are disabled on this server.")
    body = await read_body(request, LibreSuggestRequest)
    await box.suggest(request_owner(request), body)
    return LibreSuggestResponse(success=True)


def error_shape(status: int, error: ErrorBody) -> tuple[int, LibreError]:
    if error.code in (RATE_LIMITED, QUOTA_EXCEEDED):  # LibreTranslate's words for its 429
        return limit_status("libretranslate", status, error), LibreError(
            error=f"Slowdown: {error.message}"
        )
    return compat_status(status, error), LibreError(error=error.message)


def libretranslate_router() -> Router:
    return Router(
        path=PREFIX,
        route_handlers=[
            libre_translate,
            libre_detect,
            libre_languages,
            libre_frontend_settings,
            libre_suggest,
        ],
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(KEY_FIELD),
        opt=compatible(error_shape, scope=scopes.TRANSLATE, cors=True),
    )

"""DeepLX's API under `/deeplx/`: the desktop and browser clients that speak it
(zotero-pdf-translate, pot, Read Frog, immersive-translate...) work against this server by
pointing their DeepLX URL at `<server>/deeplx/translate`.

Its token comes as DeepLX's clients send it: `Authorization: Bearer <key>` (or
`DeepL-Auth-Key`), `?token=<key>`, or in the path, `/deeplx/<key>/translate`, as clients of the
hosted DeepLX build their URL. Where API keys are configured it must be one of them."""

from __future__ import annotations

from typing import Any, Literal

from litestar import Request, Router, post

from translate_server.accounts import scopes
from translate_server.compat.common import body_key_check
from translate_server.compat.deeplx.keys import DEEPLX
from translate_server.compat.deeplx.protocol import (
    DeepLXError,
    DeepLXOfficialRequest,
    DeepLXOfficialResponse,
    DeepLXRequest,
    DeepLXResponse,
)
from translate_server.http.bodies import read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import compatible
from translate_server.services import services
from translate_server.wire import ErrorBody

PREFIX = "/deeplx"
TOKEN_FIELD = "token"
TOKEN_PARAM = "token"

# DeepLX answers a bad token with 401 and an overload with 503, as its own server.
_ERRORS = error_responses(400, 401, 404, 413, 502, 503, 504, shape=DeepLXError)
_DESCRIPTION = (
    "DeepLX's free endpoint: `{text, source_lang, target_lang}` in (`source_lang` `auto` or "
    "left out: detected), `{code, id, data, alternatives, source_lang, target_lang, method}` "
    "out; errors `{code, message}`."
)


@post(
    "/translate",
    status_code=200,
    summary="DeepLX: translate a text",
    description=_DESCRIPTION,
    tags=["deeplx"],
    responses=_ERRORS,
)
async def deeplx_translate(request: Request[Any, Any, Any]) -> DeepLXResponse:
    return await _translate(request, "Free")


@post(
    "/{token:str}/translate",
    status_code=200,
    summary="DeepLX: translate a text, the token in the path",
    description=_DESCRIPTION + " The path's token is the API key.",
    tags=["deeplx"],
    responses=_ERRORS,
)
async def deeplx_translate_token(token: str, request: Request[Any, Any, Any]) -> DeepLXResponse:
    return await _translate(request, "Free")


@post(
    "/v1/translate",
    status_code=200,
    summary="DeepLX: translate a text (its Pro endpoint)",
    description=_DESCRIPTION + " As `/translate`; `method` is `Pro`.",
    tags=["deeplx"],
    responses=_ERRORS,
)
async def deeplx_translate_pro(request: Request[Any, Any, Any]) -> DeepLXResponse:
    return await _translate(request, "Pro")


@post(
    "/v2/translate",
    status_code=200,
    summary="DeepLX: translate in DeepL's format",
    description="DeepLX's DeepL-format endpoint: `text` (a list, or form fields) and "
    "`target_lang`, translated as one text (joined by newlines) from a detected language; "
    "`{translations: [{detected_source_language, text}]}` out.",
    tags=["deeplx"],
    responses=_ERRORS,
)
async def deeplx_translate_official(request: Request[Any, Any, Any]) -> DeepLXOfficialResponse:
    body = await read_body(request, DeepLXOfficialRequest, lists=("text",))
    deadline = deadline_for(services(request).limits.request_timeout, None)
    return await unless_disconnected(
        request, services(request)[DEEPLX].translate_official(body, record_of(request), deadline)
    )


async def _translate(
    request: Request[Any, Any, Any], method: Literal["Free", "Pro"]
) -> DeepLXResponse:
    body = await read_body(request, DeepLXRequest)
    deadline = deadline_for(services(request).limits.request_timeout, None)
    return await unless_disconnected(
        request, services(request)[DEEPLX].translate(body, record_of(request), deadline, method)
    )


def error_shape(status: int, error: ErrorBody) -> tuple[int, DeepLXError]:
    return status, DeepLXError(code=status, message=error.message)


def deeplx_router() -> Router:
    return Router(
        path=PREFIX,
        route_handlers=[
            deeplx_translate,
            deeplx_translate_pro,
            deeplx_translate_official,
            deeplx_translate_token,
        ],
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(TOKEN_FIELD, TOKEN_PARAM),
        opt=compatible(error_shape, scope=scopes.TRANSLATE, cors=True),
    )

"""POST /translate, POST /detect and GET /languages: thin handlers over the translation service."""

from __future__ import annotations

from typing import Any

from litestar import Request, Router, get, post
from litestar.response import Stream

from translate_server.accounts import scopes
from translate_server.http import sse
from translate_server.http.openapi import API_ERRORS, answer_or_stream, error_responses, idempotent
from translate_server.http.requests import (
    deadline_for,
    record_of,
    request_owner,
    unless_disconnected,
)
from translate_server.http.route_paths import IDEMPOTENT, JSON, STORES, scoped
from translate_server.services import services
from translate_server.translation.estimate_protocol import EstimateRequest, EstimateResponse
from translate_server.translation.keys import TRANSLATION
from translate_server.translation.protocol import (
    DetectRequest,
    DetectResponse,
    LanguagesResponse,
    TranslateRequest,
    TranslateResponse,
)

# The body's fields that name a store (a translation memory, a stored glossary): a request that
# gives one needs the stores (with several front-end processes, it goes to their owner).
NAMING_STORES = ("memory", "glossary_id")


@post(
    "/translate",
    status_code=200,
    summary="Translate a text or a list of texts",
    tags=["translation"],
    opt={**JSON, STORES: NAMING_STORES, IDEMPOTENT: True},
    operation_class=idempotent(),
    responses={
        **answer_or_stream(
            TranslateResponse,
            "The translation; with `stream: true`, "
            "server-sent events of its deltas ending in `[DONE]`",
        ),
        **error_responses(*API_ERRORS),
    },
)
async def translate(
    data: TranslateRequest, request: Request[Any, Any, Any]
) -> TranslateResponse | Stream:
    service = services(request)[TRANSLATION]
    record = record_of(request)
    deadline = deadline_for(services(request).limits.request_timeout, data.timeout)
    # Whose memory and stored glossaries it may name (a keyless call names none).
    named = data.memory is not None or data.glossary_id is not None
    owner = request_owner(request) if named else ""
    if data.stream:
        chunks = await service.open_stream(data, record, deadline, owner)
        return sse.EventStream(chunks, sse.event, sse.failure_event(record))
    return await unless_disconnected(
        request, service.translate(data, record, deadline, keep_partial=True, owner=owner)
    )


@post(
    "/translate/estimate",
    status_code=200,
    summary="Estimate the quality of translations made elsewhere (a person's, a vendor's)",
    description="The same calibrated `quality_estimate` and `needs_review` as /translate's "
    "answers carry, from the engine's log probabilities of the translation as given (read in "
    "one prefill, nothing sampled), the quality guard's findings on it and its length. For "
    "triaging human and vendor translations: review those that `needs_review`, lowest first.",
    tags=["translation"],
    opt=JSON,
    responses=error_responses(*API_ERRORS),
)
async def estimate(data: EstimateRequest, request: Request[Any, Any, Any]) -> EstimateResponse:
    service = services(request)[TRANSLATION]
    deadline = deadline_for(services(request).limits.request_timeout, None)
    return await unless_disconnected(
        request, service.given.estimate(data, record_of(request), deadline)
    )


@post(
    "/detect",
    status_code=200,
    summary="Detect the language of a text",
    tags=["translation"],
    opt=JSON,
    responses=error_responses(400, 401, 413, 415),
)
async def detect(data: DetectRequest, request: Request[Any, Any, Any]) -> DetectResponse:
    return services(request)[TRANSLATION].detect(data)


@get("/languages", summary="Languages the server detects", tags=["translation"])
async def languages(request: Request[Any, Any, Any]) -> LanguagesResponse:
    return services(request)[TRANSLATION].languages()


def translation_router() -> Router:
    """The translation routes, under the `translate` scope."""
    return Router(
        "/", route_handlers=[translate, estimate, detect, languages], opt=scoped(scopes.TRANSLATE)
    )

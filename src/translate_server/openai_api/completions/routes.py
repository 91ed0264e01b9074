"""POST /v1/completions: a thin handler over the completion service."""

from __future__ import annotations

from typing import Any

from litestar import Request, post
from litestar.response import Stream

from translate_server.http import sse
from translate_server.http.openapi import API_ERRORS, answer_or_stream, error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import JSON
from translate_server.openai_api.completions.keys import COMPLETIONS
from translate_server.openai_api.completions.protocol import CompletionRequest, TextCompletion
from translate_server.services import services


@post(
    "/v1/completions",
    status_code=200,
    summary="Create a text completion (legacy)",
    tags=["openai"],
    opt=JSON,
    responses={
        **answer_or_stream(
            TextCompletion,
            "The completion; with `stream: true`, server-sent "
            "events of `text_completion` objects ending in `[DONE]`",
        ),
        **error_responses(*API_ERRORS),
    },
)
async def completions(
    data: CompletionRequest, request: Request[Any, Any, Any]
) -> TextCompletion | Stream:
    found = services(request)
    record = record_of(request)
    deadline = deadline_for(found.limits.request_timeout, data.timeout)
    if data.stream:
        chunks = await found[COMPLETIONS].open_stream(data, record, deadline)
        return sse.EventStream(chunks, sse.event, sse.failure_event(record))
    return await unless_disconnected(request, found[COMPLETIONS].complete(data, record, deadline))

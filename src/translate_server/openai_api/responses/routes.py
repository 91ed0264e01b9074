"""POST /v1/responses: a thin handler; the Responses events become server-sent events here."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from litestar import Request, post
from litestar.response import Stream

from translate_server.http import sse
from translate_server.http.errors import stream_failure
from translate_server.http.openapi import API_ERRORS, answer_or_stream, error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import JSON
from translate_server.observability.record import RequestRecord
from translate_server.openai_api.responses.protocol import (
    Response,
    ResponseEvent,
    ResponsesRequest,
    StreamError,
)
from translate_server.services import services


@post(
    "/v1/responses",
    status_code=200,
    summary="Create a model response",
    tags=["openai"],
    opt=JSON,
    responses={
        **answer_or_stream(
            Response,
            "The response; with `stream: true`, server-sent events "
            "from `response.created` to `response.completed`",
        ),
        **error_responses(*API_ERRORS),
    },
)
async def create_response(
    data: ResponsesRequest, request: Request[Any, Any, Any]
) -> Response | Stream:
    found = services(request)
    record = record_of(request)
    deadline = deadline_for(found.limits.request_timeout, data.timeout)
    if data.stream:
        events = await found.responses.open_stream(data, record, deadline)
        return sse.EventStream(_written(events, record))
    return await unless_disconnected(request, found.responses.create(data, record, deadline))


async def _written(
    events: AsyncIterator[ResponseEvent], record: RequestRecord
) -> AsyncGenerator[bytes, None]:
    """Each event as `event: <type>` and its JSON; a failure after the 200 is the last event,
    of type `error` (the Responses API ends without `[DONE]`)."""
    sequence = 0
    try:
        async for event in events:
            sequence = event.sequence_number
            yield sse.named_event(event)
    except Exception as exc:  # noqa: BLE001 - stream_failure logs the unexpected
        error = stream_failure(exc, record).error
        yield sse.named_event(
            StreamError(
                sequence_number=sequence + 1,
                code=error.code,
                message=error.message,
                param=error.param,
            )
        )
    finally:
        await events.aclose()  # type: ignore[attr-defined]

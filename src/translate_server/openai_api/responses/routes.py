"""POST /v1/responses: a thin handler; the Responses events become server-sent events here."""

from __future__ import annotations

from typing import Any

from litestar import Request, post
from litestar.response import Stream

from translate_server.http import sse
from translate_server.http.errors import stream_failure
from translate_server.http.openapi import API_ERRORS, answer_or_stream, error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import JSON
from translate_server.observability.record import RequestRecord
from translate_server.openai_api.responses.keys import RESPONSES
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
        events = await found[RESPONSES].open_stream(data, record, deadline)
        written = _Written(record)
        # The Responses API ends without `[DONE]`.
        return sse.EventStream(events, written.event, written.failure, done=b"")
    return await unless_disconnected(request, found[RESPONSES].create(data, record, deadline))


class _Written:
    """Each event as `event: <type>` and its JSON; a failure after the 200 is the last event,
    of type `error`, numbered after the last one sent."""

    __slots__ = ("record", "sequence")

    def __init__(self, record: RequestRecord) -> None:
        self.record = record
        self.sequence = 0

    def event(self, event: ResponseEvent) -> bytes:
        self.sequence = event.sequence_number
        return sse.named_event(event)

    def failure(self, exc: Exception) -> bytes:
        error = stream_failure(exc, self.record).error
        return sse.named_event(
            StreamError(
                sequence_number=self.sequence + 1,
                code=error.code,
                message=error.message,
                param=error.param,
            )
        )

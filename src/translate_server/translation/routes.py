from __future__ import annotations

from litestar import Request, get, post
from litestar.response import Stream

from translate_server.http import sse
from translate_server.translation.protocol import (
    DetectRequest,
    DetectResponse,
    LanguagesResponse,
    TranslateRequest,
    TranslateResponse,
)
from translate_server.http.requests import (
    API_ERRORS,
    answer_or_stream,
    app_state,
    deadline_for,
    error_responses,
    record_of,
    unless_disconnected,
)


@post("/translate", status_code=200, summary="Translate a text or a list of texts",
      tags=["translation"], responses={
          **answer_or_stream(TranslateResponse, "The translation; with `stream: true`, "
                             "server-sent events of its deltas ending in `[DONE]`"),
          **error_responses(*API_ERRORS)})
async def translate(data: TranslateRequest, request: Request) -> TranslateResponse | Stream:
    state = app_state(request)
    record = record_of(request)
    deadline = deadline_for(state.limits.request_timeout, data.timeout)
    if data.stream:
        return sse.EventStream(await state.translation.open_stream(data, record, deadline))
    return await unless_disconnected(
        request, state.translation.translate(data, record, deadline)
    )


@post("/detect", status_code=200, summary="Detect the language of a text",
      tags=["translation"], responses=error_responses(400, 401, 413, 415))
async def detect(data: DetectRequest, request: Request) -> DetectResponse:
    return app_state(request).translation.detect(data)  # type: ignore[no-any-return]


@get("/languages", summary="Languages the server detects", tags=["translation"])
async def languages(request: Request) -> LanguagesResponse:
    return app_state(request).translation.languages()  # type: ignore[no-any-return]

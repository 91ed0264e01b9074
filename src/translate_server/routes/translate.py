from __future__ import annotations

from litestar import Request, post

from translate_server.protocol.translate import TranslateRequest, TranslateResponse
from translate_server.routes.context import (
    app_state,
    deadline_for,
    record_of,
    unless_disconnected,
)


@post("/translate", status_code=200, summary="Translate a text or a list of texts",
      tags=["translation"])
async def translate(data: TranslateRequest, request: Request) -> TranslateResponse:
    state = app_state(request)
    deadline = deadline_for(state.limits.request_timeout, data.timeout)
    return await unless_disconnected(
        request, state.translation.translate(data, record_of(request), deadline)
    )

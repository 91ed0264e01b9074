from __future__ import annotations

from litestar import Request, get, post
from litestar.datastructures import State
from litestar.response import Stream

from translate_server.http import sse
from translate_server.http.errors import ModelNotFoundError
from translate_server.chat.protocol import (
    ChatCompletion,
    ChatCompletionRequest,
    Model,
    ModelList,
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


@post("/v1/chat/completions", status_code=200, summary="Create a chat completion",
      tags=["openai"], responses={
          **answer_or_stream(ChatCompletion, "The completion; with `stream: true`, server-sent "
                             "events of `chat.completion.chunk` objects ending in `[DONE]`"),
          **error_responses(*API_ERRORS)})
async def chat_completions(
    data: ChatCompletionRequest, request: Request
) -> ChatCompletion | Stream:
    state = app_state(request)
    record = record_of(request)
    deadline = deadline_for(state.limits.request_timeout, data.timeout)
    if data.stream:
        events = await state.chat.open_stream(data, record, deadline)
        return sse.EventStream(events)
    return await unless_disconnected(request, state.chat.complete(data, record, deadline))


def _model(state: State) -> Model:
    return Model(id=state.model_name, created=state.started_at,
                 max_model_len=state.engine.info.max_model_len)


@get("/v1/models", summary="List the served model", tags=["openai"],
     responses=error_responses(401))
async def list_models(request: Request) -> ModelList:
    state = app_state(request)
    return ModelList(data=[_model(state)])


@get("/v1/models/{model_id:path}", summary="Describe the served model", tags=["openai"],
     responses=error_responses(401, 404))
async def retrieve_model(model_id: str, request: Request) -> Model:
    state = app_state(request)
    model_id = model_id.lstrip("/")
    if model_id != state.model_name:
        raise ModelNotFoundError(model_id, state.model_name)
    return _model(state)


"""POST /v1/chat/completions, GET /v1/models and /v1/models/{id}: thin handlers over the chat
service."""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post
from litestar.response import Stream

from translate_server.errors import ModelNotFoundError
from translate_server.http import sse
from translate_server.http.openapi import API_ERRORS, answer_or_stream, error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import JSON
from translate_server.inference.engine import GenerationStep
from translate_server.openai_api.chat.chunks import ChatChunk, ChunkHead
from translate_server.openai_api.chat.protocol import (
    ChatCompletion,
    ChatCompletionRequest,
    Model,
    ModelList,
)
from translate_server.services import Services, services


@post(
    "/v1/chat/completions",
    status_code=200,
    summary="Create a chat completion",
    tags=["openai"],
    opt=JSON,
    responses={
        **answer_or_stream(
            ChatCompletion,
            "The completion; with `stream: true`, server-sent "
            "events of `chat.completion.chunk` objects ending in `[DONE]`",
        ),
        **error_responses(*API_ERRORS),
    },
)
async def chat_completions(
    data: ChatCompletionRequest, request: Request[Any, Any, Any]
) -> ChatCompletion | Stream:
    found = services(request)
    record = record_of(request)
    deadline = deadline_for(found.limits.request_timeout, data.timeout)
    if data.stream:
        stream = await found.chat.open_stream(data, record, deadline)
        return sse.EventStream(stream.chunks, chunk_encoder(stream.head), sse.failure_event(record))
    return await unless_disconnected(request, found.chat.complete(data, record, deadline))


def chunk_encoder(head: ChunkHead) -> sse.Encode[ChatChunk]:
    """One stream's chunks as events: a step of new text from its choice's frame around the
    text (`sse.TextFrames`, inlined: this runs once per token), the rest encoded whole."""
    frames = sse.TextFrames(head.text_chunk)
    encode_json = sse.encode_json

    def encode(chunk: ChatChunk) -> bytes:
        if type(chunk) is GenerationStep:
            frame = frames[chunk.index]
            return frame[0] + encode_json(chunk.text) + frame[1]
        return sse.event(chunk)

    return encode


def _model(found: Services, adapter: str | None = None) -> Model:
    return Model(
        id=found.model_name if adapter is None else adapter,
        created=found.started_at,
        max_model_len=found.engine.info.max_model_len,
        parent=None if adapter is None else found.model_name,
    )


def _adapters(found: Services) -> list[str]:
    return [] if found.adapters is None else found.adapters.names


@get(
    "/v1/models",
    summary="List the served model and its LoRA adapters",
    tags=["openai"],
    responses=error_responses(401),
)
async def list_models(request: Request[Any, Any, Any]) -> ModelList:
    found = services(request)
    return ModelList(data=[_model(found), *(_model(found, name) for name in _adapters(found))])


@get(
    "/v1/models/{model_id:path}",
    summary="Describe the served model",
    tags=["openai"],
    responses=error_responses(401, 404),
)
async def retrieve_model(model_id: str, request: Request[Any, Any, Any]) -> Model:
    found = services(request)
    model_id = model_id.lstrip("/")
    if model_id in _adapters(found):
        return _model(found, model_id)
    if model_id != found.model_name:
        raise ModelNotFoundError(model_id, "`, `".join([found.model_name, *_adapters(found)]))
    return _model(found)

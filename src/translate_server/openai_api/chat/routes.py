"""POST /v1/chat/completions: a thin handler over the chat service."""

from __future__ import annotations

from typing import Any

from litestar import Request, post
from litestar.response import Stream

from translate_server.http import sse
from translate_server.http.openapi import API_ERRORS, answer_or_stream, error_responses, idempotent
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import IDEMPOTENT, JSON, KEYED_ONLY
from translate_server.inference.engine import GenerationStep
from translate_server.openai_api.chat.chunks import ChatChunk, ChunkHead
from translate_server.openai_api.chat.keys import CHAT
from translate_server.openai_api.chat.protocol import ChatCompletion, ChatCompletionRequest
from translate_server.services import services


@post(
    "/v1/chat/completions",
    status_code=200,
    summary="Create a chat completion",
    tags=["openai"],
    opt={**JSON, IDEMPOTENT: KEYED_ONLY},
    operation_class=idempotent(),
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
    chat, record = found[CHAT], record_of(request)
    deadline = deadline_for(found.limits.request_timeout, data.timeout)
    if data.stream:
        stream = await chat.open_stream(data, record, deadline)
        return sse.EventStream(stream.chunks, chunk_encoder(stream.head), sse.failure_event(record))
    return await unless_disconnected(request, chat.complete(data, record, deadline))


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

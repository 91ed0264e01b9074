"""OpenAI chat completions and models, shaped exactly as OpenAI's API."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from translate_server.openai_api.fields import (
    PositiveInt,
    ResponseFormat,
    SamplingFields,
)
from translate_server.openai_api.logprobs import ChoiceLogprobs
from translate_server.wire import JsonObject, RequestStruct, ResponseStruct, Usage


class ContentPart(RequestStruct, kw_only=True):
    type: str
    text: str | None = None


class ChatMessageIn(RequestStruct, kw_only=True):
    # "tool" and "function" are OpenAI's, read only to be refused clearly: tools are not served.
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None
    name: str | None = None
    tool_calls: list[JsonObject] | None = None
    function_call: JsonObject | None = None


class ChatCompletionRequest(SamplingFields, kw_only=True):
    messages: Annotated[list[ChatMessageIn], Meta(min_length=1)]
    max_completion_tokens: PositiveInt | None = None
    logprobs: bool = False
    top_logprobs: Annotated[int, Meta(ge=0, le=20)] | None = None
    response_format: ResponseFormat | None = None
    # Read only to be refused: tool calling is not served.
    tools: list[JsonObject] | None = None
    tool_choice: str | JsonObject | None = None
    functions: list[JsonObject] | None = None
    function_call: str | JsonObject | None = None
    # Read only to be refused: only text is generated.
    modalities: list[str] | None = None
    audio: JsonObject | None = None


class AssistantMessage(msgspec.Struct, kw_only=True):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(msgspec.Struct, kw_only=True):
    index: int
    message: AssistantMessage
    finish_reason: str | None
    logprobs: ChoiceLogprobs | None = None


class ChatCompletion(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    system_fingerprint: str
    choices: list[Choice]
    usage: Usage


class Delta(ResponseStruct, kw_only=True):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(msgspec.Struct, kw_only=True):
    index: int
    delta: Delta
    finish_reason: str | None = None
    logprobs: ChoiceLogprobs | None = None


class ChatCompletionChunk(ResponseStruct, kw_only=True):
    id: str
    # No default: omit_defaults would leave it out of every chunk, and OpenAI's chunks carry it.
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    system_fingerprint: str | None = None
    choices: list[ChunkChoice]
    usage: Usage | None = None

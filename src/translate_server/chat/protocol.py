"""OpenAI chat completions and models, shaped exactly as OpenAI's API."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from translate_server.wire import RequestStruct, ResponseStruct, Usage

Temperature = Annotated[float, Meta(ge=0.0, le=2.0)]
TopP = Annotated[float, Meta(gt=0.0, le=1.0)]
Penalty = Annotated[float, Meta(ge=-2.0, le=2.0)]
PositiveInt = Annotated[int, Meta(ge=1)]
Choices = Annotated[int, Meta(ge=1, le=16)]
StopList = Annotated[list[str], Meta(max_length=16)]
Seed = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]


class ContentPart(RequestStruct, kw_only=True):
    type: str
    text: str | None = None


class ChatMessageIn(RequestStruct, kw_only=True):
    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[ContentPart] | None = None
    name: str | None = None


class StreamOptions(RequestStruct, kw_only=True):
    include_usage: bool = False


class ChatCompletionRequest(RequestStruct, kw_only=True):
    messages: Annotated[list[ChatMessageIn], Meta(min_length=1)]
    model: str | None = None
    temperature: Temperature | None = None
    top_p: TopP | None = None
    max_tokens: PositiveInt | None = None
    max_completion_tokens: PositiveInt | None = None
    n: Choices = 1
    stop: str | StopList | None = None
    seed: Seed | None = None
    presence_penalty: Penalty = 0.0
    frequency_penalty: Penalty = 0.0
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = None
    # vLLM's sampling extensions, sent by OpenAI SDK users through `extra_body`.
    top_k: Annotated[int, Meta(ge=-1)] | None = None
    min_p: Annotated[float, Meta(ge=0.0, le=1.0)] | None = None
    repetition_penalty: Annotated[float, Meta(gt=0.0, le=2.0)] | None = None
    min_tokens: Annotated[int, Meta(ge=0)] = 0
    ignore_eos: bool = False
    # Per-request deadline in seconds, never longer than the server's own.
    timeout: Annotated[float, Meta(gt=0.0)] | None = None


class AssistantMessage(msgspec.Struct, kw_only=True):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(msgspec.Struct, kw_only=True):
    index: int
    message: AssistantMessage
    finish_reason: str | None
    logprobs: None = None


class ChatCompletion(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


class Delta(ResponseStruct, kw_only=True):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(msgspec.Struct, kw_only=True):
    index: int
    delta: Delta
    finish_reason: str | None = None
    logprobs: None = None


class ChatCompletionChunk(ResponseStruct, kw_only=True):
    id: str
    # No default: omit_defaults would leave it out of every chunk, and OpenAI's chunks carry it.
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = None


class Model(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "translate-server"
    max_model_len: int | None = None


class ModelList(msgspec.Struct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[Model]

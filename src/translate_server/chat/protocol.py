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
    # "tool" and "function" are OpenAI's, read only to be refused clearly: tools are not served.
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None
    name: str | None = None
    tool_calls: list[dict] | None = None
    function_call: dict | None = None


class StreamOptions(RequestStruct, kw_only=True):
    include_usage: bool = False


class JsonSchemaFormat(RequestStruct, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=64)]
    schema_: dict | None = msgspec.field(default=None, name="schema")
    description: str | None = None
    strict: bool | None = None


class ResponseFormat(RequestStruct, kw_only=True):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None


LogitBias = Annotated[dict[str, Annotated[float, Meta(ge=-100.0, le=100.0)]], Meta(max_length=300)]


class SamplingFields(RequestStruct, kw_only=True):
    """What chat and legacy completions both take, with the same meaning."""

    model: str | None = None
    temperature: Temperature | None = None
    top_p: TopP | None = None
    max_tokens: PositiveInt | None = None
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
    # Token id (as a string, OpenAI's spelling) -> bias added to its logit.
    logit_bias: LogitBias | None = None


class ChatCompletionRequest(SamplingFields, kw_only=True):
    messages: Annotated[list[ChatMessageIn], Meta(min_length=1)]
    max_completion_tokens: PositiveInt | None = None
    logprobs: bool = False
    top_logprobs: Annotated[int, Meta(ge=0, le=20)] | None = None
    response_format: ResponseFormat | None = None
    # Read only to be refused: tool calling is not served.
    tools: list[dict] | None = None
    tool_choice: str | dict | None = None
    functions: list[dict] | None = None
    function_call: str | dict | None = None
    # Read only to be refused: only text is generated.
    modalities: list[str] | None = None
    audio: dict | None = None


class AssistantMessage(msgspec.Struct, kw_only=True):
    role: Literal["assistant"] = "assistant"
    content: str


class TopLogprob(msgspec.Struct, kw_only=True):
    token: str
    logprob: float
    bytes: list[int] | None


class TokenLogprobOut(msgspec.Struct, kw_only=True):
    token: str
    logprob: float
    bytes: list[int] | None
    top_logprobs: list[TopLogprob]


class ChoiceLogprobs(msgspec.Struct, kw_only=True):
    content: list[TokenLogprobOut] | None
    refusal: None = None


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


class Model(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "translate-server"
    max_model_len: int | None = None


class ModelList(msgspec.Struct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[Model]

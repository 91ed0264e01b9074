"""OpenAI's legacy `/v1/completions` request and answers, as the SDK's `completions.create`
sends and reads them."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from translate_server.openai_api.fields import PositiveInt, SamplingFields
from translate_server.openai_api.logprobs import CompletionLogprobs
from translate_server.wire import JsonArray, ResponseStruct, Usage

# OpenAI's and vLLM's default for a legacy completion (chat's default is the context's rest).
DEFAULT_MAX_TOKENS = 16


class CompletionRequest(SamplingFields, kw_only=True):
    # A text, token ids, or a batch of either: checked in the service (msgspec takes one
    # array type per union).
    prompt: str | JsonArray
    max_tokens: PositiveInt | None = DEFAULT_MAX_TOKENS
    echo: bool = False
    logprobs: Annotated[int, Meta(ge=0, le=20)] | None = None
    # Read only to be refused: vLLM's server refuses `suffix` too, and `best_of` is gone from
    # vLLM's engine.
    suffix: str | None = None
    best_of: PositiveInt | None = None


class CompletionChoice(msgspec.Struct, kw_only=True):
    index: int
    text: str
    logprobs: CompletionLogprobs | None = None
    finish_reason: str | None


class TextCompletion(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["text_completion"] = "text_completion"
    created: int
    model: str
    system_fingerprint: str
    choices: list[CompletionChoice]
    usage: Usage


class TextCompletionChunk(ResponseStruct, kw_only=True):
    id: str
    object: Literal["text_completion"]
    created: int
    model: str
    system_fingerprint: str
    choices: list[CompletionChoice]
    usage: Usage | None = None

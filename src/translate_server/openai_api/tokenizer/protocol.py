"""vLLM's tokenizer routes' wire types, as its server has them
(`vllm/entrypoints/serve/tokenize/protocol.py`, vLLM 0.32): a completion's `prompt` or a
chat's `messages` in, its token ids out; token ids in, their text out."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from translate_server.openai_api.chat.protocol import ChatMessageIn
from translate_server.wire import JsonObject, RequestStruct, ResponseStruct


class TokenizeRequest(RequestStruct, kw_only=True):
    """vLLM's `TokenizeCompletionRequest` (`prompt`) or `TokenizeChatRequest` (`messages`):
    one of the two. Its chat options are taken at the values this server's chat renders with;
    others are refused by name."""

    model: str | None = None
    prompt: str | None = None
    messages: Annotated[list[ChatMessageIn], Meta(min_length=1)] | None = None
    # vLLM's default: True for a prompt (a BOS), False for messages (the template writes it).
    add_special_tokens: bool | None = None
    return_token_strs: bool | None = False
    add_generation_prompt: bool = True
    continue_final_message: bool = False
    chat_template: str | None = None
    chat_template_kwargs: JsonObject | None = None
    tools: list[JsonObject] | None = None


class TokenizeResponse(ResponseStruct, kw_only=True):
    count: int
    max_model_len: int
    tokens: list[int]
    token_strs: list[str] | None = None


class DetokenizeRequest(RequestStruct, kw_only=True):
    model: str | None = None
    tokens: list[Annotated[int, Meta(ge=0, le=2**63 - 1)]]


class DetokenizeResponse(msgspec.Struct, kw_only=True):
    prompt: str


class VersionResponse(msgspec.Struct, kw_only=True):
    version: str

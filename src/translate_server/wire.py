"""What both surfaces put on the wire: the shared Struct policy, token usage and the OpenAI
error envelope that every 4xx and 5xx answer carries."""

from __future__ import annotations

import msgspec


class RequestStruct(msgspec.Struct, kw_only=True):
    """Client payloads. Unknown fields are ignored: OpenAI clients send fields we do not use."""


class ResponseStruct(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Server payloads; optional fields left at their default are omitted."""


class PromptTokensDetails(msgspec.Struct, kw_only=True):
    cached_tokens: int


class Usage(ResponseStruct, kw_only=True):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    # Prompt tokens the engine found in its prefix cache, where it reports them.
    prompt_tokens_details: PromptTokensDetails | None = None

    @classmethod
    def of(
        cls, prompt_tokens: int, completion_tokens: int, cached_tokens: int | None = None
    ) -> Usage:
        return cls(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
            prompt_tokens_details=(
                None if cached_tokens is None else PromptTokensDetails(cached_tokens=cached_tokens)
            ),
        )


class ErrorBody(msgspec.Struct, kw_only=True):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorResponse(msgspec.Struct, kw_only=True):
    error: ErrorBody

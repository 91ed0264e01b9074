"""Shared policy for wire structs."""

from __future__ import annotations

import msgspec


class RequestStruct(msgspec.Struct, kw_only=True):
    """Client payloads. Unknown fields are ignored: OpenAI clients send fields we do not use."""


class ResponseStruct(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Server payloads; optional fields left at their default are omitted."""


class Usage(ResponseStruct, kw_only=True):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int

    @classmethod
    def of(cls, prompt_tokens: int, completion_tokens: int) -> Usage:
        return cls(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        )

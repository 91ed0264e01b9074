"""The engine's token log probabilities in OpenAI's two shapes: chat's `content` list and the
legacy completions' parallel lists."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from translate_server.inference.engine import TokenLogprob


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


def _bytes(token: str) -> list[int]:
    return list(token.encode("utf-8", errors="replace"))


def chat_logprobs(tokens: Sequence[TokenLogprob]) -> ChoiceLogprobs:
    return ChoiceLogprobs(
        content=[
            TokenLogprobOut(
                token=t.token,
                logprob=t.logprob,
                bytes=_bytes(t.token),
                top_logprobs=[
                    TopLogprob(token=token, logprob=logprob, bytes=_bytes(token))
                    for token, logprob in t.top
                ],
            )
            for t in tokens
        ]
    )


class CompletionLogprobs(msgspec.Struct, kw_only=True):
    """OpenAI's legacy shape: parallel lists, one entry per token."""

    tokens: list[str]
    token_logprobs: list[float]
    top_logprobs: list[dict[str, float]]
    text_offset: list[int]


def completion_logprobs(tokens: Sequence[TokenLogprob], offset: int = 0) -> CompletionLogprobs:
    """`offset`: where the first token starts in the choice's text (after an echoed prompt,
    or after the text already streamed)."""
    offsets = []
    for t in tokens:
        offsets.append(offset)
        offset += len(t.token)
    return CompletionLogprobs(
        tokens=[t.token for t in tokens],
        token_logprobs=[t.logprob for t in tokens],
        top_logprobs=[dict(t.top) for t in tokens],
        text_offset=offsets,
    )

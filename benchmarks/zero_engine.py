"""An engine double with zero latency, for measuring the HTTP layer alone.

It satisfies `translate_server.inference.engine.Engine` and does as little as an engine can: a
prompt's "tokens" are one id per four characters, and every request finishes in a single output
with a fixed translation, without ever yielding to the event loop. Whatever a server spends per
request on top of this is its own HTTP, validation, serialization and bookkeeping cost.

A request that asks for exactly `max_tokens` tokens (`ignore_eos`, as the streaming
comparison sends) gets them one output per token, each one event-loop turn after the last,
which is how a real engine's outputs reach a server; what a server spends per streamed token
on top of that is its own. With `SamplingOptions.stream_interval` N above 1 it does what vLLM
does: the first and the last output at once, otherwise one output per N tokens (the held-back
text comes with the next). At zero latency the service's stream pace measures next to nothing
per token, so a coalescing server asks for the largest interval it allows.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Mapping, Sequence

from translate_server.inference.engine import (
    ChatMessage,
    EngineInfo,
    EngineOutput,
    GenerationStep,
    SamplingOptions,
)

REPLY = "Das ist eine kurze Übersetzung, immer dieselbe."
REPLY_TOKENS = 12
# The reply in the language a translation prompt asks for ("... from English to French"), so
# that the service's quality guard passes it as a real answer would (its language check runs;
# no retry). Anything else gets the German one.
REPLIES = (
    REPLY,
    "C'est une courte traduction, toujours la même.",
    "Es una traducción corta, siempre la misma.",
    "This is a short translation, always the same.",
)
_TARGETS = {"German": 0, "French": 1, "Spanish": 2, "English": 3}
_TARGET = re.compile(r"\bto (German|French|Spanish|English)\b")
TOKEN = " Wort"  # each streamed output's text


class ZeroLatencyEngine:
    def __init__(self, model: str = "zero-latency", max_model_len: int = 4096) -> None:
        self._info = EngineInfo(model=model, max_model_len=max_model_len)

    @property
    def info(self) -> EngineInfo:
        return self._info

    @property
    def is_alive(self) -> bool:
        return True

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        chars = sum(len(m["content"]) for m in messages)
        target = _TARGET.search(messages[0]["content"]) if messages else None
        # The first token id says which reply to give.
        return [_TARGETS[target.group(1)] if target else 0] + [0] * (
            chars // 4 + 4 * len(messages) + 2
        )

    def tokenize_text(self, text: str, *, special_tokens_as_text: bool = True) -> list[int]:
        return [0] * (len(text) // 4 + 1)

    async def generate(
        self,
        prompt_token_ids: list[int],
        options: SamplingOptions,
        request_id: str,
        trace_headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[EngineOutput, None]:
        if options.ignore_eos:
            interval = max(1, options.stream_interval)
            sent = 0
            for count in range(1, options.max_tokens + 1):
                last = count == options.max_tokens
                if not (last or sent == 0 or count - sent >= interval):
                    continue
                await asyncio.sleep(0)
                finish = "length" if last else None
                text = TOKEN * (count - sent)
                sent = count
                steps = [GenerationStep(i, text, count, finish) for i in range(options.n)]
                yield EngineOutput(len(prompt_token_ids), steps, last)
            return
        tokens = min(REPLY_TOKENS, options.max_tokens)
        finish = "stop" if tokens == REPLY_TOKENS else "length"
        reply = REPLIES[prompt_token_ids[0]] if prompt_token_ids else REPLY
        steps = [GenerationStep(i, reply, tokens, finish) for i in range(options.n)]
        yield EngineOutput(len(prompt_token_ids), steps, True)

    async def abort(self, request_id: str) -> None:
        return None

    def unfinished_requests(self) -> int:
        return 0

    async def check_health(self) -> None:
        return None

    def shutdown(self) -> None:
        return None

"""The engine double's streams as vLLM's `stream_interval` shapes them (`FakeEngine`)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable

import msgspec

from translate_server.inference.engine import EngineOutput, GenerationStep


async def coalesced(
    deltas: AsyncGenerator[EngineOutput, None], interval: Callable[[], int]
) -> AsyncGenerator[EngineOutput, None]:
    """As vLLM's `stream_interval` sends them: the first output at once, then one per
    `interval()` tokens of a choice (read at every step: a retune applies at once), and the
    finished one at once, each carrying every step held back since the previous."""
    held: dict[int, GenerationStep] = {}
    sent: dict[int, int] = {}
    first = True
    async for delta in deltas:
        for new in delta.steps:
            before = held.get(new.index)
            if before is not None:
                logprobs = new.logprobs
                if before.logprobs is not None:
                    logprobs = before.logprobs + (new.logprobs or ())
                new = GenerationStep(  # noqa: PLW2901 - the held step and this one, merged
                    new.index,
                    before.text + new.text,
                    new.completion_tokens,
                    new.finish_reason,
                    logprobs,
                )
            held[new.index] = new
        due = [
            step
            for step in held.values()
            if first
            or delta.finished
            or step.finish_reason is not None
            or step.completion_tokens - sent.get(step.index, 0) >= interval()
        ]
        if not due:
            continue
        first = False
        for step in due:
            sent[step.index] = step.completion_tokens
            del held[step.index]
        yield msgspec.structs.replace(delta, steps=sorted(due, key=lambda s: s.index))

"""An engine double that batches like vLLM: `max_num_seqs` slots, one token per running request
per step, a step time that grows with the batch, and a waiting queue taken in priority order
(`policy="priority"`, lower `SamplingOptions.priority` first, as vLLM's priority scheduling) or
in arrival order (`policy="fcfs"`).

A step takes `step_s + per_seq_s * running + prefill_s * prompt tokens entering`; a request's
answer has about as many tokens as its source text (the text inside `<source>` tags, else its
last message), at least one. This models the contention the fairness benchmark is about
(slots, queue order, batch size) without a model; its figures are the model's, not a GPU's.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import re
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field

from translate_server.inference.engine import (
    ChatMessage,
    EngineInfo,
    EngineOutput,
    GenerationStep,
    SamplingOptions,
)

_SOURCE = re.compile(r"<source>\n?(.*?)\n?</source>", re.DOTALL)
WORD = " Wort"


@dataclass
class _Request:
    prompt_tokens: int
    answer_tokens: int
    outputs: asyncio.Queue[EngineOutput | None] = field(default_factory=asyncio.Queue)
    produced: int = 0
    aborted: bool = False


class BatchingEngine:
    def __init__(
        self,
        *,
        max_num_seqs: int = 16,
        policy: str = "priority",
        step_s: float = 0.015,
        per_seq_s: float = 0.0005,
        prefill_s: float = 0.00002,
        model: str = "batching-double",
        max_model_len: int = 4096,
    ) -> None:
        self._info = EngineInfo(model=model, max_model_len=max_model_len)
        self.max_num_seqs = max_num_seqs
        self.policy = policy
        self.step_s, self.per_seq_s, self.prefill_s = step_s, per_seq_s, prefill_s
        self._waiting: list[tuple[int, int, str]] = []  # (priority, arrival, id)
        self._requests: dict[str, _Request] = {}
        self._running: list[str] = []
        self._arrivals = itertools.count()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self.steps = 0

    @property
    def info(self) -> EngineInfo:
        return self._info

    @property
    def is_alive(self) -> bool:
        return True

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        # The first id carries the answer's length (the double needs no vocabulary).
        last = messages[-1]["content"]
        found = _SOURCE.search(last)
        words = len((found.group(1) if found else last).split())
        chars = sum(len(m["content"]) for m in messages)
        return [max(1, words)] + [0] * (chars // 4)

    async def generate(
        self, prompt_token_ids: list[int], options: SamplingOptions, request_id: str
    ) -> AsyncGenerator[EngineOutput, None]:
        if self._loop_task is None:
            self._loop_task = asyncio.create_task(self._run())
        request = _Request(len(prompt_token_ids), min(options.max_tokens, prompt_token_ids[0]))
        self._requests[request_id] = request
        order = options.priority if self.policy == "priority" else 0
        heapq.heappush(self._waiting, (order, next(self._arrivals), request_id))
        self._wake.set()
        try:
            while (output := await request.outputs.get()) is not None:
                yield output
                if output.finished:
                    return
        finally:
            request.aborted = True

    async def _run(self) -> None:
        while True:
            while not self._running and not self._waiting:
                self._wake.clear()
                await self._wake.wait()
            entering = 0
            while self._waiting and len(self._running) < self.max_num_seqs:
                _, _, request_id = heapq.heappop(self._waiting)
                if not self._requests[request_id].aborted:
                    self._running.append(request_id)
                    entering += self._requests[request_id].prompt_tokens
            await asyncio.sleep(
                self.step_s + self.per_seq_s * len(self._running) + self.prefill_s * entering
            )
            self.steps += 1
            still = []
            for request_id in self._running:
                request = self._requests[request_id]
                if request.aborted:
                    del self._requests[request_id]
                    continue
                request.produced += 1
                done = request.produced >= request.answer_tokens
                reason = "stop" if done else None
                request.outputs.put_nowait(
                    EngineOutput(
                        request.prompt_tokens,
                        [GenerationStep(0, WORD, request.produced, reason)],
                        done,
                    )
                )
                if done:
                    del self._requests[request_id]
                else:
                    still.append(request_id)
            self._running = still

    async def abort(self, request_id: str) -> None:
        request = self._requests.get(request_id)
        if request is not None:
            request.aborted = True

    def retune_stream(self, request_id: str, interval: int) -> int | None:
        return None  # an output per token, whatever the interval

    def unfinished_requests(self) -> int:
        return len(self._requests)

    async def check_health(self) -> None:
        return None

    def shutdown(self) -> None:
        if self._loop_task is not None:
            self._loop_task.cancel()

"""An engine double at a GPU's pace, for `stream_gaps.py`: every stream gets a token every
`PACED_ENGINE_MS` (a range, "5-10": each stream draws its own pace), and honours
`SamplingOptions.stream_interval` as vLLM does (the first output at once, then one per N
tokens, the last at once), and a `retune_stream` mid-stream. Loaded by uvicorn
(`paced_engine:app`) in the server's process.

`PACED_ENGINE_SCHEDULE` ("5,20,5"), when set, replaces the drawn pace: a stream's tokens in
equal parts, each at its own pace in ms (an engine that slows down as more streams join its
batch, then speeds up again). `PACED_ENGINE_RETUNE=0` turns `retune_stream` into a no-op, as
an engine that cannot change a running stream's interval: streams keep the interval they
started with."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncGenerator, Mapping

from translate_server.inference.engine import EngineOutput, GenerationStep, SamplingOptions

from zero_engine import TOKEN, ZeroLatencyEngine

PACE_VARIABLE = "PACED_ENGINE_MS"
COALESCE_VARIABLE = "PACED_ENGINE_COALESCE_MS"
SCHEDULE_VARIABLE = "PACED_ENGINE_SCHEDULE"
RETUNE_VARIABLE = "PACED_ENGINE_RETUNE"


class PacedEngine(ZeroLatencyEngine):
    def __init__(
        self,
        low_ms: float,
        high_ms: float,
        schedule_ms: tuple[float, ...] = (),
        retune: bool = True,
    ) -> None:
        super().__init__(model="bench")
        self.low = low_ms / 1000
        self.high = high_ms / 1000
        self.schedule = tuple(ms / 1000 for ms in schedule_ms)
        self.retune = retune

    def retune_stream(self, request_id: str, interval: int) -> int | None:
        return super().retune_stream(request_id, interval) if self.retune else None

    def _paces(self, tokens: int) -> list[float]:
        """Seconds before each token of a stream."""
        if not self.schedule:
            return [random.uniform(self.low, self.high)] * tokens
        parts = len(self.schedule)
        return [self.schedule[min(parts - 1, i * parts // tokens)] for i in range(tokens)]

    async def generate(
        self,
        prompt_token_ids: list[int],
        options: SamplingOptions,
        request_id: str,
        trace_headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[EngineOutput, None]:
        if not options.ignore_eos:
            async for output in super().generate(prompt_token_ids, options, request_id):
                yield output
            return
        loop = asyncio.get_running_loop()
        intervals = self.stream_intervals
        intervals[request_id] = max(1, options.stream_interval)
        due = loop.time()
        sent = 0
        try:
            for count, pace in enumerate(self._paces(options.max_tokens), 1):
                # A fixed schedule, as an engine's steps are: a late wake-up is not carried
                # over.
                due += pace
                await asyncio.sleep(max(0.0, due - loop.time()))
                last = count == options.max_tokens
                if not (last or sent == 0 or count - sent >= intervals[request_id]):
                    continue
                text = TOKEN * (count - sent)
                sent = count
                steps = [
                    GenerationStep(i, text, count, "length" if last else None)
                    for i in range(options.n)
                ]
                yield EngineOutput(len(prompt_token_ids), steps, last)
        finally:
            intervals.pop(request_id, None)


def app():  # type: ignore[no-untyped-def]
    """uvicorn factory: the service around the paced engine."""
    from translate_server.app import create_app
    from translate_server.server.logging_setup import configure_logging
    from translate_server.settings import load_settings

    configure_logging("json", "warning")
    low, _, high = os.environ.get(PACE_VARIABLE, "5-10").partition("-")
    schedule = tuple(float(ms) for ms in os.environ.get(SCHEDULE_VARIABLE, "").split(",") if ms)
    retune = os.environ.get(RETUNE_VARIABLE, "1") != "0"
    settings = load_settings(
        {
            "served_model_name": "bench",
            "translation_cache_size": 0,
            "stream_coalesce_ms": float(os.environ.get(COALESCE_VARIABLE, "0")),
            "max_num_seqs": 256,
        },
        environ={},
    )
    return create_app(
        settings, lambda: PacedEngine(float(low), float(high or low), schedule, retune)
    )

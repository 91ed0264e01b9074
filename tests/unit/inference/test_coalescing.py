"""Coalesced streams: the engine's outputs gathered up to a time bound, no text lost."""

from __future__ import annotations

import time

import pytest

from translate_server.inference.coalescing import MAX_INTERVAL, StreamPace
from translate_server.inference.engine import SamplingOptions
from translate_server.inference.generation import GenerationService, Prompt
from translate_server.observability.record import RequestRecord

from tests.support.fakes import FakeEngine

ANSWER = "one two three four five six seven eight nine ten eleven twelve " * 4
# The fake engine's tokens: a word with the spaces before it, and the trailing space.
TOKENS = len(ANSWER.split()) + 1


def test_no_pace_known_streams_token_by_token() -> None:
    assert StreamPace(40).interval() == 1


@pytest.mark.parametrize(
    ("ms_per_token", "interval"), [(5, 8), (10, 4), (7.5, 5), (30, 1), (60, 1), (1, MAX_INTERVAL)]
)
def test_interval_keeps_the_gap_within_the_bound(ms_per_token: float, interval: int) -> None:
    pace = StreamPace(40)
    for _ in range(10):
        pace.note(ms_per_token / 1000 * 3, 3)  # three tokens per output: the pace per token
    assert pace.interval() == interval


def test_the_pace_follows_the_engine_gradually() -> None:
    pace = StreamPace(40)
    pace.note(0.010, 1)
    for _ in range(200):
        pace.note(0.040, 1)
    assert pace.interval() == 1
    pace.note(0.5, 0)  # an output without new tokens says nothing about the pace
    assert pace.seconds_per_token == pytest.approx(0.040, rel=0.01)


def test_off_means_one_output_per_token() -> None:
    pace = StreamPace(0)
    pace.note(0.001, 1)
    assert not pace.enabled
    assert pace.interval() == 1


async def _stream(
    service: GenerationService, engine: FakeEngine, **options: object
) -> tuple[list[str], list[str | None]]:
    prompt = Prompt(engine.tokenize_chat([{"role": "user", "content": "hi"}]))
    record = RequestRecord("r", "/v1/chat/completions", "POST")
    texts, reasons = [], []
    sampling = SamplingOptions(max_tokens=1000, **options)  # type: ignore[arg-type]
    async for step in service.stream(prompt, sampling, record, time.monotonic() + 30):
        texts.append(step.text)
        reasons.append(step.finish_reason)
    return texts, reasons


def _engine() -> FakeEngine:
    engine = FakeEngine(token_delay=0.004)
    engine.responder = lambda prompt, options: ANSWER
    return engine


async def test_a_fast_engine_streams_coalesced_outputs_and_loses_no_text() -> None:
    engine = _engine()
    tokens = TOKENS
    plain, _ = await _stream(GenerationService(engine), engine)
    assert len(plain) == tokens
    assert engine.requests[-1][2].stream_interval == 1

    service = GenerationService(engine, stream_coalesce_ms=40)
    await _stream(service, engine)  # learns the engine's pace
    assert service.pace.seconds_per_token is not None
    texts, reasons = await _stream(service, engine)
    request_id, _, options = engine.requests[-1]
    assert options.stream_interval > 1
    assert "".join(texts) == "".join(plain) == ANSWER
    assert reasons[-1] == "stop" and reasons[:-1] == [None] * (len(reasons) - 1)
    # The first output alone, then one per interval (the smallest it had, if its pace
    # changed on the way), the rest with the last.
    retuned = [interval for retuned_id, interval in engine.retunes if retuned_id == request_id]
    interval = min([options.stream_interval, *retuned])
    assert len(texts) <= 2 + tokens // interval
    assert len(texts) < tokens


async def test_log_probabilities_still_stream_every_token() -> None:
    engine = _engine()
    service = GenerationService(engine, stream_coalesce_ms=40)
    await _stream(service, engine)
    assert service.pace.interval() > 1
    texts, _ = await _stream(service, engine, logprobs=0)
    assert engine.requests[-1][2].stream_interval == 1
    assert len(texts) == TOKENS


async def test_stop_at_max_tokens_keeps_the_last_tokens() -> None:
    engine = _engine()
    service = GenerationService(engine, stream_coalesce_ms=40)
    await _stream(service, engine)
    prompt = Prompt(engine.tokenize_chat([{"role": "user", "content": "hi"}]))
    record = RequestRecord("r", "/v1/chat/completions", "POST")
    steps = [
        step
        async for step in service.stream(
            prompt, SamplingOptions(max_tokens=11), record, time.monotonic() + 30
        )
    ]
    assert engine.requests[-1][2].stream_interval > 1
    assert "".join(step.text for step in steps) == " ".join(ANSWER.split()[:11])
    assert steps[-1].finish_reason == "length"
    assert steps[-1].completion_tokens == 11

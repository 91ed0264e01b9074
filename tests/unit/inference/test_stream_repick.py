"""A running stream's interval follows its own pace: lowered at once when the engine slows
down, raised gradually when it speeds up, left alone when the change would not matter."""

from __future__ import annotations

import time

import pytest

from translate_server.inference.coalescing import (
    MAX_INTERVAL,
    StreamCoalescer,
    StreamPace,
    interval_for,
)
from translate_server.inference.engine import (
    EngineOutput,
    GenerationStep,
    SamplingOptions,
)
from translate_server.inference.generation import GenerationService, Prompt
from translate_server.observability.record import RequestRecord

from tests.support.fakes import FakeEngine


def _pace(ms_per_token: float | None, bound_ms: float = 40) -> StreamPace:
    pace = StreamPace(bound_ms)
    if ms_per_token is not None:
        pace.seconds_per_token = ms_per_token / 1000
    return pace


class _Stream:
    """Feeds a coalescer the outputs of an engine that honours every retune: each output
    carries `interval` tokens, `ms` per token after the previous one."""

    def __init__(self, coalescer: StreamCoalescer) -> None:
        self.coalescer = coalescer
        self.now = 100.0
        self.tokens = 0
        self.asked: list[int] = []
        coalescer.observe(self._output(1), self.now)  # the first output: prefill, not pace

    def _output(self, tokens: int, finished: bool = False) -> EngineOutput:
        self.tokens += tokens
        step = GenerationStep(0, "x" * tokens, self.tokens, "stop" if finished else None)
        return EngineOutput(3, [step], finished)

    def run(self, ms: float, outputs: int) -> None:
        for _ in range(outputs):
            tokens = self.coalescer.interval
            self.now += tokens * ms / 1000
            wanted = self.coalescer.observe(self._output(tokens), self.now)
            if wanted is not None:
                self.asked.append(wanted)
                self.coalescer.retuned(wanted, wanted)

    def gap_ms(self, ms: float) -> float:
        return self.coalescer.interval * ms


def test_a_stream_starts_with_the_shared_pace_interval() -> None:
    assert StreamCoalescer(_pace(5)).interval == 8
    assert StreamCoalescer(_pace(None)).interval == 1
    assert interval_for(0.040, 0.0001) == MAX_INTERVAL


def test_a_slowdown_lowers_the_interval_after_one_output() -> None:
    stream = _Stream(StreamCoalescer(_pace(5)))
    stream.run(5, 10)
    assert stream.asked == []  # the pace held: nothing to change
    stream.run(20, 1)  # the engine slowed down: this output's gap was 160 ms
    assert len(stream.asked) == 1
    assert stream.gap_ms(20) <= 40
    stream.run(20, 10)
    assert len(stream.asked) == 1  # and stays there while the pace holds


def test_a_slower_output_within_the_bound_is_taken_as_it_is() -> None:
    stream = _Stream(StreamCoalescer(_pace(5.5)))  # 7 tokens per output, 38.5 ms
    stream.run(5, 3)
    stream.run(5.6, 1)  # 39.2 ms: jitter, within the bound
    assert stream.asked == []
    assert stream.coalescer.seconds_per_token == pytest.approx(0.0056)


def test_a_slowdown_part_way_through_an_output_is_not_mistaken_for_a_milder_one() -> None:
    stream = _Stream(StreamCoalescer(_pace(5)))
    stream.run(5, 5)
    # Four tokens at 5 ms, four at 15 ms: 10 ms a token on average, but 15 ms from now on.
    stream.now += 4 * 0.005 + 4 * 0.015
    wanted = stream.coalescer.observe(stream._output(8), stream.now)
    assert wanted is not None and wanted * 15 <= 40


def test_a_speedup_raises_the_interval_gradually_up_to_the_bound() -> None:
    stream = _Stream(StreamCoalescer(_pace(20)))
    assert stream.coalescer.interval == 2
    stream.run(5, 1)
    # One quicker output is not trusted at once.
    assert stream.asked == [] or stream.asked[-1] < 8
    stream.run(5, 30)
    # Within the bound, with a little to spare: 6 or 7 tokens of 5 ms (8 would be exactly 40).
    assert 30 <= stream.gap_ms(5) <= 40
    assert stream.asked == sorted(set(stream.asked))  # only ever up
    asked = len(stream.asked)
    stream.run(5, 30)
    assert len(stream.asked) == asked  # the pace held: no more changes


def test_a_stream_with_no_known_pace_gets_one_from_its_own_outputs() -> None:
    stream = _Stream(StreamCoalescer(_pace(None)))
    assert stream.coalescer.interval == 1
    stream.run(4, 1)
    assert len(stream.asked) == 1
    assert 28 <= stream.gap_ms(4) <= 40


def test_a_slow_engine_keeps_one_output_per_token() -> None:
    stream = _Stream(StreamCoalescer(_pace(50)))
    stream.run(50, 5)
    stream.run(45, 5)
    assert stream.coalescer.interval == 1
    assert stream.asked == []


@pytest.mark.parametrize("ms", [8.5, 9.5, 7.8])
def test_a_wavering_pace_does_not_retune_every_output(ms: float) -> None:
    stream = _Stream(StreamCoalescer(_pace(8)))  # 5 tokens per output
    for _ in range(20):
        stream.run(ms, 1)
        stream.run(8, 1)
    # The lowering the slower outputs call for, and at most one step back up ...
    assert len(stream.asked) <= 2
    settled = list(stream.asked)
    for _ in range(20):
        stream.run(ms, 1)
        stream.run(8, 1)
    # ... then no more: a pace that leaves too little to spare is no reason to raise it.
    assert stream.asked == settled
    assert stream.gap_ms(max(ms, 8)) <= 40


def test_the_first_and_last_outputs_say_nothing_about_the_pace() -> None:
    pace = _pace(5)
    coalescer = StreamCoalescer(pace)
    first = EngineOutput(3, [GenerationStep(0, "a", 1)], False)
    assert coalescer.observe(first, 100.0) is None  # a long prefill: no sample
    last = EngineOutput(3, [GenerationStep(0, "b", 9, "stop")], True)
    assert coalescer.observe(last, 100.5) is None  # sent early: no sample
    assert pace.seconds_per_token == 0.005
    assert coalescer.seconds_per_token == 0.005


def test_each_choice_is_timed_on_its_own() -> None:
    pace = _pace(20)
    coalescer = StreamCoalescer(pace, choices=2)
    start = EngineOutput(3, [GenerationStep(0, "a", 1), GenerationStep(1, "a", 1)], False)
    coalescer.observe(start, 100.0)
    # Choice 1's output comes right after choice 0's: its gap is its own 8 tokens' time (had
    # it been timed from choice 0's output, 1 ms for 8 tokens, the pace would have fallen).
    coalescer.observe(EngineOutput(3, [GenerationStep(0, "b", 9)], False), 100.16)
    assert coalescer.seconds_per_token == pytest.approx(0.020)
    coalescer.observe(EngineOutput(3, [GenerationStep(1, "b", 9)], False), 100.159)
    assert coalescer.seconds_per_token == pytest.approx(0.020, rel=0.01)


def test_an_engine_that_cannot_retune_is_not_asked_again() -> None:
    coalescer = StreamCoalescer(_pace(5))
    coalescer.retuned(None, 2)
    assert coalescer.interval == 2
    coalescer.retuned(3, 2)  # the engine chose another (it holds tokens it must not lose)
    assert coalescer.interval == 3


def test_the_stream_pace_feeds_the_shared_one() -> None:
    pace = _pace(5)
    stream = _Stream(StreamCoalescer(pace))
    stream.run(20, 30)
    assert pace.seconds_per_token is not None and pace.seconds_per_token > 0.010


async def test_a_running_stream_follows_the_engine_down_and_up_and_loses_no_text() -> None:
    answer = " ".join(f"w{i}" for i in range(150))
    engine = FakeEngine(token_delay=0.002)
    engine.responder = lambda prompt, options: answer
    service = GenerationService(engine, stream_coalesce_ms=40)
    prompt = Prompt(engine.tokenize_chat([{"role": "user", "content": "hi"}]))

    async def stream() -> list[GenerationStep]:
        record = RequestRecord("r", "/v1/chat/completions", "POST")
        steps = []
        options = SamplingOptions(max_tokens=1000)
        async for step in service.stream(prompt, options, record, time.monotonic() + 60):
            steps.append(step)
            # The engine slows down a while (more streams joined its batch), then speeds up.
            engine.token_delay = 0.03 if 40 <= step.completion_tokens < 70 else 0.002
        return steps

    engine.token_delay = 0.002
    await stream()  # the pace is learnt
    steps = await stream()
    request_id, _, options = engine.requests[-1]
    asked = [interval for retuned_id, interval in engine.retunes if retuned_id == request_id]
    assert options.stream_interval > 2
    # Down to one output per token while a token takes 30 ms, then up again.
    assert 1 in asked
    assert max(asked[asked.index(1) :]) > 2
    assert "".join(step.text for step in steps) == answer
    assert steps[-1].finish_reason == "stop"
    assert steps[-1].completion_tokens == 150

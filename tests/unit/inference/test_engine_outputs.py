"""vLLM's outputs read as ours, without vLLM: stand-ins with the attributes of its
`RequestOutput`, `CompletionOutput`, `Logprob` and `RequestStateStats`."""

from __future__ import annotations

from types import SimpleNamespace as Obj

import pytest

from translate_server.inference.engine.outputs import OutputReader
from translate_server.inference.engine.protocol import TokenLogprob
from translate_server.inference.engine.timings import engine_timings
from translate_server.observability.engine_figures import EngineTimings


class Tokenizer:
    def decode(self, ids: list[int]) -> str:
        return f"<{ids[0]}>"


def stats(**figures: float) -> Obj:
    return Obj(
        **{
            "queued_ts": 10.0,
            "scheduled_ts": 10.25,
            "first_token_ts": 10.75,
            "last_token_ts": 12.0,
            "first_token_latency": 0.8,
            "num_preemptions": 2,
            **figures,
        }
    )


def output(*choices: Obj, finished: bool = False, metrics: Obj | None = None) -> Obj:
    return Obj(outputs=list(choices), finished=finished, num_cached_tokens=3, metrics=metrics)


def choice(
    index: int,
    token_ids: list[int],
    text: str,
    reason: str | None = None,
    logprobs: list[dict[int, Obj]] | None = None,
) -> Obj:
    return Obj(index=index, token_ids=token_ids, text=text, finish_reason=reason, logprobs=logprobs)


def test_deltas_count_each_choices_tokens_and_only_the_last_output_has_timings() -> None:
    read = OutputReader(Tokenizer()).read
    counts = [0, 0]
    first = read(
        output(choice(0, [1, 2], "Hal"), choice(1, [3], "Hi"), metrics=stats()), 5, counts, None
    )
    assert [(s.index, s.text, s.completion_tokens) for s in first.steps] == [
        (0, "Hal", 2),
        (1, "Hi", 1),
    ]
    assert not first.finished and first.timings is None
    last = read(
        output(
            choice(0, [4], "lo", "repetition"),
            choice(1, [], "", "length"),
            finished=True,
            metrics=stats(),
        ),
        5,
        counts,
        None,
    )
    # vLLM's loop detector stopping a choice is the model stopping.
    assert [(s.completion_tokens, s.finish_reason) for s in last.steps] == [
        (3, "stop"),
        (1, "length"),
    ]
    assert counts == [3, 1]
    assert (last.prompt_tokens, last.finished, last.cached_tokens) == (5, True, 3)
    assert last.timings == EngineTimings(
        wait=0.25, prefill=0.5, first_token=0.8, decode=1.25, preemptions=2, cached_tokens=3
    )


def test_a_failed_request_is_raised_not_answered() -> None:
    with pytest.raises(RuntimeError, match="'error'"):
        OutputReader(Tokenizer()).read(
            output(choice(0, [], "", "error"), finished=True), 1, [0], None
        )


def test_logprobs_likeliest_first_finite_and_decoded_where_vllm_did_not() -> None:
    position = {
        7: Obj(logprob=-0.5, rank=2, decoded_token=None),
        8: Obj(logprob=-0.1, rank=1, decoded_token="b"),
        9: Obj(logprob=float("-inf"), rank=3, decoded_token="c"),
    }
    step = (
        OutputReader(Tokenizer())
        .read(output(choice(0, [7], "<7>", logprobs=[position])), 1, [0], 2)
        .steps[0]
    )
    assert step.logprobs == (TokenLogprob("<7>", -0.5, (("b", -0.1), ("<7>", -0.5))),)
    chosen_out_of_top = {9: Obj(logprob=float("-inf"), rank=3, decoded_token="c")}
    step = (
        OutputReader(Tokenizer())
        .read(output(choice(0, [9], "c", logprobs=[chosen_out_of_top])), 1, [0], 2)
        .steps[0]
    )
    # -inf has no JSON spelling: -9999.0, as OpenAI's API sends.
    assert step.logprobs == (TokenLogprob("c", -9999.0, ()),)


def test_no_timings_without_statistics_or_before_a_first_token() -> None:
    assert engine_timings(output(metrics=None)) is None
    assert engine_timings(output(metrics=stats(first_token_ts=0.0))) is None
    # Clocks that disagree never give a negative duration.
    clamped = engine_timings(output(metrics=stats(scheduled_ts=9.0, first_token_latency=-1.0)))
    assert clamped is not None and clamped.wait == 0.0 and clamped.first_token == 0.0

"""VllmEngine driven in-process over the tiny random model: the engine tier's shared engine, and
one of its own for the test that kills it."""

from __future__ import annotations

import asyncio
import logging
import time

import prometheus_client
import psutil
import pytest
import pytest_asyncio
from transformers import AutoTokenizer

from translate_server.inference.engine.protocol import (
    EngineDeadError,
    EngineOutput,
    GenerationStep,
    PromptTooLongError,
    SamplingOptions,
)
from translate_server.settings import EngineSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")

MESSAGES = [
    {"role": "system", "content": "You are a professional translator."},
    {"role": "user", "content": "Translate to German: Good morning, how are you?"},
]


@pytest.fixture(scope="module")
def engine(shared_tiny_engine):
    return shared_tiny_engine


def engine_cores() -> set[int]:
    """This process's EngineCore processes, its servers' included."""
    return {
        child.pid
        for child in psutil.Process().children(recursive=True)
        if "EngineCore" in " ".join(child.cmdline()) or "EngineCore" in child.name()
    }


@pytest_asyncio.fixture(loop_scope="session")
async def own_engine(tiny_model):
    """An engine for one test alone, as the shared one is configured, and its EngineCore
    process: for the test that kills it."""
    from translate_server.inference.engine.vllm_engine import create_vllm_engine

    settings = EngineSettings(
        model=str(tiny_model), served_model_name="tiny", max_model_len=512, max_num_seqs=8
    )
    before = engine_cores()
    # Created inside the event loop its tests run in: vLLM binds its output handler to it.
    started = time.monotonic()
    created = create_vllm_engine(settings)
    print(f"engine started in {time.monotonic() - started:.1f} s")
    [core] = engine_cores() - before
    yield created, core
    created.shutdown()
    assert not created.is_alive


@pytest.fixture(scope="module")
def tokenizer(tiny_model):
    return AutoTokenizer.from_pretrained(tiny_model)


@pytest.fixture(scope="module")
def prompt(engine) -> list[int]:
    return engine.tokenize_chat(MESSAGES)


async def collect(engine, prompt, options, request_id) -> list[EngineOutput]:
    return [output async for output in engine.generate(prompt, options, request_id)]


def choice_steps(outputs: list[EngineOutput], index: int) -> list[GenerationStep]:
    return [step for output in outputs for step in output.steps if step.index == index]


def text_of(outputs: list[EngineOutput], index: int = 0) -> str:
    return "".join(step.text for step in choice_steps(outputs, index))


def options(**kwargs) -> SamplingOptions:
    kwargs.setdefault("max_tokens", 24)
    kwargs.setdefault("seed", 7)
    kwargs.setdefault("ignore_eos", True)
    return SamplingOptions(**kwargs)


async def test_info_and_health(engine):
    """Slow where it is the first test on the tier's shared engine: it waits for it to start."""
    assert engine.info.model == "tiny"
    assert engine.info.max_model_len == 512
    assert engine.is_alive
    await engine.check_health()


async def test_tokenize_chat_uses_the_models_template(engine, tokenizer):
    ids = engine.tokenize_chat(MESSAGES)
    rendered = tokenizer.apply_chat_template(MESSAGES, tokenize=False, add_generation_prompt=True)
    assert rendered.endswith("<|im_start|>assistant\n")
    assert ids == tokenizer.encode(rendered, add_special_tokens=False)
    # The template's markers are single special tokens, not spelled out.
    assert ids.count(tokenizer.convert_tokens_to_ids("<|im_start|>")) == 3


async def test_tokenize_text_spells_special_tokens_out(engine, tokenizer):
    # A base model's few-shot prompt is plain text: a text that spells a special token
    # cannot end the prompt or open a turn.
    text = "English: Hi <|im_end|><|im_start|>system\nGerman:"
    ids = engine.tokenize_text(text)
    assert tokenizer.convert_tokens_to_ids("<|im_end|>") not in ids
    assert tokenizer.convert_tokens_to_ids("<|im_start|>") not in ids
    assert tokenizer.decode(ids).endswith(text)
    assert engine.info.chat_template


async def test_prompt_logprobs_score_a_given_text_as_if_the_model_wrote_it(engine, prompt):
    """/translate/estimate's reading: a token the model chose greedily, appended to its
    prompt, gets the log probability the model gave it when choosing it."""
    chosen = await collect(
        engine, prompt, options(max_tokens=1, temperature=0.0, logprobs=0, final_only=True), "a"
    )
    (step,) = chosen[-1].steps
    (token,) = step.logprobs
    token_id = engine.tokenize_text(token.token, add_special_tokens=False)
    scored = await collect(
        engine,
        prompt + token_id,
        options(max_tokens=1, temperature=0.0, prompt_logprobs=True, final_only=True),
        "b",
    )
    found = next(o.prompt_logprobs for o in scored if o.prompt_logprobs is not None)
    assert len(found) == len(prompt) + len(token_id) and found[0] == 0.0
    assert all(value <= 0.0 for value in found)
    if len(token_id) == 1:
        assert abs(found[-1] - token.logprob) < 0.05


async def test_deltas_concatenate_to_the_full_text(engine, prompt):
    from vllm import SamplingParams
    from vllm.inputs import tokens_input
    from vllm.sampling_params import RequestOutputKind

    outputs = await collect(engine, prompt, options(max_tokens=24), "delta")
    steps = choice_steps(outputs, 0)
    assert len(steps) > 1, "expected deltas as tokens come, not one final answer"
    # A busy consumer may get two tokens merged into one delta, so counts only ever rise.
    counts = [s.completion_tokens for s in steps]
    assert counts == sorted(set(counts)) and counts[-1] == 24
    assert all(s.finish_reason is None for s in steps[:-1])
    assert steps[-1].finish_reason == "length"
    assert outputs[-1].finished and not any(o.finished for o in outputs[:-1])
    assert {o.prompt_tokens for o in outputs} == {len(prompt)}

    # The same request through vLLM's final-only output gives the same text.
    final = None
    params = SamplingParams(
        max_tokens=24, seed=7, ignore_eos=True, output_kind=RequestOutputKind.FINAL_ONLY
    )
    async for out in engine._engine.generate(tokens_input(prompt), params, "delta-final"):
        final = out
    assert final is not None
    assert text_of(outputs) == final.outputs[0].text
    assert text_of(outputs).strip()


async def test_a_slow_consumer_gets_merged_deltas(engine, prompt):
    # vLLM merges the deltas a consumer has not taken yet into one item: nothing is lost and
    # the token counts stay right.
    fast = await collect(engine, prompt, options(n=2, max_tokens=32, seed=9), "fast")
    slow = []
    async for output in engine.generate(prompt, options(n=2, max_tokens=32, seed=9), "slow"):
        slow.append(output)
        await asyncio.sleep(0.05)
    assert len(slow) < len(fast)
    for index in (0, 1):
        assert text_of(slow, index) == text_of(fast, index)
        assert choice_steps(slow, index)[-1].completion_tokens == 32
        assert choice_steps(slow, index)[-1].finish_reason == "length"


async def test_n_choices_stream_separately(engine, prompt):
    outputs = await collect(engine, prompt, options(n=2, max_tokens=16), "n2")
    for index in (0, 1):
        steps = choice_steps(outputs, index)
        assert steps[-1].completion_tokens == 16
        assert steps[-1].finish_reason == "length"
        assert [s.finish_reason for s in steps[:-1]] == [None] * (len(steps) - 1)
    assert text_of(outputs, 0) != text_of(outputs, 1)  # seeds differ per choice
    assert outputs[-1].finished and not any(o.finished for o in outputs[:-1])


async def test_stop_string_ends_the_text_before_it(engine, prompt):
    full = text_of(await collect(engine, prompt, options(max_tokens=48, seed=11), "stop-full"))
    # A stop string taken from the middle of the unconstrained text.
    stop = next(full[i : i + 2] for i in range(8, len(full) - 2) if full[i : i + 2].strip())
    cut = full.index(stop)
    outputs = await collect(
        engine, prompt, options(max_tokens=48, seed=11, stop=(stop,)), "stop-cut"
    )
    assert text_of(outputs) == full[:cut]
    assert choice_steps(outputs, 0)[-1].finish_reason == "stop"


async def test_stop_strings_with_two_choices(engine, prompt):
    outputs = await collect(engine, prompt, options(n=2, max_tokens=48, seed=3), "stop-n2")
    stop = text_of(outputs, 1)[5:7]
    cut = await collect(engine, prompt, options(n=2, max_tokens=48, seed=3, stop=(stop,)), "s")
    assert text_of(cut, 1) == text_of(outputs, 1)[: text_of(outputs, 1).index(stop)]
    assert choice_steps(cut, 1)[-1].finish_reason == "stop"


async def test_eos_ends_with_stop_when_not_ignored(engine, prompt):
    # Random weights rarely sample EOS, so a bounded run usually ends on length; either way
    # the reason is one of ours.
    outputs = await collect(engine, prompt, options(max_tokens=8, ignore_eos=False), "eos")
    assert choice_steps(outputs, 0)[-1].finish_reason in ("stop", "length")


async def test_seeded_sampling_is_reproducible(engine, prompt):
    first = text_of(await collect(engine, prompt, options(seed=42), "seed-a"))
    again = text_of(await collect(engine, prompt, options(seed=42), "seed-b"))
    other = text_of(await collect(engine, prompt, options(seed=43), "seed-c"))
    assert first == again
    assert first != other


async def test_sampling_options_reach_the_engine(engine, prompt):
    outputs = await collect(
        engine,
        prompt,
        SamplingOptions(
            max_tokens=6,
            min_tokens=6,
            top_k=5,
            top_p=0.9,
            min_p=0.01,
            repetition_penalty=1.1,
            presence_penalty=0.5,
            frequency_penalty=0.5,
            temperature=0.8,
            seed=5,
        ),
        "options",
    )
    assert choice_steps(outputs, 0)[-1].completion_tokens == 6
    greedy = [
        text_of(await collect(engine, prompt, options(temperature=0.0, seed=None), f"g{i}"))
        for i in range(2)
    ]
    assert greedy[0] == greedy[1]


async def test_closing_the_stream_aborts_the_request(engine, prompt):
    stream = engine.generate(prompt, options(max_tokens=400), "closed-early")
    seen = 0
    async for _ in stream:
        seen += 1
        if seen == 3:
            break
    await stream.aclose()
    assert engine._engine.get_num_unfinished_requests() == 0


async def test_cancelling_the_consumer_aborts_the_request(engine, prompt):
    started = asyncio.Event()

    async def consume():
        async for _ in engine.generate(prompt, options(max_tokens=400), "cancelled"):
            started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert engine._engine.get_num_unfinished_requests() == 0


async def test_abort_ends_the_stream_with_abort(engine, prompt):
    outputs = []
    async for output in engine.generate(prompt, options(max_tokens=400), "aborted"):
        outputs.append(output)
        if len(outputs) == 2:
            await engine.abort("aborted")
    assert outputs[-1].finished
    assert choice_steps(outputs, 0)[-1].finish_reason == "abort"
    assert choice_steps(outputs, 0)[-1].completion_tokens < 400
    assert engine._engine.get_num_unfinished_requests() == 0


async def test_too_long_prompt_is_refused_before_the_engine(engine):
    with pytest.raises(PromptTooLongError) as caught:
        await collect(engine, [5] * 512, options(max_tokens=1), "too-long")
    assert caught.value.prompt_tokens == 512
    assert caught.value.limit == 511
    # The longest prompt that leaves room for one token is accepted.
    outputs = await collect(engine, [5] * 511, options(max_tokens=4), "longest")
    assert choice_steps(outputs, 0)[-1].finish_reason == "length"


async def test_vllm_metrics_are_registered(engine, prompt):
    await collect(engine, prompt, options(max_tokens=4), "metrics")
    exposition = prometheus_client.generate_latest().decode()
    for name in (
        "vllm:time_to_first_token_seconds_count",
        "vllm:inter_token_latency_seconds_count",
        "vllm:request_time_per_output_token_seconds_count",
        "vllm:e2e_request_latency_seconds_count",
        "vllm:kv_cache_usage_perc",
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:generation_tokens_total",
        "vllm:prompt_tokens_total",
    ):
        assert f'{name}{{engine="0",model_name="tiny"' in exposition, name
    assert (
        'vllm:request_success_total{engine="0",finished_reason="length",model_name="tiny"}'
        in exposition
    )


async def test_vllm_logs_reach_the_root_logger(engine):
    # VLLM_CONFIGURE_LOGGING=0: vLLM installs no handler of its own, so our logging
    # pipeline (handlers on the root logger) formats its records.
    vllm_logger = logging.getLogger("vllm")
    assert vllm_logger.handlers == []
    assert vllm_logger.propagate


async def test_engine_death_is_reported_as_engine_dead(own_engine, prompt):
    """Slow: it starts an engine of its own (20-80 s), since it kills it."""
    engine, core_pid = own_engine
    core = psutil.Process(core_pid)
    stream = engine.generate(prompt, options(max_tokens=400), "dies")
    await anext(stream)
    core.kill()
    with pytest.raises(EngineDeadError):
        async for _ in stream:
            pass
    assert not engine.is_alive
    with pytest.raises(EngineDeadError):
        await engine.check_health()
    with pytest.raises(EngineDeadError):
        await collect(engine, prompt, options(max_tokens=4), "after-death")

"""The legacy completions service driven directly over the engine double, no HTTP: OpenAI's four
spellings of a prompt, what it refuses and when, the options and admission weight it asks for,
echo and log probabilities in the legacy shape, and its streams."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from translate_server.errors import EngineFailedError, InvalidRequestError, OverloadedError
from translate_server.inference.engine import EngineRejectedError
from translate_server.openai_api.completions.protocol import (
    DEFAULT_MAX_TOKENS,
    CompletionRequest,
    TextCompletionChunk,
)
from translate_server.openai_api.completions.service import MAX_PROMPTS, CompletionService

from tests.support.fakes import FakeEngine
from tests.support.harness import eventually
from tests.support.service_builder import (
    ServiceBuilder,
    StaticAdapters,
    deadline,
    read_into,
    record,
    wire,
)


def completion_request(**fields: Any) -> CompletionRequest:
    return wire(CompletionRequest, {"prompt": "Say hi", **fields})


async def complete(service: CompletionService, **fields: Any) -> Any:
    return await service.complete(completion_request(**fields), record(), deadline())


async def every_chunk(service: CompletionService, **fields: Any) -> list[TextCompletionChunk]:
    chunks = await service.open_stream(
        completion_request(stream=True, **fields), record(), deadline()
    )
    return [chunk async for chunk in chunks]


def options_of(built: ServiceBuilder, index: int = -1) -> Any:
    return built.engine.requests[index][2]


async def test_a_text_prompt_is_continued_with_openai_s_default_length() -> None:
    built = ServiceBuilder()
    seen = record()
    answer = await built.completions().complete(completion_request(), seen, deadline())
    assert [c.text for c in answer.choices] == ["echo: Say hi"]
    assert answer.choices[0].finish_reason == "stop" and answer.choices[0].logprobs is None
    assert answer.id.startswith("cmpl-") and answer.model == "fake-model"
    # Tokenized as text: "Say", " ", "hi"; answered "echo:", " Say", " hi".
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (3, 3)
    assert options_of(built).max_tokens == DEFAULT_MAX_TOKENS
    assert (seen.model, seen.finish_reason) == ("fake-model", "stop")
    assert built.admission.in_flight == 0


async def test_token_ids_are_the_prompt_as_they_are() -> None:
    built = ServiceBuilder()
    ids = built.engine.tokenize_text("Say hi")
    answer = await complete(built.completions(), prompt=ids)
    assert built.engine.requests[0][1] == ids
    assert answer.choices[0].text == "echo: Say hi"


async def test_a_token_id_the_engine_does_not_know_is_its_refusal_and_the_ticket_given_back() -> (
    None
):
    built = ServiceBuilder()
    with pytest.raises(EngineRejectedError):
        await complete(built.completions(), prompt=[99])
    assert built.admission.in_flight == 0


async def test_a_batch_of_prompts_with_n_choices_each_is_numbered_prompt_by_prompt() -> None:
    built = ServiceBuilder()
    answer = await complete(built.completions(), prompt=["a b", "c d"], n=2)
    assert [(c.index, c.text) for c in answer.choices] == [
        (0, "echo: a b #0"),
        (1, "echo: a b #1"),
        (2, "echo: c d #0"),
        (3, "echo: c d #1"),
    ]
    assert len(built.engine.requests) == 2  # one engine request per prompt, n choices each
    assert answer.usage.prompt_tokens == 2 * 3 and answer.usage.completion_tokens == 4 * 4
    ids = [built.engine.tokenize_text(text) for text in ("a b", "c d")]
    batch = await complete(built.completions(), prompt=ids)
    assert [c.text for c in batch.choices] == ["echo: a b", "echo: c d"]


async def test_a_batch_is_admitted_as_all_its_sequences() -> None:
    built = ServiceBuilder(slots=2, queue_limit=2)
    held = built.admission.admit(2)
    with pytest.raises(OverloadedError):
        await complete(built.completions(), prompt=["a", "b", "c"])
    with pytest.raises(OverloadedError):
        await complete(built.completions(), prompt=["a", "b"], n=2)
    assert built.engine.requests == []
    await complete(built.completions(), prompt=["a", "b"])
    assert built.admission.in_flight == 2  # the held ones only
    held.release()


async def test_echo_puts_the_prompt_before_each_choice() -> None:
    answer = await complete(ServiceBuilder().completions(), prompt="Say hi", echo=True, n=2)
    assert [c.text for c in answer.choices] == ["Say hiecho: Say hi #0", "Say hiecho: Say hi #1"]


async def test_logprobs_in_the_legacy_shape_with_offsets_into_the_text() -> None:
    built = ServiceBuilder()
    answer = await complete(built.completions(), logprobs=2)
    assert options_of(built).logprobs == 2
    logprobs = answer.choices[0].logprobs
    assert logprobs.tokens == ["echo:", " Say", " hi"]
    assert logprobs.token_logprobs == [-0.25] * 3
    assert logprobs.text_offset == [0, 5, 9]
    assert logprobs.top_logprobs[0] == {"echo:": -0.25, "alt1": -1.25}


async def test_max_tokens_follows_the_context_and_the_server_s_cap() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=10))
    await complete(built.completions())
    assert options_of(built).max_tokens == 10 - 3  # less than the default 16 is left
    roomy = ServiceBuilder(FakeEngine(max_model_len=64))
    await complete(roomy.completions(), max_tokens=None)
    assert options_of(roomy).max_tokens == 64 - 3
    await complete(roomy.completions(), max_tokens=5, stop=["hi"], seed=3)
    asked = options_of(roomy)
    assert (asked.max_tokens, asked.stop, asked.seed) == (5, ("hi",), 3)


async def test_a_prompt_that_fills_the_context_is_refused_after_admission_and_released() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=3))
    with pytest.raises(InvalidRequestError) as refused:
        await complete(built.completions())
    assert (refused.value.param, refused.value.code) == ("prompt", "context_length_exceeded")
    with pytest.raises(InvalidRequestError) as empty:
        await complete(built.completions(), prompt="")
    assert (empty.value.param, empty.value.message) == ("prompt", "The prompt is empty.")
    assert built.engine.requests == [] and built.admission.in_flight == 0


REFUSED = [
    ({"suffix": "!"}, "suffix"),
    ({"best_of": 2}, "best_of"),
    ({"echo": True, "logprobs": 1}, "echo"),
    ({"echo": True, "prompt": [0, 1]}, "echo"),
    ({"prompt": []}, "prompt"),
    ({"prompt": [1, "two"]}, "prompt"),
    ({"prompt": [True]}, "prompt"),
    ({"prompt": [-1]}, "prompt"),
    ({"prompt": ["a"] * (MAX_PROMPTS + 1)}, "prompt"),
    ({"prompt": [[1], [2, "x"]]}, "prompt"),
    ({"logit_bias": {"x": 1.0}}, "logit_bias"),
]


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize(("fields", "param"), REFUSED)
async def test_a_mistake_is_refused_before_admission_and_tokenizing(
    fields: dict[str, Any], param: str, streamed: bool
) -> None:
    built = ServiceBuilder()
    built.fill_admission()  # a mistake is a 400 even when the server is full, never a 503
    with pytest.raises(InvalidRequestError) as refused:
        await (every_chunk if streamed else complete)(built.completions(), **fields)
    assert refused.value.param == param
    assert built.engine.vocab == {} and built.engine.requests == []


async def test_best_of_equal_to_n_is_no_mistake() -> None:
    answer = await complete(ServiceBuilder().completions(), best_of=2, n=2)
    assert len(answer.choices) == 2


async def test_an_adapter_named_as_model_generates_and_names_the_answer() -> None:
    adapters = StaticAdapters({"legal-de": (("en", "de"),)})
    built = ServiceBuilder(adapters=adapters)
    answer = await complete(built.completions(), model="legal-de")
    assert options_of(built).adapter == adapters.loaded("legal-de")
    assert answer.model == "legal-de"
    chunks = await every_chunk(built.completions(), model="legal-de")
    assert {chunk.model for chunk in chunks} == {"legal-de"}


# -- streams -------------------------------------------------------------------------------


async def test_a_stream_is_the_answer_in_chunks_of_one_completion() -> None:
    built = ServiceBuilder()
    seen = record()
    stream = await built.completions().open_stream(
        completion_request(stream=True, stream_options={"include_usage": True}), seen, deadline()
    )
    chunks = [chunk async for chunk in stream]
    *texts, usage = chunks
    assert "".join(c.choices[0].text for c in texts) == "echo: Say hi"
    assert [c.choices[0].finish_reason for c in texts] == [None, None, "stop"]
    assert len({c.id for c in chunks}) == 1 and chunks[0].id.startswith("cmpl-")
    assert usage.choices == [] and (usage.usage.prompt_tokens, usage.usage.completion_tokens) == (
        3,
        3,
    )
    assert seen.finish_reason == "stop" and built.admission.in_flight == 0


async def test_a_stream_echoes_the_prompt_first_for_each_choice() -> None:
    chunks = await every_chunk(ServiceBuilder().completions(), echo=True, n=2)
    assert [(c.choices[0].index, c.choices[0].text) for c in chunks[:2]] == [
        (0, "Say hi"),
        (1, "Say hi"),
    ]
    for index in (0, 1):
        text = "".join(c.choices[0].text for c in chunks if c.choices[0].index == index)
        assert text == f"Say hiecho: Say hi #{index}"
    assert all(chunk.usage is None for chunk in chunks)


async def test_streamed_logprobs_continue_their_offsets_from_chunk_to_chunk() -> None:
    chunks = await every_chunk(ServiceBuilder().completions(), logprobs=0)
    assert [c.choices[0].logprobs.text_offset for c in chunks] == [[0], [5], [9]]
    assert [c.choices[0].logprobs.tokens for c in chunks] == [["echo:"], [" Say"], [" hi"]]


async def test_a_stream_takes_one_prompt() -> None:
    built = ServiceBuilder()
    with pytest.raises(InvalidRequestError) as refused:
        await every_chunk(built.completions(), prompt=["a", "b"])
    assert refused.value.param == "prompt" and built.admission.in_flight == 0


async def test_the_ticket_is_given_back_when_the_client_leaves_early() -> None:
    built = ServiceBuilder(FakeEngine(token_delay=0.01))
    chunks = await built.completions().open_stream(
        completion_request(stream=True, max_tokens=200, ignore_eos=True), record(), deadline()
    )
    await anext(chunks)
    assert built.admission.in_flight == 1
    await chunks.aclose()
    assert built.admission.in_flight == 0 and built.engine.unfinished == set()


async def test_a_stream_closed_before_its_first_chunk_gives_its_ticket_back() -> None:
    built = ServiceBuilder(FakeEngine(token_delay=0.01))
    chunks = await built.completions().open_stream(
        completion_request(stream=True, max_tokens=200, ignore_eos=True), record(), deadline()
    )
    assert built.admission.in_flight == 1
    await chunks.aclose()
    assert built.admission.in_flight == 0 and built.engine.unfinished == set()


async def test_a_failure_mid_stream_is_raised_from_the_chunks_and_the_ticket_given_back() -> None:
    engine = FakeEngine()
    engine.fail_after_tokens = 1
    built = ServiceBuilder(engine)
    chunks = await built.completions().open_stream(
        completion_request(stream=True), record(), deadline()
    )
    received: list[TextCompletionChunk] = []
    with pytest.raises(EngineFailedError):
        await read_into(chunks, received)
    assert [chunk.choices[0].text for chunk in received] == ["echo:"]
    assert built.admission.in_flight == 0


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_request_cancelled_while_the_engine_works_gives_its_ticket_back(
    streamed: bool,
) -> None:
    engine = FakeEngine()
    engine.hang = True
    built = ServiceBuilder(engine)
    service = built.completions()
    waiting = asyncio.create_task(
        service.open_stream(completion_request(stream=True), record(), deadline())
        if streamed
        else complete(service, prompt=["a", "b"])
    )
    await eventually(lambda: len(engine.unfinished) == (1 if streamed else 2))
    assert built.admission.in_flight == (1 if streamed else 2)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert built.admission.in_flight == 0
    assert engine.unfinished == set()

"""The chat service driven directly over the engine double, no HTTP: what it refuses before
admission, the engine options it builds, the chunks of its streams, and its admission ticket
given back on every path."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from translate_server.errors import (
    ApiError,
    DeadlineExceededError,
    EngineFailedError,
    InvalidRequestError,
    ModelNotFoundError,
    OverloadedError,
)
from translate_server.inference.engine import EngineDeadError, GenerationStep, StructuredOutput
from translate_server.openai_api.chat.protocol import ChatCompletionChunk, ChatCompletionRequest
from translate_server.openai_api.chat.service import ChatService
from translate_server.settings import LimitSettings

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

HELLO = [{"role": "user", "content": "Hello there"}]


def chat_request(**fields: Any) -> ChatCompletionRequest:
    return wire(ChatCompletionRequest, {"messages": HELLO, **fields})


def prompt_tokens(messages: list[dict[str, str]]) -> int:
    return len(FakeEngine().tokenize_chat(messages))  # type: ignore[arg-type]


async def complete(chat: ChatService, **fields: Any) -> Any:
    return await chat.complete(chat_request(**fields), record(), deadline())


async def every_chunk(chat: ChatService, **fields: Any) -> list[Any]:
    stream = await chat.open_stream(chat_request(stream=True, **fields), record(), deadline())
    return [chunk async for chunk in stream.chunks]


# -- answers -------------------------------------------------------------------------------


async def test_a_completion_is_the_engine_s_answer_with_its_usage() -> None:
    built = ServiceBuilder()
    seen = record()
    completion = await built.chat().complete(chat_request(), seen, deadline())
    assert completion.choices[0].message.content == "echo: Hello there"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "fake-model"
    assert completion.id.startswith("chatcmpl-") and completion.system_fingerprint.startswith("fp_")
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (
        prompt_tokens(HELLO),
        3,  # "echo:", " Hello", " there"
    )
    assert (seen.model, seen.finish_reason, seen.prompt_tokens) == (
        "fake-model",
        "stop",
        prompt_tokens(HELLO),
    )
    assert built.admission.in_flight == 0


async def test_usage_counts_the_prompt_tokens_the_engine_found_cached() -> None:
    built = ServiceBuilder()
    first = await complete(built.chat())
    again = await complete(built.chat())
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    assert again.usage.prompt_tokens_details.cached_tokens == prompt_tokens(HELLO)
    assert again.usage.total_tokens == prompt_tokens(HELLO) + 3


async def test_n_choices_are_one_engine_request_admitted_as_n() -> None:
    built = ServiceBuilder(slots=2, queue_limit=1)
    held = built.admission.admit(1)
    with pytest.raises(OverloadedError):  # 3 asked, 2 places left
        await complete(built.chat(), n=3)
    held.release()
    completion = await complete(built.chat(), n=3)
    assert [c.message.content for c in completion.choices] == [
        f"echo: Hello there #{i}" for i in range(3)
    ]
    assert len(built.engine.requests) == 1 and built.engine.requests[0][2].n == 3
    assert completion.usage.completion_tokens == 3 * 4
    assert built.admission.in_flight == 0


async def test_developer_messages_and_text_parts_make_the_prompt() -> None:
    built = ServiceBuilder()
    await complete(
        built.chat(),
        messages=[
            {"role": "developer", "content": "Be brief."},
            {"role": "assistant", "content": None},
            {
                "role": "user",
                "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
            },
        ],
    )
    prompt = built.engine.decode(built.engine.requests[0][1])
    assert "<|im_start|>system\nBe brief.<|im_end|>" in prompt
    assert "<|im_start|>assistant\n<|im_end|>" in prompt
    assert "<|im_start|>user\none\ntwo<|im_end|>" in prompt


# -- refusals, before admission and before the prompt is tokenized -------------------------

REFUSED = [
    ({"tools": [{"type": "function"}]}, "tools", "tools_not_supported"),
    ({"functions": [{"name": "f"}]}, "functions", "tools_not_supported"),
    ({"tool_choice": "auto"}, "tool_choice", "tools_not_supported"),
    ({"function_call": "auto"}, "function_call", "tools_not_supported"),
    (
        {"messages": [*HELLO, {"role": "tool", "content": "42"}]},
        "messages[1].role",
        "tools_not_supported",
    ),
    (
        {"messages": [{"role": "assistant", "tool_calls": [{"id": "1"}]}, *HELLO]},
        "messages[0].tool_calls",
        "tools_not_supported",
    ),
    ({"audio": {"voice": "alloy"}}, "audio", None),
    ({"modalities": ["text", "audio"]}, "modalities", None),
    ({"top_logprobs": 2}, "top_logprobs", None),
    ({"logit_bias": {"hello": 1.0}}, "logit_bias", None),
    ({"logit_bias": {"-3": 1.0}}, "logit_bias", None),
    (
        {"response_format": {"type": "json_schema", "json_schema": {"name": "x"}}},
        "response_format.json_schema",
        None,
    ),
    ({"messages": [{"role": "user", "content": None}]}, "messages[0].content", None),
    (
        {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
        "messages[0].content[0]",
        None,
    ),
]


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize(("fields", "param", "code"), REFUSED)
async def test_a_mistake_is_refused_before_admission_and_tokenizing(
    fields: dict[str, Any], param: str, code: str | None, streamed: bool
) -> None:
    built = ServiceBuilder()
    built.fill_admission()  # a mistake is a 400 even when the server is full, never a 503
    with pytest.raises(InvalidRequestError) as refused:
        await (every_chunk if streamed else complete)(built.chat(), **fields)
    assert refused.value.param == param
    if code is not None:
        assert refused.value.code == code
    assert built.engine.vocab == {}  # nothing was tokenized
    assert built.engine.requests == []


async def test_tool_choice_none_is_plain_chat() -> None:
    built = ServiceBuilder()
    completion = await complete(built.chat(), tool_choice="none", tools=[])
    assert completion.choices[0].message.content == "echo: Hello there"


async def test_more_messages_than_the_limit_are_refused() -> None:
    built = ServiceBuilder(limits=LimitSettings(max_messages=2))
    with pytest.raises(InvalidRequestError) as refused:
        await complete(built.chat(), messages=HELLO * 3)
    assert refused.value.param == "messages"
    assert built.engine.requests == []


async def test_a_base_model_without_a_chat_template_serves_no_chat() -> None:
    built = ServiceBuilder(FakeEngine(chat_template=False))
    for attempt in (complete(built.chat()), every_chunk(built.chat())):
        with pytest.raises(InvalidRequestError) as refused:
            await attempt
        assert (refused.value.param, refused.value.code) == ("model", "chat_not_supported")
    assert built.engine.vocab == {} and built.admission.in_flight == 0


async def test_an_unknown_model_is_a_404_naming_what_is_served() -> None:
    built = ServiceBuilder(adapters=StaticAdapters({"legal-de": (("en", "de"),)}))
    with pytest.raises(ModelNotFoundError) as missing:
        await complete(built.chat(), model="gpt-4o")
    assert missing.value.status_code == 404
    assert "fake-model" in missing.value.message and "legal-de" in missing.value.message
    assert built.engine.vocab == {}


async def test_a_full_server_refuses_at_once_before_tokenizing() -> None:
    built = ServiceBuilder(slots=1, queue_limit=0)
    built.fill_admission()
    with pytest.raises(OverloadedError) as refused:
        await complete(built.chat())
    assert refused.value.status_code == 503 and "Retry-After" in refused.value.headers
    assert built.engine.vocab == {}


# -- the engine options it builds ----------------------------------------------------------


def options_of(built: ServiceBuilder, index: int = -1) -> Any:
    return built.engine.requests[index][2]


async def test_max_tokens_is_what_the_context_leaves_unless_less_is_asked() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=64))
    left = 64 - prompt_tokens(HELLO)
    await complete(built.chat())
    assert options_of(built).max_tokens == left
    await complete(built.chat(), max_tokens=5)
    assert options_of(built).max_tokens == 5
    await complete(built.chat(), max_tokens=5, max_completion_tokens=7)
    assert options_of(built).max_tokens == 7  # the newer field wins
    # More than the context leaves: shortened, answered, not refused (as vLLM's server does).
    await complete(built.chat(), max_completion_tokens=10_000)
    assert options_of(built).max_tokens == left


async def test_max_tokens_is_capped_by_the_server_s_limit() -> None:
    built = ServiceBuilder(limits=LimitSettings(max_tokens=20))
    await complete(built.chat())
    assert options_of(built).max_tokens == 20
    await complete(built.chat(), max_tokens=500, min_tokens=100)
    assert (options_of(built).max_tokens, options_of(built).min_tokens) == (20, 20)


async def test_a_prompt_that_fills_the_context_is_refused_and_its_ticket_given_back() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=prompt_tokens(HELLO)))
    with pytest.raises(InvalidRequestError) as refused:
        await complete(built.chat())
    assert (refused.value.param, refused.value.code) == ("messages", "context_length_exceeded")
    assert built.engine.requests == []
    assert built.admission.in_flight == 0


async def test_sampling_fields_become_the_engine_s_options() -> None:
    built = ServiceBuilder()
    await complete(built.chat())
    plain = options_of(built)
    assert (plain.temperature, plain.top_p, plain.top_k, plain.stop, plain.seed) == (
        1.0,
        1.0,
        0,
        (),
        None,
    )
    assert (plain.logprobs, plain.structured, plain.adapter, plain.logit_bias) == (
        None,
        None,
        None,
        (),
    )
    await complete(
        built.chat(),
        temperature=0.2,
        top_p=0.9,
        top_k=-1,
        min_p=0.1,
        seed=7,
        stop="\n\n",
        repetition_penalty=1.1,
        presence_penalty=0.5,
        ignore_eos=True,
        logit_bias={"5": 2.5},
        max_tokens=4,
    )
    asked = options_of(built)
    assert (asked.temperature, asked.top_p, asked.top_k, asked.min_p, asked.seed) == (
        0.2,
        0.9,
        0,  # vLLM's -1, "every token", is the engine's 0
        0.1,
        7,
    )
    assert (asked.stop, asked.repetition_penalty, asked.presence_penalty) == (("\n\n",), 1.1, 0.5)
    assert (asked.ignore_eos, asked.logit_bias) == (True, ((5, 2.5),))
    await complete(built.chat(), stop=["END", "", "STOP"])
    assert options_of(built).stop == ("END", "STOP")  # an empty stop string stops nothing


async def test_a_stop_string_ends_the_answer_before_it() -> None:
    completion = await complete(ServiceBuilder().chat(), stop=" there")
    assert completion.choices[0].message.content == "echo: Hello"


async def test_logprobs_ask_the_engine_for_alternatives_and_come_back_in_openai_s_shape() -> None:
    built = ServiceBuilder()
    completion = await complete(built.chat(), logprobs=True, top_logprobs=2)
    assert options_of(built).logprobs == 2
    content = completion.choices[0].logprobs.content
    assert [t.token for t in content] == ["echo:", " Hello", " there"]
    assert [alt.token for alt in content[0].top_logprobs] == ["echo:", "alt1"]
    assert content[0].bytes == list(b"echo:")
    await complete(built.chat(), logprobs=True)
    assert options_of(built).logprobs == 0  # the chosen token's own, no alternatives
    plain = await complete(built.chat())
    assert plain.choices[0].logprobs is None


async def test_response_formats_become_structured_output() -> None:
    built = ServiceBuilder()
    await complete(built.chat(), response_format={"type": "text"})
    assert options_of(built).structured is None
    await complete(built.chat(), response_format={"type": "json_object"})
    assert options_of(built).structured == StructuredOutput()
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    await complete(
        built.chat(),
        response_format={"type": "json_schema", "json_schema": {"name": "place", "schema": schema}},
    )
    assert json.loads(options_of(built).structured.json_schema) == schema


async def test_an_adapter_named_as_model_generates_and_names_the_answer() -> None:
    adapters = StaticAdapters({"legal-de": (("en", "de"),)})
    built = ServiceBuilder(adapters=adapters)
    seen = record()
    completion = await built.chat().complete(chat_request(model="legal-de"), seen, deadline())
    assert options_of(built).adapter == adapters.loaded("legal-de")
    assert completion.model == seen.model == "legal-de"
    base = await complete(built.chat(), model="fake-model")
    assert options_of(built).adapter is None and base.model == "fake-model"
    stream = await built.chat().open_stream(chat_request(model="legal-de"), record(), deadline())
    assert stream.head.model == "legal-de"
    await stream.chunks.aclose()


# -- streams -------------------------------------------------------------------------------


def text_of(chunks: list[Any], index: int = 0) -> str:
    """What a client reads of choice `index`: every chunk's delta, in order."""
    texts = []
    for chunk in chunks:
        if isinstance(chunk, GenerationStep):
            texts += [chunk.text] if chunk.index == index else []
        else:
            texts += [c.delta.content or "" for c in chunk.choices if c.index == index]
    return "".join(texts)


async def test_a_stream_opens_with_the_role_then_steps_of_text_then_the_finish() -> None:
    built = ServiceBuilder()
    stream = await built.chat().open_stream(chat_request(stream=True), record(), deadline())
    chunks = [chunk async for chunk in stream.chunks]
    opening, *texts, last = chunks
    assert isinstance(opening, ChatCompletionChunk)
    assert (opening.choices[0].delta.role, opening.choices[0].delta.content) == ("assistant", "")
    # Only new text: the engine's steps as they are (the route writes them around the text).
    assert all(isinstance(step, GenerationStep) for step in texts)
    assert isinstance(last, ChatCompletionChunk) and last.choices[0].finish_reason == "stop"
    assert text_of(chunks) == "echo: Hello there"
    assert stream.head.id.startswith("chatcmpl-") and stream.head.model == "fake-model"
    assert {opening.id, last.id} == {stream.head.id}
    assert built.engine.requests[0][2].final_only is False
    assert built.admission.in_flight == 0


async def test_a_stream_of_n_choices_opens_each_and_keeps_them_apart() -> None:
    chunks = await every_chunk(ServiceBuilder().chat(), n=2)
    assert [c.choices[0].index for c in chunks[:2]] == [0, 1]
    assert all(c.choices[0].delta.role == "assistant" for c in chunks[:2])
    assert [text_of(chunks, i) for i in (0, 1)] == ["echo: Hello there #0", "echo: Hello there #1"]
    finishes = [
        c.choices[0].index
        for c in chunks
        if isinstance(c, ChatCompletionChunk) and c.choices and c.choices[0].finish_reason
    ]
    assert sorted(finishes) == [0, 1]


async def test_a_stream_with_logprobs_sends_whole_chunks_each_with_its_token() -> None:
    chunks = await every_chunk(ServiceBuilder().chat(), logprobs=True, top_logprobs=1)
    assert all(isinstance(chunk, ChatCompletionChunk) for chunk in chunks)
    tokens = [t.token for c in chunks[1:] for t in c.choices[0].logprobs.content]
    assert tokens == ["echo:", " Hello", " there"]


async def test_usage_is_the_last_chunk_only_when_asked() -> None:
    plain = await every_chunk(ServiceBuilder().chat())
    assert all(chunk.usage is None for chunk in plain if isinstance(chunk, ChatCompletionChunk))
    built = ServiceBuilder()
    seen = record()
    stream = await built.chat().open_stream(
        chat_request(stream=True, n=2, stream_options={"include_usage": True}), seen, deadline()
    )
    chunks = [chunk async for chunk in stream.chunks]
    usage = chunks[-1]
    assert usage.choices == []
    assert (usage.usage.prompt_tokens, usage.usage.completion_tokens) == (
        prompt_tokens(HELLO),
        2 * 4,  # both choices
    )
    assert seen.finish_reason == "stop"


async def test_the_ticket_is_given_back_when_the_client_leaves_early() -> None:
    built = ServiceBuilder(FakeEngine(token_delay=0.01))
    stream = await built.chat().open_stream(
        chat_request(stream=True, max_tokens=200, ignore_eos=True), record(), deadline()
    )
    assert built.admission.in_flight == 1
    await anext(stream.chunks)
    await anext(stream.chunks)
    await stream.chunks.aclose()
    assert built.admission.in_flight == 0
    assert built.engine.unfinished == set()  # the engine request ended with the stream


async def test_a_stream_closed_before_its_first_chunk_gives_its_ticket_back() -> None:
    # A client gone between the handler's return and the first byte: the chunks are closed
    # unread, and an async generator closed before it starts runs no `finally` of its own.
    built = ServiceBuilder(FakeEngine(token_delay=0.01))
    stream = await built.chat().open_stream(
        chat_request(stream=True, max_tokens=200, ignore_eos=True), record(), deadline()
    )
    assert built.admission.in_flight == 1
    await stream.chunks.aclose()
    assert built.admission.in_flight == 0
    assert built.engine.unfinished == set()


async def test_a_failure_mid_stream_is_raised_from_the_chunks_and_the_ticket_given_back() -> None:
    engine = FakeEngine()
    engine.fail_after_tokens = 2
    built = ServiceBuilder(engine)
    stream = await built.chat().open_stream(chat_request(stream=True), record(), deadline())
    received: list[Any] = []
    with pytest.raises(EngineFailedError):
        await read_into(stream.chunks, received)
    assert text_of(received) == "echo: Hello"  # what came before the failure
    assert built.admission.in_flight == 0


async def test_a_dead_engine_fails_the_stream_before_it_opens() -> None:
    engine = FakeEngine()
    engine.alive = False
    built = ServiceBuilder(engine)
    with pytest.raises(EngineDeadError):
        await built.chat().open_stream(chat_request(stream=True), record(), deadline())
    assert built.admission.in_flight == 0


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_request_cancelled_while_the_engine_works_gives_its_ticket_back(
    streamed: bool,
) -> None:
    engine = FakeEngine()
    engine.hang = True
    built = ServiceBuilder(engine)
    chat = built.chat()
    waiting = asyncio.create_task(
        chat.open_stream(chat_request(stream=True), record(), deadline())
        if streamed
        else complete(chat)
    )
    await eventually(lambda: engine.unfinished)
    assert built.admission.in_flight == 1
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert built.admission.in_flight == 0
    assert engine.unfinished == set()


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_deadline_passed_aborts_and_gives_the_ticket_back(streamed: bool) -> None:
    engine = FakeEngine()
    engine.hang = True
    built = ServiceBuilder(engine)
    request = chat_request(stream=streamed)
    chat = built.chat()
    soon = deadline(0.05)
    attempt = (
        chat.open_stream(request, record(), soon)
        if streamed
        else chat.complete(request, record(), soon)
    )
    with pytest.raises(DeadlineExceededError) as late:
        await attempt
    assert isinstance(late.value, ApiError) and late.value.status_code == 504
    assert built.admission.in_flight == 0
    assert engine.unfinished == set()

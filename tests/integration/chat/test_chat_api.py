from __future__ import annotations

import asyncio
import json
import threading

import openai
import pytest

from translate_server.inference.generation import THREAD_PROMPT_CHARS

from tests.support.fakes import FakeEngine, TokenizerWatchingEngine
from tests.support.harness import AppClient, eventually, running

MESSAGES = [{"role": "user", "content": "hello there"}]


def sdk(client: AppClient) -> openai.AsyncOpenAI:
    """The official SDK, speaking to the app in-process."""
    return openai.AsyncOpenAI(
        base_url=f"{client.base_url}/v1", api_key="unused", http_client=client, max_retries=0
    )


async def test_non_streaming_completion_with_the_sdk(client: AppClient) -> None:
    completion = await sdk(client).chat.completions.create(model="fake-model", messages=MESSAGES)
    assert completion.object == "chat.completion"
    assert completion.id.startswith("chatcmpl-")
    assert completion.model == "fake-model"
    [choice] = completion.choices
    assert choice.index == 0
    assert choice.message.role == "assistant"
    assert choice.message.content == "echo: hello there"
    assert choice.finish_reason == "stop"
    assert completion.usage.completion_tokens == 3
    assert completion.usage.total_tokens == (
        completion.usage.prompt_tokens + completion.usage.completion_tokens
    )


async def test_streaming_with_usage(client: AppClient) -> None:
    stream = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "echo: hello there"
    finishing = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishing[-1] == "stop" and set(finishing[:-1]) == {None}
    assert chunks[-1].choices == []
    assert chunks[-1].usage.completion_tokens == 3
    assert all(c.id == chunks[0].id for c in chunks)


async def test_stream_wire_format_ends_with_done(client: AppClient) -> None:
    response = await client.post(
        "/v1/chat/completions", json={"messages": MESSAGES, "stream": True}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [e for e in response.text.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    # OpenAI's chunk shape: every chunk names its object type, id, creation time and model.
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({(c["id"], c["created"], c["model"]) for c in chunks}) == 1
    # Without include_usage no chunk carries usage.
    assert all("usage" not in c for c in chunks)


async def test_n_choices(client: AppClient) -> None:
    completion = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, n=2
    )
    assert [c.index for c in completion.choices] == [0, 1]
    assert completion.choices[0].message.content != completion.choices[1].message.content


async def test_only_a_stream_asks_the_engine_for_every_token(
    client: AppClient, engine: FakeEngine
) -> None:
    completion = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, n=2
    )
    assert engine.requests[-1][2].final_only and engine.final_outputs == 1
    assert [c.message.content for c in completion.choices] == [
        "echo: hello there #0",
        "echo: hello there #1",
    ]
    assert completion.usage.completion_tokens == 8
    stream = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, stream=True
    )
    assert len([chunk async for chunk in stream]) > 3
    assert not engine.requests[-1][2].final_only and engine.final_outputs == 1


async def test_streamed_n_choices_interleave_by_index(client: AppClient) -> None:
    stream = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, n=2, stream=True
    )
    texts = {0: "", 1: ""}
    async for chunk in stream:
        for choice in chunk.choices:
            texts[choice.index] += choice.delta.content or ""
    assert texts[0].endswith("#0") and texts[1].endswith("#1")


async def test_stop_and_length(client: AppClient, engine: FakeEngine) -> None:
    api = sdk(client)
    stopped = await api.chat.completions.create(
        model="fake-model", messages=MESSAGES, stop=["there"]
    )
    assert stopped.choices[0].message.content == "echo: hello "
    assert engine.requests[-1][2].stop == ("there",)
    cut = await api.chat.completions.create(model="fake-model", messages=MESSAGES, max_tokens=2)
    assert cut.choices[0].finish_reason == "length"
    assert cut.usage.completion_tokens == 2


async def test_sampling_fields_and_vllm_extensions_reach_the_engine(
    client: AppClient, engine: FakeEngine
) -> None:
    await sdk(client).chat.completions.create(
        model="fake-model",
        messages=MESSAGES,
        temperature=0.3,
        top_p=0.9,
        seed=7,
        presence_penalty=0.5,
        frequency_penalty=-0.5,
        max_completion_tokens=50,
        user="u1",
        extra_body={
            "top_k": 5,
            "min_p": 0.1,
            "repetition_penalty": 1.2,
            "min_tokens": 3,
            "ignore_eos": True,
            "some_future_field": {"x": 1},
        },
    )
    options = engine.requests[-1][2]
    assert (options.temperature, options.top_p, options.seed) == (0.3, 0.9, 7)
    assert (options.presence_penalty, options.frequency_penalty) == (0.5, -0.5)
    assert (options.top_k, options.min_p, options.repetition_penalty) == (5, 0.1, 1.2)
    assert (options.min_tokens, options.ignore_eos, options.max_tokens) == (3, True, 50)


async def test_content_parts_and_roles(client: AppClient, engine: FakeEngine) -> None:
    await sdk(client).chat.completions.create(
        model="fake-model",
        messages=[
            {"role": "developer", "content": "be brief"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "part one"},
                    {"type": "text", "text": "part two"},
                ],
            },
        ],
    )
    prompt = engine.decode(engine.requests[-1][1])
    assert "<|im_start|>system\nbe brief" in prompt
    assert "part one\npart two" in prompt


async def test_unknown_model_is_not_found(client: AppClient) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        await sdk(client).chat.completions.create(model="gpt-9", messages=MESSAGES)
    assert raised.value.code == "model_not_found"
    assert raised.value.body["param"] == "model"


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": []}, "messages"),
        ({}, "messages"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"content": "x"}]}, "messages[0].role"),
        ({"messages": MESSAGES, "temperature": 3}, "temperature"),
        ({"messages": MESSAGES, "n": 0}, "n"),
        ({"messages": MESSAGES, "max_tokens": -1}, "max_tokens"),
        ({"messages": MESSAGES, "top_p": "high"}, "top_p"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            "messages[0].content[0]",
        ),
        ({"messages": [{"role": "user", "content": None}]}, "messages[0].content"),
    ],
)
async def test_invalid_requests_name_the_param(
    client: AppClient, engine: FakeEngine, body: dict, param: str
) -> None:
    response = await client.post("/v1/chat/completions", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["param"] == param
    assert error["type"] == "invalid_request_error"
    assert error["code"] is None or isinstance(error["code"], str)
    assert engine.requests == []


async def test_prompt_plus_max_tokens_beyond_context(make_app) -> None:
    """As vLLM's server: what the context cannot hold is not refused, the completion gets
    what the context has left (and a finish_reason of "length" if it needs more)."""
    small = FakeEngine(max_model_len=40)
    async with running(make_app(small, max_tokens=20)) as client:
        for asked in ({"max_tokens": 39}, {"max_completion_tokens": 10**9}, {}):
            ok = await client.post("/v1/chat/completions", json={"messages": MESSAGES, **asked})
            assert ok.status_code == 200, ok.text
            prompt_tokens = ok.json()["usage"]["prompt_tokens"]
            assert small.requests[-1][2].max_tokens == min(20, 40 - prompt_tokens)
        within = await client.post(
            "/v1/chat/completions", json={"messages": MESSAGES, "max_tokens": 2}
        )
        assert small.requests[-1][2].max_tokens == 2
        assert within.json()["choices"][0]["finish_reason"] == "length"


async def test_models(client: AppClient) -> None:
    models = await sdk(client).models.list()
    assert [m.id for m in models.data] == ["fake-model"]
    assert models.data[0].object == "model"
    model = await sdk(client).models.retrieve("fake-model")
    assert model.id == "fake-model"
    with pytest.raises(openai.NotFoundError):
        await sdk(client).models.retrieve("other")


async def test_a_long_conversation_does_not_hold_up_the_streams_in_flight(make_app) -> None:
    engine = TokenizerWatchingEngine()
    long_text = ("many words " * THREAD_PROMPT_CHARS)[:THREAD_PROMPT_CHARS]
    async with running(make_app(engine)) as client:
        engine.hold = threading.Event()
        long_chat = asyncio.create_task(
            client.post(
                "/v1/chat/completions",
                json={"model": "fake-model", "messages": [{"role": "user", "content": long_text}]},
            )
        )
        await eventually(lambda: engine.threads, every=0.001)  # its prompt is being tokenized
        short = await client.post(
            "/v1/chat/completions",
            json={"model": "fake-model", "messages": MESSAGES, "stream": True},
        )
        engine.hold.set()
        answered = await long_chat
    assert engine.held_until_released is True
    assert short.status_code == 200
    assert short.text.rstrip().endswith("data: [DONE]")
    assert "echo: hello there" in "".join(
        json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
        for line in short.text.splitlines()
        if line.startswith("data: {") and json.loads(line[6:])["choices"]
    )
    assert answered.status_code == 200
    assert answered.json()["choices"][0]["message"]["content"] == "echo: " + long_text.strip()

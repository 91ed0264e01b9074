"""OpenAI's legacy `/v1/completions`, through the official SDK's `completions.create`."""

from __future__ import annotations

import asyncio

import openai
import pytest
from structlog.testing import capture_logs

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, eventually, running


def sdk(client: AppClient) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{client.base_url}/v1", api_key="unused", http_client=client, max_retries=0
    )


async def test_text_completion(client: AppClient, engine: FakeEngine) -> None:
    completion = await sdk(client).completions.create(model="fake-model", prompt="Once upon a time")
    assert completion.object == "text_completion"
    assert completion.id.startswith("cmpl-")
    assert completion.system_fingerprint.startswith("fp_")
    [choice] = completion.choices
    assert choice.text == "echo: Once upon a time"
    assert choice.finish_reason == "stop"
    # The prompt is the text itself, no chat template around it.
    assert engine.decode(engine.requests[0][1]) == "Once upon a time"
    assert completion.usage.prompt_tokens == len(engine.requests[0][1])
    # OpenAI's default for a legacy completion is 16 tokens.
    assert engine.requests[0][2].max_tokens == 16


async def test_batch_of_prompts_n_and_echo(client: AppClient) -> None:
    completion = await sdk(client).completions.create(
        model="fake-model", prompt=["one", "two"], n=2, echo=True, max_tokens=50
    )
    assert [c.index for c in completion.choices] == [0, 1, 2, 3]
    assert [c.text for c in completion.choices] == [
        "oneecho: one #0",
        "oneecho: one #1",
        "twoecho: two #0",
        "twoecho: two #1",
    ]


async def test_token_id_prompts(client: AppClient, engine: FakeEngine) -> None:
    ids = engine.tokenize_text("hello world")
    completion = await sdk(client).completions.create(model="fake-model", prompt=ids)
    assert completion.choices[0].text == "echo: hello world"
    batch = await sdk(client).completions.create(model="fake-model", prompt=[ids, ids[:1]])
    assert [c.text for c in batch.choices] == ["echo: hello world", "echo: hello"]


async def test_streamed_with_logprobs_and_usage(client: AppClient) -> None:
    stream = await sdk(client).completions.create(
        model="fake-model",
        prompt="hi there",
        stream=True,
        logprobs=2,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == "echo: hi there"
    offsets = [o for c in chunks if c.choices for o in c.choices[0].logprobs.text_offset]
    tokens = [t for c in chunks if c.choices for t in c.choices[0].logprobs.tokens]
    assert offsets == [text.index(t, o) for t, o in zip(tokens, offsets, strict=True)]
    top = chunks[1].choices[0].logprobs.top_logprobs[0]
    assert list(top.values()) == [-0.25, -1.25]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.completion_tokens == 3


async def test_logprobs_in_the_legacy_shape(client: AppClient) -> None:
    completion = await sdk(client).completions.create(model="fake-model", prompt="a b", logprobs=0)
    logprobs = completion.choices[0].logprobs
    assert "".join(logprobs.tokens) == completion.choices[0].text
    assert logprobs.token_logprobs == [-0.25] * len(logprobs.tokens)
    assert logprobs.text_offset[0] == 0
    assert logprobs.top_logprobs == [{}] * len(logprobs.tokens)


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"prompt": "x", "suffix": "y"}, "suffix"),
        ({"prompt": "x", "best_of": 3}, "best_of"),
        ({"prompt": [1, "a"]}, "prompt"),
        ({"prompt": []}, "prompt"),
        ({"prompt": ""}, "prompt"),
        ({"prompt": ["a", "b"], "stream": True}, "prompt"),
        ({"prompt": [1, 2], "echo": True}, "echo"),
        ({"prompt": "x", "model": "other"}, "model"),
    ],
)
async def test_refusals_name_the_param(
    client: AppClient, engine: FakeEngine, body: dict, param: str
) -> None:
    response = await client.post("/v1/completions", json=body)
    assert response.status_code in (400, 404), response.text
    assert response.json()["error"]["param"] == param
    assert engine.requests == []


async def test_shares_admission_with_chat(make_app) -> None:
    """A full server refuses a legacy completion as it refuses a chat: at once, with 503."""
    engine = FakeEngine()
    engine.hang = True
    async with running(make_app(engine, max_num_seqs=1, max_queued_requests=0)) as client:
        held = asyncio.create_task(client.post("/v1/completions", json={"prompt": "a"}))
        await eventually(lambda: engine.requests)
        refused = await client.post(
            "/v1/chat/completions", json={"messages": [{"role": "user", "content": "b"}]}
        )
        assert refused.status_code == 503
        engine.hang = False
        assert (await held).status_code == 200


async def test_each_completion_leaves_one_log_line_with_its_tokens(client: AppClient) -> None:
    with capture_logs() as logs:
        await sdk(client).completions.create(model="fake-model", prompt="Once upon a time")
        stream = await sdk(client).completions.create(
            model="fake-model", prompt="Hello", stream=True
        )
        async for _ in stream:
            pass
    whole, streamed = [entry for entry in logs if entry["event"] == "request"]
    for line in (whole, streamed):
        assert line["route"] == "/v1/completions" and line["status"] == 200
        assert line["model"] == "fake-model" and line["prompt_tokens"] > 0
        assert line["completion_tokens"] > 0 and line["engine_requests"] == 1
        assert line["queue_ms"] + line["engine_ms"] <= line["total_ms"]
    assert "ttft_ms" not in whole  # the engine hands a whole answer over at once
    assert streamed["queue_ms"] <= streamed["ttft_ms"] <= streamed["total_ms"]


async def test_a_failure_mid_stream_is_its_last_event(
    client: AppClient, engine: FakeEngine
) -> None:
    engine.responder = lambda prompt, options: "word " * 20
    engine.fail_after_tokens = 3
    received: list[str] = []

    async def read_all() -> None:
        stream = await sdk(client).completions.create(
            model="fake-model", prompt="hi there", stream=True, max_tokens=50
        )
        async for chunk in stream:
            received.append(chunk.choices[0].text)  # noqa: PERF401 - kept up to the failure

    # The SDK raises the stream's error event: the 200 was already sent.
    with capture_logs() as logs, pytest.raises(openai.APIError, match="engine"):
        await read_all()
    assert "".join(received).startswith("word")
    [line] = [entry for entry in logs if entry["event"] == "request"]
    assert (line["status"], line["error_code"]) == (200, "engine_failed")
    assert client.app.state.services.admission.in_flight == 0

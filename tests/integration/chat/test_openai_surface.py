"""The rest of OpenAI's chat surface that the official SDK touches: log probabilities,
logit bias, structured outputs, tools refused, usage details and the fingerprint."""

from __future__ import annotations

import json

import openai
import pydantic
import pytest

from translate_server.inference.engine import SamplingOptions

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

MESSAGES = [{"role": "user", "content": "hello there"}]


def sdk(client: AppClient) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{client.base_url}/v1", api_key="unused", http_client=client, max_retries=0
    )


async def test_logprobs_in_openai_shape(client: AppClient, engine: FakeEngine) -> None:
    completion = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, logprobs=True, top_logprobs=2
    )
    assert engine.requests[-1][2].logprobs == 2
    content = completion.choices[0].logprobs.content
    assert "".join(t.token for t in content) == completion.choices[0].message.content
    assert [t.logprob for t in content] == [-0.25] * len(content)
    assert content[0].bytes == list(content[0].token.encode())
    assert [(t.token, t.logprob) for t in content[1].top_logprobs] == [
        (content[1].token, -0.25),
        ("alt1", -1.25),
    ]


async def test_logprobs_without_top_logprobs(client: AppClient, engine: FakeEngine) -> None:
    completion = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, logprobs=True
    )
    assert engine.requests[-1][2].logprobs == 0
    assert all(t.top_logprobs == [] for t in completion.choices[0].logprobs.content)
    plain = await sdk(client).chat.completions.create(model="fake-model", messages=MESSAGES)
    assert plain.choices[0].logprobs is None
    assert engine.requests[-1][2].logprobs is None


async def test_streamed_logprobs(client: AppClient) -> None:
    stream = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, logprobs=True, top_logprobs=1, stream=True
    )
    tokens = []
    async for chunk in stream:
        for choice in chunk.choices:
            if choice.logprobs is not None:
                assert [t.token for t in choice.logprobs.content] == [choice.delta.content]
                tokens += choice.logprobs.content
    assert "".join(t.token for t in tokens) == "echo: hello there"
    assert all(len(t.top_logprobs) == 1 for t in tokens)


async def test_top_logprobs_needs_logprobs(client: AppClient) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk(client).chat.completions.create(
            model="fake-model", messages=MESSAGES, top_logprobs=3
        )
    assert caught.value.body["param"] == "top_logprobs"


async def test_logit_bias_reaches_the_engine(client: AppClient, engine: FakeEngine) -> None:
    await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, logit_bias={"42": -100, "7": 5.5}
    )
    assert engine.requests[-1][2].logit_bias == ((42, -100.0), (7, 5.5))
    for bias in ({"word": 1}, {"-3": 1}, {"1": 101}):
        with pytest.raises(openai.BadRequestError) as caught:
            await sdk(client).chat.completions.create(
                model="fake-model", messages=MESSAGES, logit_bias=bias
            )
        assert caught.value.body["param"].startswith("logit_bias")


def _json_answer(prompt: str, options: SamplingOptions) -> str:
    assert options.structured is not None
    if options.structured.json_schema is None:
        return '{"any": "object"}'
    schema = json.loads(options.structured.json_schema)
    return json.dumps(dict.fromkeys(schema["properties"], "Paris"))


class Capital(pydantic.BaseModel):
    city: str
    country: str


async def test_structured_outputs_with_the_sdk_parse(make_app) -> None:
    engine = FakeEngine(responder=_json_answer)
    async with running(make_app(engine)) as client:
        parsed = await sdk(client).chat.completions.parse(
            model="fake-model", messages=MESSAGES, response_format=Capital
        )
        assert parsed.choices[0].message.parsed == Capital(city="Paris", country="Paris")
        schema = json.loads(engine.requests[-1][2].structured.json_schema)
        assert schema["required"] == ["city", "country"]
        anything = await sdk(client).chat.completions.create(
            model="fake-model", messages=MESSAGES, response_format={"type": "json_object"}
        )
        assert json.loads(anything.choices[0].message.content) == {"any": "object"}
        assert engine.requests[-1][2].structured.json_schema is None


async def test_text_response_format_and_a_schema_missing(
    client: AppClient, engine: FakeEngine
) -> None:
    await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, response_format={"type": "text"}
    )
    assert engine.requests[-1][2].structured is None
    with pytest.raises(openai.BadRequestError):
        await sdk(client).chat.completions.create(
            model="fake-model",
            messages=MESSAGES,
            response_format={"type": "json_schema", "json_schema": {"name": "x"}},
        )
    with pytest.raises(openai.BadRequestError):
        await sdk(client).chat.completions.create(
            model="fake-model", messages=MESSAGES, response_format={"type": "yaml"}
        )


TOOL = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"tools": [TOOL]}, "tools"),
        ({"tool_choice": "required"}, "tool_choice"),
        (
            {
                "messages": [
                    *MESSAGES,
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "weather", "arguments": "{}"},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
                ]
            },
            "messages[1].tool_calls",
        ),
        (
            {"messages": [{"role": "tool", "tool_call_id": "c1", "content": "sunny"}]},
            "messages[0].role",
        ),
    ],
)
async def test_tool_calling_is_refused_clearly(
    client: AppClient, engine: FakeEngine, extra: dict, param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk(client).chat.completions.create(
            model="fake-model", **{"messages": MESSAGES, **extra}
        )
    assert caught.value.body["param"] == param
    assert caught.value.body["code"] == "tools_not_supported"
    assert "Tool calling is not served" in caught.value.body["message"]
    assert engine.requests == []


async def test_tool_choice_none_is_plain_chat(client: AppClient) -> None:
    completion = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, tool_choice="none"
    )
    assert completion.choices[0].message.content == "echo: hello there"


async def test_usage_details_and_fingerprint(client: AppClient) -> None:
    first = await sdk(client).chat.completions.create(model="fake-model", messages=MESSAGES)
    second = await sdk(client).chat.completions.create(model="fake-model", messages=MESSAGES)
    assert first.system_fingerprint.startswith("fp_")
    assert second.system_fingerprint == first.system_fingerprint
    # The engine double's prefix cache holds the previous prompt: all of it is a hit.
    assert second.usage.prompt_tokens_details.cached_tokens == second.usage.prompt_tokens
    stream = await sdk(client).chat.completions.create(
        model="fake-model", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    assert {c.system_fingerprint for c in chunks} == {first.system_fingerprint}
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens == first.usage.prompt_tokens


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"modalities": ["text", "audio"], "audio": {"voice": "alloy", "format": "wav"}}, "audio"),
        ({"modalities": ["audio"]}, "modalities"),
    ],
)
async def test_audio_output_is_refused(client: AppClient, extra: dict, param: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk(client).chat.completions.create(model="fake-model", messages=MESSAGES, **extra)
    assert caught.value.body["param"] == param

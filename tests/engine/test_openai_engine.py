"""OpenAI's log probabilities, structured outputs, logit bias and legacy completions on the
real engine (the tiny random-weight model: its text is gibberish, so these tests check
shapes, counts and the constraints, never content). One server for the module."""

from __future__ import annotations

import json

import openai
import pydantic
import pytest

from server_process import ServerProcess, start_tiny

pytestmark = pytest.mark.engine

MESSAGES = [{"role": "user", "content": "Say something."}]


@pytest.fixture(scope="module")
def server(tiny_model, tmp_path_factory):
    process = start_tiny(tiny_model, tmp_path_factory.mktemp("openai"))
    yield process
    process.stop()


@pytest.fixture(scope="module")
def sdk(server: ServerProcess):
    return openai.OpenAI(base_url=f"{server.base_url}/v1", api_key="unused", max_retries=0,
                         timeout=120)


def test_chat_logprobs(sdk: openai.OpenAI) -> None:
    completion = sdk.chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=5,
                                             logprobs=True, top_logprobs=3, temperature=0)
    content = completion.choices[0].logprobs.content
    assert len(content) == completion.usage.completion_tokens
    assert "".join(t.token for t in content) == completion.choices[0].message.content
    for token in content:
        ranked = [t.logprob for t in token.top_logprobs]
        assert len(ranked) == 3 and ranked == sorted(ranked, reverse=True)
        # Greedy decoding picks the likeliest token.
        assert token.logprob == pytest.approx(ranked[0])
    assert completion.usage.prompt_tokens_details is not None


def test_streamed_chat_logprobs(sdk: openai.OpenAI) -> None:
    stream = sdk.chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=5,
                                         logprobs=True, stream=True)
    text, tokens = "", []
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            if choice.logprobs is not None:
                tokens += choice.logprobs.content
    assert len(tokens) == 5
    assert "".join(t.token for t in tokens) == text


class Verdict(pydantic.BaseModel):
    ok: bool


def test_structured_outputs(sdk: openai.OpenAI) -> None:
    parsed = sdk.chat.completions.parse(model="tiny", messages=MESSAGES, max_tokens=64,
                                        response_format=Verdict, temperature=0)
    assert isinstance(parsed.choices[0].message.parsed, Verdict)
    anything = sdk.chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=64,
                                           response_format={"type": "json_object"},
                                           temperature=0)
    if anything.choices[0].finish_reason == "stop":
        assert isinstance(json.loads(anything.choices[0].message.content), dict)
    else:  # cut short, but on its way to a JSON object
        assert anything.choices[0].message.content.lstrip().startswith("{")


def test_logit_bias_outside_the_vocabulary(sdk: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        sdk.chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=2,
                                    logit_bias={"99999999": 5})
    assert caught.value.body["param"] == "logit_bias"


def test_legacy_completion(sdk: openai.OpenAI, tiny_model) -> None:
    from transformers import AutoTokenizer

    prompt = "The train leaves the station"
    completion = sdk.completions.create(model="tiny", prompt=prompt, max_tokens=4,
                                        logprobs=2, temperature=0)
    expected = len(AutoTokenizer.from_pretrained(tiny_model).encode(prompt))
    assert completion.usage.prompt_tokens == expected
    assert completion.usage.completion_tokens == 4
    logprobs = completion.choices[0].logprobs
    assert "".join(logprobs.tokens) == completion.choices[0].text
    assert all(len(top) >= 1 for top in logprobs.top_logprobs)
    streamed = "".join(c.choices[0].text for c in sdk.completions.create(
        model="tiny", prompt=prompt, max_tokens=4, temperature=0, stream=True) if c.choices)
    assert streamed == completion.choices[0].text

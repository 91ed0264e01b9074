"""OpenAI's log probabilities, structured outputs, logit bias and legacy completions on the
real engine (the tiny random-weight model: its text is gibberish, so these tests check
shapes, counts and the constraints, never content). The run's shared server."""

from __future__ import annotations

import json

import openai
import pydantic
import pytest

from tests.support.server_process import ServerProcess

MESSAGES = [{"role": "user", "content": "Say something."}]


@pytest.fixture
def server(tiny_server: ServerProcess) -> ServerProcess:
    return tiny_server


@pytest.fixture
def sdk(server: ServerProcess):
    return openai.OpenAI(
        base_url=f"{server.base_url}/v1", api_key="unused", max_retries=0, timeout=120
    )


def test_chat_logprobs(sdk: openai.OpenAI) -> None:
    completion = sdk.chat.completions.create(
        model="tiny", messages=MESSAGES, max_tokens=5, logprobs=True, top_logprobs=3, temperature=0
    )
    content = completion.choices[0].logprobs.content
    assert len(content) == completion.usage.completion_tokens
    for token in content:
        ranked = [t.logprob for t in token.top_logprobs]
        assert len(ranked) == 3 and ranked == sorted(ranked, reverse=True)
        # Greedy decoding picks the likeliest token.
        assert token.logprob == pytest.approx(ranked[0])
    assert completion.usage.prompt_tokens_details is not None


def test_streamed_chat_logprobs(sdk: openai.OpenAI) -> None:
    stream = sdk.chat.completions.create(
        model="tiny", messages=MESSAGES, max_tokens=5, logprobs=True, stream=True
    )
    text, tokens = "", []
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            if choice.logprobs is not None:
                tokens += choice.logprobs.content
    assert len(tokens) == 5
    # A token that ends inside a UTF-8 character shows as U+FFFD on its own (as in vLLM's
    # server); the streamed text holds the whole character once it is complete.
    assert "".join(t.token for t in tokens).replace("\ufffd", "") == text.replace("\ufffd", "")


class Verdict(pydantic.BaseModel):
    ok: bool


def _on_its_way_to_json(content: str, finish_reason: str) -> object:
    """A random model under a JSON grammar may wander in whitespace until the length limit;
    whatever it wrote is the start of a JSON object, and a whole one when it stopped."""
    assert content.lstrip().startswith("{"), content
    if finish_reason == "stop":
        return json.loads(content)
    return None


def test_structured_outputs(sdk: openai.OpenAI) -> None:
    schema = {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "strict": True, "schema": Verdict.model_json_schema()},
    }
    for response_format in (schema, {"type": "json_object"}):
        completion = sdk.chat.completions.create(
            model="tiny",
            messages=MESSAGES,
            max_tokens=48,
            temperature=0,
            response_format=response_format,
        )
        choice = completion.choices[0]
        value = _on_its_way_to_json(choice.message.content, choice.finish_reason)
        if value is not None and response_format is schema:
            Verdict.model_validate(value)


def test_a_schema_the_engine_cannot_compile_is_400(sdk: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError):
        sdk.chat.completions.create(
            model="tiny",
            messages=MESSAGES,
            max_tokens=2,
            response_format={
                "type": "json_schema",
                "json_schema": {
                    "name": "bad",
                    "schema": {
                        "type": "object",
                        "properties": {"a": {"type": "string", "pattern": "(unclosed"}},
                    },
                },
            },
        )


def test_logit_bias_outside_the_vocabulary(sdk: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        sdk.chat.completions.create(
            model="tiny", messages=MESSAGES, max_tokens=2, logit_bias={"99999999": 5}
        )
    assert caught.value.body["param"] == "logit_bias"


def test_legacy_completion(sdk: openai.OpenAI, tiny_model) -> None:
    from transformers import AutoTokenizer

    prompt = "The train leaves the station"
    completion = sdk.completions.create(
        model="tiny", prompt=prompt, max_tokens=4, logprobs=2, temperature=0
    )
    expected = len(AutoTokenizer.from_pretrained(tiny_model).encode(prompt))
    assert completion.usage.prompt_tokens == expected
    assert completion.usage.completion_tokens == 4
    logprobs = completion.choices[0].logprobs
    assert "".join(logprobs.tokens) == completion.choices[0].text
    assert all(len(top) >= 1 for top in logprobs.top_logprobs)
    streamed = "".join(
        c.choices[0].text
        for c in sdk.completions.create(
            model="tiny", prompt=prompt, max_tokens=4, temperature=0, stream=True
        )
        if c.choices
    )
    assert streamed == completion.choices[0].text


def test_token_ids_outside_the_vocabulary(sdk: openai.OpenAI, server: ServerProcess) -> None:
    # vLLM refuses them as the request is added: the client's 400, and the server serves on.
    with pytest.raises(openai.BadRequestError) as caught:
        sdk.completions.create(model="tiny", prompt=[5, 99999999], max_tokens=2)
    assert "99999999" in caught.value.body["message"]
    assert sdk.completions.create(model="tiny", prompt=[5, 6], max_tokens=2).choices


def test_responses_streamed_and_not(sdk: openai.OpenAI) -> None:
    # The Responses API over the real engine: its text is the same as the stream's deltas,
    # and usage counts real tokens. Cut at max_output_tokens, a stream ends with
    # `response.incomplete`, as OpenAI's does.
    asked = {
        "model": "tiny",
        "input": "Say something.",
        "instructions": "Be brief.",
        "max_output_tokens": 12,
        "temperature": 0,
    }
    response = sdk.responses.create(**asked)
    assert response.status in ("completed", "incomplete")
    assert response.usage.input_tokens > 5 and 0 < response.usage.output_tokens <= 12
    events = list(sdk.responses.create(**asked, stream=True))
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    final = events[-1]
    assert final.type == f"response.{response.status}"
    assert "".join(deltas) == final.response.output_text == response.output_text

"""OpenAI's Responses API through the stock `openai` SDK, only its base URL changed: text or
message input, instructions, streaming events in their order, structured output with
`parse`, usage, and the clear 400s for what is not served."""

from __future__ import annotations

import openai
import pytest
from pydantic import BaseModel

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running


def sdk(client: AppClient) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{client.base_url}/v1", api_key="unused", http_client=client, max_retries=0
    )


async def test_a_text_input_and_instructions_become_the_chat(make_app, engine: FakeEngine) -> None:
    async with running(make_app()) as client:
        response = await sdk(client).responses.create(
            model="fake-model",
            input="Say hello.",
            instructions="Be brief.",
            max_output_tokens=50,
            temperature=0.0,
        )
    assert response.status == "completed" and response.object == "response"
    assert response.output_text == "echo: Say hello."
    prompt = engine.decode(engine.requests[0][1])
    assert "<|im_start|>system\nBe brief.<|im_end|>" in prompt
    assert response.usage is not None and response.usage.output_tokens > 0
    assert response.usage.total_tokens == response.usage.input_tokens + response.usage.output_tokens
    assert engine.requests[0][2].max_tokens == 50


async def test_message_items_are_the_conversation(make_app, engine: FakeEngine) -> None:
    async with running(make_app()) as client:
        response = await sdk(client).responses.create(
            model="fake-model",
            input=[
                {"role": "user", "content": "first"},
                {"role": "assistant", "content": [{"type": "output_text", "text": "reply"}]},
                {"role": "user", "content": [{"type": "input_text", "text": "second"}]},
            ],
        )
    assert response.output_text == "echo: second"
    assert "reply" in engine.decode(engine.requests[0][1])


async def test_a_stream_sends_the_documented_events_in_order(make_app) -> None:
    async with running(make_app()) as client:
        stream = await sdk(client).responses.create(
            model="fake-model", input="one two three", stream=True
        )
        events = [event async for event in stream]
    types = [event.type for event in events]
    assert types[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert types[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 1 and "".join(deltas) == "echo: one two three"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    completed = events[-1].response
    assert completed.output_text == "echo: one two three" and completed.usage.output_tokens > 0


async def test_a_response_cut_at_max_output_tokens_is_incomplete(make_app) -> None:
    async with running(make_app()) as client:
        response = await sdk(client).responses.create(
            model="fake-model", input="a b c d e f g h i j k l", max_output_tokens=3
        )
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"


class Verdict(BaseModel):
    answer: str


async def test_parse_sends_the_schema_and_reads_the_structured_answer(make_app) -> None:
    engine = FakeEngine(responder=lambda prompt, options: '{"answer": "yes"}')
    async with running(make_app(engine)) as client:
        parsed = await sdk(client).responses.parse(
            model="fake-model", input="Is it?", text_format=Verdict
        )
    assert parsed.output_parsed == Verdict(answer="yes")
    structured = engine.requests[0][2].structured
    assert structured is not None and "answer" in structured.json_schema


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("store", True),
        ("previous_response_id", "resp_1"),
        ("background", True),
        ("tools", [{"type": "web_search"}]),
    ],
)
async def test_stateful_and_agentic_fields_are_refused_by_name(
    make_app, field: str, value: object
) -> None:
    async with running(make_app()) as client:
        with pytest.raises(openai.BadRequestError) as refused:
            await sdk(client).responses.create(model="fake-model", input="hi", **{field: value})
    assert refused.value.body["param"] == field
    assert refused.value.body["code"] == "unsupported_parameter"


async def test_a_base_model_is_refused_as_chat_is(make_app) -> None:
    engine = FakeEngine(model="google/gemma-3-270m", chat_template=False)
    async with running(make_app(engine, served_model_name="google/gemma-3-270m")) as client:
        with pytest.raises(openai.BadRequestError) as refused:
            await sdk(client).responses.create(model="google/gemma-3-270m", input="hi")
    assert refused.value.body["code"] == "chat_not_supported"

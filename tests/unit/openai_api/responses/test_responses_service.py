"""The Responses service driven directly over the engine double, no HTTP: a Responses request
served as a chat, what it refuses by name, the `Response` it answers and the events of its
streams in their documented order."""

from __future__ import annotations

import json
from typing import Any

import pytest

from translate_server.errors import EngineFailedError, InvalidRequestError
from translate_server.inference.engine import StructuredOutput
from translate_server.openai_api.responses.protocol import (
    OutputTextDelta,
    ResponseEvent,
    ResponsesRequest,
)
from translate_server.openai_api.responses.service import ResponsesService

from tests.support.fakes import FakeEngine
from tests.support.service_builder import (
    ServiceBuilder,
    StaticAdapters,
    deadline,
    read_into,
    record,
    wire,
)


def responses_request(**fields: Any) -> ResponsesRequest:
    return wire(ResponsesRequest, {"input": "Hello there", **fields})


async def create(service: ResponsesService, **fields: Any) -> Any:
    return await service.create(responses_request(**fields), record(), deadline())


async def every_event(service: ResponsesService, **fields: Any) -> list[ResponseEvent]:
    events = await service.open_stream(
        responses_request(stream=True, **fields), record(), deadline()
    )
    return [event async for event in events]


def kind(event: ResponseEvent) -> str:
    return str(type(event).__struct_config__.tag)


def prompt_of(built: ServiceBuilder) -> str:
    return built.engine.decode(built.engine.requests[-1][1])


async def test_instructions_and_input_become_the_chat_and_its_answer_the_response() -> None:
    built = ServiceBuilder()
    seen = record()
    response = await built.responses().create(
        responses_request(instructions="Be brief.", metadata={"ticket": "7"}), seen, deadline()
    )
    assert prompt_of(built).startswith(
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello there<|im_end|>"
    )
    (message,) = response.output
    assert [part.text for part in message.content] == ["echo: Hello there"]
    assert (response.status, message.status, response.incomplete_details) == (
        "completed",
        "completed",
        None,
    )
    assert response.id.startswith("resp_") and message.id.startswith("msg_")
    assert (response.model, response.instructions, response.metadata) == (
        "fake-model",
        "Be brief.",
        {"ticket": "7"},
    )
    prompt_tokens = len(built.engine.requests[0][1])
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        prompt_tokens,
        3,
        prompt_tokens + 3,
    )
    assert response.text.format == {"type": "text"}
    assert seen.finish_reason == "stop" and built.admission.in_flight == 0


async def test_message_items_are_the_conversation() -> None:
    built = ServiceBuilder()
    await create(
        built.responses(),
        input=[
            {"role": "developer", "content": "Rules."},
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "one"},
                    {"type": "input_text", "text": "two"},
                ],
            },
            {"role": "assistant", "content": [{"type": "output_text", "text": "ONE TWO"}]},
            {"role": "user", "content": None},
        ],
    )
    assert prompt_of(built) == (
        "<|im_start|>system\nRules.<|im_end|>\n"
        "<|im_start|>user\none\ntwo<|im_end|>\n"
        "<|im_start|>assistant\nONE TWO<|im_end|>\n"
        "<|im_start|>user\n<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


async def test_sampling_and_the_output_limit_reach_the_engine() -> None:
    built = ServiceBuilder()
    response = await create(built.responses(), max_output_tokens=2, temperature=0.3, top_p=0.5)
    options = built.engine.requests[0][2]
    assert (options.max_tokens, options.temperature, options.top_p) == (2, 0.3, 0.5)
    assert (response.temperature, response.top_p, response.max_output_tokens) == (0.3, 0.5, 2)
    # Cut at max_output_tokens: incomplete, and said why.
    assert response.status == "incomplete" and response.output[0].status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.output[0].content[0].text == "echo: Hello"


async def test_a_text_format_constrains_the_output_and_is_answered_back() -> None:
    built = ServiceBuilder()
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    response = await create(
        built.responses(),
        text={"format": {"type": "json_schema", "name": "place", "schema": schema, "strict": True}},
    )
    assert json.loads(built.engine.requests[-1][2].structured.json_schema) == schema
    assert response.text.format == {
        "type": "json_schema",
        "name": "place",
        "schema": schema,
        "strict": True,
    }
    loose = await create(built.responses(), text={"format": {"type": "json_object"}})
    assert built.engine.requests[-1][2].structured == StructuredOutput()
    assert loose.text.format == {"type": "json_object"}


async def test_an_adapter_named_as_model_answers_under_its_name() -> None:
    adapters = StaticAdapters({"legal-de": (("en", "de"),)})
    built = ServiceBuilder(adapters=adapters)
    response = await create(built.responses(), model="legal-de")
    assert built.engine.requests[-1][2].adapter == adapters.loaded("legal-de")
    assert response.model == "legal-de"
    events = await every_event(built.responses(), model="legal-de")
    assert {event.response.model for event in events if hasattr(event, "response")} == {"legal-de"}


# -- refusals ------------------------------------------------------------------------------

REFUSED = [
    ({"store": True}, "store", "unsupported_parameter"),
    ({"previous_response_id": "resp_1"}, "previous_response_id", "unsupported_parameter"),
    ({"conversation": "conv_1"}, "conversation", "unsupported_parameter"),
    ({"background": True}, "background", "unsupported_parameter"),
    ({"tools": [{"type": "web_search"}]}, "tools", "unsupported_parameter"),
    ({"prompt": {"id": "pmpt_1"}}, "prompt", "unsupported_parameter"),
    (
        {"input": [{"type": "function_call_output", "output": "42"}]},
        "input[0].type",
        "unsupported_parameter",
    ),
    (
        {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]},
        "input[0].content[0]",
        None,
    ),
    # A message item without a role is no message.
    ({"input": [{"type": "message", "content": "42"}]}, "input[0].type", "unsupported_parameter"),
]


@pytest.mark.parametrize("streamed", [False, True], ids=["create", "stream"])
@pytest.mark.parametrize(("fields", "param", "code"), REFUSED)
async def test_what_is_not_served_is_refused_by_name_before_admission(
    fields: dict[str, Any], param: str, code: str | None, streamed: bool
) -> None:
    built = ServiceBuilder()
    built.fill_admission()
    request, responses = responses_request(**fields), built.responses()
    attempt = (responses.open_stream if streamed else responses.create)(
        request, record(), deadline()
    )
    with pytest.raises(InvalidRequestError) as refused:
        await attempt
    assert refused.value.param == param
    if code is not None:
        assert refused.value.code == code
    assert built.engine.vocab == {} and built.engine.requests == []


async def test_asking_for_nothing_stored_is_no_refusal() -> None:
    response = await create(ServiceBuilder().responses(), store=False, tools=[], background=False)
    assert response.status == "completed" and response.store is False


async def test_a_base_model_is_refused_as_chat_is() -> None:
    built = ServiceBuilder(FakeEngine(chat_template=False))
    with pytest.raises(InvalidRequestError) as refused:
        await create(built.responses())
    assert refused.value.code == "chat_not_supported"


# -- streams -------------------------------------------------------------------------------

ORDER = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    *["response.output_text.delta"] * 3,
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
]


async def test_a_stream_sends_the_documented_events_in_order_numbered_from_zero() -> None:
    built = ServiceBuilder()
    seen = record()
    stream = await built.responses().open_stream(responses_request(stream=True), seen, deadline())
    events = [event async for event in stream]
    assert [kind(event) for event in events] == ORDER
    assert [event.sequence_number for event in events] == list(range(len(ORDER)))
    created, in_progress, item_added, part_added, *deltas = events[:7]
    assert created.response.status == in_progress.response.status == "in_progress"
    assert created.response.usage is None and created.response.output == []
    assert item_added.item.status == "in_progress" and part_added.part.text == ""
    text_done, part_done, item_done, completed = events[7:]
    item_id = item_added.item.id
    assert {e.item_id for e in (part_added, *deltas, text_done, part_done)} == {item_id}
    assert "".join(d.delta for d in deltas if isinstance(d, OutputTextDelta)) == text_done.text
    assert text_done.text == part_done.part.text == "echo: Hello there"
    assert item_done.item.id == item_id and item_done.item.status == "completed"
    assert completed.response.id == created.response.id
    assert completed.response.status == "completed"
    assert completed.response.output == [item_done.item]
    assert completed.response.usage.output_tokens == 3
    assert completed.response.usage.input_tokens == len(built.engine.requests[0][1])
    assert seen.finish_reason == "stop" and built.admission.in_flight == 0


async def test_a_stream_cut_at_max_output_tokens_ends_incomplete() -> None:
    events = await every_event(ServiceBuilder().responses(), max_output_tokens=1)
    assert kind(events[-1]) == "response.incomplete"
    assert events[-1].response.status == "incomplete"
    assert events[-1].response.incomplete_details.reason == "max_output_tokens"
    assert events[-2].item.status == "incomplete"


async def test_the_ticket_is_given_back_when_the_client_leaves_early() -> None:
    built = ServiceBuilder(FakeEngine(token_delay=0.01))
    events = await built.responses().open_stream(
        responses_request(stream=True, max_output_tokens=200), record(), deadline()
    )
    assert kind(await anext(events)) == "response.created"
    assert built.admission.in_flight == 1
    await events.aclose()
    assert built.admission.in_flight == 0 and built.engine.unfinished == set()


async def test_a_stream_closed_before_its_first_event_gives_its_ticket_back() -> None:
    built = ServiceBuilder(FakeEngine(token_delay=0.01))
    events = await built.responses().open_stream(
        responses_request(stream=True, max_output_tokens=200), record(), deadline()
    )
    assert built.admission.in_flight == 1
    await events.aclose()
    assert built.admission.in_flight == 0 and built.engine.unfinished == set()


async def test_a_failure_mid_stream_is_raised_from_the_events_and_the_ticket_given_back() -> None:
    engine = FakeEngine()
    engine.fail_after_tokens = 2
    built = ServiceBuilder(engine)
    events = await built.responses().open_stream(
        responses_request(stream=True), record(), deadline()
    )
    received: list[ResponseEvent] = []
    with pytest.raises(EngineFailedError):
        await read_into(events, received)
    assert [kind(event) for event in received] == ORDER[:6]  # two deltas, then the failure
    assert built.admission.in_flight == 0

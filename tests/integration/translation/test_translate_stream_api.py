from __future__ import annotations

import json

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running


async def _events(response) -> list:
    events = []
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            payload = line[len("data: ") :]
            events.append(payload if payload == "[DONE]" else json.loads(payload))
    return events


async def test_streams_the_translation_as_it_is_generated(
    client: AppClient, engine: FakeEngine
) -> None:
    async with client.stream(
        "POST",
        "/translate",
        json={
            "text": "Good morning to you all, my friends, and welcome to the meeting",
            "source_lang": "en",
            "target_lang": "de",
            "stream": True,
        },
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = await _events(response)
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    deltas = [chunk["delta"] for chunk in chunks]
    assert "".join(deltas) == "GOOD MORNING TO YOU ALL, MY FRIENDS, AND WELCOME TO THE MEETING"
    assert len([d for d in deltas if d]) > 1  # more than one piece of text on the wire
    final = chunks[-1]
    assert final["finish_reason"] == "stop" and final["source_lang"] == "en"
    assert final["usage"]["completion_tokens"] == len(engine.requests[0][1]) * 0 + 12


async def test_stream_hides_the_models_habits(client: AppClient, engine: FakeEngine) -> None:
    engine.responder = lambda prompt, options: 'Here is the translation: "Guten Morgen"'
    async with client.stream(
        "POST",
        "/translate",
        json={"text": "Good morning", "target_lang": "de", "source_lang": "en", "stream": True},
    ) as response:
        events = await _events(response)
    assert "".join(e["delta"] for e in events[:-1]) == "Guten Morgen"


async def test_long_text_streams_in_order_with_its_layout(make_app) -> None:
    engine = FakeEngine(max_model_len=512, token_delay=0.001)
    text = "\n\n".join(
        f"Paragraph {i} has a few words in it, and then some more words. "
        "Another sentence follows here."
        for i in range(10)
    )
    async with (
        running(make_app(engine)) as client,
        client.stream(
            "POST",
            "/translate",
            json={"text": text, "source_lang": "en", "target_lang": "de", "stream": True},
        ) as response,
    ):
        events = await _events(response)
    assert "".join(e["delta"] for e in events[:-1]) == text.upper()
    assert len(engine.requests) > 1


async def test_detection_comes_in_the_last_event(client: AppClient) -> None:
    async with client.stream(
        "POST",
        "/translate",
        json={
            "text": "Die Besprechung wurde auf Donnerstag verschoben.",
            "target_lang": "en",
            "stream": True,
        },
    ) as response:
        events = await _events(response)
    assert events[-2]["detected_source_lang"]["language"] == "de"


async def test_errors_before_the_stream_are_statuses(client: AppClient, engine: FakeEngine) -> None:
    response = await client.post(
        "/translate",
        json={"text": ["a", "b"], "source_lang": "en", "target_lang": "de", "stream": True},
    )
    assert response.status_code == 400 and response.json()["error"]["param"] == "stream"
    engine.alive = False
    response = await client.post(
        "/translate", json={"text": "a", "source_lang": "en", "target_lang": "de", "stream": True}
    )
    assert response.status_code == 503


async def test_engine_failure_mid_stream_ends_with_an_error_event(
    client: AppClient, engine: FakeEngine
) -> None:
    engine.fail_after_tokens = 2
    async with client.stream(
        "POST",
        "/translate",
        json={
            "text": "one two three four five six",
            "source_lang": "en",
            "target_lang": "de",
            "stream": True,
        },
    ) as response:
        events = await _events(response)
    assert "error" in events[-1]
    assert client.app.state.services.admission.in_flight == 0


async def test_engine_failure_before_the_first_token_is_a_status(
    client: AppClient, engine: FakeEngine
) -> None:
    # The first piece's engine request is submitted before the response starts.
    engine.fail_after_tokens = 0
    response = await client.post(
        "/translate",
        json={"text": "one two three", "source_lang": "en", "target_lang": "de", "stream": True},
    )
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "engine_failed"
    assert client.app.state.services.admission.in_flight == 0

"""How both streaming surfaces end a stream: on their last event, without waiting on the client,
and at once when the client hangs up."""

from __future__ import annotations

import asyncio

import pytest

from translate_server.http import sse

from tests.support.fakes import FakeEngine
from tests.support.harness import call_and_leave, eventually, running

STREAMS = {
    "/translate": {
        "text": "Good morning to you all",
        "source_lang": "en",
        "target_lang": "de",
        "stream": True,
    },
    "/v1/chat/completions": {"messages": [{"role": "user", "content": "hi there"}], "stream": True},
}


@pytest.mark.parametrize("path", STREAMS)
async def test_the_done_event_ends_the_response_without_waiting_on_the_client(
    make_app, path: str
) -> None:
    app = make_app()
    async with running(app):
        # A client that stays connected for an hour after sending its request: the response
        # must not wait to hear from it once the last event is out.
        sent = await asyncio.wait_for(call_and_leave(app, path, STREAMS[path], 3600), 10)
    start, *bodies = sent
    assert start["type"] == "http.response.start" and start["status"] == 200
    assert dict(start["headers"])[b"content-type"] == b"text/event-stream; charset=utf-8"
    assert bodies[-1] == {"type": "http.response.body", "body": sse.DONE, "more_body": False}
    assert len(bodies) > 2
    assert all(body["more_body"] and body["body"].startswith(b"data: {") for body in bodies[:-1])
    assert app.state.services.admission.in_flight == 0


@pytest.mark.parametrize("path", STREAMS)
async def test_leaving_a_stream_aborts_its_engine_request(make_app, path: str) -> None:
    slow = FakeEngine(token_delay=0.05)
    slow.responder = lambda prompt, options: "word " * 200
    app = make_app(slow)
    async with running(app):
        sent = await asyncio.wait_for(call_and_leave(app, path, STREAMS[path], 0.3), 10)
        # Its generation (20 s of tokens) is closed, not run to the end.
        await eventually(lambda: not slow.unfinished)
        await eventually(lambda: app.state.services.admission.in_flight == 0)
        assert len(slow.requests) == 1
    # Some of the answer went out, and the stream stopped without ending it.
    assert sent[0]["status"] == 200
    assert any(b"word" in message.get("body", b"") for message in sent)
    assert all(message.get("more_body", True) for message in sent[1:])


async def test_an_engine_failure_mid_stream_ends_it_with_an_error_event(make_app) -> None:
    failing = FakeEngine()
    failing.responder = lambda prompt, options: "word " * 50
    failing.fail_after_tokens = 5
    app = make_app(failing)
    async with running(app):
        sent = await asyncio.wait_for(
            call_and_leave(app, "/v1/chat/completions", STREAMS["/v1/chat/completions"], 3600), 10
        )
    *events, end = sent[1:]
    assert b'"error"' in events[-1]["body"]
    assert end == {"type": "http.response.body", "body": b"", "more_body": False}
    assert app.state.services.admission.in_flight == 0

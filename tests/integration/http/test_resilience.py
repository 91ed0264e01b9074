"""Overload, deadlines, disconnects and engine faults, with the engine double."""

from __future__ import annotations

import asyncio
import json

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, call_and_leave, eventually, running

TRANSLATE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}
CHAT = {"messages": [{"role": "user", "content": "hi there"}]}


async def test_overload_is_refused_at_once_with_retry_after(make_app) -> None:
    slow = FakeEngine()
    slow.hang = True  # until the refusal is checked
    app = make_app(slow, max_num_seqs=2, max_queued_requests=1)
    async with running(app) as client:
        # Different texts: identical requests in flight would share one run.
        admitted = [
            asyncio.create_task(client.post("/translate", json={**TRANSLATE, "text": f"Hi {n}"}))
            for n in range(3)
        ]
        await eventually(lambda: len(slow.requests) == 3)
        refused = await client.post("/translate", json={**TRANSLATE, "text": "Hi 3"})
        # Answered without waiting for a slot: no admitted request has finished yet.
        assert not any(task.done() for task in admitted)
        assert refused.status_code == 503
        error = refused.json()["error"]
        assert (error["type"], error["code"]) == ("overloaded_error", "overloaded")
        assert int(refused.headers["retry-after"]) >= 1
        assert len(slow.requests) == 3  # nothing of the refused request reached the engine
        slow.hang = False
        assert [r.status_code for r in await asyncio.gather(*admitted)] == [200, 200, 200]
        metrics = (await client.get("/metrics")).text
        assert 'translate_requests_rejected_total{reason="queue_full"} 1.0' in metrics
        # Capacity came back.
        assert (await client.post("/translate", json=TRANSLATE)).status_code == 200


async def test_a_batch_counts_each_text_against_capacity(make_app) -> None:
    app = make_app(max_num_seqs=2, max_queued_requests=2)
    async with running(app) as client:
        too_many = await client.post("/translate", json={**TRANSLATE, "text": ["a"] * 5})
        # Larger than the whole capacity, so it runs alone rather than never.
        assert too_many.status_code == 200


async def test_deadline_gives_504_and_aborts_the_engine_request(make_app) -> None:
    slow = FakeEngine(token_delay=0.2)
    slow.responder = lambda prompt, options: "word " * 50
    async with running(make_app(slow)) as client:
        response = await client.post("/v1/chat/completions", json={**CHAT, "timeout": 0.3})
        assert response.status_code == 504
        assert response.json()["error"]["code"] == "request_timeout"
        await eventually(lambda: not slow.unfinished)


async def test_a_deadline_passing_mid_stream_ends_it_with_a_timeout_event(make_app) -> None:
    slow = FakeEngine(token_delay=0.1)
    slow.responder = lambda prompt, options: "word " * 50
    async with running(make_app(slow)) as client:
        for path, body in (("/v1/chat/completions", CHAT), ("/translate", TRANSLATE)):
            response = await client.post(path, json={**body, "stream": True, "timeout": 0.45})
            assert response.status_code == 200  # the first tokens came in time
            events = [e[6:] for e in response.text.split("\n\n") if e]
            assert len(events) > 2 and events[-1] != "[DONE]"
            assert json.loads(events[-1])["error"]["code"] == "request_timeout"
            await eventually(lambda: not slow.unfinished)
        assert client.app.state.services.admission.in_flight == 0


class StallingEngine(FakeEngine):
    """Sends its first output, then nothing: the deadline must fire while the stream waits."""

    async def generate(self, prompt_token_ids, options, request_id):  # type: ignore[override]
        async for output in super().generate(prompt_token_ids, options, request_id):
            yield output
            await asyncio.sleep(60)


async def test_a_deadline_passing_while_a_stream_waits_ends_it(make_app) -> None:
    stalling = StallingEngine()
    async with running(make_app(stalling)) as client:
        async with asyncio.timeout(10):  # a stream left waiting would fail here, not hang
            response = await client.post(
                "/v1/chat/completions", json={**CHAT, "stream": True, "timeout": 0.3}
            )
        events = [e[6:] for e in response.text.split("\n\n") if e]
        assert json.loads(events[-1])["error"]["code"] == "request_timeout"
        await eventually(lambda: not stalling.unfinished)


async def test_server_request_timeout_applies_to_a_hung_engine(make_app) -> None:
    hung = FakeEngine()
    hung.hang = True
    async with running(make_app(hung, request_timeout=0.2)) as client:
        response = await client.post("/translate", json={**TRANSLATE, "timeout": 30})
        assert response.status_code == 504
        stream = await client.post("/v1/chat/completions", json={**CHAT, "stream": True})
        assert stream.status_code == 504
        assert hung.unfinished == set()


async def test_engine_death_mid_stream_ends_with_an_error_event(make_app) -> None:
    dying = FakeEngine()
    dying.fail_after_tokens = 1
    async with running(make_app(dying)) as client:
        response = await client.post("/v1/chat/completions", json={**CHAT, "stream": True})
        assert response.status_code == 200
        events = [e[6:] for e in response.text.split("\n\n") if e]
        assert events[-1] != "[DONE]"
        error = json.loads(events[-1])["error"]
        assert (error["type"], error["code"]) == ("server_error", "engine_failed")
        # Non-streaming: the same failure is a 502 (the engine had the request: not a 503,
        # which a load balancer would replay elsewhere).
        dying.alive, dying.fail_after_tokens = True, 1
        failed = await client.post("/v1/chat/completions", json=CHAT)
        assert failed.status_code == 502
        assert failed.json()["error"]["code"] == "engine_failed"
        # Once it is known dead, nothing reaches it: a 503, safe to retry elsewhere.
        refused = await client.post("/v1/chat/completions", json=CHAT)
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "engine_unavailable"


async def test_stream_failing_before_the_first_token_is_a_plain_error(make_app) -> None:
    dying = FakeEngine()
    dying.fail_after_tokens = 0
    async with running(make_app(dying)) as client:
        response = await client.post("/v1/chat/completions", json={**CHAT, "stream": True})
        # The engine had the request when it failed: 502, not a retryable 503.
        assert response.status_code == 502
        assert response.json()["error"]["code"] == "engine_failed"
        # Capacity was given back.
        assert client.app.state.services.admission.in_flight == 0


async def test_draining_refuses_new_work(client: AppClient) -> None:
    client.app.state.services.admission.draining = True
    health = await client.get("/health")
    assert health.status_code == 503
    assert (await client.get("/health/live")).status_code == 200
    refused = await client.post("/translate", json=TRANSLATE)
    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "shutting_down"


async def test_client_leaving_aborts_its_engine_requests(make_app) -> None:
    slow = FakeEngine(token_delay=0.05)
    slow.responder = lambda prompt, options: "word " * 200
    app = make_app(slow)
    async with running(app):
        await call_and_leave(
            app, "/translate", {**TRANSLATE, "text": ["a " * 100, "b " * 100]}, 0.2
        )
        await call_and_leave(app, "/v1/chat/completions", CHAT, 0.2)
        await call_and_leave(app, "/v1/chat/completions", {**CHAT, "stream": True}, 0.2)
        await eventually(lambda: not slow.unfinished)
        await eventually(lambda: app.state.services.admission.in_flight == 0)
        assert len(slow.requests) == 4

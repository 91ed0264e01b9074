"""An engine that stays up but fails every request is reported by the health routes (503
`engine_failing` past --engine-failure-threshold), so that Compose or Kubernetes restart the
server; a success clears it, and requests that end for their client's sake never count."""

from __future__ import annotations

import asyncio

from translate_server.inference.engine import EngineRejectedError

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, call_and_leave, eventually, running

TRANSLATE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}
CHAT = {"messages": [{"role": "user", "content": "hi there"}]}
HEALTH = ("/health", "/health/live")


async def _statuses(client: AppClient) -> list[int]:
    return [(await client.get(path)).status_code for path in HEALTH]


async def _failures(client: AppClient) -> float:
    metrics = (await client.get("/metrics")).text
    line = next(
        line for line in metrics.splitlines() if line.startswith("translate_engine_consecutive_")
    )
    return float(line.split()[-1])


async def test_every_surface_counts_and_past_the_threshold_health_is_503(make_app) -> None:
    failing = FakeEngine()
    failing.fail_every_request = True
    async with running(make_app(failing, engine_failure_threshold=4)) as client:
        # One failed engine request from each surface: all pass through the one counter.
        calls = [
            ("/translate", TRANSLATE),
            ("/v1/chat/completions", CHAT),
            ("/v1/chat/completions", {**CHAT, "stream": True}),
            ("/v2/translate", {"text": ["Good morning"], "target_lang": "DE"}),
        ]
        for number, (path, body) in enumerate(calls, 1):
            assert await _statuses(client) == [200, 200]  # not before the threshold
            response = await client.post(path, json=body)
            assert response.status_code >= 500, response.text
            assert await _failures(client) == number
        for path in HEALTH:
            response = await client.get(path)
            assert response.status_code == 503
            error = response.json()["error"]
            assert (error["type"], error["code"]) == ("service_unavailable_error", "engine_failing")
            assert "failed its last 4 requests" in error["message"]
        ready = await client.get("/health/ready")
        assert ready.status_code == 503
        assert ready.json()["error"]["code"] == "engine_failing"
        # Still served meanwhile: the next real success is what shows a recovery.
        assert failing.alive


async def test_one_success_brings_health_back(make_app) -> None:
    recovering = FakeEngine()
    recovering.fail_every_request = True
    async with running(make_app(recovering, engine_failure_threshold=2)) as client:
        for _ in range(3):
            assert (await client.post("/translate", json=TRANSLATE)).status_code == 502
        assert await _statuses(client) == [503, 503]
        recovering.fail_every_request = False
        assert (await client.post("/translate", json=TRANSLATE)).status_code == 200
        assert await _statuses(client) == [200, 200]
        assert (await client.get("/health/ready")).json()["engine"] == "ok"
        assert await _failures(client) == 0
        # A success between failures starts the count again.
        recovering.fail_every_request = True
        assert (await client.post("/v1/chat/completions", json=CHAT)).status_code == 502
        assert await _statuses(client) == [200, 200]


class RefusingEngine(FakeEngine):
    """Refuses every request as the client's mistake (a JSON schema the engine cannot
    compile): a 400, never the engine's failure."""

    async def generate(self, prompt_token_ids, options, request_id, trace_headers=None):  # type: ignore[override]
        raise EngineRejectedError("The schema cannot be compiled.", param="response_format")
        yield  # an async generator, as the protocol's


async def test_requests_ended_for_their_client_never_count(make_app) -> None:
    hung = FakeEngine()
    hung.hang = True
    async with running(make_app(hung, engine_failure_threshold=1)) as client:
        # Past its deadline (the engine had it), and a client that left while it ran.
        timed_out = await client.post("/translate", json={**TRANSLATE, "timeout": 0.2})
        assert timed_out.status_code == 504
        await asyncio.wait_for(call_and_leave(client.app, "/translate", TRANSLATE, 0.2), 10)
        await eventually(lambda: not hung.unfinished)
        # Refused before the engine: a malformed body, a prompt longer than the model takes.
        assert (await client.post("/translate", json={"text": 1})).status_code == 400
        too_long = {"messages": [{"role": "user", "content": "word " * 3000}]}
        assert (await client.post("/v1/chat/completions", json=too_long)).status_code == 400
        assert await _statuses(client) == [200, 200]
        assert await _failures(client) == 0
    refusing = RefusingEngine()
    async with running(make_app(refusing, engine_failure_threshold=1)) as client:
        assert (await client.post("/v1/chat/completions", json=CHAT)).status_code == 400
        assert await _statuses(client) == [200, 200]


async def test_client_mistakes_between_failures_neither_count_nor_clear(make_app) -> None:
    failing = FakeEngine()
    failing.fail_every_request = True
    async with running(make_app(failing, engine_failure_threshold=2)) as client:
        assert (await client.post("/translate", json=TRANSLATE)).status_code == 502
        assert (await client.post("/translate", json={"text": 1})).status_code == 400
        assert await _statuses(client) == [200, 200]
        assert (await client.post("/translate", json=TRANSLATE)).status_code == 502
        assert await _statuses(client) == [503, 503]

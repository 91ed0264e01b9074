"""The load generator against a tiny in-process aiohttp server speaking both APIs."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from translate_server.bench import build_parser
from translate_server.loadgen.cli import _sweep
from translate_server.loadgen.client import (
    Target,
    arrival_times,
    discover_model,
    run_closed_loop,
    run_level,
)
from translate_server.loadgen.workload import WorkloadSpec, make_workload

ITEMS = make_workload(WorkloadSpec(kind="variable", size=16, seed=0))


class FakeServer:
    """Answers /translate and /v1/chat/completions; records bodies and peak concurrency."""

    def __init__(
        self, delay: float = 0.0, fail_every: int = 0, sse: bool = True, stall: float = 0.0
    ) -> None:
        self.sse = sse  # False: /translate answers streaming requests with one JSON body
        self.stall = stall  # chat streams pause this long before their last token
        self.delay = delay
        self.fail_every = fail_every
        self.bodies: list[dict] = []
        self.in_flight = 0
        self.peak = 0

    async def _enter(self, request: web.Request) -> dict:
        body = await request.json()
        self.bodies.append(body)
        body["_nth"] = len(self.bodies)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(self.delay)
        self.in_flight -= 1
        return body

    async def translate(self, request: web.Request) -> web.StreamResponse:
        body = await self._enter(request)
        if self.fail_every and body["_nth"] % self.fail_every == 0:
            return web.json_response({"error": {"message": "busy"}}, status=503)
        usage = {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12}
        if body.get("stream") and self.sse:
            response = web.StreamResponse(headers={"content-type": "text/event-stream"})
            await response.prepare(request)
            for word in ("Hallo", " Welt"):
                await response.write(f"data: {json.dumps({'delta': word})}\n\n".encode())
            await response.write(f"data: {json.dumps({'usage': usage})}\n\n".encode())
            await response.write(b"data: [DONE]\n\n")
            return response
        return web.json_response(
            {
                "translation": "Hallo Welt",
                "source_lang": body["source_lang"],
                "target_lang": body["target_lang"],
                "model": "m",
                "usage": usage,
            }
        )

    async def chat(self, request: web.Request) -> web.StreamResponse:
        body = await self._enter(request)
        usage = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}
        if not body.get("stream"):
            return web.json_response(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "a b c"},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": usage,
                }
            )
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
        chunks += [{"choices": [{"index": 0, "delta": {"content": t}}]} for t in ("a", " b", " c")]
        if body.get("stream_options", {}).get("include_usage"):
            chunks.append({"choices": [], "usage": usage})
        for chunk in chunks:
            if chunk["choices"] and chunk["choices"][0]["delta"].get("content") == " c":
                await asyncio.sleep(self.stall)
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        return response

    async def models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "tiny", "object": "model"}]})


@pytest.fixture
async def serve() -> AsyncIterator:
    runners = []

    async def start(server: FakeServer) -> str:
        app = web.Application()
        app.router.add_post("/translate", server.translate)
        app.router.add_post("/v1/chat/completions", server.chat)
        app.router.add_get("/v1/models", server.models)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = runner.addresses[0][1]
        return f"http://127.0.0.1:{port}"

    yield start
    for runner in runners:
        await runner.cleanup()


async def test_closed_loop_translate_counts_usage_and_holds_concurrency(serve) -> None:
    server = FakeServer(delay=0.02)
    base = await serve(server)
    stats = await run_level(Target(base, "translate"), ITEMS, concurrency=4, requests=20)
    assert (stats.requests, stats.ok, stats.errors) == (20, 20, 0)
    assert stats.output_tokens == 100 and stats.prompt_tokens == 140
    assert server.peak == 4
    assert stats.ttft_ms is None
    # Items are sent in order, cycling through the workload.
    assert [b["text"] for b in server.bodies] == [ITEMS[i % 16].text for i in range(20)]
    assert server.bodies[0]["max_tokens"] == ITEMS[0].max_tokens
    assert "stream" not in server.bodies[0]


async def test_streaming_chat_measures_ttft_from_content_and_usage_from_last_chunk(serve) -> None:
    server = FakeServer()
    base = await serve(server)
    model = await discover_model(base)
    assert model == "tiny"
    target = Target(base, "chat", model=model, stream=True)
    results, elapsed = await run_closed_loop(target, ITEMS, concurrency=2, requests=6)
    assert elapsed > 0 and all(r.ok and r.usage_reported for r in results)
    assert all(r.output_tokens == 3 and r.prompt_tokens == 9 for r in results)
    assert all(r.ttft_s is not None and 0 < r.ttft_s <= r.latency_s for r in results)
    body = server.bodies[0]
    assert body["model"] == "tiny" and body["temperature"] == 0.0
    assert body["stream_options"] == {"include_usage": True}
    assert (
        body["messages"][-1]["role"] == "user" and ITEMS[0].text in body["messages"][-1]["content"]
    )


async def test_streams_measure_the_gaps_between_their_tokens(serve) -> None:
    base = await serve(FakeServer(stall=0.05))
    target = Target(base, "chat", model="tiny", stream=True)
    results, _ = await run_closed_loop(target, ITEMS, concurrency=2, requests=4)
    # Three content chunks, so two gaps (the role-only first chunk is not content). When each
    # arrives is the client's reading time, which a loaded machine delays: a starved client
    # reads two chunks at once and sees a gap of nothing. What holds whatever the load is
    # causal: the last content cannot be read before the server sends it, the stall after the
    # request began.
    assert all(len(r.token_gaps_s) == 2 and min(r.token_gaps_s) >= 0 for r in results)
    assert all(r.ttft_s is not None and r.ttft_s + sum(r.token_gaps_s) >= 0.05 for r in results)
    stats = await run_level(target, ITEMS, concurrency=2, requests=4)
    assert stats.itl_ms is not None
    assert stats.itl_ms["max"] >= stats.itl_ms["p99"] >= stats.itl_ms["p50"] >= 0
    non_streamed = await run_level(
        Target(base, "chat", model="tiny"), ITEMS, concurrency=1, requests=2
    )
    assert non_streamed.itl_ms is None


async def test_stream_without_usage_counts_chunks(serve) -> None:
    base = await serve(FakeServer())
    target = Target(base, "translate", stream=True)
    stats = await run_level(target, ITEMS, concurrency=1, requests=3)
    assert stats.ok == 3 and stats.ttft_ms is not None
    assert stats.output_tokens == 15  # usage event present on /translate here


async def test_a_json_answer_to_a_streaming_request_still_counts_usage(serve) -> None:
    base = await serve(FakeServer(sse=False))
    stats = await run_level(
        Target(base, "translate", stream=True), ITEMS, concurrency=1, requests=2
    )
    assert stats.ok == 2 and stats.output_tokens == 10 and stats.ttft_ms is None


async def test_errors_are_results_not_exceptions(serve) -> None:
    base = await serve(FakeServer(fail_every=2))
    stats = await run_level(Target(base, "translate"), ITEMS, concurrency=2, requests=10)
    assert stats.errors == 5 and stats.ok == 5
    assert stats.error_kinds == {"HTTP 503": 5}
    # Nobody listening: connection errors, still results.
    refused = await run_level(
        Target("http://127.0.0.1:9", "translate", timeout_s=2), ITEMS, concurrency=1, requests=2
    )
    assert refused.errors == 2 and refused.ok == 0


async def test_open_loop_sends_on_schedule_without_waiting_for_responses(serve) -> None:
    server = FakeServer(delay=0.2)
    base = await serve(server)
    stats = await run_level(
        Target(base, "translate"), ITEMS, rate=50.0, requests=10, arrival="constant"
    )
    assert stats.ok == 10 and stats.mode == "open"
    # 10 requests 20 ms apart, each taking 200 ms: several overlap.
    assert server.peak >= 5
    assert stats.extra["achieved_rate"] > 0


async def test_a_sweep_sends_no_text_twice_until_the_workload_is_spent(serve) -> None:
    # A repeated prompt would be answered from the engine's prefix cache, flattering the
    # levels that come later in a sweep.
    server = FakeServer()
    url = await serve(server)
    args = build_parser().parse_args(
        [
            "run",
            "--base-url",
            url,
            "--api",
            "translate",
            "--concurrency",
            "1,2",
            "--requests",
            "6",
            "--warmup",
            "2",
            "--workload-size",
            "16",
            "--no-progress",
        ]
    )
    await _sweep(args, Target(url, "translate"), ITEMS)
    texts = [body["text"] for body in server.bodies]
    assert sorted(texts[:2]) == sorted(item.text for item in ITEMS[-2:])  # warm-up: the end
    assert sorted(texts[2:]) == sorted(item.text for item in ITEMS[:12])


def test_arrival_schedules() -> None:
    assert arrival_times(4.0, 4, arrival="constant") == [0.0, 0.25, 0.5, 0.75]
    poisson = arrival_times(10.0, 2000, seed=1)
    assert poisson == arrival_times(10.0, 2000, seed=1)
    assert poisson[0] == 0.0 and all(b > a for a, b in itertools.pairwise(poisson))
    assert 180 < poisson[-1] < 220  # mean gap 0.1 s
    with pytest.raises(ValueError, match="rate must be positive"):
        arrival_times(0, 3)


def test_exact_output_asks_chat_to_ignore_the_end_and_refuses_translate() -> None:
    exact = make_workload(
        WorkloadSpec(kind="uniform", size=2, fixed_output_tokens=64, exact_output=True)
    )
    body = Target("http://x", "chat", model="m").body(exact[0])
    assert body["ignore_eos"] is True and body["max_tokens"] == 64
    assert "stop" not in body  # a stop string would end the answer early too
    plain = Target("http://x", "chat", model="m").body(ITEMS[0])
    assert "ignore_eos" not in plain and plain["stop"]
    with pytest.raises(ValueError, match="chat API"):
        Target("http://x", "translate").body(exact[0])

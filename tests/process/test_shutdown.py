"""The server process: SIGTERM drains without losing an accepted request; a dead engine makes
the process exit non-zero so its supervisor restarts it."""

from __future__ import annotations

import asyncio
import re
import signal

import httpx
import pytest

from tests.support.harness import read_until, start_fake_server

TRANSLATE = {"text": "hello", "source_lang": "en", "target_lang": "de", "max_tokens": 50}


async def in_flight(client: httpx.AsyncClient, route: str) -> int:
    """The server's count of requests being answered on `route`, from its metrics."""
    text = (await client.get("/metrics")).text
    found = re.search(
        rf'^translate_requests_in_flight{{route="{re.escape(route)}"}} (\S+)$', text, re.MULTILINE
    )
    return int(float(found.group(1))) if found else 0


async def health_status(client: httpx.AsyncClient) -> int:
    return (await client.get("/health")).status_code


async def test_sigterm_lets_accepted_requests_finish() -> None:
    process, base = start_fake_server("0.05")  # 20 tokens x 50 ms: about a second per request
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            # Each its own text: identical requests in flight would share one run.
            accepted = [
                asyncio.create_task(
                    client.post("/translate", json={**TRANSLATE, "text": f"Request {i}."})
                )
                for i in range(8)
            ]
            await read_until(
                lambda: in_flight(client, "/translate"), lambda n: n == 8, timeout=20, every=0.02
            )
            process.send_signal(signal.SIGTERM)
            await read_until(
                lambda: health_status(client), lambda status: status == 503, timeout=20, every=0.02
            )
            late = await client.post("/translate", json=TRANSLATE)
            assert late.status_code == 503
            assert late.json()["error"]["code"] == "shutting_down"
            answers = await asyncio.gather(*accepted)
        assert [a.status_code for a in answers] == [200] * 8
        assert all(a.json()["usage"]["completion_tokens"] == 20 for a in answers)
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()


async def test_draining_keeps_refusing_until_requests_stop_coming() -> None:
    """A load balancer sends requests until its health check sees the drain: each must be
    refused (a 503 it retries elsewhere), never met by a closed socket."""
    process, base = start_fake_server()
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            process.send_signal(signal.SIGTERM)
            codes = []
            for _ in range(15):  # 3 s, well past the quiet period the drain waits for
                response = await client.post("/translate", json=TRANSLATE)
                codes.append(response.json()["error"]["code"])
                await asyncio.sleep(0.2)
            assert process.poll() is None
        assert codes == ["shutting_down"] * 15
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()


@pytest.mark.parametrize("streaming", [False, True])
async def test_engine_death_fails_requests_and_exits_non_zero(streaming: bool) -> None:
    process, base = start_fake_server("0.05", "5")
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            response = await client.post(
                "/v1/chat/completions",
                json={"messages": [{"role": "user", "content": "hi"}], "stream": streaming},
            )
        if streaming:
            assert response.status_code == 200
            assert '"error"' in response.text.strip().split("\n\n")[-1]
        else:
            # It reached the engine before the engine died: 502, which no router replays.
            assert response.status_code == 502
        assert process.wait(timeout=20) == 1
    finally:
        process.kill()

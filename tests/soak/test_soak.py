"""A bounded soak over the engine double: thousands of mixed requests at high concurrency,
with clients that give up, invalid bodies and overload. Every accepted request must get
exactly one complete answer, nothing may be left running, and memory must stay flat."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
from collections import Counter, deque

import httpx
import psutil

from tests.support.fakes import FakeEngine
from tests.support.harness import call_and_leave, eventually, running

REQUESTS = int(os.environ.get("SOAK_REQUESTS", "5000"))
CONCURRENCY = 64
# Resident memory may grow by at most this much over the whole run (after a warm-up).
RSS_GROWTH_LIMIT_MB = 25

TRANSLATE = {"source_lang": "en", "target_lang": "de"}
SENTENCE = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog",
    "again",
    "and",
    "again",
]


def translate_body(rng: random.Random) -> dict:
    if rng.random() < 0.2:
        texts = [" ".join(rng.choices(SENTENCE, k=rng.randint(1, 12))) for _ in range(3)]
        return {**TRANSLATE, "text": texts}
    return {**TRANSLATE, "text": " ".join(rng.choices(SENTENCE, k=rng.randint(1, 30)))}


def chat_body(rng: random.Random, stream: bool) -> dict:
    words = " ".join(rng.choices(SENTENCE, k=rng.randint(1, 20)))
    return {
        "messages": [{"role": "user", "content": words}],
        "stream": stream,
        "max_tokens": rng.randint(1, 40),
        "stream_options": {"include_usage": True},
    }


def check_answer(kind: str, response: httpx.Response, body: dict) -> str:
    """The outcome of one request, after checking that its answer is complete."""
    status = response.status_code
    if status == 503:
        error = response.json()["error"]
        assert error["code"] == "overloaded" and "retry-after" in response.headers
        return "overloaded"
    if kind == "invalid":
        assert 400 <= status < 500 and "error" in response.json(), response.text
        return "invalid"
    assert status == 200, (kind, status, response.text)
    if kind == "translate":
        answer = response.json()
        texts = body["text"] if isinstance(body["text"], list) else [body["text"]]
        got = answer["translations"] if isinstance(body["text"], list) else [answer["translation"]]
        assert got == [t.upper() for t in texts]
    elif kind == "chat":
        answer = response.json()
        assert answer["choices"][0]["message"]["content"].startswith("echo:")
        assert answer["usage"]["completion_tokens"] <= body["max_tokens"]
    else:
        events = [e[6:] for e in response.text.split("\n\n") if e]
        assert events[-1] == "[DONE]", events[-3:]
        usage = json.loads(events[-2])["usage"]
        assert 0 < usage["completion_tokens"] <= body["max_tokens"]
    return "ok"


async def test_soak(make_app) -> None:
    engine = FakeEngine(token_delay=0.001)
    engine.requests = deque(maxlen=100)  # type: ignore[assignment]  # a soak keeps no history
    # Capacity a little under the clients' concurrency: overload comes and goes.
    app = make_app(engine, max_num_seqs=16, max_queued_requests=40)
    rng = random.Random(1234)
    outcomes: Counter[str] = Counter()
    process = psutil.Process()
    refusal_seconds: list[float] = []

    async with running(app) as client:
        semaphore = asyncio.Semaphore(CONCURRENCY)

        async def one(i: int) -> None:
            roll = rng.random()
            async with semaphore:
                if roll < 0.08:
                    path = "/translate" if roll < 0.04 else "/v1/chat/completions"
                    body = translate_body(rng) if roll < 0.04 else chat_body(rng, roll < 0.06)
                    await call_and_leave(app, path, body, rng.uniform(0, 0.01))
                    outcomes["left"] += 1
                    return
                if roll < 0.15:
                    kind, path = "invalid", rng.choice(["/translate", "/v1/chat/completions"])
                    body = rng.choice(
                        [
                            {"text": ""},
                            {"messages": []},
                            {"text": 5},
                            {**TRANSLATE, "text": "x", "target_lang": "xx"},
                        ]
                    )
                elif roll < 0.55:
                    kind, path, body = "translate", "/translate", translate_body(rng)
                elif roll < 0.8:
                    kind, path, body = "chat", "/v1/chat/completions", chat_body(rng, False)
                else:
                    kind, path, body = "stream", "/v1/chat/completions", chat_body(rng, True)
                response = await client.post(path, json=body)
                outcome = check_answer(kind, response, body)
                if outcome == "overloaded":
                    refusal_seconds.append(response.elapsed.total_seconds())
                outcomes[outcome] += 1
                if outcome == "overloaded":
                    # As a polite client does: back off before the next request.
                    await asyncio.sleep(rng.uniform(0.02, 0.1))

        warm_up = 500
        await asyncio.gather(*(one(i) for i in range(warm_up)))
        gc.collect()
        rss_before = process.memory_info().rss
        await asyncio.gather(*(one(i) for i in range(REQUESTS)))
        gc.collect()
        rss_after = process.memory_info().rss

        # Clients that left are answered by now; what they held is given back soon after.
        await eventually(lambda: app.state.services.admission.in_flight == 0)
        await eventually(lambda: engine.unfinished == set())
        metrics = (await client.get("/metrics")).text

    growth_mb = (rss_after - rss_before) / 2**20
    print(
        f"\nsoak: {REQUESTS} requests (+{warm_up} warm-up) at concurrency {CONCURRENCY}: "
        f"{dict(outcomes)}; RSS {rss_before / 2**20:.0f} -> {rss_after / 2**20:.0f} MiB; "
        f"overload answers p50 {_percentile(refusal_seconds, 50) * 1000:.1f} ms, "
        f"p99 {_percentile(refusal_seconds, 99) * 1000:.1f} ms (in-process client included)"
    )
    assert sum(outcomes.values()) == REQUESTS + warm_up
    assert outcomes["ok"] > REQUESTS // 2
    assert outcomes["overloaded"] > 0 and outcomes["left"] > 0 and outcomes["invalid"] > 0
    assert 'status="500"' not in metrics
    assert growth_mb < RSS_GROWTH_LIMIT_MB


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))]

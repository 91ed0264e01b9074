"""Async load generation against `/translate` or any OpenAI-compatible `/v1/chat/completions`.

Closed loop: `concurrency` workers, each sending its next request as soon as the previous one
finished. Open loop: requests start on a seeded Poisson (or evenly spaced) schedule whatever
the server's state, and latency is measured from the moment a request was due, so a server (or
a client pool) that falls behind shows up as latency rather than hiding it.

Output tokens come from the response's `usage`; a stream without usage falls back to counting
content chunks (marked `usage_reported=False`). One aiohttp connection pool per level, bounded.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import aiohttp
import msgspec

from translate_server.loadgen.chat_prompt import default_messages, default_stop
from translate_server.loadgen.stats import LevelStats, RequestResult, summarize
from translate_server.loadgen.workload import WorkItem

Api = Literal["translate", "chat"]
APIS: tuple[str, ...] = ("translate", "chat")

_encode = msgspec.json.encode
_decode = msgspec.json.decode

ProgressHook = Callable[[RequestResult], None]


@dataclass(frozen=True, slots=True)
class Target:
    base_url: str
    api: Api = "translate"
    model: str | None = None  # required by chat servers; looked up from /v1/models when None
    stream: bool = False
    timeout_s: float = 600.0
    temperature: float = 0.0  # chat only: greedy, like a translation service
    messages: Callable[[str, str, str], list[dict[str, str]]] = default_messages
    stop: Callable[[str], list[str]] = default_stop

    @property
    def path(self) -> str:
        return "/translate" if self.api == "translate" else "/v1/chat/completions"

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + self.path

    def body(self, item: WorkItem) -> dict[str, Any]:
        if self.api == "translate":
            if item.exact_output:
                raise ValueError(
                    "/translate has no way to ignore the end of an answer: "
                    "exact-length output is for the chat API"
                )
            body: dict[str, Any] = {
                "text": item.text,
                "source_lang": item.source_lang,
                "target_lang": item.target_lang,
                "max_tokens": item.max_tokens,
            }
            if self.stream:
                body["stream"] = True
            return body
        body = {
            "model": self.model,
            "messages": self.messages(item.text, item.source_lang, item.target_lang),
            "max_tokens": item.max_tokens,
            "temperature": self.temperature,
        }
        if item.exact_output:
            body["ignore_eos"] = True  # a vLLM extension, which this service also accepts
        elif stop := self.stop(item.text):
            body["stop"] = stop
        if self.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body


async def discover_model(base_url: str, timeout_s: float = 10.0) -> str:
    """The first model id that `GET /v1/models` lists."""
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(base_url.rstrip("/") + "/v1/models") as response,
    ):
        response.raise_for_status()
        payload = _decode(await response.read())
    return payload["data"][0]["id"]


def _usage(payload: Any) -> tuple[int, int] | None:
    if isinstance(payload, dict):
        usage = payload.get("usage")
        if isinstance(usage, dict) and "completion_tokens" in usage:
            return int(usage.get("prompt_tokens") or 0), int(usage["completion_tokens"] or 0)
    return None


def _has_content(payload: Any) -> bool:
    """Whether a stream event carries generated text (OpenAI chunk or a /translate event)."""
    if not isinstance(payload, dict):
        return False
    choices = payload.get("choices")
    if isinstance(choices, list):
        for choice in choices:
            if isinstance(choice, dict):
                delta = choice.get("delta") or {}
                if (isinstance(delta, dict) and delta.get("content")) or choice.get("text"):
                    return True
        return False
    for key in ("delta", "text", "translation", "content"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return True
    return False


async def _read_stream(response: aiohttp.ClientResponse, result: RequestResult) -> None:
    chunks = 0
    async for raw in response.content:
        line = raw.strip()
        if not line.startswith(b"data:"):
            continue
        data = line[5:].strip()
        if data == b"[DONE]":
            break
        payload = _decode(data)
        if isinstance(payload, dict) and "error" in payload:
            result.ok = False
            result.error = f"stream error: {str(payload['error'])[:200]}"
            return
        if _has_content(payload):
            chunks += 1
            result.content_arrived(time.perf_counter())
        usage = _usage(payload)
        if usage is not None:
            result.prompt_tokens, result.output_tokens = usage
            result.usage_reported = True
    if not result.usage_reported:
        result.output_tokens = chunks


def encode_bodies(target: Target, items: Sequence[WorkItem]) -> list[bytes]:
    """Request bodies, encoded once before a run so the client spends its time sending."""
    return [_encode(target.body(item)) for item in items]


async def send_one(
    session: aiohttp.ClientSession,
    target: Target,
    body: bytes,
    start: float | None = None,
) -> RequestResult:
    """Send one encoded request body; never raises (failures are results).
    `start` (a perf_counter() value) defaults to now."""
    if start is None:
        start = time.perf_counter()
    result = RequestResult(ok=False, status=0, start=start, latency_s=0.0)
    try:
        async with session.post(
            target.url,
            data=body,
            headers={"content-type": "application/json"},
        ) as response:
            result.status = response.status
            if response.status >= 400:
                text = (await response.read())[:200].decode("utf-8", "replace")
                result.error = f"HTTP {response.status}: {text}"
            elif target.stream and response.content_type == "text/event-stream":
                result.ok = True
                await _read_stream(response, result)
            else:
                # Also a server that answers a streaming request in one JSON body (a route
                # without streaming): no time to first token then, but the usage counts.
                payload = _decode(await response.read())
                usage = _usage(payload)
                if usage is not None:
                    result.prompt_tokens, result.output_tokens = usage
                    result.usage_reported = True
                result.ok = True
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - a failed request is a measurement, not a crash
        result.ok = False
        result.error = f"{type(exc).__name__}: {exc}"[:200]
    result.latency_s = time.perf_counter() - start
    return result


def _session(limit: int, timeout_s: float) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(limit=limit, limit_per_host=limit, ttl_dns_cache=300)
    return aiohttp.ClientSession(
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=timeout_s),
        # The benchmark reads bodies itself; no cookies, no automatic decompression needed.
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,
    )


async def run_closed_loop(
    target: Target,
    items: Sequence[WorkItem],
    *,
    concurrency: int,
    requests: int,
    on_result: ProgressHook | None = None,
) -> tuple[list[RequestResult], float]:
    """`requests` requests over `concurrency` workers; items are taken in order (cycling).
    Returns the results and the wall time from the first send to the last response."""
    if concurrency < 1 or requests < 1:
        raise ValueError("concurrency and requests must be at least 1")
    bodies = encode_bodies(target, items)
    results: list[RequestResult] = []
    next_index = 0

    async with _session(concurrency, target.timeout_s) as session:

        async def worker() -> None:
            nonlocal next_index
            while next_index < requests:
                body = bodies[next_index % len(bodies)]
                next_index += 1
                result = await send_one(session, target, body)
                results.append(result)
                if on_result is not None:
                    on_result(result)

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(min(concurrency, requests))))
        elapsed = time.perf_counter() - began
    return results, elapsed


def arrival_times(
    rate: float, requests: int, *, seed: int = 0, arrival: str = "poisson"
) -> list[float]:
    """Offsets (seconds from the start) at which an open-loop run sends each request."""
    if rate <= 0:
        raise ValueError("rate must be positive")
    if arrival == "constant":
        return [i / rate for i in range(requests)]
    if arrival != "poisson":
        raise ValueError("arrival must be 'poisson' or 'constant'")
    rng = random.Random(seed)
    offsets, now = [], 0.0
    for _ in range(requests):
        offsets.append(now)
        now += rng.expovariate(rate)
    return offsets


async def run_open_loop(
    target: Target,
    items: Sequence[WorkItem],
    *,
    rate: float,
    requests: int,
    seed: int = 0,
    arrival: str = "poisson",
    max_connections: int = 512,
    on_result: ProgressHook | None = None,
) -> tuple[list[RequestResult], float]:
    """Send `requests` requests at `rate` per second whatever the responses do."""
    offsets = arrival_times(rate, requests, seed=seed, arrival=arrival)
    bodies = encode_bodies(target, items)
    results: list[RequestResult] = []

    async with _session(max_connections, target.timeout_s) as session:

        async def fire(body: bytes, due: float) -> None:
            result = await send_one(session, target, body, start=due)
            results.append(result)
            if on_result is not None:
                on_result(result)

        began = time.perf_counter()
        tasks = []
        for i, offset in enumerate(offsets):
            due = began + offset
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(fire(bodies[i % len(bodies)], due)))
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - began
    return results, elapsed


async def run_level(
    target: Target,
    items: Sequence[WorkItem],
    *,
    concurrency: int | None = None,
    rate: float | None = None,
    requests: int,
    seed: int = 0,
    arrival: str = "poisson",
    max_connections: int = 512,
    on_result: ProgressHook | None = None,
) -> LevelStats:
    """One sweep level, closed loop (`concurrency`) or open loop (`rate`), summarized."""
    if (concurrency is None) == (rate is None):
        raise ValueError("give exactly one of concurrency and rate")
    if concurrency is not None:
        results, elapsed = await run_closed_loop(
            target, items, concurrency=concurrency, requests=requests, on_result=on_result
        )
        return summarize(results, mode="closed", concurrency=concurrency, duration_s=elapsed)
    assert rate is not None
    results, elapsed = await run_open_loop(
        target,
        items,
        rate=rate,
        requests=requests,
        seed=seed,
        arrival=arrival,
        max_connections=max_connections,
        on_result=on_result,
    )
    stats = summarize(results, mode="open", rate=rate, duration_s=elapsed)
    stats.extra["achieved_rate"] = len(results) / elapsed if elapsed > 0 else 0.0
    return stats

"""A batch's wall time on a running server, with or without interactive traffic alongside.

    PYTHONPATH=src python benchmarks/batch_wall_time.py --url http://127.0.0.1:8000 \
        [--lines 1000] [--endpoint /translate|/v1/chat/completions] [--interactive 4]

Uploads `--lines` requests (short sentences to translate into German, or chat messages) with
the official `openai` SDK, creates the batch and polls it every 0.2 s until it ends; prints the
time from create to end, lines per second and the request counts. With `--interactive R`, R
/translate requests per second go out while the batch runs (open loop), and their p50/p95
latency is printed beside the same requests' on the idle server (measured first).

The server is any: `translate-server serve` on a real model, or the engine double
(`python -m tests.support.fake_server PORT [token_delay]` from the root).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import httpx
import openai

from translate_server.loadgen.stats import percentile

SENTENCE = "Line {i}: the invoice for order {i} was sent to the customer this morning."


def _requests(lines: int, endpoint: str) -> bytes:
    def body(i: int) -> dict[str, object]:
        if endpoint == "/translate":
            return {"text": SENTENCE.format(i=i), "source_lang": "en", "target_lang": "de"}
        messages = [{"role": "user", "content": f"Translate into German: {SENTENCE.format(i=i)}"}]
        return {"messages": messages, "max_tokens": 64}

    return "".join(
        json.dumps({"custom_id": f"line-{i}", "method": "POST", "url": endpoint, "body": body(i)})
        + "\n"
        for i in range(lines)
    ).encode()


async def _interactive(url: str, rate: float, stop: asyncio.Event) -> list[float]:
    """Latencies (s) of /translate requests sent `rate` per second until `stop`."""
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:

        async def one(i: int) -> None:
            started = time.perf_counter()
            body = {"text": SENTENCE.format(i=i), "source_lang": "en", "target_lang": "fr"}
            response = await client.post("/translate", json=body)
            response.raise_for_status()
            latencies.append(time.perf_counter() - started)

        tasks, i = [], 0
        while not stop.is_set():
            tasks.append(asyncio.create_task(one(i)))
            i += 1
            await asyncio.sleep(1 / rate)
        await asyncio.gather(*tasks)
    return latencies


def _shown(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    return (
        f"p50 {percentile(ordered, 50) * 1000:.0f} ms, p95 {percentile(ordered, 95) * 1000:.0f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--endpoint", default="/translate")
    parser.add_argument("--interactive", type=float, default=0.0, help="requests per second")
    parser.add_argument("--api-key", default="unused")
    args = parser.parse_args()
    api = openai.AsyncOpenAI(base_url=f"{args.url}/v1", api_key=args.api_key, max_retries=0)
    if args.interactive:
        idle_stop = asyncio.Event()
        asyncio.get_running_loop().call_later(10, idle_stop.set)
        print(
            "interactive, idle server:",
            _shown(await _interactive(args.url, args.interactive, idle_stop)),
        )
    uploaded = await api.files.create(
        file=("batch.jsonl", _requests(args.lines, args.endpoint)), purpose="batch"
    )
    stop = asyncio.Event()
    alongside = (
        asyncio.create_task(_interactive(args.url, args.interactive, stop))
        if args.interactive
        else None
    )
    started = time.perf_counter()
    batch = await api.batches.create(
        input_file_id=uploaded.id,
        endpoint=args.endpoint,
        completion_window="24h",  # type: ignore[arg-type]
    )
    while batch.status not in ("completed", "failed", "cancelled", "expired"):
        await asyncio.sleep(0.2)
        batch = await api.batches.retrieve(batch.id)
    seconds = time.perf_counter() - started
    stop.set()
    print(
        f"{args.lines} lines ({args.endpoint}): {batch.status} in {seconds:.1f} s, "
        f"{args.lines / seconds:.0f} lines/s; counts {batch.request_counts}"
    )
    if alongside is not None:
        print("interactive, during the batch:", _shown(await alongside))


if __name__ == "__main__":
    asyncio.run(main())

"""Do interactive requests stay fast while a long document translates?

    PYTHONPATH=src python benchmarks/document_fairness.py [--segments 3000] [--requests 60]
        [--rate 4] [--policy priority|fcfs] [--document-share 0.5] [--model DIR]

Short /translate requests go out at a steady `--rate` per second (open loop: each on its own
schedule, whatever the others' fate), half of them streamed (time to first token: the first
event with text), half not (latency). First on an idle server, then while a document of
`--segments` paragraphs translates through POST /translate/document. Prints p50/p95 of both,
the loaded/idle ratios (goal: p95 within 1.5x), and the document's progress and completion.

The engine is the batching double (`batching_engine.py`: slots, priority queue, a step time that
grows with the batch; `--policy fcfs` shows what priority scheduling buys), or the real vLLM
engine with `--model DIR` (a prepared model directory; on a CPU this is slow).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))  # the checkout: `tests.support`

from translate_server.app import create_app
from translate_server.loadgen.stats import percentile
from translate_server.server.logging_setup import configure_logging
from translate_server.settings import load_settings

from batching_engine import BatchingEngine
from tests.support.harness import served


async def short_request(client: httpx.AsyncClient, index: int, stream: bool) -> float:
    """Seconds to the answer, or to the first text of a stream."""
    body = {
        "text": f"Request {index}: the meeting moved to Thursday afternoon.",
        "source_lang": "en",
        "target_lang": "de",
        "stream": stream,
    }
    started = time.perf_counter()
    if not stream:
        response = await client.post("/translate", json=body)
        response.raise_for_status()
        return time.perf_counter() - started
    async with client.stream("POST", "/translate", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if (
                line.startswith("data: ")
                and line != "data: [DONE]"
                and json.loads(line[6:]).get("delta")
            ):
                return time.perf_counter() - started
    return time.perf_counter() - started


async def interactive_phase(
    client: httpx.AsyncClient, count: int, rate: float, offset: int
) -> tuple[list[float], list[float], list[float]]:
    """Latencies, times to first token, and the event loop's lateness meanwhile (how much of
    the figures is this process or machine stalling rather than the engine's queue)."""

    async def one(i: int) -> tuple[bool, float]:
        await asyncio.sleep(i / rate)
        stream = i % 2 == 1
        return stream, await short_request(client, offset + i, stream)

    lateness: list[float] = []

    async def tick() -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(TICK_S)
            lateness.append(time.perf_counter() - started - TICK_S)

    ticker = asyncio.create_task(tick())
    results = await asyncio.gather(*(one(i) for i in range(count)))
    ticker.cancel()
    return (
        [s for stream, s in results if not stream],
        [s for stream, s in results if stream],
        lateness,
    )


TICK_S = 0.01


def figures(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return percentile(ordered, 50) * 1000, percentile(ordered, 95) * 1000


async def main(args: argparse.Namespace) -> None:
    configure_logging("console", "warning")
    directory = tempfile.mkdtemp(prefix="fairness-")
    overrides = {
        "served_model_name": "bench",
        "document_dir": directory,
        "translation_cache_size": 0,
        "max_num_seqs": args.max_num_seqs,
        "document_share": args.document_share,
        "log_level": "warning",
        "max_document_chars": 10_000_000,
    }
    if args.model:
        from translate_server.inference.engine.vllm_engine import create_vllm_engine

        settings = load_settings({**overrides, "model": args.model}, environ={})

        def factory():
            return create_vllm_engine(settings.engine)

        engine_name = f"vLLM ({args.model})"
    else:
        settings = load_settings(overrides, environ={})

        def factory():
            return BatchingEngine(
                max_num_seqs=args.max_num_seqs,
                policy=args.policy,
                step_s=args.step_ms / 1000,
                per_seq_s=args.per_seq_ms / 1000,
            )

        engine_name = (
            f"batching double ({args.policy}, step {args.step_ms} ms + {args.per_seq_ms} ms/seq)"
        )
    app = create_app(settings, factory)
    async with served(app) as url, httpx.AsyncClient(base_url=url, timeout=600) as client:
        await interactive_phase(client, 4, args.rate, 10_000)  # warm-up
        idle = await interactive_phase(client, args.requests, args.rate, 0)
        document = "".join(
            f"Paragraph {i}: the quarterly figures were discussed at length by the committee.\n\n"
            for i in range(args.segments)
        ).encode()
        submitted = (
            await client.post(
                "/translate/document",
                files={"file": ("long.txt", document)},
                data={"target_lang": "de", "source_lang": "en"},
            )
        ).json()
        status_url = submitted["status_url"]
        started = time.perf_counter()
        while (await client.get(status_url)).json()["segments_done"] == 0:
            await asyncio.sleep(0.05)
        loaded = await interactive_phase(client, args.requests, args.rate, 1_000)
        during = (await client.get(status_url)).json()
        while (status := (await client.get(status_url)).json())["status"] not in ("done", "error"):
            await asyncio.sleep(0.2)
        document_s = time.perf_counter() - started

    load = os.getloadavg()
    print(
        f"engine: {engine_name}; max_num_seqs {args.max_num_seqs}, document share "
        f"{args.document_share}; {args.requests} short requests at {args.rate}/s per phase; "
        f"load average {load[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print()
    print(
        "| measure | idle p50 ms | idle p95 ms | with document p50 ms | with document p95 ms "
        "| p50 ratio | p95 ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, before, after in (
        ("latency (/translate)", idle[0], loaded[0]),
        ("time to first token (stream)", idle[1], loaded[1]),
        ("event-loop lateness (10 ms ticker)", idle[2], loaded[2]),
    ):
        (b50, b95), (a50, a95) = figures(before), figures(after)
        print(
            f"| {name} | {b50:.1f} | {b95:.1f} | {a50:.1f} | {a95:.1f} "
            f"| {a50 / max(b50, 1e-3):.2f} | {a95 / max(b95, 1e-3):.2f} |"
        )
    print()
    print(
        f"document: {args.segments} segments, {status['status']} in {document_s:.1f} s "
        f"({args.segments / document_s:.0f} segments/s); "
        f"{during['segments_done']} done when the loaded phase ended"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=3000)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--rate", type=float, default=4.0, help="short requests per second")
    parser.add_argument("--max-num-seqs", type=int, default=16)
    parser.add_argument("--document-share", type=float, default=0.5)
    parser.add_argument(
        "--policy",
        choices=("priority", "fcfs"),
        default="priority",
        help="the double's queue order",
    )
    parser.add_argument("--step-ms", type=float, default=15.0, help="the double's step time")
    parser.add_argument(
        "--per-seq-ms",
        type=float,
        default=0.5,
        help="the double's extra step time per running sequence",
    )
    parser.add_argument("--model", help="a prepared model directory: the real vLLM engine")
    asyncio.run(main(parser.parse_args()))

"""What `--cpu-placement` buys and costs, on the real CPU engine, side by side in one run.

    flock /tmp/engine.lock python benchmarks/cpu_placement.py [--bursts 4] [--repeat 1]

For each policy (`shared`, `split`) a server is started on the tiny test model with
`--max-num-seqs 2 --max-queued-requests 2`; then, `--bursts` times, 40 long streamed chat
requests arrive at once: 4 are admitted (2 run, 2 wait), the rest are refused (503: the queue
is full).
Meanwhile another connection asks `/health/live` every 10 ms. Per burst: the refusals' time
to their answer (p50/p99/max, client side), `/health/live`'s answer time (p99/max), the
admitted streams' time to first token (p50/max) and the output tokens/s of the burst (the
admitted streams' tokens over the burst's wall time: the throughput the placement costs).

The machine's other load moves every figure: run it where nothing else runs, or repeat it
(`--repeat 2` runs the arms as shared, split, shared, split) and report every burst.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.compare_processes import Server, free_port  # noqa: E402

REQUESTS = 40
MAX_TOKENS = 200
HEALTH_EVERY_S = 0.01


@dataclass
class Burst:
    refusals: list[float] = field(default_factory=list)
    ttfts: list[float] = field(default_factory=list)
    health: list[float] = field(default_factory=list)
    tokens: int = 0
    wall: float = 0.0
    other: dict[int, int] = field(default_factory=dict)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def one_request(client: httpx.AsyncClient, burst: Burst, index: int) -> None:
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": f"Translate a long story, part {index}."}],
        "max_tokens": MAX_TOKENS,
        "ignore_eos": True,
        "temperature": 1.0,
        "seed": index,
        "stream": True,
    }
    began = time.perf_counter()
    async with client.stream("POST", "/v1/chat/completions", json=body) as response:
        if response.status_code != 200:
            await response.aread()
            elapsed = time.perf_counter() - began
            if response.status_code in (429, 503):
                burst.refusals.append(elapsed)
            else:
                burst.other[response.status_code] = burst.other.get(response.status_code, 0) + 1
            return
        first = True
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if first and chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
                burst.ttfts.append(time.perf_counter() - began)
                first = False
        burst.tokens += MAX_TOKENS


async def poll_health(client: httpx.AsyncClient, burst: Burst, stop: asyncio.Event) -> None:
    while not stop.is_set():
        began = time.perf_counter()
        await client.get("/health/live")
        burst.health.append(time.perf_counter() - began)
        await asyncio.sleep(HEALTH_EVERY_S)


async def run_burst(base_url: str) -> Burst:
    burst = Burst()
    limits = httpx.Limits(max_connections=REQUESTS, max_keepalive_connections=REQUESTS)
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=120, limits=limits) as client,
        httpx.AsyncClient(base_url=base_url, timeout=30) as health_client,
    ):
        await health_client.get("/health/live")
        stop = asyncio.Event()
        poller = asyncio.create_task(poll_health(health_client, burst, stop))
        began = time.perf_counter()
        await asyncio.gather(*(one_request(client, burst, i) for i in range(REQUESTS)))
        burst.wall = time.perf_counter() - began
        stop.set()
        await poller
    return burst


def start_server(policy: str, model: Path, logs: Path) -> Server:
    port = free_port()
    command = [
        sys.executable, "-m", "translate_server.cli", "serve",
        "--model", str(model), "--served-model-name", "tiny", "--max-model-len", "512",
        "--max-num-seqs", "2", "--max-queued-requests", "2", "--no-quality-guard",
        "--log-level", "warning", "--cpu-placement", policy, "--port", str(port),
    ]  # fmt: skip
    server = Server(command, port, logs / f"server-{policy}-{port}.log")
    server.start(timeout_s=240)
    return server


def row(policy: str, number: int, burst: Burst) -> str:
    ms = 1000.0
    other = " ".join(f"{status}x{count}" for status, count in sorted(burst.other.items()))
    return (
        f"| {policy} | {number} | {len(burst.refusals)} | {pct(burst.refusals, 0.5) * ms:.0f} | "
        f"{pct(burst.refusals, 0.99) * ms:.0f} | {max(burst.refusals, default=0) * ms:.0f} | "
        f"{pct(burst.health, 0.99) * ms:.0f} | {max(burst.health, default=0) * ms:.0f} | "
        f"{pct(burst.ttfts, 0.5) * ms:.0f} | {max(burst.ttfts, default=0) * ms:.0f} | "
        f"{burst.tokens / burst.wall:.0f} | {other} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bursts", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--policies", nargs="+", default=["shared", "split"])
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.support.tiny_model import tiny_model_dir

    model = tiny_model_dir(ROOT / ".cache" / "test-models")
    logs = Path(tempfile.mkdtemp(prefix="cpu-placement-"))
    rows: list[str] = []
    summary: dict[str, list[Burst]] = {policy: [] for policy in args.policies}
    for _ in range(args.repeat):
        for policy in args.policies:
            server = start_server(policy, model, logs)
            try:
                asyncio.run(run_burst(server.base_url))  # warm-up, not reported
                for number in range(1, args.bursts + 1):
                    burst = asyncio.run(run_burst(server.base_url))
                    summary[policy].append(burst)
                    rows.append(row(policy, number, burst))
                    print(rows[-1], flush=True)
            finally:
                server.stop()
    print(f"\n{REQUESTS} streamed chat requests x {MAX_TOKENS} tokens at once, tiny model, ")
    print("--max-num-seqs 2 --max-queued-requests 2; times in ms, client side; logs in", logs)
    print(
        "| policy | burst | refused | refusal p50 | refusal p99 | refusal max | live p99 | "
        "live max | TTFT p50 | TTFT max | tokens/s | other |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\nAll bursts together:")
    print("| policy | refusal p99 | live p99 | TTFT p50 | tokens/s (median of bursts) |")
    print("|---|---|---|---|---|")
    for policy, bursts in summary.items():
        refusals = [r for b in bursts for r in b.refusals]
        health = [h for b in bursts for h in b.health]
        ttfts = [t for b in bursts for t in b.ttfts]
        rate = statistics.median(b.tokens / b.wall for b in bursts)
        print(
            f"| {policy} | {pct(refusals, 0.99) * 1000:.0f} | {pct(health, 0.99) * 1000:.0f} | "
            f"{pct(ttfts, 0.5) * 1000:.0f} | {rate:.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What vLLM's priority scheduling costs requests that all have the same priority: the same
interactive load through the real engine under `scheduling_policy="fcfs"` and `"priority"`.

    PYTHONPATH=src python benchmarks/priority_policy.py --model DIR [--rounds 3]
        [--concurrency 8] [--requests 48] [--max-tokens 32]

Closed loop, `--concurrency` requests at a time, each a translation prompt of the service's
shape with exactly `--max-tokens` tokens (`ignore_eos`), streamed. Each policy gets its own
engine, both started at once; their rounds alternate (fcfs, priority, fcfs, ...), so a shared,
busy machine's load falls on both alike. Figures over all rounds but the warm-up: output tokens
per second, p50/p95 latency and time to first token.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import time
from typing import Any

from translate_server.inference.engine import SamplingOptions, vllm_engine
from translate_server.loadgen.stats import percentile
from translate_server.settings import load_settings

_ids = itertools.count()


async def one(engine: Any, prompt: list[int], max_tokens: int) -> tuple[float, float]:
    options = SamplingOptions(max_tokens=max_tokens, temperature=0.0, ignore_eos=True)
    started = time.perf_counter()
    first = None
    async for _ in engine.generate(prompt, options, f"bench-{next(_ids)}"):
        first = first or time.perf_counter()
    return time.perf_counter() - started, (first or time.perf_counter()) - started


def start_engine(policy: str, args: argparse.Namespace) -> Any:
    original = vllm_engine.engine_args_kwargs
    vllm_engine.engine_args_kwargs = lambda *a: {**original(*a), "scheduling_policy": policy}
    try:
        settings = load_settings(
            {"model": args.model, "max_num_seqs": args.concurrency, "max_model_len": 512},
            environ={},
        )
        return vllm_engine.create_vllm_engine(settings.engine)
    finally:
        vllm_engine.engine_args_kwargs = original


async def run_round(engine: Any, args: argparse.Namespace) -> tuple[float, list]:
    prompt = engine.tokenize_chat(
        [
            {
                "role": "user",
                "content": (
                    "Translate the text from English to German.\n<source>\nThe meeting moved to "
                    "Thursday afternoon.\n</source>"
                ),
            }
        ]
    )
    queue = list(range(args.requests))
    got: list[tuple[float, float]] = []

    async def worker() -> None:
        while queue:
            queue.pop()
            got.append(await one(engine, prompt, args.max_tokens))

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    return time.perf_counter() - started, got


def summary(elapsed: float, results: list, args: argparse.Namespace) -> dict[str, float]:
    latency = sorted(r[0] for r in results)
    ttft = sorted(r[1] for r in results)
    return {
        "tokens_per_s": len(results) * args.max_tokens / elapsed,
        "latency_p50": percentile(latency, 50) * 1000,
        "latency_p95": percentile(latency, 95) * 1000,
        "ttft_p50": percentile(ttft, 50) * 1000,
        "ttft_p95": percentile(ttft, 95) * 1000,
    }


async def main(args: argparse.Namespace) -> None:
    engines = {policy: start_engine(policy, args) for policy in ("fcfs", "priority")}
    elapsed = dict.fromkeys(engines, 0.0)
    results: dict[str, list] = {policy: [] for policy in engines}
    loads = []
    try:
        for round_ in range(args.rounds + 1):  # the first is a warm-up
            for policy, engine in engines.items():
                loads.append(os.getloadavg()[0])
                seconds, got = await run_round(engine, args)
                if round_:
                    elapsed[policy] += seconds
                    results[policy] += got
    finally:
        for engine in engines.values():
            engine.shutdown()
    rows = {policy: summary(elapsed[policy], results[policy], args) for policy in engines}
    print(
        f"model {args.model}; {args.rounds} rounds x {args.requests} requests, concurrency "
        f"{args.concurrency}, {args.max_tokens} tokens each; load average "
        f"{statistics.mean(loads):.1f} on {os.cpu_count()} CPUs"
    )
    print()
    print(
        "| policy | output tokens/s | latency p50 ms | latency p95 ms | TTFT p50 ms | TTFT p95 ms |"
    )
    print("|---|---|---|---|---|---|")
    for policy, row in rows.items():
        print(
            f"| {policy} | {row['tokens_per_s']:.0f} | {row['latency_p50']:.0f} "
            f"| {row['latency_p95']:.0f} | {row['ttft_p50']:.0f} | {row['ttft_p95']:.0f} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a model directory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--requests", type=int, default=48)
    parser.add_argument("--max-tokens", type=int, default=32)
    asyncio.run(main(parser.parse_args()))

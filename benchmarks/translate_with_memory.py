"""`/translate` with a translation memory, on each backend side by side: the latency clients
see through a real server process (the serving loop around the engine double, so the engine
costs nothing and the store's share shows), a memory of 10,000 entries in SQLite and in
PostgreSQL.

    PYTHONPATH=src python -m benchmarks.translate_with_memory [--entries 10000]
        [--requests 2000] [--concurrency 8] [--backends sqlite,postgresql]
        [--database-url postgresql://...]

Requests are one sentence each: a third the memory has exactly (answered from it, no engine),
a third with one word changed (a fuzzy match shown to the model), a third not in it. Prints,
per backend, requests per second and latency percentiles, and which matches were found.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

import httpx

from benchmarks.fake_servers import fake_servers, percentile, postgres_database
from benchmarks.memory_lookup import altered, sentences


async def _measure(url: str, sources: list[str], asked: list[str], concurrency: int) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        memory = (await client.post("/memories", json={"name": "bench"})).json()["id"]
        csv = "en,de\n" + "".join(f'"{s}","{s.upper()}"\n' for s in sources)
        imported = await client.post(
            f"/memories/{memory}/import", files={"file": ("m.csv", csv.encode())}
        )
        imported.raise_for_status()
        for text in asked[:20]:  # warm: connections, caches of the process
            await _one(client, memory, text)
        queue = list(asked)
        timings: list[float] = []
        kinds = {"exact": 0, "fuzzy": 0, "none": 0}

        async def worker() -> None:
            while queue:
                text = queue.pop()
                started = time.perf_counter()
                kind = await _one(client, memory, text)
                timings.append((time.perf_counter() - started) * 1000)
                kinds[kind] += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    timings.sort()
    return (
        f"{len(timings) / elapsed:,.0f} | {percentile(timings, 0.5):.1f} ms "
        f"| {percentile(timings, 0.9):.1f} ms | {percentile(timings, 0.99):.1f} ms "
        f"| {kinds['exact']} / {kinds['fuzzy']} / {kinds['none']}"
    )


async def _one(client: httpx.AsyncClient, memory: str, text: str) -> str:
    response = await client.post(
        "/translate",
        json={"text": text, "source_lang": "en", "target_lang": "de", "memory": memory},
    )
    response.raise_for_status()
    match = response.json().get("memory_match")
    return "none" if not match else "exact" if match.get("match") == "exact" else "fuzzy"


def run(args: argparse.Namespace) -> None:
    rng = random.Random(1)
    sources = sentences(args.entries, rng)
    picked = rng.sample(sources, args.requests)
    third = args.requests // 3
    asked = [
        *picked[:third],
        *(altered(s, rng) for s in picked[third : 2 * third]),
        *sentences(args.requests - 2 * third, random.Random(2)),
    ]
    rng.shuffle(asked)
    print(
        f"/translate with a memory of {args.entries:,} entries: {args.requests} requests, "
        f"{args.concurrency} at a time, through one server process (engine double)\n"
    )
    print("| backend | requests/s | p50 | p90 | p99 | exact / fuzzy / none |")
    print("|---|---|---|---|---|---|")
    for backend in args.backends.split(","):
        if backend == "sqlite":
            with fake_servers(1, database_url=None, env=_no_cache()) as (server,):
                row = asyncio.run(_measure(server.url, sources, asked, args.concurrency))
        else:
            with (
                postgres_database(args.database_url) as url,
                fake_servers(1, database_url=url, env=_no_cache()) as (server,),
            ):
                row = asyncio.run(_measure(server.url, sources, asked, args.concurrency))
        print(f"| {backend} | {row} |", flush=True)


def _no_cache() -> dict[str, str]:
    # Every request reaches the memory: repeated texts would be answered from the cache.
    return {"TRANSLATE_TRANSLATION_CACHE_SIZE": "0"}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.translate_with_memory")
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=2_000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--database-url", help="a PostgreSQL database to use (it is written to)")
    run(parser.parse_args())


if __name__ == "__main__":
    main()

"""Document throughput with one server and with two over one database: the same documents
submitted (spread over the servers), timed until every one is translated. Each server is a
real server process around the engine double, whose every token takes `--token-delay`
seconds: the engine's time is simulated, so what the figures compare is how the job queue,
claims and stores carry the work, and whether a second server (with an engine of its own, as a
second machine has) takes its share.

    PYTHONPATH=src python -m benchmarks.document_replicas [--documents 8] [--segments 100]
        [--token-delay 0.005] [--database-url postgresql://...]

Arms: one server on SQLite (the default), one on PostgreSQL, two on PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import time
from contextlib import ExitStack

import httpx

from benchmarks.fake_servers import fake_servers, postgres_database

SETTINGS = {
    "TRANSLATE_MAX_DOCUMENTS_PER_KEY": "1000",
    "TRANSLATE_TRANSLATION_CACHE_SIZE": "0",  # every segment reaches the engine
}


async def _throughput(urls: list[str], documents: int, segments: int) -> tuple[float, int]:
    """Seconds from the first submission until every document is done, and the segments."""
    async with httpx.AsyncClient(timeout=120) as client:
        started = time.perf_counter()
        jobs = []
        for index, url in zip(range(documents), itertools.cycle(urls), strict=False):
            text = "".join(f"Document {index}, paragraph {i}.\n\n" for i in range(segments))
            response = await client.post(
                f"{url}/translate/document",
                files={"file": (f"d{index}.txt", text.encode())},
                data={"target_lang": "de", "source_lang": "en"},
            )
            response.raise_for_status()
            jobs.append(response.json()["status_url"])
        for job in jobs:
            while (status := (await client.get(job)).json())["status"] != "done":
                assert status["status"] in ("queued", "translating"), status
                await asyncio.sleep(0.1)
        return time.perf_counter() - started, documents * segments


def run(args: argparse.Namespace) -> None:
    print(
        f"{args.documents} documents of {args.segments} segments, engine double at "
        f"{args.token_delay * 1000:g} ms a token\n"
    )
    print("| servers | database | seconds | documents/min | segments/s | speed-up |")
    print("|---|---|---|---|---|---|")
    first: float | None = None
    for count, backend in ((1, "sqlite"), (1, "postgresql"), (2, "postgresql")):
        with ExitStack() as stack:
            url = (
                stack.enter_context(postgres_database(args.database_url))
                if backend == "postgresql"
                else None
            )
            servers = stack.enter_context(
                fake_servers(count, database_url=url, token_delay=args.token_delay, env=SETTINGS)
            )
            seconds, done = asyncio.run(
                _throughput([s.url for s in servers], args.documents, args.segments)
            )
        first = first or seconds
        print(
            f"| {count} | {backend} | {seconds:.1f} | {args.documents / seconds * 60:.1f} "
            f"| {done / seconds:.0f} | {first / seconds:.2f}x |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.document_replicas")
    parser.add_argument("--documents", type=int, default=8)
    parser.add_argument("--segments", type=int, default=100)
    parser.add_argument("--token-delay", type=float, default=0.005)
    parser.add_argument("--database-url", help="a PostgreSQL database to use (it is written to)")
    run(parser.parse_args())


if __name__ == "__main__":
    main()

"""Translation memory at size, on each backend side by side: import time and lookup latency on
a memory of 100,000 entries, in SQLite and in PostgreSQL.

    PYTHONPATH=src python -m benchmarks.memory_lookup [--entries 100000] [--lookups 2000]
        [--backends sqlite,postgresql] [--database-url postgresql://...]

Sources are made-up sentences over a Zipf-distributed vocabulary of 20,000 words (as real
text is: a few words in most sentences, most words in few); lookups are a mix of exact
sources, sources with a word or two changed (fuzzy matches) and sentences not in the memory.
Prints, per backend, the import time (the entries merged into the store: the TMX file is read
once, before) and the lookup latency percentiles, each lookup one piece through the store's
`look_up` as /translate calls it. Without --database-url, PostgreSQL is a throwaway cluster
on a Unix socket (tests/support/postgres.py: Debian's `postgresql` package).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from translate_server.memory.entries import Entry
from translate_server.memory.formats import read_entries, write_tmx
from translate_server.memory.store import MemoryStore
from translate_server.storage.opening import migrated_database

from tests.support.postgres import throwaway_cluster


def sentences(count: int, rng: random.Random) -> list[str]:
    vocabulary = [
        f"w{i}" + "".join(rng.choice("aeioubcdfglmnprst") for _ in range(rng.randint(2, 8)))
        for i in range(20_000)
    ]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    made = []
    for _ in range(count):
        words = rng.choices(vocabulary, weights, k=rng.randint(4, 18))
        made.append(" ".join(words).capitalize() + ".")
    return made


def altered(sentence: str, rng: random.Random) -> str:
    words = sentence.split()
    words[rng.randrange(len(words))] = "changed"
    return " ".join(words)


async def run(entries: int, lookups: int, backends: list[str], url: str | None) -> None:
    rng = random.Random(1)
    sources = sentences(entries, rng)
    tmx = write_tmx([Entry(s, s.upper(), "en", "de") for s in sources])
    started = time.perf_counter()
    read = read_entries(tmx, "bench.tmx", None, None)
    print(
        f"TMX of {entries:,} entries ({len(tmx) / 2**20:.1f} MiB) read in "
        f"{time.perf_counter() - started:.2f} s (the same for both backends)"
    )
    asked = [
        rng.choice(sources)
        if i % 3 == 0
        else altered(rng.choice(sources), rng)
        if i % 3 == 1
        else sentences(1, rng)[0]
        for i in range(lookups)
    ]
    rows = []
    for backend in backends:
        with _location(backend, url) as where:
            rows.append(await _measure(backend, where, read, asked))
    print()
    print(
        f"| backend | import of {entries:,} entries | entries/s | lookup p50 | p90 | p99 | max "
        "| exact / fuzzy / none |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(row)


async def _measure(backend: str, where: str | Path, read: list[Entry], asked: list[str]) -> str:
    async with migrated_database(where, "memory") as database:
        store = MemoryStore(database)
        memory = await store.create("", "bench")
        started = time.perf_counter()
        await store.add("", memory.id, read, len(read) + 1)
        imported = time.perf_counter() - started
        timings, kinds = await _timed(store, memory.id, asked)
    timings.sort()
    q = statistics.quantiles(timings, n=100)
    return (
        f"| {backend} | {imported:.1f} s | {len(read) / imported:,.0f} | {q[49]:.2f} ms "
        f"| {q[89]:.2f} ms | {q[98]:.2f} ms | {timings[-1]:.2f} ms "
        f"| {kinds['exact']} / {kinds['fuzzy']} / {kinds['none']} |"
    )


async def _timed(
    store: MemoryStore, memory_id: str, texts: list[str]
) -> tuple[list[float], dict[str, int]]:
    """Each lookup timed on its own, through the store's `look_up` (as /translate calls it)."""
    out, kinds = [], {"exact": 0, "fuzzy": 0, "none": 0}
    for text in texts:
        started = time.perf_counter()
        found = await store.look_up("", memory_id, "en", "de", [text], 75)
        out.append((time.perf_counter() - started) * 1000)
        assert found is not None
        match = found[1][0]
        kinds["none" if match is None else "exact" if match.exact else "fuzzy"] += 1
    return out, kinds


@contextlib.contextmanager
def _location(backend: str, url: str | None) -> Iterator[str | Path]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield Path(folder) / "memories.sqlite3"
    elif url is not None:
        yield url
    else:
        with throwaway_cluster() as cluster:
            yield cluster.new_database()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memory_lookup")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--lookups", type=int, default=2_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--database-url", help="a PostgreSQL database to use (it is written to)")
    args = parser.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    asyncio.run(run(args.entries, args.lookups, backends, args.database_url))


if __name__ == "__main__":
    main()

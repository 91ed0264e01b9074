"""Translation memory at size: import time and lookup latency on a memory of 100,000 entries.

    PYTHONPATH=src python -m benchmarks.memory_lookup [--entries 100000] [--lookups 2000]

Sources are made-up sentences over a Zipf-distributed vocabulary of 20,000 words (as real
text is: a few words in most sentences, most words in few); lookups are a mix of exact
sources, sources with a word or two changed (fuzzy matches) and sentences not in the memory.
Prints the import time (the TMX file read, the entries merged into SQLite) and the lookup
latency percentiles, measured in the store's reader
thread as /translate uses it (one piece per lookup).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from translate_server.memory.entries import Entry
from translate_server.memory.formats import read_entries, write_tmx
from translate_server.memory.matching import best_match
from translate_server.memory.store import MemoryStore


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


async def run(entries: int, lookups: int) -> None:
    rng = random.Random(1)
    sources = sentences(entries, rng)
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore(Path(folder) / "memories.sqlite3")
        await store.open()
        memory = await store.create("", "bench")
        tmx = write_tmx([Entry(s, s.upper(), "en", "de") for s in sources])
        started = time.perf_counter()
        read = read_entries(tmx, "bench.tmx", None, None)
        parsed = time.perf_counter() - started
        started = time.perf_counter()
        await store.add("", memory.id, read, entries + 1)
        imported = time.perf_counter() - started
        print(
            f"TMX of {entries} entries ({len(tmx) / 2**20:.1f} MiB) read: {parsed:.2f} s; "
            f"merged into the memory: {imported:.2f} s ({entries / imported:,.0f} entries/s)"
        )
        asked = [
            rng.choice(sources)
            if i % 3 == 0
            else altered(rng.choice(sources), rng)
            if i % 3 == 1
            else sentences(1, rng)[0]
            for i in range(lookups)
        ]
        timings, kinds = await _timed(store, memory.id, asked)
        timings.sort()
        quantiles = statistics.quantiles(timings, n=100)
        print(
            f"{lookups} lookups (a third exact, fuzzy, absent): "
            f"p50 {quantiles[49]:.2f} ms, p90 {quantiles[89]:.2f} ms, "
            f"p99 {quantiles[98]:.2f} ms, max {timings[-1]:.2f} ms"
        )
        print(f"found: {kinds}")
        await store.close()


async def _timed(
    store: MemoryStore, memory_id: str, texts: list[str]
) -> tuple[list[float], dict[str, int]]:
    """Each lookup timed on its own, in the reader's thread (where /translate runs it)."""

    def work(connection):  # type: ignore[no-untyped-def]
        (memory,) = connection.execute(
            "SELECT id FROM memories WHERE public_id = ?", (memory_id,)
        ).fetchone()
        out, kinds = [], {"exact": 0, "fuzzy": 0, "none": 0}
        for text in texts:
            started = time.perf_counter()
            found = best_match(connection, (memory, "en", "de"), text, 75)
            out.append((time.perf_counter() - started) * 1000)
            kinds["none" if found is None else "exact" if found.exact else "fuzzy"] += 1
        return out, kinds

    return await store._reader.run(work)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memory_lookup")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--lookups", type=int, default=2_000)
    args = parser.parse_args()
    asyncio.run(run(args.entries, args.lookups))


if __name__ == "__main__":
    main()

"""Fuzzy candidates from the database's own trigram index, against the word index the memory
store keeps (`memory_words`/`memory_postings`, `memory.matching`): PostgreSQL's `pg_trgm`
(a GIN index, `key % text` at a tuned `pg_trgm.similarity_threshold`) and SQLite FTS5's
`trigram` tokenizer (the text's trigrams OR-ed, ranked by bm25), on the same memory and the
same lookups as `benchmarks.memory_lookup`.

    PYTHONPATH=src:. python -m benchmarks.trigram_candidates [--entries 100000] [--lookups 600]
        [--thresholds 0.3,0.4,0.5]

Each way's candidates are scored by rapidfuzz as the store scores its own (`fuzz.ratio` of the
match keys, cut at 75); the table gives each way's latency per lookup (candidates and
scoring, as one lookup pays them) and how many lookups found a different best score than the
store's own lookup (`store.look_up`) did: fewer matches found (a miss) or better ones.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
from rapidfuzz import fuzz, process

from benchmarks.memory_lookup import altered, sentences
from translate_server.memory.entries import Entry, match_key
from translate_server.memory.store import MemoryStore
from translate_server.storage.opening import migrated_database

from tests.support.postgres import throwaway_cluster

THRESHOLD = 75.0
CANDIDATES = 300


def _best(key: str, rows: list[tuple[str]]) -> float | None:
    found = process.extractOne(key, [r[0] for r in rows], scorer=fuzz.ratio, score_cutoff=THRESHOLD)
    return None if found is None else round(found[1], 1)


def _timed(asked: list[str], lookup: Callable[[str], float | None]) -> tuple[list[float], list]:
    times, scores = [], []
    for text in asked:
        started = time.perf_counter()
        scores.append(lookup(match_key(text)))
        times.append((time.perf_counter() - started) * 1000)
    return times, scores


def _row(name: str, times: list[float], scores: list, reference: list) -> str:
    q = statistics.quantiles(sorted(times), n=100) if len(times) > 1 else times * 99
    missed = sum(1 for s, r in zip(scores, reference, strict=True) if (s or 0) < (r or 0))
    better = sum(1 for s, r in zip(scores, reference, strict=True) if (s or 0) > (r or 0))
    return f"| {name} | {q[49]:.2f} ms | {q[98]:.2f} ms | {missed} | {better} |"


async def _reference(keys: list[str], asked: list[str]) -> tuple[list[float], list]:
    """The store's own lookups (the word index), on SQLite: the matches to keep."""
    with tempfile.TemporaryDirectory() as folder:
        async with migrated_database(Path(folder) / "m.sqlite3", "memory") as database:
            store = MemoryStore(database)
            memory = await store.create("", "bench")
            await store.add("", memory.id, [Entry(k, k, "en", "de") for k in keys], len(keys) + 1)
            times, scores = [], []
            for text in asked:
                started = time.perf_counter()
                found = await store.look_up("", memory.id, "en", "de", [text], THRESHOLD)
                times.append((time.perf_counter() - started) * 1000)
                assert found is not None
                match = found[1][0]
                scores.append(None if match is None else match.score)
            return times, scores


def _fts5(keys: list[str], asked: list[str]) -> tuple[list[float], list]:
    with tempfile.TemporaryDirectory() as folder:
        db = sqlite3.connect(Path(folder) / "fts.sqlite3")
        db.execute("CREATE VIRTUAL TABLE keys USING fts5(key, tokenize='trigram')")
        db.executemany("INSERT INTO keys (key) VALUES (?)", [(k,) for k in keys])
        db.commit()

        def lookup(key: str) -> float | None:
            grams = {key[i : i + 3].lower() for i in range(len(key) - 2)}
            grams = {g for g in grams if '"' not in g}
            if not grams:
                return None
            query = " OR ".join(f'"{g}"' for g in grams)
            rows = db.execute(
                "SELECT key FROM keys WHERE keys MATCH ? ORDER BY bm25(keys) LIMIT ?",
                (query, CANDIDATES),
            ).fetchall()
            return _best(key, rows)

        return _timed(asked, lookup)


def _pg_trgm(url: str, keys: list[str], asked: list[str], threshold: float):
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        db.execute("CREATE TABLE keys (id serial PRIMARY KEY, memory int, key text)")
        with db.cursor().copy("COPY keys (memory, key) FROM STDIN") as copying:
            for k in keys:
                copying.write_row((1, k))
        db.execute("CREATE INDEX keys_trgm ON keys USING gin (key gin_trgm_ops)")
        db.execute("ANALYZE keys")
        db.execute(f"SET pg_trgm.similarity_threshold = {threshold}")

        def lookup(key: str) -> float | None:
            rows = db.execute(
                "SELECT key FROM keys WHERE memory = 1 AND key %% %s "
                "ORDER BY similarity(key, %s) DESC LIMIT %s",
                (key, key, CANDIDATES),
                prepare=True,
            ).fetchall()
            return _best(key, rows)

        return _timed(asked, lookup)


async def run(entries: int, lookups: int, thresholds: list[float], fts5_lookups: int) -> None:
    rng = random.Random(1)
    keys = [match_key(s) for s in sentences(entries, rng)]
    asked = [
        rng.choice(keys) if i % 3 == 0 else altered(rng.choice(keys), rng)
        if i % 3 == 1 else sentences(1, rng)[0]
        for i in range(lookups)
    ]  # fmt: skip
    ref_times, reference = await _reference(keys, asked)
    print(f"{entries:,} entries, {lookups:,} lookups")
    print("| candidates | p50 | p99 | lookups with a worse best match | with a better one |")
    print("|---|---|---|---|---|")
    print(_row("word index (today's), SQLite", ref_times, reference, reference))
    # An OR of a sentence's trigrams matches most of the memory: a few lookups tell.
    few = min(len(asked), fts5_lookups)
    print(_row(f"FTS5 trigram, SQLite ({few} lookups)", *_fts5(keys, asked[:few]), reference[:few]))
    with throwaway_cluster() as cluster:
        for threshold in thresholds:
            times, scores = _pg_trgm(cluster.new_database(), keys, asked, threshold)
            print(_row(f"pg_trgm GIN, threshold {threshold}", times, scores, reference))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trigram_candidates")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--lookups", type=int, default=600)
    parser.add_argument("--thresholds", default="0.3,0.5")
    parser.add_argument("--fts5-lookups", type=int, default=20)
    args = parser.parse_args()
    thresholds = [float(t) for t in args.thresholds.split(",")]
    asyncio.run(run(args.entries, args.lookups, thresholds, args.fts5_lookups))


if __name__ == "__main__":
    main()

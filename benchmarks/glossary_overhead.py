"""What a stored glossary of 10,000 entries costs a /translate request, side by side with the
same requests without one and with the same terms sent as the request's own, in one run.

    PYTHONPATH=src python -m benchmarks.glossary_overhead [--entries 10000] [--requests 1000]
        [--term-chars 40] [--database-url postgresql://...]

The app runs in-process over the engine double (answers at once: what is left is the
service's own work), its stores in SQLite files (or the PostgreSQL database given). A glossary
of `--entries` terms (one to three words of a Zipf vocabulary, the words of real text, at most
`--term-chars` long) is imported once from TBX; each request is a different sentence of about
25 words of the same vocabulary (so the cache never answers), sent three times in rotating
order: without a glossary, with the glossary's entries found in it as the request's own
`glossary` (the same prompt), and naming the stored glossary. Printed: the latency percentiles
of each arm, their differences at each percentile, the terms found per text, and what the
first request after an edit pays to rebuild the glossary's index.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from translate_server.app import create_app
from translate_server.glossaries.tbx import write_tbx
from translate_server.settings import load_settings
from translate_server.translation.planning.glossary import GlossaryIndex

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running


def vocabulary(rng: random.Random, size: int = 20_000) -> tuple[list[str], list[float]]:
    words = [
        "".join(rng.choice("aeioubcdfglmnprstvz") for _ in range(rng.randint(3, 9)))
        for _ in range(size)
    ]
    return words, [1 / (rank + 1) for rank in range(size)]


def glossary(
    count: int, term_chars: int, words: list[str], weights: list[float], rng: random.Random
) -> dict[str, str]:
    """Terms of one to three words past the commonest 200 (a terminology base holds no
    function words), at most `term_chars` long."""
    content, content_weights = words[200:], weights[200:]
    terms: dict[str, str] = {}
    while len(terms) < count:
        term = " ".join(rng.choices(content, content_weights, k=rng.randint(1, 3)))
        terms.setdefault(term[:term_chars].strip(), term.upper()[:term_chars].strip())
    return terms


def texts(count: int, words: list[str], weights: list[float], rng: random.Random) -> list[str]:
    return [" ".join(rng.choices(words, weights, k=25)).capitalize() + "." for _ in range(count)]


async def timed(client: AppClient, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    response = await client.post("/translate", json=body)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.text
    return elapsed, response.json()


def percentiles(values: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(values, n=100)
    return q[49], q[89], q[98]


async def run(entries: int, requests: int, term_chars: int, url: str | None) -> None:
    rng = random.Random(7)
    words, weights = vocabulary(rng)
    terms = glossary(entries, term_chars, words, weights, rng)
    sentences = texts(requests, words, weights, rng)
    with tempfile.TemporaryDirectory() as folder:
        app = _app(Path(folder), url)
        async with running(app) as client:
            glossary_id = await _import(client, terms)
            arms = await _measure(client, glossary_id, sentences, terms)
            rebuild = await _rebuild(client, glossary_id, sentences[0])
    _report(entries, term_chars, arms, rebuild)


def _app(folder: Path, url: str | None) -> Any:
    settings = load_settings(
        {
            "served_model_name": "fake-model",
            "document_dir": str(folder / "documents"),
            "glossary_db": str(folder / "glossaries.sqlite3"),
            "memory_db": str(folder / "memories.sqlite3"),
            "quality_guard": False,
            **({"database_url": url} if url else {}),
        },
        environ={},
    )
    engine = FakeEngine()
    return create_app(settings, lambda: engine)


async def _import(client: AppClient, terms: dict[str, str]) -> str:
    made = await client.post(
        "/glossaries", json={"name": "bench", "source_lang": "en", "target_lang": "de"}
    )
    glossary_id = str(made.json()["id"])
    started = time.perf_counter()
    imported = await client.post(
        f"/glossaries/{glossary_id}/tbx",
        files={"file": ("bench.tbx", write_tbx(terms, "en", "de"))},
        data={"source_lang": "en", "target_lang": "de"},
    )
    assert imported.status_code == 200, imported.text
    print(f"TBX of {len(terms):,} entries imported in {time.perf_counter() - started:.2f} s")
    return glossary_id


ARMS = ("none", "inline", "stored")


async def _measure(
    client: AppClient, glossary_id: str, sentences: list[str], terms: dict[str, str]
) -> dict[str, list[float]]:
    """Three arms per sentence, in rotating order: no glossary; the entries the glossary holds
    for it, sent as the request's own (the same prompt, no stored glossary); the stored
    glossary by id. Stored minus inline is what keeping the glossary costs; inline minus
    none, what its terms cost the prompt (the engine double reads and answers it)."""
    index = GlossaryIndex(terms)
    arms: dict[str, list[float]] = {arm: [] for arm in (*ARMS, "found")}
    base = {"source_lang": "en", "target_lang": "de"}
    # One request of each arm first: the first builds the glossary's index.
    await timed(client, {**base, "text": "Warm up.", "glossary_id": glossary_id})
    await timed(client, {**base, "text": "Warm up too."})
    for i, text in enumerate(sentences):
        found = index.entries_in(text)
        named = {"none": {}, "inline": {"glossary": found}, "stored": {"glossary_id": glossary_id}}
        for arm in ARMS[i % 3 :] + ARMS[: i % 3]:
            elapsed, body = await timed(client, {**base, "text": text, **named[arm]})
            arms[arm].append(elapsed)
            if arm == "stored":
                assert len(body["glossary_applied"]) == len(found)
        arms["found"].append(float(len(found)))
    return arms


async def _rebuild(client: AppClient, glossary_id: str, text: str) -> float:
    """The first request after an edit: the new revision's index is built."""
    entries = f"/glossaries/{glossary_id}/entries"
    (first,) = (await client.get(entries, params={"limit": 1})).json()["data"]
    edited = await client.patch(f"{entries}/{first['id']}", json={"target": "EDITED"})
    assert edited.status_code == 200, edited.text
    body = {
        "source_lang": "en",
        "target_lang": "de",
        "text": text + " Again.",
        "glossary_id": glossary_id,
    }
    elapsed, _ = await timed(client, body)
    return elapsed


def _report(entries: int, term_chars: int, arms: dict[str, list[float]], rebuild: float) -> None:
    none, inline, stored = (percentiles(arms[arm]) for arm in ARMS)
    print(
        f"\n{len(arms['none'])} requests per arm, in-process over the engine double; glossary "
        f"of {entries:,} entries (terms up to {term_chars} characters)\n"
    )
    print("| arm | p50 | p90 | p99 |")
    print("|---|---|---|---|")
    rows = [
        ("no glossary", none),
        ("the same terms as the request's own `glossary`", inline),
        ("the stored glossary by `glossary_id`", stored),
    ]
    for name, figures in rows:
        print(f"| {name} | " + " | ".join(f"{f:.2f} ms" for f in figures) + " |")
    kept = [b - a for a, b in zip(inline, stored, strict=True)]
    print(
        "| stored minus own: keeping 10,000 entries | "
        + " | ".join(f"{f:+.2f} ms" for f in kept)
        + " |"
    )
    total = [b - a for a, b in zip(none, stored, strict=True)]
    print("| stored minus none: all of it | " + " | ".join(f"{f:+.2f} ms" for f in total) + " |")
    found = arms["found"]
    print(
        f"\nterms found per text: mean {statistics.mean(found):.1f}, max {max(found):.0f} "
        "(only those reach the prompt)"
    )
    print(f"first request after an edit (index rebuilt): {rebuild:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.glossary_overhead")
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=1_000)
    parser.add_argument("--term-chars", type=int, default=40)
    parser.add_argument("--database-url", help="a PostgreSQL database to use (it is written to)")
    args = parser.parse_args()
    asyncio.run(run(args.entries, args.requests, args.term_chars, args.database_url))


if __name__ == "__main__":
    main()

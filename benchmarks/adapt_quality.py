"""An adapter's held-out split scored through a running server: the base model and the
adapter, each with and without a memory of the training pairs.

    translate-server serve --lora django-de=OUT --memory-db /tmp/m.sqlite3 &
    PYTHONPATH=src python -m benchmarks.adapt_quality --adapter django-de \\
        --source-lang en --target-lang de --max-pairs 280 --held-out 0.15 FILES...

Give the same files, languages, `--max-pairs`, `--held-out` and `--seed` as `translate-server
adapt` had: the split is then the same, so the held-out pairs were never trained on and never
enter the memory. `adapt` scores its base model with transformers' greedy decoding; this
scores every arm through /translate, as clients get it (the engine, the prompt with its
examples, the output cleaning and the quality guard), with the same chrF.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from translate_server.adapt.data import read_files, split
from translate_server.memory.entries import Entry
from translate_server.quality.scoring import corpus_chrf


def memory_csv(entries: Sequence[Entry], source: str, target: str) -> bytes:
    """The training pairs as the CSV `/memories/{id}/import` reads (a header of the tags)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([source, target])
    writer.writerows([entry.source, entry.target] for entry in entries)
    return buffer.getvalue().encode()


def match_counts(matches: Sequence[dict[str, Any] | None]) -> tuple[int, int]:
    """Texts answered from the memory exactly, and texts with fuzzy examples."""
    exact = sum(1 for match in matches if match and match.get("match") == "exact")
    fuzzy = sum(1 for match in matches if match and match.get("match") == "fuzzy")
    return exact, fuzzy


async def score(
    client: httpx.AsyncClient,
    held: Sequence[Entry],
    body: dict[str, Any],
    concurrency: int,
) -> dict[str, Any]:
    gate = asyncio.Semaphore(concurrency)

    async def one(entry: Entry) -> tuple[str, dict[str, Any] | None]:
        async with gate:
            response = await client.post("/translate", json={**body, "text": entry.source})
        answer = response.json()
        if response.status_code != 200:
            raise SystemExit(f"/translate answered {response.status_code}: {answer}")
        return answer["translation"], answer.get("memory_match")

    started = time.monotonic()
    answers = await asyncio.gather(*(one(entry) for entry in held))
    exact, fuzzy = match_counts([match for _, match in answers])
    return {
        "chrf": round(corpus_chrf([text for text, _ in answers], [e.target for e in held]), 2),
        "exact": exact,
        "fuzzy": fuzzy,
        "seconds": round(time.monotonic() - started, 1),
    }


async def run(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    entries = read_files(args.files, args.source_lang, args.target_lang)
    train, held = split(entries, args.held_out, args.seed, args.max_pairs)
    source, target = held[0].source_lang, held[0].target_lang
    async with httpx.AsyncClient(base_url=args.base_url, timeout=args.timeout) as client:
        base = (await client.get("/v1/models")).json()["data"][0]["id"]
        made = (await client.post("/memories", json={"name": "adapt-training-pairs"})).json()
        upload = {"file": ("train.csv", memory_csv(train, source, target), "text/csv")}
        imported = await client.post(f"/memories/{made['id']}/import", files=upload)
        imported.raise_for_status()
        results = {}
        try:
            for arm, model, memory in [
                ("base", base, None),
                ("base + memory", base, made["id"]),
                ("adapter", args.adapter, None),
                ("adapter + memory", args.adapter, made["id"]),
            ]:
                body: dict[str, Any] = {
                    "source_lang": source,
                    "target_lang": target,
                    "model": model,
                    "max_tokens": args.max_tokens,
                }
                if memory is not None:
                    body["memory"] = memory
                results[arm] = await score(client, held, body, args.concurrency)
        finally:
            await client.delete(f"/memories/{made['id']}")
    results["split"] = {"train": len(train), "held_out": len(held)}
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--adapter", required=True, help="the adapter's served name")
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--source-lang")
    parser.add_argument("--target-lang")
    parser.add_argument("--held-out", type=float, default=0.1)
    parser.add_argument("--max-pairs", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=900)
    results = asyncio.run(run(parser.parse_args(argv)))
    split_sizes = results.pop("split")
    print(f"held-out pairs: {split_sizes['held_out']} (memory: {split_sizes['train']})")
    print("| arm | chrF | exact | fuzzy | seconds |\n|---|---:|---:|---:|---:|")
    for arm, row in results.items():
        print(f"| {arm} | {row['chrf']} | {row['exact']} | {row['fuzzy']} | {row['seconds']} |")
    print(json.dumps(results))


if __name__ == "__main__":
    main()

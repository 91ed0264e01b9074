"""`bench quality --memory`: what a translation memory from the same project is worth.

Each pair's catalog is split: the test set's messages are held out, and every other message
of the catalogs, with its human translation, becomes a translation memory on the server
(POST /memories, then a TMX import). The test set is then translated through /translate
without the memory (`translate`) and with it (`memory`), and both are scored alike; this
module adds the memory's hit rates and how much faster an exact match is answered than a
translation the engine writes.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from typing import Any

import aiohttp
import msgspec

from translate_server.memory.entries import Entry
from translate_server.memory.formats import write_tmx
from translate_server.quality.client import Answer
from translate_server.quality.datasets import TestSet, memory_entries


def add_memory_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--memory",
        action="store_true",
        help="short set only: each pair's other catalog messages become a translation memory "
        "on the server; the test set is translated without it (api translate) and with it "
        "(api memory), with the memory's hit rates and exact-match latency",
    )
    parser.add_argument(
        "--memory-threshold",
        type=float,
        default=None,
        help="with --memory: the requests' memory_threshold (default: the server's, 75)",
    )


def check_memory_args(args: argparse.Namespace) -> None:
    """--memory runs the short set through `translate` and `memory`; `memory` needs it."""
    if getattr(args, "memory", False):
        if args.sets != ["short"]:
            raise SystemExit("--memory takes the short set (Django's catalogs) only")
        if "memory" not in args.api:
            args.api = ["translate", "memory"]
    elif "memory" in args.api:
        raise SystemExit("--api memory needs --memory")


async def make_memories(
    base_url: str, sets: Sequence[TestSet], api_key: str | None = None
) -> tuple[dict[tuple[str, str], str], dict[str, int]]:
    """A memory per pair of every entry its test set does not hold: ids by (source, target)
    language as the segments give them, and the entries each memory holds, by pair."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    ids: dict[tuple[str, str], str] = {}
    sizes: dict[str, int] = {}
    async with aiohttp.ClientSession(base_url.rstrip("/"), headers=headers) as session:
        for test_set in sets:
            first = test_set.segments[0]
            source, target = first.source_lang, first.target_lang
            pairs = memory_entries(test_set.pair, (s.id for s in test_set.segments))
            tmx = write_tmx([Entry(s, t, source, target) for s, t in pairs])
            async with session.post(
                "/memories", json={"name": f"bench {test_set.pair}"}
            ) as response:
                made = await _json(response)
            form = aiohttp.FormData()
            form.add_field("file", tmx, filename=f"{test_set.pair}.tmx")
            async with session.post(f"/memories/{made['id']}/import", data=form) as response:
                imported = await _json(response)
            ids[(source, target)] = made["id"]
            sizes[test_set.pair] = imported["memory"]["entries"]
    return ids, sizes


async def _json(response: aiohttp.ClientResponse) -> Any:
    body = await response.read()
    if response.status not in (200, 201):
        raise SystemExit(f"the server refused the memory: HTTP {response.status}: {body[:300]!r}")
    return msgspec.json.decode(body)


class MemoryReport(msgspec.Struct, kw_only=True):
    pair: str
    memory_entries: int
    segments: int
    exact: int  # answered from the memory
    fuzzy: int  # translated with the memory's close matches as examples
    exact_p50_s: float | None
    engine_p50_s: float | None  # the answers the engine wrote, with the memory's examples


def memory_report(pair: str, entries: int, answers: Sequence[Answer]) -> MemoryReport:
    exact = [a.latency_s for a in answers if a.memory_match == "exact" and a.error is None]
    engine = [a.latency_s for a in answers if a.memory_match != "exact" and a.error is None]
    return MemoryReport(
        pair=pair,
        memory_entries=entries,
        segments=len(answers),
        exact=len(exact),
        fuzzy=sum(a.memory_match == "fuzzy" for a in answers),
        exact_p50_s=round(statistics.median(exact), 4) if exact else None,
        engine_p50_s=round(statistics.median(engine), 4) if engine else None,
    )


def format_memory_table(reports: Sequence[MemoryReport]) -> str:
    lines = [
        "| pair | memory entries | exact hits | fuzzy hits | exact p50 | engine p50 | speed-up |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in reports:
        speedup = (
            f"{r.engine_p50_s / r.exact_p50_s:.0f}x"
            if r.exact_p50_s and r.engine_p50_s is not None
            else "-"
        )
        lines.append(
            f"| {r.pair} | {r.memory_entries} | {_rate(r.exact, r.segments)} | "
            f"{_rate(r.fuzzy, r.segments)} | {_ms(r.exact_p50_s)} | {_ms(r.engine_p50_s)} | "
            f"{speedup} |"
        )
    return "\n".join(lines)


def _rate(count: int, total: int) -> str:
    return f"{count} ({100 * count / total:.0f}%)" if total else "0"


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f} ms"


def memory_section(
    sets: Sequence[TestSet], sizes: dict[str, int], answers: Sequence[Sequence[Answer]]
) -> tuple[Any, str]:
    """quality.json's `memory` part and the table printed under the scores."""
    reports = [
        memory_report(s.pair, sizes[s.pair], got) for s, got in zip(sets, answers, strict=True)
    ]
    return msgspec.to_builtins(reports), format_memory_table(reports)

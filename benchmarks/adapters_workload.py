"""The adapters benchmark's pure parts: the mixed workload of three language pairs, the
routing of each text to its pair's server, and the tables of figures."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from translate_server.loadgen.stats import LevelStats, RequestResult, percentile
from translate_server.loadgen.workload import (
    TokenCounter,
    WorkItem,
    WorkloadSpec,
    estimate_tokens,
    make_item,
)

PAIRS: tuple[str, ...] = ("en-de", "en-fr", "en-es")


def pair_of(item: WorkItem) -> str:
    return f"{item.source_lang}-{item.target_lang}"


def mixed_workload(
    spec: WorkloadSpec, pairs: Sequence[str] = PAIRS, count: TokenCounter = estimate_tokens
) -> list[WorkItem]:
    """`spec.size` texts of the given pairs, in the loadgen workload's own order: the same
    seeded items `bench run` sends, those of other pairs left out."""
    items: list[WorkItem] = []
    index = 0
    while len(items) < spec.size:
        item = make_item(spec, index, count)
        index += 1
        if pair_of(item) in pairs:
            items.append(item)
        if index > 100 * spec.size:
            raise ValueError(f"the workload has no texts of {', '.join(pairs)}")
    return items


def split_by_pair(items: Sequence[WorkItem]) -> dict[str, list[WorkItem]]:
    """Each pair's texts, in workload order (pairs in order of first appearance)."""
    split: dict[str, list[WorkItem]] = {}
    for item in items:
        split.setdefault(pair_of(item), []).append(item)
    return split


def route(items: Sequence[WorkItem], servers: Mapping[str, str]) -> list[str]:
    """The base URL each text goes to: its pair's server (KeyError: a pair nobody serves)."""
    return [servers[pair_of(item)] for item in items]


def decode_rates(results: Sequence[RequestResult]) -> list[float]:
    """Per successful streamed request: its output tokens over the time after its first one."""
    return [
        (r.output_tokens - 1) / (r.latency_s - r.ttft_s)
        for r in results
        if r.ok and r.ttft_s is not None and r.output_tokens > 1 and r.latency_s > r.ttft_s
    ]


def figures(stats: LevelStats, results: Sequence[RequestResult]) -> dict[str, float]:
    ttft = stats.ttft_ms or {}
    rates = decode_rates(results)
    return {
        "requests": stats.requests,
        "errors": stats.errors,
        "requests_per_s": stats.requests_per_s,
        "output_tokens_per_s": stats.output_tokens_per_s,
        "output_tokens": stats.output_tokens,
        "latency_p50_ms": stats.latency_ms["p50"],
        "latency_p95_ms": stats.latency_ms["p95"],
        "ttft_p50_ms": ttft.get("p50", math.nan),
        "ttft_p95_ms": ttft.get("p95", math.nan),
        "request_tokens_per_s_p50": percentile(rates, 50),
    }


Column = tuple[str, str, Callable[[Any], str]]


def _num(digits: int) -> Callable[[Any], str]:
    def show(value: Any) -> str:
        if not isinstance(value, int | float) or math.isnan(value):
            return "-"
        return f"{value:,.{digits}f}"

    return show


ARM_COLUMNS: tuple[Column, ...] = (
    ("servers", "servers", str),
    ("processes", "processes", str),
    ("pss_gib", "PSS GiB", _num(2)),
    ("rss_gib", "RSS GiB", _num(2)),
    ("requests_per_s", "req/s", _num(2)),
    ("output_tokens_per_s", "out tok/s", _num(1)),
    ("output_tokens", "out tokens", _num(0)),
    ("latency_p95_ms", "p95 ms", _num(0)),
    ("ttft_p95_ms", "TTFT p95 ms", _num(0)),
    ("errors", "errors", str),
)

COST_COLUMNS: tuple[Column, ...] = (
    ("concurrency", "concurrency", str),
    ("requests", "requests", str),
    ("output_tokens", "out tokens", _num(0)),
    ("output_tokens_per_s", "out tok/s", _num(1)),
    ("request_tokens_per_s_p50", "tok/s per request p50", _num(1)),
    ("ttft_p50_ms", "TTFT p50 ms", _num(0)),
    ("ttft_p95_ms", "TTFT p95 ms", _num(0)),
    ("errors", "errors", str),
)


def markdown_table(
    label: str, rows: Sequence[tuple[str, Mapping[str, Any]]], columns: Sequence[Column]
) -> str:
    """A Markdown table: one row per (name, figures), a missing figure shown as `-`."""
    lines = ["| " + " | ".join([label, *(title for _, title, _ in columns)]) + " |"]
    lines.append("|" + "---|" * (len(columns) + 1))
    for name, values in rows:
        cells = [show(values[key]) if key in values else "-" for key, _, show in columns]
        lines.append("| " + " | ".join([name, *cells]) + " |")
    return "\n".join(lines)


def goal_line(one: Mapping[str, float], three: Mapping[str, float]) -> str:
    """The issue's goal: at least three servers' throughput at under half their memory."""
    throughput = one["output_tokens_per_s"] / three["output_tokens_per_s"]
    memory = one["pss_gib"] / three["pss_gib"]
    met = throughput >= 1.0 and memory < 0.5
    return (
        f"one server with adapters / three servers: {throughput:.2f}x output tokens/s, "
        f"{one['requests_per_s'] / three['requests_per_s']:.2f}x requests/s, "
        f"{memory:.2f}x memory (PSS); goal (>= 1x throughput at < 0.5x memory) "
        f"{'met' if met else 'NOT met'}"
    )

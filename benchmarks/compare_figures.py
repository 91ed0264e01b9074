"""What one arm's measured level yields for `compare`: the flat figures compared between arms,
and the service's own time per request read from its request log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from translate_server.loadgen.stats import LevelStats, percentile

# What each measurement reports, in table order: key, heading, better when higher.
METRICS: tuple[tuple[str, str, bool], ...] = (
    ("requests_per_s", "req/s", True),
    ("output_tokens_per_s", "out tok/s", True),
    ("latency_p50_ms", "p50 ms", False),
    ("latency_p95_ms", "p95 ms", False),
    ("ttft_p50_ms", "ttft p50", False),
    ("ttft_p95_ms", "ttft p95", False),
    ("itl_p50_ms", "itl p50", False),
    ("itl_p99_ms", "itl p99", False),
    ("itl_max_ms", "itl max", False),
    ("front_cpu_ms_per_1k_tokens", "front cpu ms/1k tok", False),
    ("tree_cpu_ms_per_1k_tokens", "total cpu ms/1k tok", False),
    ("service_overhead_p50_ms", "own ms/req p50", False),
)


def measurement(stats: LevelStats | dict[str, Any], cpu: dict[str, float]) -> dict[str, float]:
    """The flat figures compared between arms, from one measured level and its CPU time."""
    s = stats.to_dict() if isinstance(stats, LevelStats) else stats
    tokens = s["output_tokens"] or 0
    ttft = s.get("ttft_ms") or {}
    itl = s.get("itl_ms") or {}
    per_1k = 1_000_000 / tokens if tokens else float("nan")  # seconds -> ms per 1k tokens
    return {
        "requests_per_s": s["requests_per_s"],
        "output_tokens_per_s": s["output_tokens_per_s"],
        "latency_p50_ms": s["latency_ms"]["p50"],
        "latency_p95_ms": s["latency_ms"]["p95"],
        "ttft_p50_ms": ttft.get("p50", float("nan")),
        "ttft_p95_ms": ttft.get("p95", float("nan")),
        "itl_p50_ms": itl.get("p50", float("nan")),
        "itl_p99_ms": itl.get("p99", float("nan")),
        "itl_max_ms": itl.get("max", float("nan")),
        "front_cpu_ms_per_1k_tokens": cpu.get("front_cpu_s", float("nan")) * per_1k,
        "tree_cpu_ms_per_1k_tokens": cpu.get("tree_cpu_s", float("nan")) * per_1k,
        "errors": s["errors"],
        "output_tokens": tokens,
    }


def service_overhead(log_text: str, routes: Sequence[str]) -> dict[str, float]:
    """The service's own time per request (`total_ms - engine_ms`) from its JSON request log."""
    decoder = msgspec.json.Decoder()
    own: list[float] = []
    for line in log_text.splitlines():
        if not line.startswith("{") or '"engine_ms"' not in line:
            continue
        try:
            record = decoder.decode(line)
        except msgspec.DecodeError:
            continue
        if record.get("route") not in routes or record.get("status") != 200:
            continue
        total, engine = record.get("total_ms"), record.get("engine_ms")
        if isinstance(total, int | float) and isinstance(engine, int | float):
            own.append(total - engine)
    if not own:
        return {}
    return {
        "service_overhead_p50_ms": percentile(own, 50),
        "service_overhead_p95_ms": percentile(own, 95),
        "service_overhead_requests": len(own),
    }

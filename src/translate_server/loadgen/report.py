"""Sweep output: a terminal table, a JSON document, and a PNG of throughput and p95 latency."""

from __future__ import annotations

import math
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from translate_server.loadgen.stats import LevelStats

JSON_SCHEMA_VERSION = 1


def _fmt(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:,.{digits}f}"


def format_table(levels: Sequence[LevelStats]) -> str:
    """A fixed-width table, one row per level."""
    headers = (
        "level",
        "ok",
        "err",
        "req/s",
        "out tok/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "ttft p50",
        "ttft p95",
        "ttft p99",
        "itl p50",
        "itl p99",
        "itl max",
    )
    rows = []
    for s in levels:
        ttft = s.ttft_ms or {}
        itl = s.itl_ms or {}
        rows.append(
            (
                s.level,
                str(s.ok),
                str(s.errors),
                _fmt(s.requests_per_s, 2),
                _fmt(s.output_tokens_per_s, 1),
                _fmt(s.latency_ms["p50"]),
                _fmt(s.latency_ms["p95"]),
                _fmt(s.latency_ms["p99"]),
                _fmt(ttft.get("p50")),
                _fmt(ttft.get("p95")),
                _fmt(ttft.get("p99")),
                _fmt(itl.get("p50"), 2),
                _fmt(itl.get("p99"), 2),
                _fmt(itl.get("max"), 2),
            )
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows)
    errors = {k: v for s in levels for k, v in s.error_kinds.items()}
    if errors:
        lines.append("errors: " + ", ".join(f"{k} x{v}" for k, v in sorted(errors.items())))
    return "\n".join(lines)


def environment() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


def build_document(run: dict[str, Any], levels: Sequence[LevelStats]) -> dict[str, Any]:
    """The JSON document of a sweep: what was run, on what, and one entry per level."""
    return {
        "schema": JSON_SCHEMA_VERSION,
        "run": run,
        "environment": environment(),
        "levels": [s.to_dict() for s in levels],
    }


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


def write_json(path: str | Path, document: dict[str, Any]) -> None:
    """Write `document` as indented JSON (NaN, which JSON lacks, becomes null)."""
    data = msgspec.json.format(msgspec.json.encode(_nan_to_none(document)), indent=2)
    Path(path).write_bytes(data + b"\n")


def load_json(path: str | Path) -> dict[str, Any]:
    document: dict[str, Any] = msgspec.json.decode(Path(path).read_bytes())
    return document


def plot(levels: Sequence[LevelStats], path: str | Path, title: str = "") -> None:
    """Throughput (requests/s and output tokens/s) and p95 latency against concurrency
    (closed loop) or offered rate (open loop). Needs matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            "the plot needs matplotlib: pip install 'translate-server[bench]'"
        ) from exc

    closed = [s for s in levels if s.mode == "closed"]
    opened = [s for s in levels if s.mode == "open"]
    panels = [(closed, "concurrency", "concurrency"), (opened, "rate", "offered requests/s")]
    panels = [p for p in panels if p[0]]
    fig, axes = plt.subplots(len(panels), 2, figsize=(11, 4 * len(panels)), squeeze=False)
    for row, (group, attr, label) in enumerate(panels):
        xs = [getattr(s, attr) for s in group]
        ax_tp, ax_lat = axes[row]
        ax_tp.plot(xs, [s.output_tokens_per_s for s in group], "o-", color="tab:blue")
        ax_tp.set_xlabel(label)
        ax_tp.set_ylabel("output tokens/s", color="tab:blue")
        ax_rq = ax_tp.twinx()
        ax_rq.plot(xs, [s.requests_per_s for s in group], "s--", color="tab:orange")
        ax_rq.set_ylabel("requests/s", color="tab:orange")
        ax_tp.set_title("throughput")
        ax_lat.plot(xs, [s.latency_ms["p95"] for s in group], "o-", color="tab:red", label="p95")
        ax_lat.plot(xs, [s.latency_ms["p50"] for s in group], "o:", color="tab:gray", label="p50")
        if any(s.ttft_ms for s in group):
            ax_lat.plot(
                xs,
                [(s.ttft_ms or {}).get("p95", math.nan) for s in group],
                "^-",
                color="tab:green",
                label="TTFT p95",
            )
        ax_lat.set_xlabel(label)
        ax_lat.set_ylabel("latency (ms)")
        ax_lat.set_title("latency")
        ax_lat.legend()
        for ax in (ax_tp, ax_lat):
            if attr == "concurrency" and len(xs) > 1 and max(xs) / max(min(xs), 1) >= 8:
                ax.set_xscale("log", base=2)
                ax.set_xticks(xs, [str(x) for x in xs])
            ax.grid(True, alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

"""`compare`'s rounds summed up: per arm, the medians over rounds and the medians of per-round
ratios to the baseline arm, and the table that shows both."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from benchmarks.compare_figures import METRICS
from translate_server.loadgen.stats import median


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def ratios(rounds: Sequence[dict[str, dict[str, float]]], baseline: str) -> dict[str, dict]:
    """Per arm and metric: the median over rounds of (arm / baseline) within each round."""
    out: dict[str, dict[str, float]] = {}
    for arm in sorted({arm for r in rounds for arm in r}):
        out[arm] = {}
        for key, _, _ in METRICS:
            values = [
                r[arm][key] / r[baseline][key]
                for r in rounds
                if arm in r
                and baseline in r
                and _finite(r[arm].get(key))
                and _finite(r[baseline].get(key))
                and r[baseline][key] != 0
            ]
            if values:
                out[arm][key] = median(values)
    return out


def medians(rounds: Sequence[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Per arm and metric: the median over rounds (missing and NaN values left out)."""
    out: dict[str, dict[str, float]] = {}
    for arm in sorted({arm for r in rounds for arm in r}):
        keys = sorted({key for r in rounds if arm in r for key in r[arm]})
        out[arm] = {}
        for key in keys:
            values = [r[arm][key] for r in rounds if arm in r and _finite(r[arm].get(key))]
            if values:
                out[arm][key] = median(values)
    return out


def format_comparison(
    arm_medians: dict[str, dict[str, float]],
    arm_ratios: dict[str, dict[str, float]],
    order: Sequence[str],
    baseline: str,
) -> str:
    headers = ["arm"] + [h for _, h, _ in METRICS]
    rows = []
    for arm in order:
        if arm not in arm_medians:
            continue
        cells = [arm]
        for key, _, _ in METRICS:
            value = arm_medians[arm].get(key)
            ratio = arm_ratios.get(arm, {}).get(key)
            if value is None or math.isnan(value):
                cells.append("-")
            elif arm == baseline or ratio is None:
                cells.append(f"{value:,.1f}")
            else:
                cells.append(f"{value:,.1f} ({ratio:.2f}x)")
        rows.append(cells)
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]
    lines.append(f"medians over rounds; (x) = median of per-round ratios to `{baseline}`")
    return "\n".join(lines)

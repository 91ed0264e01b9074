"""Per-request results and per-level summaries (pure; no I/O)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between closest ranks.

    The same definition as numpy's default (``method="linear"``). NaN for no values.
    """
    if not 0 <= q <= 100:
        raise ValueError("q must be within [0, 100]")
    if not values:
        return math.nan
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    below = math.floor(position)
    above = math.ceil(position)
    if below == above:
        return float(ordered[below])
    weight = position - below
    return ordered[below] * (1 - weight) + ordered[above] * weight


def median(values: Sequence[float]) -> float:
    return percentile(values, 50)


@dataclass(slots=True)
class RequestResult:
    ok: bool
    status: int  # HTTP status; 0 when no response arrived
    start: float  # perf_counter() when the request was due (open loop) or sent (closed loop)
    latency_s: float  # from `start` to the last byte of the response
    ttft_s: float | None = None  # from `start` to the first content (streaming only)
    prompt_tokens: int = 0
    output_tokens: int = 0
    usage_reported: bool = False  # False: output_tokens counted from stream chunks
    error: str | None = None
    # Between one content event of a stream and the next: how evenly the tokens arrive. A
    # server that stalls its streams (work on its event loop) shows here, not in the mean.
    token_gaps_s: list[float] = field(default_factory=list)
    last_content_at: float | None = None  # perf_counter() of the latest content event

    def content_arrived(self, now: float) -> None:
        """A stream's content event arrived at `now` (a perf_counter() value)."""
        if self.last_content_at is None:
            self.ttft_s = now - self.start
        else:
            self.token_gaps_s.append(now - self.last_content_at)
        self.last_content_at = now


@dataclass(slots=True)
class LevelStats:
    mode: str  # "closed" (fixed concurrency) or "open" (fixed request rate)
    concurrency: int | None
    rate: float | None  # offered requests/s (open loop)
    requests: int
    ok: int
    errors: int
    duration_s: float
    requests_per_s: float
    output_tokens_per_s: float
    prompt_tokens: int
    output_tokens: int
    latency_ms: dict[str, float]
    ttft_ms: dict[str, float] | None
    itl_ms: dict[str, float] | None = None  # inter-token latency: all streams' token gaps
    error_kinds: dict[str, int] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict)  # e.g. CPU time, from the caller

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @property
    def level(self) -> str:
        return f"c={self.concurrency}" if self.mode == "closed" else f"r={self.rate:g}/s"


def _distribution_ms(seconds: Iterable[float]) -> dict[str, float]:
    values = [s * 1000 for s in seconds]
    if not values:
        return dict.fromkeys(("mean", "p50", "p95", "p99", "max"), math.nan)
    # The max too: a pause of the whole server (a full garbage collection) stalls every stream
    # once, too few gaps to move a percentile.
    return {
        "mean": sum(values) / len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values),
    }


def _error_kind(error: str | None) -> str:
    if not error:
        return "unknown"
    return error.split(":", 1)[0][:60]


def summarize(
    results: Sequence[RequestResult],
    *,
    mode: str,
    concurrency: int | None = None,
    rate: float | None = None,
    duration_s: float | None = None,
) -> LevelStats:
    """Summarize one level. Throughput counts successful requests over the level's wall time:
    from the first request's start to the last response (or `duration_s` when given)."""
    ok = [r for r in results if r.ok]
    if duration_s is None:
        if results:
            duration_s = max(r.start + r.latency_s for r in results) - min(r.start for r in results)
        else:
            duration_s = 0.0
    output_tokens = sum(r.output_tokens for r in ok)
    ttfts = [r.ttft_s for r in ok if r.ttft_s is not None]
    gaps = [gap for r in ok for gap in r.token_gaps_s]
    return LevelStats(
        mode=mode,
        concurrency=concurrency,
        rate=rate,
        requests=len(results),
        ok=len(ok),
        errors=len(results) - len(ok),
        duration_s=duration_s,
        requests_per_s=len(ok) / duration_s if duration_s > 0 else 0.0,
        output_tokens_per_s=output_tokens / duration_s if duration_s > 0 else 0.0,
        prompt_tokens=sum(r.prompt_tokens for r in ok),
        output_tokens=output_tokens,
        latency_ms=_distribution_ms(r.latency_s for r in ok),
        ttft_ms=_distribution_ms(ttfts) if ttfts else None,
        itl_ms=_distribution_ms(gaps) if gaps else None,
        error_kinds=dict(Counter(_error_kind(r.error) for r in results if not r.ok)),
    )

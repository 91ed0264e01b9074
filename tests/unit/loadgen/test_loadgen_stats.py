"""Percentiles and per-level summaries of the load generator."""

from __future__ import annotations

import math

import pytest

from translate_server.loadgen.stats import RequestResult, percentile, summarize


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([1, 2, 3, 4, 5], 50, 3.0),
        ([1, 2, 3, 4], 50, 2.5),
        ([10], 99, 10.0),
        (list(range(1, 101)), 95, 95.05),
        (list(range(1, 101)), 99, 99.01),
        ([5, 1, 4, 2, 3], 0, 1.0),
        ([5, 1, 4, 2, 3], 100, 5.0),
        ([0, 10], 25, 2.5),
    ],
)
def test_percentile_matches_linear_interpolation(values, q, expected) -> None:
    assert percentile(values, q) == pytest.approx(expected)


def test_percentile_edges() -> None:
    assert math.isnan(percentile([], 50))
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def _ok(start: float, latency: float, tokens: int, ttft: float | None = None) -> RequestResult:
    return RequestResult(
        ok=True,
        status=200,
        start=start,
        latency_s=latency,
        ttft_s=ttft,
        prompt_tokens=10,
        output_tokens=tokens,
        usage_reported=True,
    )


def test_summary_counts_only_successes_in_throughput() -> None:
    results = [
        _ok(0.0, 1.0, 100, ttft=0.1),
        _ok(0.5, 1.5, 50, ttft=0.2),
        RequestResult(ok=False, status=503, start=0.2, latency_s=0.01, error="HTTP 503: busy"),
        RequestResult(ok=False, status=0, start=0.3, latency_s=0.01, error="ClientError: reset"),
    ]
    stats = summarize(results, mode="closed", concurrency=4)
    assert stats.duration_s == pytest.approx(2.0)  # 0.0 -> 0.5 + 1.5
    assert (stats.requests, stats.ok, stats.errors) == (4, 2, 2)
    assert stats.requests_per_s == pytest.approx(1.0)
    assert stats.output_tokens_per_s == pytest.approx(75.0)
    assert stats.latency_ms["p50"] == pytest.approx(1250.0)
    assert stats.ttft_ms is not None and stats.ttft_ms["mean"] == pytest.approx(150.0)
    assert stats.error_kinds == {"HTTP 503": 1, "ClientError": 1}
    assert stats.level == "c=4"


def test_inter_token_latency_pools_every_streams_gaps() -> None:
    results = [_ok(0.0, 1.0, 3), _ok(2.0, 1.0, 4)]
    for result, arrivals in zip(results, ([0.1, 0.11, 0.13], [2.1, 2.13, 2.17, 2.67]), strict=True):
        for now in arrivals:
            result.content_arrived(now)
    assert [r.ttft_s for r in results] == [pytest.approx(0.1), pytest.approx(0.1)]
    assert results[0].token_gaps_s == [pytest.approx(0.010), pytest.approx(0.020)]
    stats = summarize(results, mode="closed", concurrency=2)
    assert stats.itl_ms is not None
    assert stats.itl_ms["p50"] == pytest.approx(30.0)
    assert stats.itl_ms["mean"] == pytest.approx(120.0)
    assert stats.itl_ms["p99"] > 400.0
    assert stats.itl_ms["max"] == pytest.approx(500.0)  # the one stall, whole
    assert stats.latency_ms["max"] == pytest.approx(1000.0)


def test_summary_with_an_explicit_duration_and_no_stream() -> None:
    stats = summarize([_ok(0.0, 0.5, 8)], mode="open", rate=2.0, duration_s=4.0)
    assert stats.requests_per_s == pytest.approx(0.25)
    assert stats.ttft_ms is None and stats.itl_ms is None
    assert stats.level == "r=2/s"
    empty = summarize([], mode="closed", concurrency=1)
    assert empty.requests_per_s == 0.0 and math.isnan(empty.latency_ms["p95"])

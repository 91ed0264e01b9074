"""The engine's own figures of each request in the log line and the metrics: present where the
engine measures its requests, absent (not zero) where it does not."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from translate_server.inference.engine import EngineTimings

from tests.support.fakes import FakeEngine
from tests.support.harness import running

ENGINE_FIELDS = (
    "engine_wait_ms",
    "prefill_ms",
    "engine_ttft_ms",
    "decode_ms",
    "preemptions",
    "cached_tokens",
)
TRANSLATE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}
CHAT = {"model": "fake-model", "messages": [{"role": "user", "content": "Say hello"}]}
FIGURES = EngineTimings(
    wait=0.004, prefill=0.006, first_token=0.0125, decode=0.05, preemptions=1, cached_tokens=32
)


async def request_lines(
    make_app, engine: FakeEngine, *calls: tuple[str, dict]
) -> tuple[list[dict], str]:
    """The request log lines of `calls`, and /metrics after them."""
    async with running(make_app(engine)) as client:
        with capture_logs() as logs:
            for path, body in calls:
                response = await client.post(path, json=body)
                assert response.status_code == 200, response.text
        metrics = (await client.get("/metrics")).text
    lines = [entry for entry in logs if entry["event"] == "request"]
    assert len(lines) == len(calls)
    return lines, metrics


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/translate", TRANSLATE),
        ("/translate", {**TRANSLATE, "stream": True}),
        ("/v1/chat/completions", CHAT),
        ("/v1/chat/completions", {**CHAT, "stream": True}),
    ],
)
async def test_every_request_logs_the_engine_figures(make_app, path: str, body: dict) -> None:
    engine = FakeEngine()
    engine.timings = FIGURES
    (line,), _ = await request_lines(make_app, engine, (path, body))
    assert {key: line[key] for key in ENGINE_FIELDS} == {
        "engine_wait_ms": 4.0,
        "prefill_ms": 6.0,
        "engine_ttft_ms": 12.5,
        "decode_ms": 50.0,
        "preemptions": 1,
        "cached_tokens": 32,
    }


async def test_without_engine_statistics_the_fields_are_absent(make_app) -> None:
    engine = FakeEngine()  # timings None: what the adapter gives with --no-engine-metrics
    lines, metrics = await request_lines(
        make_app,
        engine,
        ("/translate", TRANSLATE),
        ("/v1/chat/completions", {**CHAT, "stream": True}),
    )
    for line in lines:
        assert "engine_ms" in line and "total_ms" in line
        assert not set(ENGINE_FIELDS) & set(line), line
    families = {f.name: f for f in text_string_to_metric_families(metrics)}
    counts = [
        s.value
        for s in families["translate_engine_wait_seconds"].samples
        if s.name.endswith("_count")
    ]
    assert counts and not any(counts)


async def test_several_pieces_report_the_slowest_and_sum_the_counts(make_app) -> None:
    """A batch's texts run at once: its answer waits for the slowest, whose figures explain
    the latency; preemptions and cached tokens add up."""
    per_text = {
        "fast": EngineTimings(
            wait=0.001,
            prefill=0.002,
            first_token=0.004,
            decode=0.010,
            preemptions=0,
            cached_tokens=16,
        ),
        "slow": EngineTimings(
            wait=0.300,
            prefill=0.020,
            first_token=0.330,
            decode=0.040,
            preemptions=2,
            cached_tokens=16,
        ),
        "long": EngineTimings(
            wait=0.001,
            prefill=0.002,
            first_token=0.004,
            decode=0.200,
            preemptions=1,
            cached_tokens=0,
        ),
    }
    engine = FakeEngine()
    engine.timings = lambda prompt: next(t for word, t in per_text.items() if word in prompt)
    (line,), _ = await request_lines(
        make_app, engine, ("/translate", {**TRANSLATE, "text": ["fast", "slow", "long"]})
    )
    assert line["engine_requests"] == 3
    assert line["engine_wait_ms"] == 300.0 and line["engine_ttft_ms"] == 330.0
    assert line["prefill_ms"] == 20.0 and line["decode_ms"] == 40.0
    assert line["preemptions"] == 3 and line["cached_tokens"] == 32


async def test_engine_histograms_per_route_come_from_the_same_record(make_app) -> None:
    engine = FakeEngine()
    engine.timings = FIGURES
    _, metrics = await request_lines(
        make_app,
        engine,
        ("/translate", TRANSLATE),
        ("/translate", {**TRANSLATE, "text": "Good night"}),
        ("/v1/chat/completions", CHAT),
    )
    families = {f.name: f for f in text_string_to_metric_families(metrics)}

    def observed(name: str, route: str) -> tuple[float, float]:
        samples = {
            s.name: s.value for s in families[name].samples if s.labels.get("route") == route
        }
        return samples[name + "_count"], samples[name + "_sum"]

    assert observed("translate_engine_wait_seconds", "/translate") == pytest.approx((2, 0.008))
    assert observed("translate_engine_prefill_seconds", "/translate") == pytest.approx((2, 0.012))
    assert observed(
        "translate_engine_time_to_first_token_seconds", "/v1/chat/completions"
    ) == pytest.approx((1, 0.0125))
    assert observed("translate_engine_decode_seconds", "/v1/chat/completions") == pytest.approx(
        (1, 0.05)
    )

"""Spans per request, exported to an in-memory exporter: the request's span, and beneath it
admission, tokenizing and one span per engine request with the engine's phases."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from translate_server.app import create_app
from translate_server.inference.engine import EngineTimings
from translate_server.observability.tracing import Tracing
from translate_server.settings import load_settings

from tests.support.fakes import FakeEngine
from tests.support.harness import eventually, running
from tests.support.stores import own_stores

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
# Imported only once the SDK is known to be there (the `tracing` extra).
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

TRANSLATE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}
FIGURES = EngineTimings(
    wait=0.004, prefill=0.006, first_token=0.0125, decode=0.05, preemptions=0, cached_tokens=8
)


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def traced(exporter: InMemorySpanExporter, engine: FakeEngine, tmp_path: Path):
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = load_settings(
        {"served_model_name": "fake-model", "quality_guard": False, **own_stores(tmp_path)},
        environ={},
    )
    engine.timings = FIGURES
    return create_app(settings, lambda: engine, tracing=Tracing(provider))


def tree(spans) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """Span name -> the names of its children, sorted."""
    by_id = {span.context.span_id: span for span in spans}
    children: dict[str, list[str]] = {span.name: [] for span in spans}
    for span in spans:
        if span.parent is not None and span.parent.span_id in by_id:
            children[by_id[span.parent.span_id].name].append(span.name)
    return {name: sorted(names) for name, names in children.items()}


def only_trace(spans) -> None:  # type: ignore[no-untyped-def]
    assert len({span.context.trace_id for span in spans}) == 1


async def test_a_translation_is_one_trace(traced, exporter, engine: FakeEngine) -> None:
    async with running(traced) as client:
        response = await client.post("/translate", json=TRANSLATE)
        assert response.status_code == 200
        spans = [s for s in exporter.get_finished_spans() if s.name != "GET /metrics"]
    only_trace(spans)
    assert tree(spans) == {
        "POST /translate": ["admission", "engine request", "tokenize"],
        "admission": [],
        "tokenize": [],
        "engine request": ["decode", "engine wait", "prefill"],
        "engine wait": [],
        "prefill": [],
        "decode": [],
    }
    spans_by_name = {span.name: span for span in spans}
    root, engine_span = spans_by_name["POST /translate"], spans_by_name["engine request"]
    assert root.parent is None and root.attributes["http.response.status_code"] == 200
    assert root.attributes["engine_ttft_ms"] == 12.5 and root.attributes["cached_tokens"] == 8
    assert engine_span.attributes["engine.wait_ms"] == pytest.approx(4.0)
    # The engine's phases follow one another, and the engine got the span's context.
    wait, prefill, decode = (spans_by_name[n] for n in ("engine wait", "prefill", "decode"))
    assert wait.end_time == prefill.start_time and prefill.end_time == decode.start_time
    assert decode.end_time - wait.start_time == pytest.approx(60_000_000, abs=2)
    (headers,) = engine.trace_headers
    assert headers is not None
    assert headers["traceparent"].split("-")[2] == f"{engine_span.context.span_id:016x}"


async def test_pieces_are_engine_requests_of_one_request(traced, exporter) -> None:
    async with running(traced) as client:
        response = await client.post("/translate", json={**TRANSLATE, "text": ["one", "two"]})
        assert response.status_code == 200
    spans = [
        s
        for s in exporter.get_finished_spans()
        if s.name.startswith("POST") or s.name in ("engine request", "tokenize", "admission")
    ]
    only_trace(spans)
    assert tree(spans)["POST /translate"] == [
        "admission",
        "engine request",
        "engine request",
        "tokenize",
        "tokenize",
    ]


async def test_a_quality_retry_is_a_span_over_its_engine_request(
    exporter, engine, tmp_path: Path
) -> None:
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # The engine double answers the source upper-cased: the guard calls it an echo and retries.
    settings = load_settings(
        {"served_model_name": "fake-model", "quality_guard": True, **own_stores(tmp_path)},
        environ={},
    )
    async with running(create_app(settings, lambda: engine, tracing=Tracing(provider))) as client:
        response = await client.post("/translate", json=TRANSLATE)
        assert response.status_code == 200 and response.json()["warnings"] == ["echo"]
    spans = [s for s in exporter.get_finished_spans() if s.name != "GET /metrics"]
    only_trace(spans)
    children = tree(spans)
    assert children["POST /translate"] == [
        "admission",
        "engine request",
        "quality retry",
        "tokenize",
    ]
    assert children["quality retry"] == ["engine request"]
    (retry,) = [s for s in spans if s.name == "quality retry"]
    assert retry.attributes["quality.failures"] == ("echo",)


async def test_a_stream_and_a_callers_trace(traced, exporter) -> None:
    caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    async with running(traced) as client:
        response = await client.post(
            "/v1/chat/completions",
            headers={"traceparent": caller},
            json={
                "model": "fake-model",
                "stream": True,
                "messages": [{"role": "user", "content": "hi"}],
            },
        )
        assert response.status_code == 200
    (root,) = [s for s in exporter.get_finished_spans() if s.name.startswith("POST")]
    assert f"{root.context.trace_id:032x}" == "0af7651916cd43dd8448eb211c80319c"
    assert f"{root.parent.span_id:016x}" == "b7ad6b7169203331"
    assert tree(exporter.get_finished_spans())["POST /v1/chat/completions"] == [
        "admission",
        "engine request",
        "tokenize",
    ]


async def test_a_refusal_is_a_failed_admission(
    exporter, engine: FakeEngine, tmp_path: Path
) -> None:
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = load_settings(
        {
            "served_model_name": "fake-model",
            "quality_guard": False,
            "max_num_seqs": 1,
            "max_queued_requests": 0,
            **own_stores(tmp_path),
        },
        environ={},
    )
    app = create_app(settings, lambda: engine, tracing=Tracing(provider))
    engine.hang = True
    async with running(app) as client:
        first = asyncio.create_task(client.post("/translate", json=TRANSLATE))
        await eventually(lambda: engine.requests)
        refused = await client.post("/translate", json={**TRANSLATE, "text": "Hello"})
        engine.hang = False
        await first
    assert refused.status_code == 503
    admissions = [s for s in exporter.get_finished_spans() if s.name == "admission"]
    assert [s.status.is_ok for s in admissions].count(False) == 1


async def test_requests_left_out_by_the_sampler_leave_no_spans(
    exporter, engine, tmp_path: Path
) -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    provider = sdk_trace.TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = load_settings(
        {"served_model_name": "fake-model", "quality_guard": False, **own_stores(tmp_path)},
        environ={},
    )
    engine.timings = FIGURES
    async with running(create_app(settings, lambda: engine, tracing=Tracing(provider))) as client:
        assert (await client.post("/translate", json=TRANSLATE)).status_code == 200
        streamed = await client.post("/translate", json={**TRANSLATE, "text": "Hi", "stream": True})
        assert streamed.status_code == 200
    assert exporter.get_finished_spans() == ()


async def test_tracing_off_sends_no_headers(client, engine: FakeEngine) -> None:
    assert (await client.post("/translate", json=TRANSLATE)).status_code == 200
    assert engine.trace_headers == [None]

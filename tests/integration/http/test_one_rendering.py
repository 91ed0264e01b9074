"""One rendering of a request's record: the log line's fields are the span's attributes, and the
metrics count what the log line says, for the service's own fields, the engine's figures and a
domain's own (the translation guard's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from translate_server.app import create_app
from translate_server.inference.engine import EngineTimings, SamplingOptions
from translate_server.observability.tracing import Tracing
from translate_server.settings import load_settings

from tests.support.fakes import _SOURCE, FakeEngine
from tests.support.harness import running

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

FIGURES = EngineTimings(
    wait=0.004, prefill=0.006, first_token=0.0125, decode=0.05, preemptions=2, cached_tokens=8
)
# What the log line adds of its own, outside the rendering.
LOGGING_ONLY = {"event", "log_level", "request_id"}


def echo(prompt: str, options: SamplingOptions) -> str:
    """Answers with the source: the guard retries it, then sends it with a warning."""
    return _SOURCE.search(prompt).group(1)  # type: ignore[union-attr]


def samples(metrics: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(metrics)
        for sample in family.samples
    }


async def test_the_log_line_the_span_and_the_metrics_say_the_same(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = load_settings(
        {
            "served_model_name": "fake-model",
            "quality_guard": True,
            "document_dir": str(tmp_path / "documents"),
            "glossary_db": str(tmp_path / "glossaries.sqlite3"),
            "memory_db": str(tmp_path / "memories.sqlite3"),
        },
        environ={},
    )
    engine = FakeEngine(responder=echo)
    engine.timings = FIGURES
    app = create_app(settings, lambda: engine, tracing=Tracing(provider))
    async with running(app) as client:
        with capture_logs() as logs:
            response = await client.post(
                "/translate",
                json={"text": "The file was saved", "source_lang": "en", "target_lang": "de"},
            )
        assert response.status_code == 200, response.text
        metrics = samples((await client.get("/metrics")).text)
    (line,) = (entry for entry in logs if entry["event"] == "request")
    (span,) = (span for span in exporter.get_finished_spans() if span.name == "POST /translate")

    # The guard's fields, the engine's and the service's are all in the one line...
    assert line["quality_failures"] == ["echo"] and line["warnings"] == ["echo"]
    assert line["engine_requests"] == 2 and line["preemptions"] == 4
    # ...and the span carries every one of them, as they are.
    fields = {key: value for key, value in line.items() if key not in LOGGING_ONLY}
    attributes = {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in (span.attributes or {}).items()
    }
    assert {key: attributes.get(key) for key in fields} == fields
    assert attributes["http.response.status_code"] == line["status"]
    assert attributes["gen_ai.usage.input_tokens"] == line["prompt_tokens"]
    assert attributes["gen_ai.usage.output_tokens"] == line["completion_tokens"]

    # The metrics count what the line says.
    route = frozenset({("route", "/translate")})
    assert metrics[("translate_requests_total", route | {("status", "200")})] == 1
    assert metrics[("translate_prompt_tokens_total", route)] == line["prompt_tokens"]
    assert metrics[("translate_completion_tokens_total", route)] == line["completion_tokens"]
    for name, field in (
        ("translate_request_duration_seconds_sum", "total_ms"),
        ("translate_engine_wait_seconds_sum", "engine_wait_ms"),
        ("translate_engine_prefill_seconds_sum", "prefill_ms"),
        ("translate_engine_time_to_first_token_seconds_sum", "engine_ttft_ms"),
        ("translate_engine_decode_seconds_sum", "decode_ms"),
    ):
        assert metrics[(name, route)] == pytest.approx(line[field] / 1000), name
    # No time to first token in the line (a whole answer), none observed.
    assert "ttft_ms" not in line
    assert metrics[("translate_time_to_first_token_seconds_count", route)] == 0
    kind = route | {("kind", "echo")}
    assert metrics[("translate_quality_failures_total", kind)] == len(line["quality_failures"])
    assert metrics[("translate_quality_retries_total", route)] == line["quality_retries"]
    assert metrics[("translate_quality_warnings_total", kind)] == len(line["warnings"])

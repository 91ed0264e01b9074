"""OpenTelemetry traces, for operators who run a tracing backend; off unless an OTLP endpoint
is configured (`--otlp-traces-endpoint`).

A request's span is opened by the request observer and made current, so the spans opened
beneath it, in the handler's task or in the tasks it starts for a request's pieces, become its
children: `admission`, `tokenize`, and one `engine request` per engine request, whose own
children (`engine wait`, `prefill`, `decode`) are laid out from the engine's figures once it
finishes. A retry of the quality guard is a `quality retry` span (what the first answer
failed) over its engine request. The engine request's context goes to vLLM as a
`traceparent`, so vLLM's own `llm_request` span (exported to the same endpoint) hangs
beneath it.

The SDK is used directly, through a provider of our own rather than the global one: vLLM
sets the global provider for its spans when its tracing is on, and tests give each app an
in-memory exporter. Nothing here is imported, and no code runs per request, when tracing is
off: every caller holds `None` instead of a `Tracing` and tests that first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span

    from translate_server.observability.engine_figures import EngineTimings
    from translate_server.observability.record import RequestRecord

SERVICE_NAME = "translate-server"


class Tracing:
    """The app's tracer; `begin` opens a request's span."""

    def __init__(self, provider: TracerProvider) -> None:
        from opentelemetry import context, trace
        from opentelemetry.propagate import inject
        from opentelemetry.trace import SpanKind, Status, StatusCode
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self.provider = provider
        self.tracer = provider.get_tracer("translate_server")
        self._context = context
        self._trace = trace
        self._inject = inject
        self._propagator = TraceContextTextMapPropagator()
        self._server = SpanKind.SERVER
        self._error = Status(StatusCode.ERROR)
        # perf_counter -> epoch nanoseconds, for spans laid out after the fact.
        self._epoch_offset_ns = time.time_ns() - time.perf_counter_ns()

    def begin(self, record: RequestRecord, scope: Mapping[str, Any]) -> RequestTrace:
        """Open the request's span, a child of the caller's trace if it sent a `traceparent`,
        and make it current until `RequestTrace.end`."""
        parent = None
        for name, value in scope["headers"]:
            if name == b"traceparent":
                parent = self._propagator.extract({"traceparent": value.decode("latin-1")})
                break
        span = self.tracer.start_span(
            f"{record.method} {record.route}",
            context=parent,
            kind=self._server,
            start_time=self.perf_ns(record.started),
            attributes={
                "http.request.method": record.method,
                "http.route": record.route,
                "url.path": scope["path"],
                "request_id": record.request_id,
            },
        )
        token = self._context.attach(self._trace.set_span_in_context(span))
        return RequestTrace(self, span, token)

    def perf_ns(self, perf: float) -> int:
        return self._epoch_offset_ns + int(perf * 1e9)

    @contextmanager
    def span(self, name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Span]:
        """A child of the current span around a block (an exception marks it failed)."""
        with self.tracer.start_as_current_span(name, attributes=attributes) as span:
            yield span

    def engine_request(
        self, request_id: str, prompt_tokens: int, max_tokens: int
    ) -> tuple[Span, dict[str, str]]:
        """Open an engine request's span under the current one; the headers carry its
        context to the engine."""
        span = self.tracer.start_span(
            "engine request",
            attributes={
                "engine.request_id": request_id,
                "gen_ai.usage.input_tokens": prompt_tokens,
                "gen_ai.request.max_tokens": max_tokens,
            },
        )
        headers: dict[str, str] = {}
        self._inject(headers, context=self._trace.set_span_in_context(span))
        return span, headers

    def engine_request_ended(
        self, span: Span, completion_tokens: int, timings: EngineTimings | None
    ) -> None:
        """End an engine request's span; the engine's figures become its attributes and
        its children, laid out from its start (arrival) by the engine's durations."""
        if not span.is_recording():  # not sampled
            span.end()
            return
        span.set_attribute("gen_ai.usage.output_tokens", completion_tokens)
        if timings is not None:
            span.set_attributes(
                {
                    "engine.wait_ms": timings.wait * 1000,
                    "engine.prefill_ms": timings.prefill * 1000,
                    "engine.ttft_ms": timings.first_token * 1000,
                    "engine.decode_ms": timings.decode * 1000,
                    "engine.preemptions": timings.preemptions,
                    "engine.cached_tokens": timings.cached_tokens,
                }
            )
            parent = self._trace.set_span_in_context(span)
            started: int = span.start_time  # type: ignore[attr-defined]  # the SDK's span
            first_token = started + int(timings.first_token * 1e9)
            scheduled = first_token - int(timings.prefill * 1e9)
            for name, start, end in (
                ("engine wait", scheduled - int(timings.wait * 1e9), scheduled),
                ("prefill", scheduled, first_token),
                ("decode", first_token, first_token + int(timings.decode * 1e9)),
            ):
                self.tracer.start_span(name, context=parent, start_time=start).end(end)
        span.end()

    def shutdown(self) -> None:
        self.provider.shutdown()


class RequestTrace:
    """One request's span, current from `Tracing.begin` until `end`."""

    __slots__ = ("_token", "_tracing", "span")

    def __init__(self, tracing: Tracing, span: Span, token: object) -> None:
        self._tracing = tracing
        self.span = span
        self._token = token

    def end(self, fields: Mapping[str, Any]) -> None:
        """Close the span with the request's rendered record (`RequestRecord.render`): the
        log line's fields as they are, and OpenTelemetry's names for status, route, tokens
        and error beside them."""
        self._tracing._context.detach(self._token)
        span = self.span
        span.update_name(f"{fields['method']} {fields['route']}")  # a template once routed
        attributes = dict(fields)
        attributes["http.response.status_code"] = fields["status"]
        attributes["http.route"] = fields["route"]
        if "engine_requests" in fields:
            attributes["gen_ai.usage.input_tokens"] = fields["prompt_tokens"]
            attributes["gen_ai.usage.output_tokens"] = fields["completion_tokens"]
        if "error_code" in fields:
            attributes["error.type"] = fields["error_code"]
        span.set_attributes(attributes)
        if fields["status"] >= 500:
            span.set_status(self._tracing._error)
        span.end()


def build_tracing(endpoint: str | None) -> Tracing | None:
    """Tracing that exports to `endpoint` over OTLP (gRPC, or HTTP where
    `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf`, as vLLM reads it); None when unset."""
    if not endpoint:
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise RuntimeError(
            "tracing needs the OpenTelemetry SDK: pip install 'translate-server[tracing]'"
        ) from exc
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc")
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter: Any = OTLPSpanExporter(endpoint=endpoint)
    else:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcExporter,
        )

        exporter = GrpcExporter(endpoint=endpoint)  # plain text for http://, TLS for https://
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
    # Spans leave in batches from a thread of the SDK's own, never from a request's path.
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return Tracing(provider)

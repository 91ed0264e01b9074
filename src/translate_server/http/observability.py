"""Logs and metrics: one canonical log line and one set of observations per request.

A pure ASGI middleware opens a `RequestRecord` (`translate_server.observability.record`) for each
request, the service fills in what it learns (tokens, engine timings), and when the last byte
is sent the middleware writes the log line and feeds Prometheus from the same record, so the
two can never disagree. Where tracing is on, the same middleware opens and ends the request's
span (`translate_server.observability.tracing`).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import structlog
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.utils import normalize_path
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from translate_server.observability.record import RequestRecord

if TYPE_CHECKING:
    from translate_server.observability.tracing import Tracing

# Set (by the supervisor of `--api-processes N`) before prometheus_client is imported, it
# makes every metric of this process a file in that folder, which any process can sum.
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"
REQUEST_ID_HEADER = b"x-request-id"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")

# Latency buckets from a fast cache-like answer to a long generation.
_LATENCY_BUCKETS = (
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
    120.0,
)
_TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    10.0,
)


class ServiceMetrics:
    """The service's own Prometheus collectors, in a registry of their own so that several apps
    (tests) can live in one process; `/metrics` shows them beside vLLM's global registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "translate_requests", "HTTP requests answered.", ["route", "status"], registry=r
        )
        self.latency = Histogram(
            "translate_request_duration_seconds",
            "Time from request arrival to the last byte of the answer.",
            ["route"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.ttft = Histogram(
            "translate_time_to_first_token_seconds",
            "Time from request arrival to the first generated token.",
            ["route"],
            buckets=_TTFT_BUCKETS,
            registry=r,
        )
        self.prompt_tokens = Counter(
            "translate_prompt_tokens", "Prompt tokens processed.", ["route"], registry=r
        )
        self.completion_tokens = Counter(
            "translate_completion_tokens", "Completion tokens generated.", ["route"], registry=r
        )
        self.in_flight = Gauge(
            "translate_requests_in_flight",
            "HTTP requests being answered.",
            ["route"],
            registry=r,
            multiprocess_mode="livesum",  # only read with --api-processes above 1
        )
        self.running = Gauge(
            "translate_requests_running",
            "Engine requests admitted within the engine's batch slots.",
            registry=r,
            # Admission counts every front end's requests: the latest figure is the total.
            multiprocess_mode="livemostrecent",
        )
        self.waiting = Gauge(
            "translate_requests_waiting",
            "Engine requests admitted beyond the batch slots, waiting for one.",
            registry=r,
            multiprocess_mode="livemostrecent",
        )
        # The engine's view of the same requests (the slowest engine request of each, as in
        # the log line), beside the service's: where the two part, the time went elsewhere.
        self.engine_wait = Histogram(
            "translate_engine_wait_seconds",
            "Time a request waited inside the engine for a batch slot (queued to scheduled).",
            ["route"],
            buckets=_TTFT_BUCKETS,
            registry=r,
        )
        self.engine_prefill = Histogram(
            "translate_engine_prefill_seconds",
            "Time from a request's scheduling in the engine to its first token.",
            ["route"],
            buckets=_TTFT_BUCKETS,
            registry=r,
        )
        self.engine_ttft = Histogram(
            "translate_engine_time_to_first_token_seconds",
            "Time from a request's arrival in the engine to its first token.",
            ["route"],
            buckets=_TTFT_BUCKETS,
            registry=r,
        )
        self.engine_decode = Histogram(
            "translate_engine_decode_seconds",
            "Time from a request's first token to its last, inside the engine.",
            ["route"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.rejected = Counter(
            "translate_requests_rejected",
            "Requests turned away before reaching the engine.",
            ["reason"],
            registry=r,
        )
        self.quality_failures = Counter(
            "translate_quality_failures",
            "Translation answers the guard found wrong, by kind (before its retry).",
            ["route", "kind"],
            registry=r,
        )
        self.quality_retries = Counter(
            "translate_quality_retries",
            "Engine requests made again by the translation guard.",
            ["route"],
            registry=r,
        )
        self.quality_warnings = Counter(
            "translate_quality_warnings",
            "Failures still in translations sent (the response's `warnings`), by kind.",
            ["route", "kind"],
            registry=r,
        )
        self.memory_matches = Counter(
            "translate_memory_matches",
            "Pieces matched in a translation memory, by kind: "
            "`exact` (answered from it, no engine request) or `fuzzy` (its matches shown to the "
            "model as examples).",
            ["kind"],
            registry=r,
        )
        self._routes: dict[str, _RouteMetrics] = {}

    def observe(self, record: RequestRecord, ended: float) -> None:
        per_route = self.for_route(record.route)
        per_route.requests(record.status).inc()
        per_route.latency.observe(ended - record.started)
        if record.first_token is not None:
            per_route.ttft.observe(record.first_token - record.started)
        if record.prompt_tokens:
            per_route.prompt_tokens.inc(record.prompt_tokens)
        if record.completion_tokens:
            per_route.completion_tokens.inc(record.completion_tokens)
        timings = record.engine
        if timings is not None:
            per_route.engine_wait.observe(timings.wait)
            per_route.engine_prefill.observe(timings.prefill)
            per_route.engine_ttft.observe(timings.first_token)
            per_route.engine_decode.observe(timings.decode)
        if record.quality_failures or record.quality_warnings:
            self._observe_quality(record)
        if record.memory_exact:
            self.memory_matches.labels("exact").inc(record.memory_exact)
        if record.memory_fuzzy:
            self.memory_matches.labels("fuzzy").inc(record.memory_fuzzy)

    def _observe_quality(self, record: RequestRecord) -> None:
        # Rare (a failed answer), so the labelled children are looked up each time.
        for kind in record.quality_failures or ():
            self.quality_failures.labels(record.route, kind).inc()
        if record.quality_retries:
            self.quality_retries.labels(record.route).inc(record.quality_retries)
        for kind in record.quality_warnings or ():
            self.quality_warnings.labels(record.route, kind).inc()

    def for_route(self, route: str) -> _RouteMetrics:
        # Labelled children are looked up once per route, not once per request.
        children = self._routes.get(route)
        if children is None:
            children = self._routes[route] = _RouteMetrics(self, route)
        return children

    def exposition(self) -> bytes:
        if MULTIPROCESS_DIR in os.environ:
            return _every_process_exposition()
        # Ours, then the process-wide registry where vLLM registers its `vllm:*` metrics.
        return generate_latest(self.registry) + generate_latest(REGISTRY)


def _every_process_exposition() -> bytes:
    """Every front-end process's metrics (ours and vLLM's) summed, as one process's would
    read; gauges by their `multiprocess_mode`."""
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return generate_latest(registry)


class _RouteMetrics:
    __slots__ = (
        "_by_status",
        "_metrics",
        "_route",
        "completion_tokens",
        "engine_decode",
        "engine_prefill",
        "engine_ttft",
        "engine_wait",
        "in_flight",
        "latency",
        "prompt_tokens",
        "ttft",
    )

    def __init__(self, metrics: ServiceMetrics, route: str) -> None:
        self._metrics = metrics
        self._route = route
        self._by_status: dict[int, Any] = {}
        self.latency = metrics.latency.labels(route)
        self.ttft = metrics.ttft.labels(route)
        self.prompt_tokens = metrics.prompt_tokens.labels(route)
        self.completion_tokens = metrics.completion_tokens.labels(route)
        self.in_flight = metrics.in_flight.labels(route)
        self.engine_wait = metrics.engine_wait.labels(route)
        self.engine_prefill = metrics.engine_prefill.labels(route)
        self.engine_ttft = metrics.engine_ttft.labels(route)
        self.engine_decode = metrics.engine_decode.labels(route)

    def requests(self, status: int) -> Any:
        child = self._by_status.get(status)
        if child is None:
            child = self._by_status[status] = self._metrics.requests.labels(
                self._route, str(status)
            )
        return child


class RequestObserver:
    """ASGI middleware: request id, the canonical log line and the request metrics."""

    def __init__(
        self,
        app: ASGIApp,
        metrics: ServiceMetrics,
        routes: frozenset[str],
        tracing: Tracing | None = None,
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.routes = routes
        self.tracing = tracing
        self.log = structlog.get_logger("translate_server.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        path = normalize_path(scope["path"])  # as the router matches it
        route = path if path in self.routes else "unmatched"
        record = RequestRecord(request_id, route, scope["method"])
        scope.setdefault("state", {})["record"] = record
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        echo_id = (REQUEST_ID_HEADER, request_id.encode("latin-1"))

        # A plain function handing back `send`'s awaitable: a coroutine of its own here would
        # be one more to create and run for every streamed chunk.
        def send_observed(message: Message) -> Awaitable[None]:
            if message["type"] == "http.response.start":
                record.status = message["status"]
                message["headers"] = [*message.get("headers", ()), echo_id]
            return send(message)

        in_flight = self.metrics.for_route(route).in_flight
        in_flight.inc()
        if self.tracing is not None:
            record.trace = self.tracing.begin(record, scope)
        try:
            await self.app(scope, receive, send_observed)
        finally:
            in_flight.dec()
            if route == "unmatched" and (template := scope.get("path_template")):
                # A route with path parameters: named by its template once the router has
                # matched it ("/translate/document/{document_id}"), never by the raw path.
                record.route = _route_name(template)
            ended = time.perf_counter()
            if record.status == 0:
                record.status = 499  # the client left before any answer started
            self.metrics.observe(record, ended)
            self._log(record, ended)
            if record.trace is not None:
                record.trace.end(record)

    def _log(self, record: RequestRecord, ended: float) -> None:
        fields: dict[str, Any] = {
            "route": record.route,
            "method": record.method,
            "status": record.status,
        }
        if record.model:
            fields["model"] = record.model
        if record.engine_requests:
            fields["engine_requests"] = record.engine_requests
            fields["prompt_tokens"] = record.prompt_tokens
            fields["completion_tokens"] = record.completion_tokens
        if record.finish_reason:
            fields["finish_reason"] = record.finish_reason
        if record.error_code:
            fields["error_code"] = record.error_code
        if record.quality_failures:
            fields["quality_failures"] = record.quality_failures
            fields["quality_retries"] = record.quality_retries
        if record.quality_warnings:
            fields["warnings"] = record.quality_warnings
        if record.memory_exact or record.memory_fuzzy:
            fields["memory_exact"] = record.memory_exact
            fields["memory_fuzzy"] = record.memory_fuzzy
        fields.update(record.timings_ms(ended))
        if record.engine is not None:
            fields.update(record.engine_fields())
        level = logging.WARNING if record.status >= 500 else logging.INFO
        self.log.log(level, "request", **fields)


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == REQUEST_ID_HEADER:
            candidate = value.decode("latin-1").strip()
            # A client's id is echoed only when it looks like one (UUIDs, trace ids, ULIDs):
            # it lands in log lines, where spaces or `=` could forge fields of their own.
            if _REQUEST_ID.fullmatch(candidate):
                return candidate
            break
    return os.urandom(16).hex()  # as random as uuid4().hex, at a fraction of its cost


@functools.lru_cache(maxsize=256)  # the app's own templates: a bounded set
def _route_name(template: str) -> str:
    """`/v2/glossaries/{glossary_id:str}` -> `/v2/glossaries/{glossary_id}`."""
    return _PARAMETER_TYPE.sub(r"{\1}", template)


_PARAMETER_TYPE = re.compile(r"\{(\w+):[^}]*\}")

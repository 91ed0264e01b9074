"""The service's Prometheus metrics, observed once per request from its rendered record
(`RequestRecord.render`, the fields of its log line), so the two can never disagree.

The service's own collectors live here. A domain with collectors of its own declares them in
its registration (`registration.Domain.metrics`): each is made here, in the same registry; one
that observes requests (`MetricsPart`) is fed from the same fields, and a service that sets its
own (the document jobs' gauge, the translation cache's counters) finds it with `part`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)


@runtime_checkable
class MetricsPart(Protocol):
    """A domain's collectors fed from each request's rendered fields."""

    def observe(self, route: str, fields: Mapping[str, Any]) -> None: ...


P = TypeVar("P")


# Set (by the supervisor of `--api-processes N`) before prometheus_client is imported, it
# makes every metric of this process a file in that folder, which any process can sum.
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"

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


C = TypeVar("C", Counter, Gauge, Histogram)


@dataclass(frozen=True, slots=True)
class _Family(Generic[C]):
    """One of the service's collector families: its kind, name, help text and labels, and
    the options of its kind (a histogram's buckets, a gauge's sum across processes)."""

    kind: type[C]
    name: str
    documentation: str
    labels: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    def made(self, registry: CollectorRegistry) -> C:
        return self.kind(
            self.name, self.documentation, self.labels, registry=registry, **self.options
        )


# The service's own families, in the order /metrics shows them.
_REQUESTS = _Family(Counter, "translate_requests", "HTTP requests answered.", ("route", "status"))
_LATENCY = _Family(
    Histogram,
    "translate_request_duration_seconds",
    "Time from request arrival to the last byte of the answer.",
    ("route",),
    {"buckets": _LATENCY_BUCKETS},
)
_TTFT = _Family(
    Histogram,
    "translate_time_to_first_token_seconds",
    "Time from request arrival to the first generated token.",
    ("route",),
    {"buckets": _TTFT_BUCKETS},
)
_PROMPT_TOKENS = _Family(Counter, "translate_prompt_tokens", "Prompt tokens processed.", ("route",))
_COMPLETION_TOKENS = _Family(
    Counter, "translate_completion_tokens", "Completion tokens generated.", ("route",)
)
_IN_FLIGHT = _Family(
    Gauge,
    "translate_requests_in_flight",
    "HTTP requests being answered.",
    ("route",),
    {"multiprocess_mode": "livesum"},  # only read with --api-processes above 1
)
# Admission counts every front end's requests: the latest figure is the total.
_RUNNING = _Family(
    Gauge,
    "translate_requests_running",
    "Engine requests admitted within the engine's batch slots.",
    options={"multiprocess_mode": "livemostrecent"},
)
_WAITING = _Family(
    Gauge,
    "translate_requests_waiting",
    "Engine requests admitted beyond the batch slots, waiting for one.",
    options={"multiprocess_mode": "livemostrecent"},
)
# The engine's view of the same requests (the slowest engine request of each, as in the log
# line), beside the service's: where the two part, the time went elsewhere.
_ENGINE_WAIT = _Family(
    Histogram,
    "translate_engine_wait_seconds",
    "Time a request waited inside the engine for a batch slot (queued to scheduled).",
    ("route",),
    {"buckets": _TTFT_BUCKETS},
)
_ENGINE_PREFILL = _Family(
    Histogram,
    "translate_engine_prefill_seconds",
    "Time from a request's scheduling in the engine to its first token.",
    ("route",),
    {"buckets": _TTFT_BUCKETS},
)
_ENGINE_TTFT = _Family(
    Histogram,
    "translate_engine_time_to_first_token_seconds",
    "Time from a request's arrival in the engine to its first token.",
    ("route",),
    {"buckets": _TTFT_BUCKETS},
)
_ENGINE_DECODE = _Family(
    Histogram,
    "translate_engine_decode_seconds",
    "Time from a request's first token to its last, inside the engine.",
    ("route",),
    {"buckets": _LATENCY_BUCKETS},
)
_REJECTED = _Family(
    Counter,
    "translate_requests_rejected",
    "Requests turned away before reaching the engine.",
    ("reason",),
)
# Per front end (each counts the requests it sent): the worst is the one to alert on.
_ENGINE_FAILURES = _Family(
    Gauge,
    "translate_engine_consecutive_failures",
    "Engine requests failed in a row, with no success between them (at "
    "--engine-failure-threshold, /health answers 503 engine_failing).",
    options={"multiprocess_mode": "livemax"},
)


class ServiceMetrics:
    """The service's own Prometheus collectors, in a registry of their own so that several apps
    (tests) can live in one process; `/metrics` shows them beside vLLM's global registry."""

    def __init__(
        self,
        registry: CollectorRegistry | None = None,
        parts: Sequence[Callable[[CollectorRegistry], object]] = (),
    ) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = _REQUESTS.made(r)
        self.latency = _LATENCY.made(r)
        self.ttft = _TTFT.made(r)
        self.prompt_tokens = _PROMPT_TOKENS.made(r)
        self.completion_tokens = _COMPLETION_TOKENS.made(r)
        self.in_flight = _IN_FLIGHT.made(r)
        self.running = _RUNNING.made(r)
        self.waiting = _WAITING.made(r)
        self.engine_wait = _ENGINE_WAIT.made(r)
        self.engine_prefill = _ENGINE_PREFILL.made(r)
        self.engine_ttft = _ENGINE_TTFT.made(r)
        self.engine_decode = _ENGINE_DECODE.made(r)
        self.rejected = _REJECTED.made(r)
        self.engine_consecutive_failures = _ENGINE_FAILURES.made(r)
        # The domains' own collectors, in this registry; those that observe requests are fed
        # from the same fields.
        self.parts = tuple(part(r) for part in parts)
        self._observers = tuple(part for part in self.parts if isinstance(part, MetricsPart))
        self._routes: dict[str, _RouteMetrics] = {}

    def observe(self, fields: Mapping[str, Any]) -> None:
        """Observe one request from its rendered record (`RequestRecord.render`): the same
        fields as its log line."""
        route = fields["route"]
        per_route = self.for_route(route)
        per_route.requests(fields["status"]).inc()
        per_route.latency.observe(fields["total_ms"] / 1000)
        if (ttft := fields.get("ttft_ms")) is not None:
            per_route.ttft.observe(ttft / 1000)
        if prompt_tokens := fields.get("prompt_tokens"):
            per_route.prompt_tokens.inc(prompt_tokens)
        if completion_tokens := fields.get("completion_tokens"):
            per_route.completion_tokens.inc(completion_tokens)
        if (engine_wait := fields.get("engine_wait_ms")) is not None:
            per_route.engine_wait.observe(engine_wait / 1000)
            per_route.engine_prefill.observe(fields["prefill_ms"] / 1000)
            per_route.engine_ttft.observe(fields["engine_ttft_ms"] / 1000)
            per_route.engine_decode.observe(fields["decode_ms"] / 1000)
        for part in self._observers:
            part.observe(route, fields)

    def part(self, kind: type[P]) -> P:
        """A domain's collectors of type `kind` (made from its registration), for a service
        that sets them itself."""
        for part in self.parts:
            if isinstance(part, kind):
                return part
        raise LookupError(f"no {kind.__name__} among the metrics")

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

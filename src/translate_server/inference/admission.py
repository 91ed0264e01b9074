"""Admission control: decide at once, before any work, whether a request may wait for the engine.

The engine runs `slots` sequences at a time; up to `queue_limit` more may wait for a slot.
Anything beyond is answered immediately with 503 and a `Retry-After`, so overload shows up as
honest refusals rather than as latency that grows without bound.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from translate_server.errors import OverloadedError, UnavailableError

if TYPE_CHECKING:
    from prometheus_client import Counter, Gauge

    from translate_server.inference.shared_admission import SharedCapacity
    from translate_server.observability.tracing import Tracing


class AdmissionMetrics(Protocol):
    """The collectors admission keeps up to date (the app passes its `ServiceMetrics`)."""

    running: Gauge
    waiting: Gauge
    rejected: Counter


class Ticket:
    """Engine capacity held by one HTTP request; released exactly once."""

    __slots__ = ("_admission", "_admitted_at", "weight")

    def __init__(self, admission: Admission, weight: int) -> None:
        self._admission = admission
        self.weight = weight
        self._admitted_at = time.perf_counter()

    def release(self) -> None:
        if self.weight:
            self._admission._release(self.weight, time.perf_counter() - self._admitted_at)
            self.weight = 0


class Admission:
    def __init__(
        self,
        slots: int,
        queue_limit: int,
        metrics: AdmissionMetrics,
        tracing: Tracing | None = None,
        shared: SharedCapacity | None = None,
    ) -> None:
        self.slots = slots
        self.tracing = tracing
        self.capacity = slots + queue_limit
        self.in_flight = 0
        self.draining = False
        self.last_refused = 0.0  # time.monotonic() of the last request refused while draining
        self._metrics = metrics
        self._mean_seconds = 1.0  # smoothed time a ticket is held
        # With several front-end processes, the count every process's admission shares;
        # `in_flight` stays this process's own (what its drain waits for).
        self._shared = shared

    @property
    def admitted(self) -> int:
        """Sequences admitted: this process's, or every front end's where they share."""
        return self.in_flight if self._shared is None else self._shared.total

    @property
    def waiting(self) -> int:
        return max(0, self.admitted - self.slots)

    def admit(self, weight: int = 1) -> Ticket:
        """Reserve `weight` engine sequences or raise at once."""
        if self.tracing is None:
            return self._admit(weight)
        with self.tracing.span("admission", {"admission.weight": weight}) as span:
            ticket = self._admit(weight)
            span.set_attributes(
                {"admission.in_flight": self.in_flight, "admission.waiting": self.waiting}
            )
            return ticket

    def _admit(self, weight: int) -> Ticket:
        if self.draining:
            self.last_refused = time.monotonic()
            self._metrics.rejected.labels("draining").inc()
            raise UnavailableError(
                "The server is shutting down; retry on another replica.",
                code="shutting_down",
                headers={"Retry-After": "1"},
            )
        # A request larger than the whole capacity still runs, alone.
        weight = min(weight, self.capacity)
        if (
            self.in_flight + weight > self.capacity
            if self._shared is None
            else not self._shared.try_take(weight, self.capacity)
        ):
            self._metrics.rejected.labels("queue_full").inc()
            raise OverloadedError(
                f"The server is at capacity ({self.admitted} requests admitted, "
                f"{self.capacity} allowed); retry later.",
                retry_after=self._retry_after(),
            )
        self.in_flight += weight
        self._publish()
        return Ticket(self, weight)

    def admit_more(self, weight: int) -> Ticket:
        """More sequences for a request already admitted (a piece split again once its
        tokens were counted). Never refused: the request's engine work has begun and would
        be thrown away, and a request refused here whenever the server is busy would starve.
        The overshoot is bounded by the pieces one request may create."""
        if self._shared is not None:
            self._shared.take(weight)
        self.in_flight += weight
        self._publish()
        return Ticket(self, weight)

    def _release(self, weight: int, held_seconds: float) -> None:
        if self._shared is not None:
            self._shared.give(weight)
        self.in_flight -= weight
        self._mean_seconds += 0.1 * (held_seconds - self._mean_seconds)
        self._publish()

    def _retry_after(self) -> float:
        # About the time for the waiting requests to move into slots.
        batches_ahead = max(1.0, self.waiting / max(1, self.slots))
        return batches_ahead * self._mean_seconds

    def _publish(self) -> None:
        self._metrics.running.set(min(self.admitted, self.slots))
        self._metrics.waiting.set(self.waiting)

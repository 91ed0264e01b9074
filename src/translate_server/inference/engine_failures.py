"""Engine failures in a row: what tells an engine that fails every request from one that is
merely busy.

An engine can stay up (`is_alive`) and still fail each request it is given: a kernel that
cannot compile fails every generation with a 502 `engine_failed`. The one path into the
engine (`GenerationService`) reports here how each engine request ended; `threshold`
failures with no success between them make the engine `failing`, which the health routes
answer with 503 `engine_failing` so that Compose or Kubernetes restart the server. Requests
that end for their client's sake (refused as invalid, cancelled, past their deadline) are
reported as neither: they say nothing about the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

if TYPE_CHECKING:
    from prometheus_client import Gauge

log = structlog.get_logger(__name__)


class EngineFailures:
    __slots__ = ("_gauge", "consecutive", "threshold")

    def __init__(self, threshold: int, gauge: Gauge | None = None) -> None:
        self.threshold = threshold
        self.consecutive = 0
        self._gauge = gauge

    @property
    def failing(self) -> bool:
        return self.consecutive >= self.threshold

    def failed(self) -> None:
        self.consecutive += 1
        if self.consecutive == self.threshold:  # once, as it crosses
            log.error("engine_failing", failures=self.consecutive, threshold=self.threshold)
        self._publish()

    def succeeded(self) -> None:
        if not self.consecutive:
            return  # the common case: nothing to clear
        if self.failing:
            log.warning("engine_recovered", failures=self.consecutive)
        self.consecutive = 0
        self._publish()

    def _publish(self) -> None:
        if self._gauge is not None:
            self._gauge.set(self.consecutive)

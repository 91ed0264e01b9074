"""What one request did, filled in as it happens: by the request observer that opens it, the
handlers, generation (tokens, the engine's figures) and the translation guard. The observer
writes the log line and the metrics from it (`http.observability`).

The engine's own figures (`EngineTimings`: wait for a batch slot, prefill, time to first token,
decode, preemptions, cached prompt tokens) arrive with each engine request's last output. A
request of several engine requests (a /translate of many texts or pieces, all submitted at
once) reports the figures of its slowest engine request, the one with the longest time from
arrival in the engine to its last token, since that one decides when the answer is complete;
`preemptions` and `cached_tokens` are sums over all of them.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from translate_server.inference.engine.protocol import EngineTimings
    from translate_server.observability.tracing import RequestTrace


class RequestRecord:
    """What one request did, filled in as it happens. Times are `time.perf_counter()` values."""

    __slots__ = (
        "cached_tokens",
        "completion_tokens",
        "engine",
        "engine_requests",
        "error_code",
        "finish_reason",
        "finished",
        "first_token",
        "memory_exact",
        "memory_fuzzy",
        "method",
        "model",
        "preemptions",
        "prompt_tokens",
        "quality_failures",
        "quality_retries",
        "quality_warnings",
        "request_id",
        "route",
        "started",
        "status",
        "submitted",
        "trace",
    )

    def __init__(self, request_id: str, route: str, method: str) -> None:
        self.request_id = request_id
        self.route = route
        self.method = method
        self.started = time.perf_counter()
        self.status = 0
        self.model: str | None = None
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.engine_requests = 0
        self.submitted: float | None = None
        self.first_token: float | None = None
        self.finished: float | None = None
        self.finish_reason: str | None = None
        self.error_code: str | None = None
        # The slowest engine request's figures; None where the engine measures nothing.
        self.engine: EngineTimings | None = None
        self.preemptions = 0
        # Prompt tokens found in the engine's prefix cache, summed; None where not reported.
        self.cached_tokens: int | None = None
        # The request's span, where tracing is on.
        self.trace: RequestTrace | None = None
        # The translation guard's findings: failures of first answers, retries, and what
        # the answers sent still have (None until the guard finds something).
        self.quality_failures: list[str] | None = None
        self.quality_retries = 0
        self.quality_warnings: list[str] | None = None
        # Pieces answered from a translation memory, and pieces whose prompt showed its
        # fuzzy matches as examples.
        self.memory_exact = 0
        self.memory_fuzzy = 0

    def engine_submitted(self) -> None:
        now = time.perf_counter()
        self.engine_requests += 1
        if self.submitted is None:
            self.submitted = now

    def token_arrived(self) -> None:
        if self.first_token is None:
            self.first_token = time.perf_counter()

    def engine_finished(
        self,
        prompt_tokens: int,
        completion_tokens: int,
        timings: EngineTimings | None = None,
        cached_tokens: int | None = None,
    ) -> None:
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.finished = time.perf_counter()
        if cached_tokens is not None:
            self.cached_tokens = (self.cached_tokens or 0) + cached_tokens
        if timings is not None:
            self.preemptions += timings.preemptions
            slowest = self.engine
            if slowest is None or (
                timings.first_token + timings.decode > slowest.first_token + slowest.decode
            ):
                self.engine = timings

    def engine_fields(self) -> dict[str, float | int]:
        """The engine's figures for the log line; none at all where it measured nothing."""
        timings = self.engine
        if timings is None:
            return {}
        return {
            "engine_wait_ms": round(timings.wait * 1000, 3),
            "prefill_ms": round(timings.prefill * 1000, 3),
            "engine_ttft_ms": round(timings.first_token * 1000, 3),
            "decode_ms": round(timings.decode * 1000, 3),
            "preemptions": self.preemptions,
            "cached_tokens": self.cached_tokens or 0,
        }

    def quality_checked(
        self, failures: tuple[str, ...], warnings: tuple[str, ...], retried: bool
    ) -> None:
        if failures:
            self.quality_failures = [*(self.quality_failures or ()), *failures]
        if warnings:
            self.quality_warnings = [*(self.quality_warnings or ()), *warnings]
        self.quality_retries += retried

    def timings_ms(self, ended: float) -> dict[str, float]:
        def ms(start: float | None, end: float | None) -> float | None:
            return None if start is None or end is None else round((end - start) * 1000, 3)

        timings = {
            "queue_ms": ms(self.started, self.submitted),
            "ttft_ms": ms(self.started, self.first_token),
            "generation_ms": ms(self.first_token, self.finished),
            "engine_ms": ms(self.submitted, self.finished),
            "total_ms": ms(self.started, ended),
        }
        return {key: value for key, value in timings.items() if value is not None}

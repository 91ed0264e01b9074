"""What one request did, filled in as it happens: by the request observer that opens it, the
handlers and generation (tokens, the engine's figures). A domain with findings of its own
keeps them in a part of the record (`RecordPart`: the translation's guard and memory matches,
`translation.findings`), which renders its own fields.

`RequestRecord.render` is the one rendering of a record: the request log line is exactly its
fields, the metrics (`observability.metrics`) and the request's span (`observability.tracing`)
read theirs from the same fields, so the three can never disagree.

The engine's own figures (`EngineTimings`: wait for a batch slot, prefill, time to first token,
decode, preemptions, cached prompt tokens) arrive with each engine request's last output. A
request of several engine requests (a /translate of many texts or pieces, all submitted at
once) reports the figures of its slowest engine request, the one with the longest time from
arrival in the engine to its last token, since that one decides when the answer is complete;
`preemptions` and `cached_tokens` are sums over all of them.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping

    from translate_server.observability.engine_figures import EngineTimings


class Trace(Protocol):
    """The request's span, where tracing is on (`observability.tracing`), ended with the
    same rendered fields as the log line."""

    def end(self, fields: Mapping[str, Any]) -> None: ...


class RecordPart(Protocol):
    """A domain's own findings on a request, made empty by the record on first use."""

    def __init__(self) -> None: ...

    def fields(self) -> dict[str, Any]:
        """Its fields in the rendering (the log line); none where it found nothing."""
        ...


Part = TypeVar("Part", bound=RecordPart)


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
        "method",
        "model",
        "parts",
        "preemptions",
        "prompt_tokens",
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
        self.trace: Trace | None = None
        # The domains' own findings, by their kind (None until one has something).
        self.parts: dict[type[Any], RecordPart] | None = None

    def part(self, kind: type[Part]) -> Part:
        """The record's part of this kind, made on first use."""
        parts = self.parts
        if parts is None:
            parts = self.parts = {}
        found = parts.get(kind)
        if found is None:
            found = parts[kind] = kind()
        return found  # type: ignore[return-value]  # stored under its own kind

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

    def render(self, ended: float) -> dict[str, Any]:
        """The one rendering of the record, once the request ended: the log line's fields, in
        its order. Metrics and spans take theirs from it."""
        fields: dict[str, Any] = {"route": self.route, "method": self.method, "status": self.status}
        if self.model:
            fields["model"] = self.model
        if self.engine_requests:
            fields["engine_requests"] = self.engine_requests
            fields["prompt_tokens"] = self.prompt_tokens
            fields["completion_tokens"] = self.completion_tokens
        if self.finish_reason:
            fields["finish_reason"] = self.finish_reason
        if self.error_code:
            fields["error_code"] = self.error_code
        if self.parts is not None:
            for part in self.parts.values():
                fields.update(part.fields())
        started = self.started
        if self.submitted is not None:
            fields["queue_ms"] = _ms(started, self.submitted)
        if self.first_token is not None:
            fields["ttft_ms"] = _ms(started, self.first_token)
            if self.finished is not None:
                fields["generation_ms"] = _ms(self.first_token, self.finished)
        if self.submitted is not None and self.finished is not None:
            fields["engine_ms"] = _ms(self.submitted, self.finished)
        fields["total_ms"] = _ms(started, ended)
        timings = self.engine
        if timings is not None:  # none at all where the engine measured nothing
            fields["engine_wait_ms"] = round(timings.wait * 1000, 3)
            fields["prefill_ms"] = round(timings.prefill * 1000, 3)
            fields["engine_ttft_ms"] = round(timings.first_token * 1000, 3)
            fields["decode_ms"] = round(timings.decode * 1000, 3)
            fields["preemptions"] = self.preemptions
            fields["cached_tokens"] = self.cached_tokens or 0
        return fields


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 3)

"""The request observer: one canonical log line and one set of observations per request.

A pure ASGI middleware opens a `RequestRecord` (`translate_server.observability.record`) for each
request, the service fills in what it learns (tokens, engine timings), and when the last byte
is sent the middleware renders the record once and writes the log line, feeds Prometheus
(`translate_server.observability.metrics`) and ends the request's span, where tracing is on
(`translate_server.observability.tracing`), from the same fields.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING

import structlog
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.utils import normalize_path

from translate_server.observability.record import RequestRecord

if TYPE_CHECKING:
    from translate_server.observability.metrics import ServiceMetrics
    from translate_server.observability.tracing import Tracing

REQUEST_ID_HEADER = b"x-request-id"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")


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
            fields = record.render(ended)  # the one rendering: log line, metrics, span
            self.metrics.observe(fields)
            level = logging.WARNING if record.status >= 500 else logging.INFO
            self.log.log(level, "request", **fields)
            if record.trace is not None:
                record.trace.end(fields)


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

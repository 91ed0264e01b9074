"""Readiness, liveness and the Prometheus exposition."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from litestar import Request, get

from translate_server.errors import UnavailableError
from translate_server.http.openapi import OPEN_SECURITY, error_responses
from translate_server.http.route_paths import METRICS, OPEN

if TYPE_CHECKING:
    from translate_server.inference.admission import Admission
    from translate_server.inference.engine import Engine
    from translate_server.observability.metrics import ServiceMetrics


class _Running(Protocol):
    """What these routes read of the app's services (`translate_server.services`), named
    here so that `http/` depends on no domain."""

    @property
    def engine(self) -> Engine: ...
    @property
    def admission(self) -> Admission: ...
    @property
    def metrics(self) -> ServiceMetrics: ...


def services(request: Request[Any, Any, Any]) -> _Running:
    found: _Running = request.app.state.services
    return found


@get(
    "/health",
    security=OPEN_SECURITY,
    summary="Ready: the engine is alive and requests are being admitted",
    tags=["operations"],
    responses=error_responses(503),
    opt=OPEN,
)
async def health(request: Request[Any, Any, Any]) -> dict[str, str]:
    found = services(request)
    if not found.engine.is_alive:
        raise UnavailableError("The inference engine is not running.")
    if found.admission.draining:
        raise UnavailableError("The server is shutting down.", code="shutting_down")
    return {"status": "ok"}


@get(
    "/health/live",
    security=OPEN_SECURITY,
    summary="Alive: the engine is running (stays up while draining)",
    tags=["operations"],
    responses=error_responses(503),
    opt=OPEN,
)
async def live(request: Request[Any, Any, Any]) -> dict[str, str]:
    if not services(request).engine.is_alive:
        raise UnavailableError("The inference engine is not running.")
    return {"status": "ok"}


@get(
    "/metrics",
    summary="Prometheus metrics: the service's own and the engine's",
    tags=["operations"],
    media_type="text/plain; version=0.0.4",
    opt=METRICS,
)
async def metrics(request: Request[Any, Any, Any]) -> bytes:
    return services(request).metrics.exposition()

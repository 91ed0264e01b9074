"""Readiness, liveness and the Prometheus exposition."""

from __future__ import annotations

from litestar import Request, get

from translate_server.errors import UnavailableError
from translate_server.http.openapi import error_responses
from translate_server.http.route_paths import METRICS, OPEN
from translate_server.http.services import services


@get(
    "/health",
    summary="Ready: the engine is alive and requests are being admitted",
    tags=["operations"],
    responses=error_responses(503),
    opt=OPEN,
)
async def health(request: Request) -> dict[str, str]:
    found = services(request)
    if not found.engine.is_alive:
        raise UnavailableError("The inference engine is not running.")
    if found.admission.draining:
        raise UnavailableError("The server is shutting down.", code="shutting_down")
    return {"status": "ok"}


@get(
    "/health/live",
    summary="Alive: the engine is running (stays up while draining)",
    tags=["operations"],
    responses=error_responses(503),
    opt=OPEN,
)
async def live(request: Request) -> dict[str, str]:
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
async def metrics(request: Request) -> bytes:
    return services(request).metrics.exposition()

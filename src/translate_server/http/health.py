from __future__ import annotations

from litestar import Request, get

from translate_server.http.errors import UnavailableError
from translate_server.http.requests import app_state, error_responses


@get("/health", summary="Ready: the engine is alive and requests are being admitted",
     tags=["operations"], responses=error_responses(503))
async def health(request: Request) -> dict[str, str]:
    state = app_state(request)
    if not state.engine.is_alive:
        raise UnavailableError("The inference engine is not running.")
    if state.admission.draining:
        raise UnavailableError("The server is shutting down.", code="shutting_down")
    return {"status": "ok"}


@get("/health/live", summary="Alive: the engine is running (stays up while draining)",
     tags=["operations"], responses=error_responses(503))
async def live(request: Request) -> dict[str, str]:
    state = app_state(request)
    if not state.engine.is_alive:
        raise UnavailableError("The inference engine is not running.")
    return {"status": "ok"}


@get("/metrics", summary="Prometheus metrics: the service's own and the engine's",
     tags=["operations"], media_type="text/plain; version=0.0.4")
async def metrics(request: Request) -> bytes:
    return app_state(request).metrics.exposition()

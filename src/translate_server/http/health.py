"""Health (what routers take traffic on), readiness of every part, liveness, and the
Prometheus exposition.

- `/health`: the engine is alive and requests are admitted. Routers and probes route on it:
  it stays 200 while the database is lost, since `/translate` and chat without a memory
  still serve (what needs a store answers 503 `database_unavailable` meanwhile).
- `/health/ready`: every part answers: the engine, admission, and each store's database
  (probed now). 503 names what is not; for dashboards, alerts and start-up ordering.
- `/health/live`: the engine is alive (stays up while draining or while the database is lost).

An engine that is up but failed its last `--engine-failure-threshold` requests in a row
(`EngineFailures`) is not alive for any of them: 503 `engine_failing`, so that Kubernetes'
liveness probe, or the image's health check under Compose, restarts the server. Its next
success, should one come first, clears it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from litestar import Request, get

from translate_server.errors import StorageUnavailableError, UnavailableError
from translate_server.http.openapi import OPEN_SECURITY, error_responses
from translate_server.http.route_paths import METRICS, OPEN

if TYPE_CHECKING:
    from translate_server.inference.admission import Admission
    from translate_server.inference.engine import Engine
    from translate_server.inference.engine_failures import EngineFailures
    from translate_server.observability.metrics import ServiceMetrics
    from translate_server.storage.opening import StoreDatabases


class _Running(Protocol):
    """What these routes read of the app's services (`translate_server.services`), named
    here so that `http/` depends on no domain."""

    @property
    def engine(self) -> Engine: ...
    @property
    def engine_failures(self) -> EngineFailures: ...
    @property
    def admission(self) -> Admission: ...
    @property
    def metrics(self) -> ServiceMetrics: ...
    @property
    def databases(self) -> StoreDatabases | None: ...


def services(request: Request[Any, Any, Any]) -> _Running:
    found: _Running = request.app.state.services
    return found


def _check_engine(found: _Running) -> None:
    """503 unless the engine runs and has not failed its last requests in a row."""
    if not found.engine.is_alive:
        raise UnavailableError("The inference engine is not running.")
    if found.engine_failures.failing:
        raise UnavailableError(
            f"Not alive: {_failing(found.engine_failures)}.", code="engine_failing"
        )


def _failing(failures: EngineFailures) -> str:
    return (
        f"the inference engine failed its last {failures.consecutive} requests in a row "
        f"(threshold {failures.threshold})"
    )


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
    _check_engine(found)
    if found.admission.draining:
        raise UnavailableError("The server is shutting down.", code="shutting_down")
    return {"status": "ok"}


@get(
    "/health/ready",
    summary="Ready in every part: the engine, admission and each store's database",
    tags=["operations"],
    responses=error_responses(503),
    security=OPEN_SECURITY,
    opt=OPEN,
)
async def ready(request: Request[Any, Any, Any]) -> dict[str, Any]:
    found = services(request)
    failing = found.engine_failures.failing
    engine = "unavailable" if not found.engine.is_alive else "failing" if failing else "ok"
    admission = "draining" if found.admission.draining else "ok"
    unreachable = await found.databases.unreachable() if found.databases else {}
    stores = {
        store: "unavailable" if store in unreachable else "ok"
        for store in (found.databases.stores if found.databases else [])
    }
    problems: list[tuple[str, str]] = []  # (what is wrong, its code)
    if engine == "unavailable":
        problems.append(("the inference engine is not running", "engine_unavailable"))
    elif engine == "failing":
        problems.append((_failing(found.engine_failures), "engine_failing"))
    if admission != "ok":
        problems.append(("the server is shutting down", "shutting_down"))
    if unreachable:
        plural = "s" if len(unreachable) > 1 else ""
        problems.append(
            (
                f"the database of the {_listed(sorted(unreachable))} store{plural} is unavailable",
                "database_unavailable",
            )
        )
    if problems:
        raise UnavailableError(
            f"Not ready: {'; '.join(what for what, _ in problems)}.",
            code=problems[0][1],
            headers={"Retry-After": str(StorageUnavailableError.RETRY_AFTER)},
        )
    return {"status": "ok", "engine": engine, "admission": admission, "stores": stores}


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@get(
    "/health/live",
    security=OPEN_SECURITY,
    summary="Alive: the engine is running and not failing every request (stays up while draining)",
    tags=["operations"],
    responses=error_responses(503),
    opt=OPEN,
)
async def live(request: Request[Any, Any, Any]) -> dict[str, str]:
    _check_engine(services(request))
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

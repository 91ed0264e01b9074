"""What the app keeps for its life: `open_services` starts the engine and the core every domain
builds on, then opens each domain in turn, on one exit stack that closes everything in reverse
when the app stops (and when start-up fails halfway). `app.create_app` calls it from the
lifespan."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

import structlog

from translate_server.inference.admission import Admission
from translate_server.inference.engine import Engine
from translate_server.inference.engine_failures import EngineFailures
from translate_server.inference.generation import GenerationService
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.tracing import Tracing
from translate_server.registration import Domain, Opening, check_wiring
from translate_server.services import Services
from translate_server.settings import Settings

if TYPE_CHECKING:  # its modules load SQLAlchemy and Alembic, with the stores
    from translate_server.accounts.directory import KeyDirectory
    from translate_server.storage.opening import StoreDatabases

log = structlog.get_logger(__name__)

ENGINE_WATCH_INTERVAL = 0.5


async def open_services(
    resources: AsyncExitStack,
    settings: Settings,
    engine_factory: Callable[[], Engine],
    admission: Admission,
    metrics_: ServiceMetrics,
    tracing: Tracing | None,
    domains: Sequence[Domain],
    keys: KeyDirectory,
    *,
    on_engine_death: Callable[[], None] | None = None,
    owns_stores: bool = True,
) -> Services:
    """The engine, the one path into it, and every domain's services, opened in `domains`'
    order. Each thing that must be closed is entered on `resources` the moment it exists, so
    they close in reverse order when the app stops, and also when start-up fails halfway (the
    engine's memory and processes, the databases, the tasks).

    A front end that does not `owns_stores` opens none: the requests that need them are
    forwarded to the one that does."""
    check_wiring(domains)  # a key nobody provides before its reader fails before anything opens
    for domain in domains:
        if domain.check is not None:
            domain.check(settings)  # a setting a domain cannot serve fails before the engine
    if tracing is not None:
        resources.callback(tracing.shutdown)  # last: sends the spans still waiting for a batch
    databases = await _open_databases(resources, settings, domains) if owns_stores else None
    engine = _start_engine(resources, engine_factory)
    failures = EngineFailures(
        settings.limits.engine_failure_threshold, metrics_.engine_consecutive_failures
    )
    found = Services(
        engine=engine,
        generation=GenerationService(engine, tracing, settings.engine.stream_coalesce_ms, failures),
        engine_failures=failures,
        admission=admission,
        metrics=metrics_,
        limits=settings.limits,
        model_name=settings.engine.model_name,
        started_at=int(time.time()),
        keys=keys,
        databases=databases,
    )
    opening = Opening(settings, found, resources, owns_stores)
    for domain in domains:
        if domain.open is not None:
            with found.opening(domain.declared()):
                await domain.open(opening)
    opening.start_task(_watch_engine(engine, on_engine_death))
    return found


async def _open_databases(
    resources: AsyncExitStack, settings: Settings, domains: Sequence[Domain]
) -> StoreDatabases:
    """The databases the domains keep their things in, each migrated to its head revision
    before the engine starts: one that cannot be reached fails the start at once, naming it,
    not after the model has loaded."""
    from translate_server.storage.opening import StoreDatabases

    databases = StoreDatabases.of(settings)
    resources.push_async_callback(databases.close)  # after every store: their engines
    for store in dict.fromkeys(store for domain in domains for store in domain.stores(settings)):
        await databases.migrated(store)
    return databases


def _start_engine(resources: AsyncExitStack, engine_factory: Callable[[], Engine]) -> Engine:
    started = time.perf_counter()
    engine = engine_factory()
    resources.callback(_stop_engine, engine)
    log.info(
        "engine_ready", model=engine.info.model, seconds=round(time.perf_counter() - started, 1)
    )
    return engine


def _stop_engine(engine: Engine) -> None:
    engine.shutdown()
    log.info("engine_stopped")


async def _watch_engine(engine: Engine, on_death: Callable[[], None] | None) -> None:
    while engine.is_alive:  # noqa: ASYNC110 - the engine's liveness is a flag, not an event
        await asyncio.sleep(ENGINE_WATCH_INTERVAL)
    log.error("engine_died")
    if on_death is not None:
        on_death()

"""The composition root: one engine, its surfaces, wired together here and nowhere else.

`DOMAINS` is the list of what the app serves, each a `registration.Domain` declared in its own
package (its routes, what it opens for the app's life, its metrics), in the order they open:
a domain may use what the ones before it provide. `create_app` builds the routes, the gate and
the observer from them; `lifetime.open_services` opens the engine and then each domain.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

from litestar import Litestar

from translate_server.accounts.directory import KeyDirectory
from translate_server.accounts.static import key_directory
from translate_server.adapters import domain as adapters
from translate_server.admin import domain as accounts
from translate_server.batches import domain as batches
from translate_server.compat.deepl import domain as deepl
from translate_server.compat.deeplx import domain as deeplx
from translate_server.compat.google import domain as google
from translate_server.compat.libretranslate import domain as libretranslate
from translate_server.documents import domain as documents
from translate_server.glossaries import domain as glossaries
from translate_server.glossaries.keys import GLOSSARIES
from translate_server.http.cors import Cors
from translate_server.http.errors import exception_handlers
from translate_server.http.gate import ApiGate
from translate_server.http.health import health, live, metrics, ready
from translate_server.http.idempotency import IdempotentRequests
from translate_server.http.idempotent_answers import IdempotentAnswers
from translate_server.http.observability import RequestObserver
from translate_server.http.openapi import DOCS_PATH, docs_assets, openapi_config
from translate_server.http.requests import LIMITER
from translate_server.http.route_paths import RoutePaths
from translate_server.http.scopes import ScopeCheck
from translate_server.inference.admission import Admission
from translate_server.inference.engine import Engine
from translate_server.lifetime import open_services
from translate_server.limits.limiter import Limiter
from translate_server.limits.usage_metrics import UsageCollector
from translate_server.memory import domain as memory
from translate_server.memory.keys import MEMORIES
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.tracing import Tracing, build_tracing
from translate_server.openai_api import domain as openai_api
from translate_server.registration import Domain, fill
from translate_server.settings import Settings
from translate_server.translation import domain as translation
from translate_server.translation.planning.ports import GLOSSARY_LOOKUP, MEMORY_LOOKUP
from translate_server.ui import domain as page

if TYPE_CHECKING:
    from litestar.types import ASGIApp

    from translate_server.inference.shared_admission import SharedCapacity

DOMAINS: tuple[Domain, ...] = (
    adapters.DOMAIN,  # first: every surface resolves `model` against the served models
    accounts.DOMAIN,  # before any surface: the keys the gate checks, and their accounts
    memory.DOMAIN,
    fill("memories for translation", MEMORY_LOOKUP, MEMORIES, lambda memories: memories),
    glossaries.DOMAIN,
    fill("glossaries for translation", GLOSSARY_LOOKUP, GLOSSARIES, lambda found: found.store),
    translation.DOMAIN,
    openai_api.DOMAIN,
    deepl.ACCOUNTS,  # before the documents: DeepL's are billed to its keys once translated
    documents.DOMAIN,
    batches.DOMAIN,  # after the documents: its batches run on their queue
    deepl.DOMAIN,
    libretranslate.DOMAIN,
    deeplx.DOMAIN,
    google.DOMAIN,
    page.DOMAIN,
)
# Readiness, liveness and the metrics: the process's, not a domain's.
OPEN_ROUTES = (health, ready, live, metrics)


def create_app(
    settings: Settings,
    engine_factory: Callable[[], Engine],
    *,
    on_engine_death: Callable[[], None] | None = None,
    on_ready: Callable[[], None] | None = None,
    tracing: Tracing | None = None,
    shared_capacity: SharedCapacity | None = None,
    owns_stores: bool = True,
    outer: Callable[[ASGIApp, RoutePaths], ASGIApp] | None = None,
) -> Litestar:
    """Build the app around an engine made by `engine_factory` when the app starts.

    `on_engine_death` is called once if the engine fails; the CLI uses it to exit non-zero so
    that a supervisor restarts the process. `on_ready` is called once everything the app
    keeps for its life is built and imported (the server freezes its heap there). `tracing`
    defaults to OTLP export where `--otlp-traces-endpoint` is set (tests pass one with an
    in-memory exporter).

    With several front-end processes (`--api-processes`), `shared_capacity` is the admission
    count they share; only the one that `owns_stores` opens the stores and runs document jobs,
    and `outer` wraps the app in what forwards their requests to it."""
    metrics_ = service_metrics(settings)
    if tracing is None:
        tracing = build_tracing(settings.engine.otlp_traces_endpoint)
    admission = Admission(
        slots=settings.engine.max_num_seqs,
        queue_limit=settings.limits.queue_limit(settings.engine.max_num_seqs),
        metrics=metrics_,
        tracing=tracing,
        shared=shared_capacity,
    )
    keys = key_directory(settings)  # its store: the accounts domain's
    lifespan = _lifespan(
        settings,
        engine_factory,
        admission,
        metrics_,
        tracing,
        keys,
        on_engine_death=on_engine_death,
        on_ready=on_ready,
        owns_stores=owns_stores,
    )
    app = Litestar(
        route_handlers=[*OPEN_ROUTES, docs_assets(), *routes(settings, DOMAINS)],
        lifespan=[lifespan],
        middleware=[ScopeCheck],  # the route's scope, once routed (`http.scopes`)
        exception_handlers=exception_handlers(),
        request_max_body_size=settings.limits.max_body_bytes,
        openapi_config=openapi_config(),
        logging_config=None,
    )
    paths = RoutePaths.of(
        app, docs_path=DOCS_PATH, metrics_need_key=settings.server.metrics_require_key
    )
    app.asgi_handler = _front_door(app, settings, keys, paths, metrics_, tracing)
    if outer is not None:
        app.asgi_handler = outer(app.asgi_handler, paths)
    return app


def _limiter(settings: Settings, metrics_: ServiceMetrics) -> Limiter:
    """The process's limits and usage, its usage in /metrics."""
    limiter = Limiter(
        window=settings.limits.limit_window_seconds,
        flush_every=settings.limits.usage_flush_seconds,
    )
    metrics_.registry.register(UsageCollector(limiter.usage))
    return limiter


def _lifespan(
    settings: Settings,
    engine_factory: Callable[[], Engine],
    admission: Admission,
    metrics_: ServiceMetrics,
    tracing: Tracing | None,
    keys: KeyDirectory,
    *,
    on_engine_death: Callable[[], None] | None,
    on_ready: Callable[[], None] | None,
    owns_stores: bool,
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The app's life: every domain's services opened on one exit stack before it serves,
    closed in reverse after."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with AsyncExitStack() as resources:
            app.state.services = await open_services(
                resources,
                settings,
                engine_factory,
                admission,
                metrics_,
                tracing,
                DOMAINS,
                keys,
                on_engine_death=on_engine_death,
                owns_stores=owns_stores,
            )
            # The limits and usage shared through the accounts' database, where this
            # process opens it; counted in memory where it does not.
            databases, limiter = app.state.services.databases, app.state[LIMITER]
            await limiter.open(databases.database("accounts") if databases else None, resources)
            if on_ready is not None:
                on_ready()
            yield

    return lifespan


def routes(settings: Settings, domains: Sequence[Domain]) -> list[Any]:
    return [route for domain in domains for route in domain.routes(settings)]


def _front_door(
    app: Litestar,
    settings: Settings,
    keys: KeyDirectory,
    paths: RoutePaths,
    metrics_: ServiceMetrics,
    tracing: Tracing | None,
) -> ASGIApp:
    """What every request meets before routing: the observer (its record, log line and
    metrics), CORS preflights, the gate (API keys, limits, JSON bodies), and, once let in,
    the idempotent routes' replays (a replay is billed no characters: the first answer was).
    The limiter is also the app state's (`LIMITER`): the lifespan opens it, routes read usage
    from it."""
    limiter = app.state[LIMITER] = _limiter(settings, metrics_)
    idempotent = IdempotentRequests(
        app.asgi_handler,
        routes=paths.idempotent,
        shared_runs=paths.shared_runs,
        answers=_stored_answers(app),
        lease=settings.limits.request_timeout,
        max_body=max(paths.idempotent_max_body, settings.limits.max_body_bytes),
        error_shapes=paths.error_shapes,
    )
    gate = ApiGate(
        idempotent,
        open_paths=paths.open,
        json_bodies=paths.json_bodies,
        keys=keys,
        open_prefixes=paths.open_prefixes,
        error_shapes=paths.error_shapes,
        body_key_prefixes=paths.body_key_prefixes,
        limiter=limiter,
    )
    # CORS (--cors-origins, and the compatible APIs' browser clients): preflights are
    # answered before the gate.
    cors = Cors(gate, paths.cors_prefixes, settings.server.cors_origins)
    return RequestObserver(cors, metrics_, paths.known, tracing)


def _stored_answers(app: Litestar) -> Callable[[], IdempotentAnswers | None]:
    """The shared store of `Idempotency-Key` answers (the accounts store's database), once
    the app has opened it; None in a process that opens no store."""
    made: list[IdempotentAnswers | None] = []

    def answers() -> IdempotentAnswers | None:
        if not made:
            databases = app.state.services.databases
            found = databases is not None and "accounts" in databases.stores
            made.append(IdempotentAnswers(databases.database("accounts")) if found else None)
        return made[0]

    return answers


def service_metrics(settings: Settings | None = None) -> ServiceMetrics:
    """The service's metrics with every domain's own collectors, as `/metrics` shows them."""
    settings = settings or Settings()
    return ServiceMetrics(parts=[part for d in DOMAINS for part in d.metrics(settings)])

"""The composition root: one engine, its surfaces, wired together here and nowhere else.

`create_app` builds the routes, the gate and the observer; what the app keeps for its life
(the engine, the services, the databases) is opened by `lifetime.open_services`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

from litestar import Litestar
from litestar.datastructures import State
from prometheus_client import CollectorRegistry

from translate_server.adapters.catalog import serves_adapters
from translate_server.adapters.metrics import adapter_metrics
from translate_server.adapters.routes import admin_router
from translate_server.compat.deepl.memory_routes import deepl_memory_router
from translate_server.compat.deepl.routes import deepl_router, deepl_v3_router
from translate_server.compat.documents import document_routers
from translate_server.compat.libretranslate.routes import libretranslate_router
from translate_server.http.cors import Cors
from translate_server.http.errors import exception_handlers
from translate_server.http.gate import ApiGate, ApiKeys
from translate_server.http.health import health, live, metrics
from translate_server.http.observability import RequestObserver
from translate_server.http.openapi import DOCS_PATH, openapi_config
from translate_server.http.route_paths import RoutePaths
from translate_server.inference.admission import Admission
from translate_server.inference.engine import Engine
from translate_server.lifetime import open_services
from translate_server.memory.routes import memory_router
from translate_server.observability.metrics import MetricsPart, ServiceMetrics
from translate_server.observability.tracing import Tracing, build_tracing
from translate_server.openai_api.chat.routes import chat_completions, list_models, retrieve_model
from translate_server.openai_api.completions.routes import completions
from translate_server.openai_api.responses.routes import create_response
from translate_server.settings import EngineSettings, Settings
from translate_server.translation.findings import TranslationMetrics
from translate_server.translation.routes import detect, languages, translate
from translate_server.ui.routes import ui_router

if TYPE_CHECKING:
    from litestar.types import ASGIApp

    from translate_server.inference.shared_admission import SharedCapacity

API_ROUTES = (
    translate,
    detect,
    languages,
    chat_completions,
    create_response,
    completions,
    list_models,
    retrieve_model,
)
OPEN_ROUTES = (health, live, metrics)


def create_app(
    settings: Settings,
    engine_factory: Callable[[], Engine],
    *,
    on_engine_death: Callable[[], None] | None = None,
    on_ready: Callable[[], None] | None = None,
    tracing: Tracing | None = None,
    shared_capacity: SharedCapacity | None = None,
    owns_stores: bool = True,
    outer: Callable[[ASGIApp], ASGIApp] | None = None,
) -> Litestar:
    """Build the app around an engine made by `engine_factory` when the app starts.

    `on_engine_death` is called once if the engine fails; the CLI uses it to exit non-zero so
    that a supervisor restarts the process. `on_ready` is called once everything the app
    keeps for its life is built and imported (the server freezes its heap there). `tracing`
    defaults to OTLP export where `--otlp-traces-endpoint` is set (tests pass one with an
    in-memory exporter).

    With several front-end processes (`--api-processes`), `shared_capacity` is the admission
    count they share; only the process that `owns_stores` opens the SQLite stores and runs
    document jobs, and `outer` wraps the app in what forwards their requests to it.
    """
    metrics_ = service_metrics(settings.engine)
    # One decision for the document routes, their jobs and the page's file panel.
    serve_documents = settings.documents.documents
    if tracing is None:
        tracing = build_tracing(settings.engine.otlp_traces_endpoint)
    admission = Admission(
        slots=settings.engine.max_num_seqs,
        queue_limit=settings.limits.queue_limit(settings.engine.max_num_seqs),
        metrics=metrics_,
        tracing=tracing,
        shared=shared_capacity,
    )

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
                serve_documents=serve_documents,
                on_engine_death=on_engine_death,
                owns_stores=owns_stores,
            )
            if on_ready is not None:
                on_ready()
            yield

    page = [ui_router(settings, documents=serve_documents)] if settings.server.ui else []
    document_routes = (
        document_routers(settings.documents.max_document_bytes) if serve_documents else []
    )
    app = Litestar(
        route_handlers=[
            *API_ROUTES,
            *OPEN_ROUTES,
            deepl_router(),
            deepl_v3_router(),
            libretranslate_router(),
            memory_router(settings.translation.max_memory_bytes),
            deepl_memory_router(settings.translation.max_memory_bytes),
            admin_router(),
            *page,
            *document_routes,
        ],
        lifespan=[lifespan],
        state=State(
            {
                "api_keys_required": bool(settings.server.api_keys),
                # The admin routes' own key (adapters/routes.py); None: they answer 404.
                "admin_key": settings.server.admin_key,
            },
            deep_copy=False,
        ),
        exception_handlers=exception_handlers(),
        request_max_body_size=settings.limits.max_body_bytes,
        openapi_config=openapi_config(),
        logging_config=None,
    )
    paths = RoutePaths.of(
        app, docs_path=DOCS_PATH, metrics_need_key=settings.server.metrics_require_key
    )
    keys = ApiKeys(settings.server.api_keys) if settings.server.api_keys else None
    gate = ApiGate(
        app.asgi_handler,
        open_paths=paths.open,
        json_bodies=paths.json_bodies,
        keys=keys,
        open_prefixes=paths.open_prefixes,
        error_shapes=paths.error_shapes,
        body_key_prefixes=paths.body_key_prefixes,
    )
    # CORS (--cors-origins, and LibreTranslate's routes for its browser clients): preflights
    # are answered before the gate.
    cors = Cors(gate, paths.cors_prefixes, settings.server.cors_origins)
    app.asgi_handler = RequestObserver(cors, metrics_, paths.known, tracing)
    if outer is not None:
        app.asgi_handler = outer(app.asgi_handler)
    return app


def service_metrics(engine: EngineSettings | None = None) -> ServiceMetrics:
    """The service's metrics with every domain's own collectors, as `/metrics` shows them
    (the adapters' where the engine serves some)."""
    parts: list[Callable[[CollectorRegistry], MetricsPart]] = [TranslationMetrics]
    if engine is not None and serves_adapters(engine):
        parts.append(adapter_metrics(engine.model_name))
    return ServiceMetrics(parts=parts)

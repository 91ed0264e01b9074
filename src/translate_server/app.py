"""The composition root: one engine, two surfaces, wired together here and nowhere else."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog
from litestar import Litestar
from litestar.datastructures import State
from prometheus_client import CollectorRegistry

from translate_server.adapters.catalog import serves_adapters
from translate_server.adapters.metrics import adapter_metrics
from translate_server.adapters.routes import admin_router
from translate_server.compat.deepl.memories import deepl_memory_router
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
from translate_server.inference.generation import GenerationService
from translate_server.memory.routes import memory_router
from translate_server.observability.metrics import MetricsPart, ServiceMetrics
from translate_server.observability.tracing import Tracing, build_tracing
from translate_server.openai_api.chat.routes import chat_completions, list_models, retrieve_model
from translate_server.openai_api.chat.service import ChatService
from translate_server.openai_api.completions.routes import completions
from translate_server.openai_api.completions.service import CompletionService
from translate_server.openai_api.responses.routes import create_response
from translate_server.openai_api.responses.service import ResponsesService
from translate_server.services import Services
from translate_server.settings import EngineSettings, Settings
from translate_server.translation.findings import TranslationMetrics
from translate_server.translation.routes import detect, languages, translate
from translate_server.ui.routes import ui_router

if TYPE_CHECKING:  # their modules load with the engine, not with the routes
    from litestar.types import ASGIApp

    from translate_server.documents.runner import Bill
    from translate_server.documents.service import Documents
    from translate_server.inference.shared_admission import SharedCapacity
    from translate_server.memory.service import Memories
    from translate_server.translation.service import TranslationService

log = structlog.get_logger(__name__)

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
ENGINE_WATCH_INTERVAL = 0.5


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
    # LibreTranslate's browser clients need CORS, its preflights answered before the gate.
    app.asgi_handler = RequestObserver(
        Cors(gate, paths.cors_prefixes), metrics_, paths.known, tracing
    )
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


async def open_services(
    resources: AsyncExitStack,
    settings: Settings,
    engine_factory: Callable[[], Engine],
    admission: Admission,
    metrics_: ServiceMetrics,
    tracing: Tracing | None = None,
    *,
    serve_documents: bool = False,
    on_engine_death: Callable[[], None] | None = None,
    owns_stores: bool = True,
) -> Services:
    """Every service, database and background task the app keeps for its life, built here
    from explicit parts. Each one that must be closed is entered on `resources` the moment it
    exists, so they close in reverse order when the app stops, and also when start-up fails
    halfway (the engine's memory and processes, the databases, the tasks).

    A front end that does not `owns_stores` opens none: the requests that need them are
    forwarded to the one that does (its DeepL accounts are never used, so never opened)."""
    # Imported here: the translation service pulls in the language registry and detector.
    from translate_server.adapters.catalog import open_adapters, read_configured
    from translate_server.compat.deepl.accounts import DeepLAccounts
    from translate_server.translation.cache import TranslationCache
    from translate_server.translation.detection import LanguageDetection
    from translate_server.translation.prompts.templates import PromptTemplates
    from translate_server.translation.service import TranslationService

    if tracing is not None:
        resources.callback(tracing.shutdown)  # last: sends the spans still waiting for a batch
    configured = read_configured(settings.engine)  # a bad --lora fails before the engine starts
    engine = _start_engine(resources, engine_factory)
    generation = GenerationService(engine, tracing, settings.engine.stream_coalesce_ms)
    model_name = settings.engine.model_name
    adapters = await open_adapters(settings.engine, engine, configured)
    options = settings.translation
    detection = LanguageDetection(options.detection_accuracy)
    # Lingua's models load in the background: the first detection waits for them.
    _start_task(resources, detection.warm())
    cache = TranslationCache(options.translation_cache_size, metrics_.registry)
    template = PromptTemplates.load(options.prompt_templates).for_model(engine.info.model)

    memories = await _open_memories(resources, settings) if owns_stores else None

    def translation_service(admitted_by: Admission, priority: int = 0) -> TranslationService:
        return TranslationService(
            generation,
            admitted_by,
            settings.limits,
            model_name,
            detection=detection,
            cache=cache,
            template=template,
            priority=priority,
            quality_guard=options.quality_guard,
            refuse_unsupported_targets=options.refuse_unsupported_targets,
            memories=memories,
            adapters=adapters,
        )

    deepl = DeepLAccounts.open(_deepl_database_path(settings))
    resources.push_async_callback(deepl.close)  # after the documents, which bill into it
    documents = (
        await _open_documents(
            resources, settings, metrics_, translation_service, bill=deepl.usage.add
        )
        if serve_documents and owns_stores
        else None
    )
    _start_task(resources, _watch_engine(engine, on_engine_death))
    chat = ChatService(generation, admission, settings.limits, model_name, adapters)
    return Services(
        engine=engine,
        generation=generation,
        admission=admission,
        metrics=metrics_,
        limits=settings.limits,
        model_name=model_name,
        started_at=int(time.time()),
        chat=chat,
        responses=ResponsesService(chat),
        completions=CompletionService(generation, admission, settings.limits, model_name, adapters),
        translation=translation_service(admission),
        deepl=deepl,
        documents=documents,
        memories=memories,
        adapters=adapters,
    )


async def _open_memories(resources: AsyncExitStack, settings: Settings) -> Memories:
    """The translation memories' database, closed with the app."""
    from translate_server.memory.jobs import MemoryJobs
    from translate_server.memory.service import Memories
    from translate_server.memory.store import MemoryStore

    options = settings.translation
    store = MemoryStore(_memory_database_path(settings))
    resources.push_async_callback(store.close)
    await store.open()
    await MemoryJobs(store).open()  # DeepL's import and export jobs
    return Memories(store, options.max_memory_entries, options.max_memory_bytes)


async def _open_documents(
    resources: AsyncExitStack,
    settings: Settings,
    metrics_: ServiceMetrics,
    translation_service: Callable[[Admission, int], TranslationService],
    bill: Bill,
) -> Documents:
    """The job store and the runner, which resumes unfinished jobs as it starts."""
    # Imported here: the document formats pull in their libraries (python-docx, polib...).
    from translate_server.documents.service import Documents, document_admission, document_jobs
    from translate_server.documents.store import JobStore
    from translate_server.documents.translator import DOCUMENT_PRIORITY

    options = settings.documents
    store = await JobStore.open(options.document_dir, options.document_retention)
    resources.push_async_callback(store.close)
    translation = translation_service(document_admission(settings, metrics_), DOCUMENT_PRIORITY)
    jobs = document_jobs(settings, store, translation, metrics_, bill=bill)
    # Closed before the store and the DeepL database it bills into: running jobs stop where
    # they stand and resume on the next start.
    resources.push_async_callback(jobs.close)
    await jobs.start()
    return Documents(jobs, options.max_document_bytes, keyed=bool(settings.server.api_keys))


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


def _start_task(resources: AsyncExitStack, work: Coroutine[Any, Any, None]) -> None:
    """A task that lives as long as the app: cancelled, and waited for, when it stops."""
    task = asyncio.create_task(work)
    resources.push_async_callback(_cancel, task)


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def _memory_database_path(settings: Settings) -> Path:
    configured = settings.translation.memory_db
    if configured:
        return Path(configured).expanduser()
    return Path(settings.engine.model_cache_dir).expanduser() / "memories.sqlite3"


def _deepl_database_path(settings: Settings) -> Path:
    configured = settings.translation.glossary_db
    if configured:
        return Path(configured).expanduser()
    return Path(settings.engine.model_cache_dir).expanduser() / "glossaries.sqlite3"


async def _watch_engine(engine: Engine, on_death: Callable[[], None] | None) -> None:
    while engine.is_alive:  # noqa: ASYNC110 - the engine's liveness is a flag, not an event
        await asyncio.sleep(ENGINE_WATCH_INTERVAL)
    log.error("engine_died")
    if on_death is not None:
        on_death()

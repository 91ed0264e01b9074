"""The composition root: one engine, two surfaces, wired together here and nowhere else."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import structlog
from litestar import Litestar
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin

from translate_server import __version__
from translate_server.admission import Admission
from translate_server.chat import ChatService
from translate_server.engine import Engine
from translate_server.errors import EXCEPTION_HANDLERS
from translate_server.gate import ApiGate, ApiKeys
from translate_server.generation import GenerationService
from translate_server.observability import RequestObserver, ServiceMetrics
from translate_server.routes.deepl import deepl_router
from translate_server.routes.deepl import error_shape as deepl_error_shape
from translate_server.routes.health import health, live, metrics
from translate_server.routes.libretranslate import error_shape as libre_error_shape
from translate_server.routes.libretranslate import libretranslate_router
from translate_server.routes.openai import chat_completions, list_models, retrieve_model
from translate_server.routes.translate import detect, languages, translate
from translate_server.settings import Settings
from translate_server.ui.routes import OPEN_PATH as UI_PATH
from translate_server.ui.routes import OPEN_PREFIX as UI_PREFIX
from translate_server.ui.routes import ui_router

log = structlog.get_logger("translate_server.app")

API_ROUTES = (translate, detect, languages, chat_completions, list_models, retrieve_model)
OPEN_ROUTES = (health, live, metrics)
# Open without an API key, whatever the keys; /metrics too unless configured otherwise.
OPEN_PATHS = frozenset({"/health", "/health/live", "/docs", "/docs/openapi.json"})
# Routes whose POST bodies must be JSON.
JSON_BODY_PATHS = frozenset({"/translate", "/detect", "/v1/chat/completions"})
# Paths reported as themselves in logs and metrics; anything else is "unmatched".
KNOWN_PATHS = frozenset({"/translate", "/detect", "/languages", "/v1/chat/completions",
                         "/v1/models", "/health", "/health/live", "/metrics",
                         "/v2/translate", "/v2/languages", "/libretranslate/translate",
                         "/libretranslate/detect", "/libretranslate/languages"})
ENGINE_WATCH_INTERVAL = 0.5


def create_app(
    settings: Settings,
    engine_factory: Callable[[], Engine],
    *,
    on_engine_death: Callable[[], None] | None = None,
) -> Litestar:
    """Build the app around an engine made by `engine_factory` when the app starts.

    `on_engine_death` is called once if the engine fails; the CLI uses it to exit non-zero so
    that a supervisor restarts the process.
    """
    metrics_ = ServiceMetrics()
    admission = Admission(
        slots=settings.engine.max_num_seqs,
        queue_limit=settings.limits.queue_limit(settings.engine.max_num_seqs),
        metrics=metrics_,
    )

    @asynccontextmanager
    async def engine_lifespan(app: Litestar) -> AsyncIterator[None]:
        started = time.perf_counter()
        engine = engine_factory()
        log.info("engine_ready", model=engine.info.model, seconds=round(
            time.perf_counter() - started, 1))
        _attach_services(app.state, engine, settings, admission)
        watcher = asyncio.create_task(_watch_engine(engine, on_engine_death))
        try:
            yield
        finally:
            watcher.cancel()
            engine.shutdown()
            log.info("engine_stopped")

    page = [ui_router(settings)] if settings.server.ui else []
    app = Litestar(
        route_handlers=[*API_ROUTES, *OPEN_ROUTES, deepl_router(), libretranslate_router(),
                        *page],
        lifespan=[engine_lifespan],
        state=State({"metrics": metrics_, "admission": admission, "limits": settings.limits,
                     "model_name": settings.engine.model_name,
                     "started_at": int(time.time())}, deep_copy=False),
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        request_max_body_size=settings.limits.max_body_bytes,
        openapi_config=openapi_config(),
        logging_config=None,
    )
    keys = ApiKeys(settings.server.api_keys) if settings.server.api_keys else None
    open_paths = OPEN_PATHS if settings.server.metrics_require_key else OPEN_PATHS | {"/metrics"}
    if settings.server.ui:
        open_paths |= {UI_PATH}
    gate = ApiGate(app.asgi_handler, open_paths=open_paths, json_bodies=JSON_BODY_PATHS,
                   keys=keys, open_prefixes=(UI_PREFIX,) if settings.server.ui else (),
                   error_shapes=(("/v2/", deepl_error_shape),
                                 ("/libretranslate/", libre_error_shape)))
    app.asgi_handler = RequestObserver(gate, metrics_, KNOWN_PATHS)
    return app


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="translate-server",
        version=__version__,
        description="A translation API and an OpenAI-compatible chat API over one vLLM engine.",
        path="/docs",
        render_plugins=[SwaggerRenderPlugin()],
    )


def _attach_services(state: State, engine: Engine, settings: Settings,
                     admission: Admission) -> None:
    # Imported here: the translation service pulls in the language registry and detector.
    from translate_server.detection import LanguageDetection
    from translate_server.prompting import PromptTemplates
    from translate_server.translation import TranslationService
    from translate_server.translation_cache import TranslationCache

    generation = GenerationService(engine)
    model_name = settings.engine.model_name
    options = settings.translation
    detection = LanguageDetection(options.detection_accuracy)
    state.engine = engine
    state.generation = generation
    state.chat = ChatService(generation, admission, settings.limits, model_name)
    state.translation = TranslationService(
        generation, admission, settings.limits, model_name, detection=detection,
        cache=TranslationCache(options.translation_cache_size, state.metrics.registry),
        template=PromptTemplates.load(options.prompt_templates).for_model(engine.info.model),
    )
    state.detector_loading = asyncio.create_task(detection.warm())


async def _watch_engine(engine: Engine, on_death: Callable[[], None] | None) -> None:
    while engine.is_alive:
        await asyncio.sleep(ENGINE_WATCH_INTERVAL)
    log.error("engine_died")
    if on_death is not None:
        on_death()

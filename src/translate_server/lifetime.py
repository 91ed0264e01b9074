"""What the app keeps for its life: `open_services` builds every service, database and
background task on one exit stack, which closes them in reverse when the app stops (and when
start-up fails halfway). `app.create_app` calls it from the lifespan."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from translate_server.inference.admission import Admission
from translate_server.inference.engine import Engine
from translate_server.inference.generation import GenerationService
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.tracing import Tracing
from translate_server.openai_api.chat.service import ChatService
from translate_server.openai_api.completions.service import CompletionService
from translate_server.openai_api.responses.service import ResponsesService
from translate_server.services import Services
from translate_server.settings import Settings

if TYPE_CHECKING:  # their modules load with the engine, not with the routes
    from translate_server.documents.runner import Bill
    from translate_server.documents.service import Documents
    from translate_server.memory.service import Memories
    from translate_server.translation.service.translation_service import TranslationService

log = structlog.get_logger(__name__)

ENGINE_WATCH_INTERVAL = 0.5


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
    from translate_server.text.detection import LanguageDetection
    from translate_server.translation.estimate.model import QualityModels
    from translate_server.translation.planning.cache import TranslationCache
    from translate_server.translation.prompts.templates import PromptTemplates
    from translate_server.translation.service.translation_service import TranslationService

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
    estimator = QualityModels.load(options.quality_estimate_models).for_model(engine.info.model)

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
            estimator=estimator,
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

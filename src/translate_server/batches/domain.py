"""The batches domain: OpenAI's /v1/files and /v1/batches. A batch runs as a job of the
document queue (its kind added to the document runner), its lines through OpenAI's and
/translate's services built for it at the document jobs' low engine priority; served where
documents are."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from translate_server.batches.keys import BATCHES
from translate_server.batches.routes import batch_router
from translate_server.documents.keys import DOCUMENTS
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.record import RequestRecord
from translate_server.registration import Domain, Opening
from translate_server.services import SERVED_MODELS
from translate_server.translation.keys import TRANSLATION_AT

log = structlog.get_logger("translate_server.batches")


async def _open(opening: Opening) -> None:
    documents = opening.services.get(DOCUMENTS)
    if documents is None:  # documents off, or a front end that owns no store
        return
    from translate_server.batches.execute import LineServices
    from translate_server.batches.files import FileStore
    from translate_server.batches.service import Batches, BatchLimits
    from translate_server.batches.store import BATCH_KIND, BatchStore
    from translate_server.batches.work import BatchWork
    from translate_server.documents.service import document_admission
    from translate_server.documents.translator import DOCUMENT_PRIORITY
    from translate_server.openai_api.chat.service import ChatService
    from translate_server.openai_api.completions.service import CompletionService
    from translate_server.openai_api.responses.service import ResponsesService

    settings, found = opening.settings, opening.services
    options = settings.documents
    database = opening.database("jobs")
    files, batches = FileStore(database), BatchStore(database)
    # The batches' own services: behind an admission of their own (interactive requests'
    # is never filled by a batch) and at the documents' low engine priority.
    admission = document_admission(settings, found.metrics)
    parts = (found.generation, admission, found.limits, found.model_name, found[SERVED_MODELS])
    chat = ChatService(*parts, priority=DOCUMENT_PRIORITY)
    services = LineServices(
        chat=chat,
        completions=CompletionService(*parts, priority=DOCUMENT_PRIORITY),
        responses=ResponsesService(chat),
        translation=found[TRANSLATION_AT](admission, DOCUMENT_PRIORITY),
    )
    slots = options.engine_requests(settings.engine.max_num_seqs)
    work = BatchWork(
        batches,
        files,
        services,
        _billing(found.metrics),
        slots=asyncio.Semaphore(slots),
        concurrency=slots,
        max_lines=options.max_batch_requests,
    )
    documents.jobs.add_kind(BATCH_KIND, work)
    limits = BatchLimits(
        max_file_bytes=options.max_batch_file_bytes,
        max_requests=options.max_batch_requests,
        files_per_owner=options.max_batch_files_per_key,
        batches_per_owner=options.max_batches_per_key,
    )
    found.provide(BATCHES, Batches(files, batches, documents.jobs, limits))


def _billing(metrics: ServiceMetrics) -> Callable[[RequestRecord, str, str], None]:
    """A line's answer, once recorded, counted as any request is: its metrics (tokens by
    route, `batch <endpoint>`) and its log line, with its batch and `custom_id`."""

    def observe(record: RequestRecord, batch_id: str, custom_id: str) -> None:
        fields = record.render(time.perf_counter())
        metrics.observe(fields)
        log.info("request", batch_id=batch_id, custom_id=custom_id, **fields)

    return observe


DOMAIN = Domain(
    "batches",
    routes=lambda settings: (
        [batch_router(settings.documents.max_batch_file_bytes)]
        if settings.documents.documents
        else []
    ),
    open=_open,
    stores=lambda settings: ["jobs"] if settings.documents.documents else [],
    needs=(SERVED_MODELS, TRANSLATION_AT),
    uses=(DOCUMENTS,),
    provides=(BATCHES,),
)

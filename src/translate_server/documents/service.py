"""The document jobs as the routes use them: the parts the app's composition root builds them
from, who owns a job, and an upload's order checked and submitted. Plain values in and out: the
routes read the upload and the key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from translate_server.accounts.directory import KeyDirectory
from translate_server.documents.job_memory import JobMemory, KnownMemories, job_memory
from translate_server.documents.metrics import JobGauge
from translate_server.documents.runner import Bill, DocumentJobs
from translate_server.documents.store import JobStore
from translate_server.documents.translator import (
    DocumentAdmission,
    EngineBudget,
    document_model,
    document_translator,
    file_memory,
    runner_limits,
)
from translate_server.translation.prompts.instructions import (
    refuse_on_base_model,
    validate_instructions,
)

if TYPE_CHECKING:
    from translate_server.documents.job import Job
    from translate_server.documents.upload import DocumentOrder, Upload
    from translate_server.inference.served_models import ServedModels
    from translate_server.memory.service import Memories
    from translate_server.observability.metrics import ServiceMetrics
    from translate_server.settings import Settings
    from translate_server.translation.service.translation_service import TranslationService


@dataclass(frozen=True, slots=True)
class Documents:
    jobs: DocumentJobs
    max_bytes: int
    keys: KeyDirectory  # where keys are required, a job belongs to its key's account
    # The jobs' own translation service (its model: whether instructions are followed).
    translation: TranslationService
    memories: KnownMemories | None = None  # those an upload may name; None: none kept

    def owner(self, api_key: str) -> str:
        """The caller's owner: its key's account where keys are required, so one account's
        jobs are invisible to every other; else SHARED."""
        return self.keys.owner_of_key(api_key)

    async def memory(
        self,
        memory_id: str | None,
        threshold: str | None,
        owner: str,
        names: tuple[str, str] = ("memory", "memory_threshold"),
    ) -> JobMemory:
        """An upload's memory fields (named `names` on its surface), checked now: an unknown
        memory or another key's is a 404 at upload, not a failed job later."""
        return await job_memory(self.memories, owner, memory_id, threshold, names=names)

    async def glossary(self, glossary_id: str | None, owner: str) -> str | None:
        """An upload's stored glossary, checked now: an unknown one or another key's is a
        404 at upload, not a failed job later."""
        if glossary_id:
            await self.translation.glossaries.check(owner, glossary_id)
        return glossary_id

    def instructions(self, given: list[str] | None, param: str) -> tuple[str, ...]:
        """An upload's instructions, checked as /translate checks them (its limits, a base
        model's 400), so that a job never fails on them halfway."""
        instructions = validate_instructions(given, param)
        if instructions:
            translation = self.translation
            refuse_on_base_model(
                translation.model_name, translation.planner.follows_instructions, param
            )
        return instructions

    async def submit(
        self, upload: Upload, order: DocumentOrder, owner: str | None
    ) -> tuple[Job, str]:
        """The job of `upload` as `order` asks, for `owner` (`owner()`): its record and key."""
        return await self.jobs.submit(
            upload.data,
            filename=upload.filename,
            target_lang=order.target_lang,
            source_lang=order.source_lang,
            owner=owner,
            options=order.options(),
            billed_to=order.billed_to,
        )


def document_admission(settings: Settings, metrics: ServiceMetrics) -> DocumentAdmission:
    """The admission of the jobs' own translation service. It never refuses: the runner's
    budget, the same number of engine requests, bounds document requests (pieces split again
    once tokenized may add a few)."""
    engine_requests = settings.documents.engine_requests(settings.engine.max_num_seqs)
    return DocumentAdmission(
        slots=engine_requests, queue_limit=4 * engine_requests, metrics=metrics
    )


def document_jobs(
    settings: Settings,
    store: JobStore,
    translation: TranslationService,
    gauge: JobGauge | None = None,
    *,
    models: ServedModels | None = None,
    memories: Memories | None = None,
    bill: Bill | None = None,
) -> DocumentJobs:
    """The job runner over `store`, not started yet. `translation` is the jobs' own
    translation service: at `DOCUMENT_PRIORITY`, behind `document_admission`; `models` pins
    each job's model where adapters are served; `memories` holds a catalog's own translations
    for its job; `bill` adds a DeepL job's characters to its key's usage once it is done. The
    documents domain opens the store, starts the runner and closes both."""
    options = settings.documents
    engine_requests = options.engine_requests(settings.engine.max_num_seqs)
    limits = runner_limits(
        engine_requests,
        max_characters=options.max_document_chars,
        max_in_flight_per_owner=options.max_documents_per_key,
        lease_seconds=options.document_lease,
    )
    return DocumentJobs(
        store,
        document_translator(translation, EngineBudget(engine_requests)),
        limits,
        gauge=gauge,
        bill=bill,
        remember=file_memory(translation, memories),
        pin=document_model(translation, models),
    )

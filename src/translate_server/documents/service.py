"""The document jobs as the routes use them: the parts the app's composition root builds them
from, and who owns a job. Plain values in and out: the routes read the upload and the key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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
from translate_server.owners import caller_owner

if TYPE_CHECKING:
    from translate_server.observability.metrics import ServiceMetrics
    from translate_server.settings import Settings
    from translate_server.translation.service import TranslationService


@dataclass(frozen=True, slots=True)
class Documents:
    jobs: DocumentJobs
    max_bytes: int
    keyed: bool  # API keys are configured: a job belongs to the key that submitted it

    def owner(self, api_key: str) -> str:
        """The caller's owner (`owners.caller_owner`): its key's digest where keys are
        configured, so one key's jobs are invisible to every other; else SHARED."""
        return caller_owner(api_key, keyed=self.keyed)


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
    metrics: ServiceMetrics,
    bill: Bill | None = None,
) -> DocumentJobs:
    """The job runner over `store`, not started yet. `translation` is the jobs' own
    translation service: at `DOCUMENT_PRIORITY`, behind `document_admission`; `bill` adds a
    DeepL job's characters to its key's usage once it is done. The app's composition root
    opens the store, starts the runner and closes both."""
    options = settings.documents
    engine_requests = options.engine_requests(settings.engine.max_num_seqs)
    limits = runner_limits(
        engine_requests,
        max_characters=options.max_document_chars,
        max_in_flight_per_owner=options.max_documents_per_key,
    )
    return DocumentJobs(
        store,
        document_translator(translation, EngineBudget(engine_requests)),
        limits,
        gauge=JobGauge(metrics.registry),
        bill=bill,
        remember=file_memory(translation),
        pin=document_model(translation),
    )

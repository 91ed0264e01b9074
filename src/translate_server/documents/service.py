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
from translate_server.errors import AuthenticationError
from translate_server.owners import owner_of

if TYPE_CHECKING:
    from translate_server.inference.served_models import ServedModels
    from translate_server.memory.service import Memories
    from translate_server.observability.metrics import ServiceMetrics
    from translate_server.settings import Settings
    from translate_server.translation.service.translation_service import TranslationService


@dataclass(frozen=True, slots=True)
class Documents:
    jobs: DocumentJobs
    max_bytes: int
    keyed: bool  # API keys are configured: a job belongs to the key that submitted it

    def owner(self, api_key: str) -> str | None:
        """The digest of the caller's API key (already accepted by the gate or the route)
        where keys are configured, so one key's jobs are invisible to every other; else
        nobody."""
        if not self.keyed:
            return None
        if not api_key:  # unreachable past the checks; never a shared owner for keyless calls
            raise AuthenticationError("A valid API key is required.")
        return owner_of(api_key)


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

"""The document jobs as the routes use them: the parts the app's composition root builds them
from, and what every document route shares (reading an upload, who owns a job, what a job's
status says)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from litestar import Request
from litestar.datastructures import UploadFile

from translate_server.compat.common import header_key
from translate_server.documents.metrics import JobGauge
from translate_server.documents.runner import Bill, DocumentJobs
from translate_server.documents.store import JobStore
from translate_server.documents.translator import (
    DocumentAdmission,
    EngineBudget,
    document_translator,
    file_memory,
    runner_limits,
)
from translate_server.errors import (
    AuthenticationError,
    InvalidRequestError,
    PayloadTooLargeError,
)
from translate_server.http.gate import PRESENTED_KEY
from translate_server.owners import owner_of

if TYPE_CHECKING:
    from translate_server.http.observability import ServiceMetrics
    from translate_server.settings import Settings
    from translate_server.translation.service import TranslationService


@dataclass(frozen=True, slots=True)
class Upload:
    data: bytes
    filename: str | None
    fields: dict[str, str]


@dataclass(frozen=True, slots=True)
class Documents:
    jobs: DocumentJobs
    max_bytes: int
    keyed: bool  # API keys are configured: a job belongs to the key that submitted it

    def owner(self, request: Request[Any, Any, Any]) -> str | None:
        """The digest of the caller's API key where keys are configured (the gate, or for a
        key sent in the body the route's check, has already accepted it), so one key's jobs
        are invisible to every other; else nobody."""
        if not self.keyed:
            return None
        token = header_key(request) or request.scope.get("state", {}).get(PRESENTED_KEY, "")
        if not token:  # unreachable past the checks; never a shared owner for keyless calls
            raise AuthenticationError("A valid API key is required.")
        return owner_of(token)

    async def read_upload(self, request: Request[Any, Any, Any]) -> Upload:
        """The multipart form's `file` and its other fields; 413 for a file too large."""
        media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media_type != "multipart/form-data":
            raise InvalidRequestError(
                "Send the document as multipart/form-data with the file in the field `file`.",
                param="file",
            )
        form = await request.form()
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidRequestError("The form has no file in the field `file`.", param="file")
        data = await upload.read()
        if len(data) > self.max_bytes:
            raise PayloadTooLargeError(
                f"The file has {len(data)} bytes; at most {self.max_bytes} are accepted.",
                param="file",
                code="document_too_large",
            )
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        return Upload(data, upload.filename or None, fields)


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
    )

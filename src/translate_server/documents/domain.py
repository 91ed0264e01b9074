"""The documents domain: /translate/document and its jobs (the store, the runner, the jobs'
own translation service at a low engine priority), and the jobs' gauge."""

from __future__ import annotations

from translate_server.documents.keys import DOCUMENT_BILLING, DOCUMENTS
from translate_server.documents.metrics import JobGauge
from translate_server.documents.routes import document_router
from translate_server.memory.keys import MEMORIES
from translate_server.registration import Domain, Opening
from translate_server.services import SERVED_MODELS
from translate_server.translation.keys import TRANSLATION_AT


async def _open(opening: Opening) -> None:
    settings = opening.settings
    if not settings.documents.documents or not opening.owns_stores:
        return
    # Imported here: the document formats pull in their libraries (python-docx, polib...).
    from translate_server.documents.service import Documents, document_admission, document_jobs
    from translate_server.documents.store import JobStore
    from translate_server.documents.translator import DOCUMENT_PRIORITY

    found, options = opening.services, settings.documents
    store = JobStore(opening.database("jobs"), options.document_retention)
    admission = document_admission(settings, found.metrics)
    translation = found[TRANSLATION_AT](admission, DOCUMENT_PRIORITY)
    jobs = document_jobs(
        settings,
        store,
        translation,
        found.metrics.part(JobGauge),
        models=found[SERVED_MODELS],
        memories=found[MEMORIES],
        bill=found.get(DOCUMENT_BILLING),
    )
    # Closed before the store and the database it bills into: running jobs stop where they
    # stand and resume on the next start.
    opening.resources.push_async_callback(jobs.close)
    await jobs.start()
    documents = Documents(
        jobs,
        options.max_document_bytes,
        keys=found.keys,
        translation=translation,
        memories=found[MEMORIES],
    )
    found.provide(DOCUMENTS, documents)


DOMAIN = Domain(
    "documents",
    routes=lambda settings: (
        [document_router(settings.documents.max_document_bytes)]
        if settings.documents.documents
        else []
    ),
    open=_open,
    metrics=lambda settings: [JobGauge],
    stores=lambda settings: ["jobs"] if settings.documents.documents else [],
    # The memories are there wherever the jobs are: both open where this process owns the
    # stores. A job bills its characters where a surface provides the billing (DeepL's).
    needs=(TRANSLATION_AT, SERVED_MODELS, MEMORIES),
    uses=(DOCUMENT_BILLING,),
    provides=(DOCUMENTS,),
)

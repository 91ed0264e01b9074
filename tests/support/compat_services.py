"""What the tests of the compatible APIs' services build them from and read back: a
translation service over the engine double, a subtitle file, a job awaited to its end, the
prompts the engine was given."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from translate_server.accounts.directory import KeyDirectory
from translate_server.documents.job import Job
from translate_server.documents.service import Documents
from translate_server.inference.admission import Admission
from translate_server.inference.generation import GenerationService
from translate_server.observability.metrics import ServiceMetrics
from translate_server.settings import LimitSettings
from translate_server.translation.planning.ports import GlossaryLookup
from translate_server.translation.service.translation_service import TranslationService

from tests.support.fakes import FakeEngine

MAX_DOCUMENT_BYTES = 1_000_000
# Twelve cues of one sentence each: twelve segments.
SRT = "".join(
    f"{i}\n00:00:{i:02d},000 --> 00:00:{i:02d},900\nSentence number {i}.\n\n" for i in range(1, 13)
).encode()

# make_documents(bill=..., keyed=..., memories=...): the document jobs, started.
DocumentsFactory = Callable[..., Awaitable[Documents]]


def translation_over(
    engine: FakeEngine, glossaries: GlossaryLookup | None = None
) -> TranslationService:
    # The double answers with the source upper-cased, which the quality guard rightly calls
    # an echo: the guard's own tests turn it on.
    return TranslationService(
        GenerationService(engine),
        Admission(slots=8, queue_limit=32, metrics=ServiceMetrics()),
        LimitSettings(),
        "fake-model",
        quality_guard=False,
        glossaries=glossaries,
    )


async def finished(documents: Documents, job: Job, key: str, owner: str | None = None) -> Job:
    """The job once done or failed."""
    async with asyncio.timeout(10):
        async for state in documents.jobs.watch(job.id, key, owner):
            job = state
    return job


def prompts(engine: FakeEngine) -> list[str]:
    return [engine.decode(ids) for _, ids, _ in engine.requests]


def keys_required(required: bool) -> KeyDirectory:
    """Keys required (a static key set: every other key is an account of its own) or not."""
    return KeyDirectory(("a static key",) if required else ())

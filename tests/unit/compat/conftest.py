"""The compatible APIs' services driven directly, without HTTP: over the engine double, with
their stores (DeepL's accounts, the document jobs, the translation memories) in real databases
of the test's own (`databases`: SQLite files, and PostgreSQL in the postgres tier)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.documents.runner import Bill, DocumentJobs
from translate_server.documents.service import Documents
from translate_server.documents.store import JobStore
from translate_server.documents.translator import (
    DocumentAdmission,
    EngineBudget,
    document_translator,
    runner_limits,
)
from translate_server.glossaries.store import GlossaryStore
from translate_server.inference.generation import GenerationService
from translate_server.memory.service import Memories
from translate_server.memory.store import MemoryStore
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.record import RequestRecord
from translate_server.settings import LimitSettings
from translate_server.storage.opening import StoreDatabases
from translate_server.translation.service.translation_service import TranslationService

from tests.support.compat_services import (
    MAX_DOCUMENT_BYTES,
    DocumentsFactory,
    keys_required,
    translation_over,
)
from tests.support.fakes import FakeEngine


@pytest.fixture
async def accounts(databases: StoreDatabases) -> DeepLAccounts:
    return DeepLAccounts.over(await databases.migrated("accounts"))


@pytest.fixture
def translation(engine: FakeEngine, accounts: DeepLAccounts) -> TranslationService:
    """Over the engine double, with the stored glossaries of DeepL's accounts."""
    return translation_over(engine, accounts.glossaries)


@pytest.fixture
async def memories(databases: StoreDatabases) -> Memories:
    store = MemoryStore(await databases.migrated("memory"))
    return Memories(store, max_entries=10_000, max_bytes=1_000_000)


@pytest.fixture
async def make_documents(
    databases: StoreDatabases, engine: FakeEngine
) -> AsyncIterator[DocumentsFactory]:
    """Document jobs as the documents domain opens them, over their own translation service at
    document priority; `bill` as DeepL's accounts provide it, `keyed` where keys are set."""
    opened: list[tuple[JobStore, DocumentJobs]] = []

    async def make(
        *, bill: Bill | None = None, keyed: bool = False, memories: Memories | None = None
    ) -> Documents:
        metrics = ServiceMetrics()
        translation = TranslationService(
            GenerationService(engine),
            DocumentAdmission(slots=4, queue_limit=16, metrics=metrics),
            LimitSettings(),
            "fake-model",
            priority=1,
            quality_guard=False,
            glossaries=GlossaryStore(await databases.migrated("accounts")),
        )
        store = JobStore(await databases.migrated("jobs"), retention_seconds=3600)
        jobs = DocumentJobs(
            store,
            document_translator(translation, EngineBudget(4)),
            runner_limits(4, max_characters=None, max_in_flight_per_owner=4),
            bill=bill,
        )
        await jobs.start()
        opened.append((store, jobs))
        return Documents(
            jobs,
            MAX_DOCUMENT_BYTES,
            keys=keys_required(keyed),
            translation=translation,
            memories=memories,
        )

    yield make
    for store, jobs in reversed(opened):
        await jobs.close()
        await store.close()


@pytest.fixture
def record() -> RequestRecord:
    return RequestRecord("test", "/test", "POST")


@pytest.fixture
async def deadline() -> float:
    return asyncio.get_running_loop().time() + 30

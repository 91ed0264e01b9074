"""The document runner's translator: low engine priority, outside the interactive admission,
within an engine budget shared by all documents."""

from __future__ import annotations

import asyncio

from translate_server.documents.job import DocumentOptions
from translate_server.documents.translator import (
    DOCUMENT_PRIORITY,
    DocumentAdmission,
    EngineBudget,
    document_translator,
    runner_limits,
)
from translate_server.inference.admission import Admission
from translate_server.inference.generation import GenerationService
from translate_server.observability.metrics import ServiceMetrics
from translate_server.settings import DocumentSettings, LimitSettings
from translate_server.translation.service.translation_service import TranslationService

from tests.support.fakes import FakeEngine


def document_service(engine: FakeEngine, metrics: ServiceMetrics) -> TranslationService:
    return TranslationService(
        GenerationService(engine),
        DocumentAdmission(slots=4, queue_limit=16, metrics=metrics),
        LimitSettings(),
        "fake-model",
        priority=DOCUMENT_PRIORITY,
        quality_guard=False,
    )


async def test_batches_run_at_low_priority_without_interactive_admission() -> None:
    engine, metrics = FakeEngine(), ServiceMetrics()
    interactive = Admission(slots=4, queue_limit=0, metrics=metrics)
    translate = document_translator(document_service(engine, metrics), EngineBudget(4))
    result = await translate(
        ["Good morning.", "  ", "See you."], "en", "de", DocumentOptions(formality="more")
    )
    # Blank segments stay as they are, with no estimate.
    assert [found.text for found in result] == ["GOOD MORNING.", "  ", "SEE YOU."]
    assert result[1].estimate is None and not result[1].needs_review
    assert all(0.0 <= (found.estimate or 0.0) <= 1.0 for found in result)
    assert [options.priority for _, _, options in engine.requests] == [1, 1]
    assert interactive.in_flight == 0
    assert "formal" in engine.decode(engine.requests[0][1])


def test_document_admission_leaves_the_interactive_gauges_alone() -> None:
    metrics = ServiceMetrics()
    ticket = DocumentAdmission(slots=4, queue_limit=4, metrics=metrics).admit(6)
    assert metrics.running._value.get() == 0 and metrics.waiting._value.get() == 0
    ticket.release()
    Admission(slots=4, queue_limit=4, metrics=metrics).admit(6)
    assert metrics.running._value.get() == 4  # as the interactive admission publishes


async def test_an_unknown_source_is_detected_once_for_the_batch() -> None:
    engine = FakeEngine()
    translate = document_translator(document_service(engine, ServiceMetrics()), EngineBudget(4))
    await translate(
        ["Guten Morgen, wie geht es Ihnen heute?", "Ja."], None, "en", DocumentOptions()
    )
    prompts = [engine.decode(ids) for _, ids, _ in engine.requests]
    assert all("from German to English" in prompt for prompt in prompts)


async def test_the_budget_holds_batches_back_until_requests_finish() -> None:
    budget = EngineBudget(4)
    await budget.take(3)
    waiting = asyncio.create_task(budget.take(2))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    await budget.give(3)
    await waiting
    assert budget.used == 2
    # A batch larger than the whole budget runs, alone.
    await budget.give(2)
    await budget.take(9)
    assert budget.used == 9


def test_limits_fill_the_share_with_one_document_and_split_it_between_two() -> None:
    requests = DocumentSettings(document_share=0.5).engine_requests(16)
    assert requests == 8
    limits = runner_limits(requests, max_characters=100, max_in_flight_per_owner=2)
    assert limits.batches_in_flight * limits.batch_segments == requests
    assert limits.max_jobs == 2
    assert DocumentSettings(document_share=0.1).engine_requests(4) == 1
    assert runner_limits(1, max_characters=1, max_in_flight_per_owner=1).batch_segments == 1


async def test_a_segments_context_from_its_file_reaches_the_model() -> None:
    """A localization file's contexts (a plural category and its sample number): a request
    per segment, each with its own context in the prompt."""
    engine, metrics = FakeEngine(), ServiceMetrics()
    translate = document_translator(document_service(engine, metrics), EngineBudget(4))
    result = await translate(
        ["%d files", "%d files"],
        "en",
        "pl",
        DocumentOptions(),
        ["Plural form `few`, counts such as few: 2", None],
    )
    assert [found.text for found in result] == ["%D FILES", "%D FILES"]
    prompts = [engine.decode(ids) for _, ids, _ in engine.requests]
    assert len(prompts) == 2
    assert sum("few: 2" in prompt for prompt in prompts) == 1

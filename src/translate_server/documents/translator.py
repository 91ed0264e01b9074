"""The document runner's translator: a batch of segments becomes one /translate batch, run
through a translation service of its own that asks the engine for a LOW priority.

Why a service of its own:
- Priority: its engine requests carry `DOCUMENT_PRIORITY`, so whenever the engine has more
  requests than slots, interactive ones (priority 0) are scheduled first.
- Admission: its requests do not count in the interactive admission. Counting them would let
  a long document fill the interactive queue and turn interactive requests away (503) for
  capacity that the document only borrows at low priority. They are bounded instead by an
  engine budget of their own (`EngineBudget`: a share of `max_num_seqs`, see
  `DocumentSettings.engine_requests`) that every batch waits for, so all documents together
  never have more requests in the engine and interactive requests always find free slots.
The translation cache and the language detector are shared with the interactive service.

Where LoRA adapters are served, a job keeps one model for its whole life: the one routing
chose when the job was created (`document_model`), named as `model` in every batch, so an
adapter loaded, unloaded or replaced meanwhile never changes the translator halfway through
a document; a job whose adapter is gone fails rather than finish with another model.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import msgspec

from translate_server.documents.job import DocumentOptions, Job, SegmentDetails, SegmentTranslation
from translate_server.documents.job_translation import Pin, Remember, Translate
from translate_server.documents.limits import RunnerLimits
from translate_server.errors import AdapterNotFoundError, ApiError
from translate_server.inference.admission import Admission
from translate_server.memory.entries import Entry, UnknownLanguageError, normalized_tag
from translate_server.observability.record import RequestRecord
from translate_server.text.languages import requested_language
from translate_server.translation.protocol import (
    CONTEXT_CHARS,
    MEMORY_THRESHOLD,
    TranslateRequest,
    TranslateResponse,
)

if TYPE_CHECKING:
    from translate_server.inference.served_models import ServedModels
    from translate_server.memory.service import Memories
    from translate_server.translation.service.translation_service import TranslationService

# vLLM takes lower values first; interactive requests keep the default 0.
DOCUMENT_PRIORITY = 1
# A batch waits behind interactive traffic at low priority: it gets far longer than a request.
BATCH_TIMEOUT = 600.0

_FORMALITY = {
    "formal": "formal",
    "more": "formal",
    "prefer_more": "formal",
    "informal": "informal",
    "less": "informal",
    "prefer_less": "informal",
}
_ids = itertools.count()
# A document's own memory belongs to no API key: its owner is this and the job's id.
FILE_MEMORY_OWNER = "document-file:"
# The most characters of each neighbouring segment a segment's context holds.
NEIGHBOUR_CHARS = 300
# The file's sources its language is detected from, where the job does not say it.
DETECT_PAIRS = 50


class DocumentAdmission(Admission):
    """Admission for document batches: same accounting, but it leaves the interactive
    running/waiting gauges alone (they describe interactive requests)."""

    def _publish(self) -> None:
        pass


class EngineBudget:
    """Engine requests that document batches may have outstanding together; a batch waits
    for its share (a batch larger than the whole budget runs alone)."""

    def __init__(self, requests: int) -> None:
        self.requests = requests
        self.used = 0
        self._changed = asyncio.Condition()

    async def take(self, weight: int) -> None:
        async with self._changed:
            await self._changed.wait_for(
                lambda: self.used == 0 or self.used + weight <= self.requests
            )
            self.used += weight

    async def give(self, weight: int) -> None:
        async with self._changed:
            self.used -= weight
            self._changed.notify_all()


def runner_limits(
    engine_requests: int,
    *,
    max_characters: int,
    max_in_flight_per_owner: int,
    lease_seconds: float = 30.0,
) -> RunnerLimits:
    """Two documents at once, two batches each, batches of half the engine budget: one
    document alone fills the budget, and two share it (the budget holds the rest back)."""
    return RunnerLimits(
        max_characters=max_characters,
        max_in_flight_per_owner=max_in_flight_per_owner,
        max_jobs=2,
        batches_in_flight=2,
        batch_segments=max(1, engine_requests // 2),
        lease_seconds=lease_seconds,
    )


def document_translator(service: TranslationService, budget: EngineBudget) -> Translate:
    async def translate(
        texts: list[str],
        source_lang: str | None,
        target_lang: str,
        options: DocumentOptions,
        contexts: list[str | None] | None = None,
        /,
    ) -> list[SegmentTranslation]:
        # Blank segments need no model (and /translate refuses empty texts).
        wanted = [i for i, text in enumerate(texts) if text.strip()]
        translations = [SegmentTranslation(text) for text in texts]
        if not wanted:
            return translations
        batch = [texts[i] for i in wanted]
        source = source_lang or _detect(service, batch)
        _check_pinned(service, options)
        request = _request(batch, source, target_lang, options)
        deadline = asyncio.get_running_loop().time() + BATCH_TIMEOUT
        await budget.take(len(batch))
        try:
            if options.neighbours or (contexts and any(contexts[i] for i in wanted)):
                # A request per segment: each has its own context (its neighbours, what the
                # file says of it).
                answers = await asyncio.gather(
                    *(
                        _one(
                            service,
                            msgspec.structs.replace(
                                request,
                                text=[texts[i]],
                                context=segment_context(texts, i, options, contexts),
                            ),
                            deadline,
                            options,
                        )
                        for i in wanted
                    )
                )
                found = [answer[0] for answer in answers]
            else:
                found = await _one(service, request, deadline, options)
        finally:
            await budget.give(len(batch))
        for index, text in zip(wanted, found, strict=True):
            translations[index] = text
        return translations

    return translate


def _request(
    batch: list[str], source: str, target_lang: str, options: DocumentOptions
) -> TranslateRequest:
    """The `/translate` request a batch of a job's segments is, with the job's options."""
    threshold = options.memory_threshold
    return TranslateRequest(
        text=batch,
        source_lang=source,
        target_lang=target_lang,
        model=options.model,
        # `_FORMALITY`'s values are the request's formality literals.
        formality=_FORMALITY.get((options.formality or "").lower(), "default"),  # type: ignore[arg-type]
        glossary=options.glossary or None,
        glossary_id=options.glossary_id,
        instructions=list(options.instructions) or None,
        memory=options.memory,
        memory_threshold=MEMORY_THRESHOLD if threshold is None else threshold,
        candidates=options.candidates,
        min_quality=options.min_quality,
    )


async def _one(
    service: TranslationService,
    request: TranslateRequest,
    deadline: float,
    options: DocumentOptions,
) -> list[SegmentTranslation]:
    record = RequestRecord(f"document-{next(_ids)}", "document", "JOB")
    response = await service.translate(
        request,
        record,
        deadline,
        owner=options.memory_owner,
        glossary_owner=options.glossary_owner,
    )
    texts = response.translations or []
    details = _details(response, len(texts))
    estimates = response.quality_estimate
    flags = response.needs_review
    if not isinstance(estimates, list) or not isinstance(flags, list):
        return [
            SegmentTranslation(text, details=found)
            for text, found in zip(texts, details, strict=True)
        ]
    return [
        SegmentTranslation(text, estimate, needs, found)
        for text, estimate, needs, found in zip(texts, estimates, flags, details, strict=True)
    ]


def _details(response: TranslateResponse, count: int) -> list[SegmentDetails]:
    """Each text's warnings and memory match, for the job's review."""
    warnings = response.warnings if isinstance(response.warnings, list) else []
    matches = response.memory_matches or []
    found = []
    for i in range(count):
        own = warnings[i] if i < len(warnings) and isinstance(warnings[i], list) else []
        match = matches[i] if i < len(matches) else None
        found.append(
            SegmentDetails(
                warnings=tuple(str(code) for code in own),
                memory_match=None if match is None else msgspec.to_builtins(match),
            )
        )
    return found


def segment_context(
    texts: list[str],
    index: int,
    options: DocumentOptions,
    contexts: list[str | None] | None,
) -> str | None:
    """What the model is told of segment `index`: what the file says of it (a localization
    file's description, a plural form's category) and, if asked, its neighbours; cut to
    the longest context a request may give."""
    told = [contexts[index] if contexts else None]
    if options.neighbours:
        told.append(neighbour_context(texts, index))
    joined = "\n".join(part for part in told if part)
    return joined[:CONTEXT_CHARS] or None


def neighbour_context(texts: list[str], index: int) -> str | None:
    """The segments before and after `texts[index]` (blank ones skipped), each cut to
    `NEIGHBOUR_CHARS` on the side away from it: the context of its translation."""
    before = next((t for t in reversed(texts[:index]) if t.strip()), "")
    after = next((t for t in texts[index + 1 :] if t.strip()), "")
    parts = [before.strip()[-NEIGHBOUR_CHARS:], after.strip()[:NEIGHBOUR_CHARS]]
    return "\n".join(part for part in parts if part) or None


def file_memory(service: TranslationService, memories: Memories | None) -> Remember | None:
    """A catalog's own translations as a memory for its segments: made for the job under an
    owner of its own (no API key's), deleted when the job ends however it ends."""
    if memories is None:
        return None

    @asynccontextmanager
    async def remember(
        job: Job, pairs: list[tuple[str, str]], options: DocumentOptions
    ) -> AsyncIterator[DocumentOptions]:
        source = job.source_lang or _detect(service, [s for s, _ in pairs[:DETECT_PAIRS]])
        try:
            entries = [
                Entry(s, t, normalized_tag(source), normalized_tag(job.target_lang))
                for s, t in pairs
            ]
        except UnknownLanguageError:  # undetected ("auto"): the file has no memory then
            yield options
            return
        owner = f"{FILE_MEMORY_OWNER}{job.id}"
        made = await memories.create(owner, f"document {job.id}")
        try:
            await memories.add(owner, made.id, entries)
        except ApiError:  # more entries than a memory holds: translated without them
            await memories.delete(owner, made.id)
            yield options
            return
        try:
            yield msgspec.structs.replace(options, memory=made.id, memory_owner=owner)
        finally:
            await memories.delete(owner, made.id)

    return remember


def document_model(service: TranslationService, models: ServedModels | None) -> Pin | None:
    """Where adapters are served, what a new job's options pin: the adapter serving its pair
    (the source detected from the whole document where not given), else the base model by
    name, so one loaded later does not take over. None without adapters: nothing to choose."""
    if models is None or not models.serves_adapters:
        return None

    def pin(
        source_lang: str | None,
        target_lang: str,
        segments: Sequence[str],
        options: DocumentOptions,
    ) -> DocumentOptions:
        texts = [text for text in segments if text.strip()]
        source = source_lang or (_detect(service, texts) if texts else "auto")
        target = requested_language(target_lang, "target_lang").tag
        adapter = None
        if source != "auto":
            adapter = models.route(requested_language(source, "source_lang").tag, target, None)
        if adapter is None:
            return msgspec.structs.replace(options, model=models.base, adapter_path=None)
        return msgspec.structs.replace(options, model=adapter.name, adapter_path=adapter.path)

    return pin


def _check_pinned(service: TranslationService, options: DocumentOptions) -> None:
    """The job's adapter is still the one it started with: loaded under its name, from the
    same folder (one reloaded from elsewhere is another adapter)."""
    name = options.model
    if options.adapter_path is None or name is None:
        return
    adapter = service.models.loaded(name)
    if adapter is None or adapter.path != options.adapter_path:
        raise AdapterNotFoundError(
            f"The adapter `{name}` this document started with is no longer served (unloaded, "
            "or loaded again from another folder): the rest of it would be another model's.",
            param="model",
        )


def _detect(service: TranslationService, texts: list[str]) -> str:
    """One source language for the whole batch: a subtitle line or a table cell alone is
    too short to detect reliably, the batch together seldom is."""
    try:
        return service.detection.detect(" ".join(texts)[:2000]).language.tag
    except ApiError:
        return "auto"

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
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from translate_server.documents.job import DocumentOptions
from translate_server.documents.job_translation import Pin, Translate
from translate_server.documents.limits import RunnerLimits
from translate_server.errors import AdapterNotFoundError, ApiError
from translate_server.inference.admission import Admission
from translate_server.observability.record import RequestRecord
from translate_server.translation.languages import requested_language
from translate_server.translation.protocol import TranslateRequest

if TYPE_CHECKING:
    from translate_server.translation.service import TranslationService

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
    engine_requests: int, *, max_characters: int, max_in_flight_per_owner: int
) -> RunnerLimits:
    """Two documents at once, two batches each, batches of half the engine budget: one
    document alone fills the budget, and two share it (the budget holds the rest back)."""
    return RunnerLimits(
        max_characters=max_characters,
        max_in_flight_per_owner=max_in_flight_per_owner,
        max_jobs=2,
        batches_in_flight=2,
        batch_segments=max(1, engine_requests // 2),
    )


def document_translator(service: TranslationService, budget: EngineBudget) -> Translate:
    async def translate(
        texts: list[str], source_lang: str | None, target_lang: str, options: DocumentOptions
    ) -> list[str]:
        # Blank segments need no model (and /translate refuses empty texts).
        wanted = [i for i, text in enumerate(texts) if text.strip()]
        translations = list(texts)
        if not wanted:
            return translations
        batch = [texts[i] for i in wanted]
        source = source_lang or _detect(service, batch)
        _check_pinned(service, options)
        request = TranslateRequest(
            text=batch,
            source_lang=source,
            target_lang=target_lang,
            model=options.model,
            # `_FORMALITY`'s values are the request's formality literals.
            formality=_FORMALITY.get((options.formality or "").lower(), "default"),  # type: ignore[arg-type]
            glossary=options.glossary or None,
        )
        record = RequestRecord(f"document-{next(_ids)}", "document", "JOB")
        deadline = asyncio.get_running_loop().time() + BATCH_TIMEOUT
        await budget.take(len(batch))
        try:
            response = await service.translate(request, record, deadline)
        finally:
            await budget.give(len(batch))
        for index, text in zip(wanted, response.translations or [], strict=True):
            translations[index] = text
        return translations

    return translate


def document_model(service: TranslationService) -> Pin | None:
    """Where adapters are served, what a new job's options pin: the adapter serving its pair
    (the source detected from the whole document where not given), else the base model by
    name, so one loaded later does not take over. None without adapters: nothing to choose."""
    catalog = service.adapters
    if catalog is None:
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
            adapter = catalog.route(requested_language(source, "source_lang").tag, target, None)
        if adapter is None:
            return msgspec.structs.replace(options, model=catalog.base_model, adapter_path=None)
        return msgspec.structs.replace(options, model=adapter.name, adapter_path=adapter.path)

    return pin


def _check_pinned(service: TranslationService, options: DocumentOptions) -> None:
    """The job's adapter is still the one it started with: loaded under its name, from the
    same folder (one reloaded from elsewhere is another adapter)."""
    catalog, name = service.adapters, options.model
    if options.adapter_path is None or name is None or catalog is None:
        return
    adapter = catalog.named(name) if name in catalog.names else None
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

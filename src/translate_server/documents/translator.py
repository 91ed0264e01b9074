"""The document runner's translator: a batch of segments becomes one /translate batch, run
through a translation service of its own that asks the engine for a LOW priority.

Why a service of its own:
- Priority: its engine requests carry `DOCUMENT_PRIORITY`, so whenever the engine has more
  requests than slots, interactive ones (priority 0) are scheduled first.
- Admission: its requests do not count in the interactive admission. Counting them would let
  a long document fill the interactive queue and turn interactive requests away (503) for
  capacity that the document only borrows at low priority. They are bounded instead by the
  runner (`runner_limits`: a share of `max_num_seqs`) and counted in an admission of their own
  whose capacity is that share, so a document can never take more.
The translation cache and the language detector are shared with the interactive service.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING

from translate_server.documents.runner import DocumentOptions, RunnerLimits, Translate
from translate_server.errors import ApiError
from translate_server.http.observability import RequestRecord
from translate_server.inference.admission import Admission
from translate_server.translation.protocol import TranslateRequest

if TYPE_CHECKING:
    from translate_server.translation.service import TranslationService

# vLLM takes lower values first; interactive requests keep the default 0.
DOCUMENT_PRIORITY = 1
# A batch waits behind interactive traffic at low priority: it gets far longer than a request.
BATCH_TIMEOUT = 600.0

_FORMALITY = {"formal": "formal", "more": "formal", "prefer_more": "formal",
              "informal": "informal", "less": "informal", "prefer_less": "informal"}
_ids = itertools.count()


class DocumentAdmission(Admission):
    """Admission for document batches: same accounting, but it leaves the interactive
    running/waiting gauges alone (they describe interactive requests)."""

    def _publish(self) -> None:
        pass


def runner_limits(engine_requests: int, *, max_characters: int,
                  max_in_flight_per_owner: int) -> RunnerLimits:
    """Bounds that keep every document's outstanding engine requests within
    `engine_requests`: jobs x batches in flight x segments per batch."""
    max_jobs = 2 if engine_requests >= 4 else 1
    batches_in_flight = 2 if engine_requests >= 2 * max_jobs else 1
    batch_segments = max(1, engine_requests // (max_jobs * batches_in_flight))
    return RunnerLimits(max_characters=max_characters,
                        max_in_flight_per_owner=max_in_flight_per_owner, max_jobs=max_jobs,
                        batches_in_flight=batches_in_flight, batch_segments=batch_segments)


def document_translator(service: TranslationService) -> Translate:
    async def translate(texts: list[str], source_lang: str | None, target_lang: str,
                        options: DocumentOptions) -> list[str]:
        # Blank segments need no model (and /translate refuses empty texts).
        wanted = [i for i, text in enumerate(texts) if text.strip()]
        translations = list(texts)
        if not wanted:
            return translations
        batch = [texts[i] for i in wanted]
        source = source_lang or _detect(service, batch)
        request = TranslateRequest(
            text=batch, source_lang=source, target_lang=target_lang,
            formality=_FORMALITY.get((options.formality or "").lower(), "default"),  # type: ignore[arg-type]
            glossary=options.glossary or None)
        record = RequestRecord(f"document-{next(_ids)}", "document", "JOB")
        deadline = asyncio.get_running_loop().time() + BATCH_TIMEOUT
        response = await service.translate(request, record, deadline)
        for index, text in zip(wanted, response.translations or [], strict=True):
            translations[index] = text
        return translations

    return translate


def _detect(service: TranslationService, texts: list[str]) -> str:
    """One source language for the whole batch: a subtitle line or a table cell alone is
    too short to detect reliably, the batch together seldom is."""
    try:
        return service.detection.detect(" ".join(texts)[:2000]).language.tag
    except ApiError:
        return "auto"

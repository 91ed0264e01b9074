"""/translate: each text, and each piece of a long text or of an HTML document, becomes its own
engine request, all submitted at once; continuous batching does the rest.

A request is planned first (`plan`: no tokenizer, no engine), admitted with the weight of the
pieces left to translate, and only then are prompts tokenized and submitted (`pieces`);
`stream` sends one text's translation as it is generated.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from translate_server.errors import InvalidRequestError
from translate_server.inference.admission import Admission
from translate_server.inference.engine import EngineDeadError
from translate_server.inference.generation import GenerationService
from translate_server.inference.served_models import ServedModels
from translate_server.limits.ticket import charge
from translate_server.observability.record import RequestRecord
from translate_server.settings import LimitSettings
from translate_server.text.detection import (
    LanguageDetection,
    detectable_languages,
)
from translate_server.translation.estimate.model import QualityEstimator, estimator_for
from translate_server.translation.guard.findings import findings
from translate_server.translation.guard.quality_guard import Guard
from translate_server.translation.planning.cache import TranslationCache
from translate_server.translation.planning.glossary import GlossaryIndexes
from translate_server.translation.planning.plan import FAN_OUT_SLICE, Job, Piece, Plan, is_auto
from translate_server.translation.planning.planner import MAX_PIECE_TOKENS, Planner
from translate_server.translation.prompts.templates import PromptTemplate
from translate_server.translation.protocol import (
    DetectedLanguage,
    DetectRequest,
    DetectResponse,
    LanguageInfo,
    LanguagesResponse,
    TranslateChunk,
    TranslateRequest,
    TranslateResponse,
)
from translate_server.translation.service.given import GivenTranslations
from translate_server.translation.service.outcome import (
    PARTIAL,
    nothing_translated,
    or_untranslated,
)
from translate_server.translation.service.pieces import PieceTranslator
from translate_server.translation.service.response import build_response
from translate_server.translation.service.stored_glossaries import StoredGlossaries
from translate_server.translation.service.stream import TranslationStream
from translate_server.translation.service.streamed_pieces import StreamedPieces

if TYPE_CHECKING:
    from translate_server.translation.planning.ports import GlossaryLookup, MemoryLookup


@dataclass(frozen=True, slots=True)
class GivenExamples:
    """A request's own example pairs, in the place of a memory's fuzzy matches."""

    examples: tuple[tuple[str, str], ...]
    exact: None = None
    score: float = 0.0


class TranslationService:
    def __init__(
        self,
        generation: GenerationService,
        admission: Admission,
        limits: LimitSettings,
        model_name: str,
        *,
        detection: LanguageDetection | None = None,
        cache: TranslationCache | None = None,
        template: PromptTemplate | None = None,
        estimator: QualityEstimator | None = None,
        priority: int = 0,
        quality_guard: bool = True,
        refuse_unsupported_targets: bool = False,
        memories: MemoryLookup | None = None,
        models: ServedModels | None = None,
        glossaries: GlossaryLookup | None = None,
        glossary_indexes: GlossaryIndexes | None = None,
    ) -> None:
        self.generation = generation
        self.memories = memories
        # Services at other priorities share one set of indexes (`glossary_indexes`).
        self.glossaries = StoredGlossaries(glossaries, glossary_indexes or GlossaryIndexes())
        self.models = models or ServedModels(model_name)
        self.admission = admission
        self.limits = limits
        self.model_name = model_name
        self.detection = detection or LanguageDetection()
        self.planner = _planner(
            generation,
            limits,
            self.models,
            self.detection,
            cache,
            template,
            refuse_unsupported=refuse_unsupported_targets,
        )
        # Only a completion prompt shows the examples: only there can an answer copy one.
        shown = template.examples if template is not None and template.kind == "completion" else ()
        guard = (
            Guard(self.detection, self.detection.accuracy, examples=shown)
            if quality_guard
            else None
        )
        # The estimate's model is the served model's family's (its log probabilities' scale).
        self.estimator = estimator or estimator_for(generation.engine.info.model)
        self.pieces = PieceTranslator(
            generation,
            admission,
            limits,
            cache=cache,
            template=template,
            priority=priority,
            guard=guard,
            estimator=self.estimator,
        )
        self.streams = TranslationStream(StreamedPieces(self.pieces), admission)
        # /translate/estimate: translations made elsewhere, scored on the same scale.
        self.given = GivenTranslations(self)

    async def translate(
        self,
        request: TranslateRequest,
        record: RequestRecord,
        deadline: float,
        *,
        keep_partial: bool = False,
        owner: str = "",
        glossary_owner: str | None = None,
        examples: tuple[tuple[str, str], ...] = (),
    ) -> TranslateResponse:
        """With `keep_partial`, a deadline that passes once some pieces are translated keeps
        them: the rest comes back untranslated, with the warning `deadline_exceeded` and the
        finish reason `partial` (for callers that can say so; the others get the 504).
        `owner` is the caller's (owners.py): whose translation memory and stored glossaries
        it may use; `glossary_owner`, where a surface keeps its glossaries under another
        (DeepL's, per presented key even where no keys are configured). `examples`:
        (source, translation) pairs the caller gives (Google's reference sentences), shown to
        the model with every piece as a memory's fuzzy matches are."""
        plan = await self._plan(request, record, owner, glossary_owner, examples)
        await self._run(plan, plan.job(record, deadline), keep_partial=keep_partial)
        if len(plan.pieces) * (1 + len(plan.glossary)) < THREAD_RESPOND_WORK:
            return self.respond(plan, record)
        # Reassembling a thousand pieces, and finding which glossary terms each translation
        # applied (as much work as finding the terms), is too long a turn for the loop.
        return await asyncio.to_thread(self.respond, plan, record)

    async def open_stream(
        self,
        request: TranslateRequest,
        record: RequestRecord,
        deadline: float,
        owner: str = "",
        glossary_owner: str | None = None,
    ) -> AsyncGenerator[TranslateChunk, None]:
        """One text's translation as it is generated (see `stream`)."""
        plan = await self._plan(request, record, owner, glossary_owner)
        if not self.generation.engine.is_alive:
            raise EngineDeadError("engine is not running")
        return await self.streams.open(plan, record, deadline, self.respond)

    async def _plan(
        self,
        request: TranslateRequest,
        record: RequestRecord,
        owner: str = "",
        glossary_owner: str | None = None,
        examples: tuple[tuple[str, str], ...] = (),
    ) -> Plan:
        record.model = self.model_name
        # Billed before anything is looked up or translated: a refused request (its key over
        # its characters per minute or month) costs no work.
        texts = [request.text] if isinstance(request.text, str) else request.text
        await charge(sum(len(text) for text in texts), (request.source_lang, request.target_lang))
        # Given examples key the cache as a memory's revision does.
        memory = ("examples", examples) if examples else await self._memory(request, owner)
        target = self.planner.target(request)
        stored = await self.glossaries.terms_for(
            request, target, owner if glossary_owner is None else glossary_owner
        )
        if _planning_work(request) < THREAD_PLAN_WORK:
            plan = self.planner.plan(request, memory, stored)
        else:
            # Splitting, parsing, glossary lookups and detection are linear, but a request
            # within every limit still holds a megabyte of text: the loop does not wait for it.
            plan = self.planner.look_up(
                await asyncio.to_thread(self.planner.prepare, request, memory, stored)
            )
        if examples:
            for piece in plan.pieces.values():
                piece.found = GivenExamples(examples)
        elif memory is not None:
            await self._match(plan, record, owner)
        # The log line, the metrics and the response name the model that translates.
        record.model = plan.model
        return plan

    async def _memory(self, request: TranslateRequest, owner: str) -> Hashable:
        """The request's translation memory and its revision (a cached translation made with
        one memory's examples is not another's), or None."""
        if request.memory is None:
            return None
        if self.memories is None:
            raise InvalidRequestError("This server keeps no translation memories.", param="memory")
        found = await self.memories.get(owner, request.memory, param="memory")
        return ("memory", found.id, found.revision)

    async def _match(self, plan: Plan, record: RequestRecord, owner: str) -> None:
        """Each piece's best match in the memory: exact ones are answered, fuzzy ones shown
        to the model as examples (one lookup per source language, in the store's thread)."""
        assert self.memories is not None and plan.request.memory is not None
        by_source: dict[str, list[Piece]] = {}
        for piece in plan.pieces.values():
            by_source.setdefault(piece.source.tag, []).append(piece)
        for source, pieces in by_source.items():
            found = await self.memories.look_up(
                owner,
                plan.request.memory,
                source,
                plan.target.tag,
                [piece.text for piece in pieces],
                plan.request.memory_threshold,
            )
            for piece, match in zip(pieces, found, strict=True):
                piece.found = match
                if match is not None:
                    if match.exact is not None:
                        findings(record).memory_exact += 1
                    else:
                        findings(record).memory_fuzzy += 1

    async def _run(self, plan: Plan, job: Job, *, keep_partial: bool = False) -> None:
        plan.take_cached()
        misses = plan.misses
        if not misses:
            return
        ticket = self.admission.admit(plan.weight(len(misses)))
        if len(misses) == 1:
            # The common case runs in this task: a task of its own would start a loop
            # iteration later, behind whatever else the loop has to do.
            try:
                plan.results[misses[0].key] = await self.pieces.translate(misses[0], job)
            finally:
                ticket.release()
            return
        try:
            async with asyncio.TaskGroup() as group:
                tasks = {}
                for index, piece in enumerate(misses):
                    if index and index % FAN_OUT_SLICE == 0:
                        # Tasks created together take their first steps (prompt rendering,
                        # tokenizing, submitting) in one loop turn: a thousand pieces would
                        # hold the loop for that long. A slice per turn lets others in.
                        await asyncio.sleep(0)
                    translation = self.pieces.translate(piece, job)
                    if keep_partial:
                        translation = or_untranslated(translation, piece)
                    tasks[piece.key] = group.create_task(translation)
        except* Exception as failures:  # noqa: BLE001 - the first failure is raised again
            # One failed piece fails the request (its siblings are cancelled): report the first.
            raise failures.exceptions[0] from None
        finally:
            ticket.release()
        for key, task in tasks.items():
            plan.results[key] = task.result()
        if all(result.finish_reason == PARTIAL for result in plan.results.values()):
            raise nothing_translated()  # nothing was translated: nothing to keep

    def respond(self, plan: Plan, record: RequestRecord) -> TranslateResponse:
        return build_response(plan, record, self.estimator)

    # -- /detect and /languages ------------------------------------------------------------
    def detect(self, request: DetectRequest) -> DetectResponse:
        if len(request.text) > self.limits.max_text_chars:
            raise InvalidRequestError(
                f"A text may be at most {self.limits.max_text_chars} characters long.",
                param="text",
                code="string_above_max_length",
            )
        candidates = self.detection.candidates(request.text, request.max_candidates)
        if not candidates:
            self.detection.detect(request.text)  # raises the 400
        best = candidates[0]
        return DetectResponse(
            language=best.language.tag,
            confidence=best.confidence,
            name=best.language.name,
            candidates=[
                DetectedLanguage(language=c.language.tag, confidence=c.confidence)
                for c in candidates
            ],
        )

    def languages(self) -> LanguagesResponse:
        return LanguagesResponse(
            languages=[
                LanguageInfo(
                    code=language.tag,
                    name=language.name,
                    support=self.planner.support(language.tag),
                )
                for language in detectable_languages()
            ]
        )


# Pieces (times the glossary's terms checked in each, plus one) of an answer assembled on
# the event loop.
THREAD_RESPOND_WORK = 256
# Planning work (characters; a detection or a glossary term counted as a thousand) done on
# the event loop rather than in a worker thread: a few milliseconds at most.
THREAD_PLAN_WORK = 8_000
DETECTION_WORK = 1_000


def _planning_work(request: TranslateRequest) -> int:
    texts = request.text if isinstance(request.text, list) else [request.text]
    work = sum(len(text) for text in texts)
    if is_auto(request.source_lang):
        work += DETECTION_WORK * len(texts)
    if request.glossary:
        # Every term is compiled (once per process) and compared with every piece.
        work = work * 2 + DETECTION_WORK * len(request.glossary)
    return work


def _planner(
    generation: GenerationService,
    limits: LimitSettings,
    models: ServedModels,
    detection: LanguageDetection,
    cache: TranslationCache | None,
    template: PromptTemplate | None,
    *,
    refuse_unsupported: bool,
) -> Planner:
    """The planner the model's prompt template asks for: how it cuts texts into pieces, which
    targets it supports, whether it follows instructions (a chat model's template)."""
    return Planner(
        limits,
        models,
        generation.max_model_len,
        detection,
        cache,
        line_by_line=template is not None and template.line_by_line,
        piece_tokens=template.piece_tokens if template else MAX_PIECE_TOKENS,
        piece_sentences=template.piece_sentences if template else 0,
        support=template.support_level if template else lambda tag: None,
        refuse_unsupported=refuse_unsupported,
        follows_instructions=(template is None or template.kind == "chat")
        and generation.engine.info.chat_template,
    )

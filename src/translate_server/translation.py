"""/translate: each text, and each piece of a long text or of an HTML document, becomes its own
engine request, all submitted at once; continuous batching does the rest.

A request is planned first without touching the tokenizer: languages checked or detected,
texts split into pieces by characters, pieces deduplicated and looked up in the cache. The
pieces left are the request's admission weight. Only once admitted are prompts tokenized; a
piece that turns out to have more tokens than fit one request is split again (its extra
engine requests are admitted too).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Hashable
from contextlib import aclosing
from dataclasses import dataclass, field
from functools import lru_cache

import msgspec
import structlog

from translate_server import sse
from translate_server.admission import Admission, Ticket
from translate_server.detection import Detection, LanguageDetection, detectable_languages
from translate_server.engine import EngineDeadError, SamplingOptions
from translate_server.errors import InvalidRequestError, ModelNotFoundError, stream_failure
from translate_server.generation import GenerationService, Prompt
from translate_server.glossary import applied_terms, entries_in, validate_glossary
from translate_server.languages import Language, UnknownLanguageError, resolve_language
from translate_server.markup import parse_html
from translate_server.observability import RequestRecord
from translate_server.prompting import (
    PromptTemplate,
    StreamCleaner,
    build_translation_prompt,
    clean_translation,
    translation_stop,
    translation_token_budget,
)
from translate_server.protocol.base import Usage
from translate_server.protocol.translate import (
    DetectedLanguage,
    DetectRequest,
    DetectResponse,
    LanguageInfo,
    LanguagesResponse,
    TranslateChunk,
    TranslateRequest,
    TranslateResponse,
)
from translate_server.segmentation import Document, refit, split_document, split_lines
from translate_server.settings import LimitSettings
from translate_server.translation_cache import CachedTranslation, TranslationCache

log = structlog.get_logger("translate_server.translation")

# Source tokens per engine request: small pieces translate better with small models and
# spread over the batch; the model's context may allow less.
MAX_PIECE_TOKENS = 512
# Characters per piece when splitting before any tokenization, per token of the budget: about
# what one token holds in European languages; denser scripts are split again once tokenized.
CHARS_PER_TOKEN = 3
# Context set aside for the instructions when sizing pieces before tokenization.
PROMPT_ALLOWANCE = 256


class PieceResult(msgspec.Struct, frozen=True):
    text: str
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class _Piece:
    """One unique engine request's worth of text, in one language pair."""

    text: str
    source: Language
    glossary: dict[str, str]
    key: Hashable
    param: str
    cached: CachedTranslation | None


@dataclass
class _Text:
    document: Document
    source: Language
    detection: Detection | None
    slots: list[Hashable]


@dataclass(frozen=True, slots=True)
class _Job:
    """What every engine request of one /translate request shares."""

    target: Language
    request: TranslateRequest
    record: RequestRecord
    deadline: float

    def languages(self, piece: _Piece) -> tuple[str, ...]:
        """The names a preamble before the piece's translation may mention."""
        return (piece.source.name, self.target.name)


@dataclass
class _Plan:
    request: TranslateRequest
    is_batch: bool
    target: Language
    glossary: dict[str, str]
    texts: list[_Text]
    pieces: dict[Hashable, _Piece]
    results: dict[Hashable, PieceResult] = field(default_factory=dict)

    @property
    def misses(self) -> list[_Piece]:
        return [piece for piece in self.pieces.values() if piece.cached is None]

    def job(self, record: RequestRecord, deadline: float) -> _Job:
        return _Job(self.target, self.request, record, deadline)


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
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.limits = limits
        self.model_name = model_name
        self.detection = detection or LanguageDetection()
        self.cache = cache
        self.template = template

    # -- /translate ------------------------------------------------------------------------
    async def translate(
        self, request: TranslateRequest, record: RequestRecord, deadline: float
    ) -> TranslateResponse:
        plan = self._plan(request, record)
        await self._run(plan, plan.job(record, deadline))
        return self._response(plan, record)

    async def _run(self, plan: _Plan, job: _Job) -> None:
        for key, piece in plan.pieces.items():
            if piece.cached is not None:
                plan.results[key] = PieceResult(piece.cached.text, "stop")
        misses = plan.misses
        if not misses:
            return
        ticket = self.admission.admit(len(misses))
        if len(misses) == 1:
            # The common case runs in this task: a task of its own would start a loop
            # iteration later, behind whatever else the loop has to do.
            try:
                plan.results[misses[0].key] = await self._translate_piece(misses[0], job)
            finally:
                ticket.release()
            return
        try:
            async with asyncio.TaskGroup() as group:
                tasks = {
                    piece.key: group.create_task(self._translate_piece(piece, job))
                    for piece in misses
                }
        except* Exception as failures:
            # One failed piece fails the request (its siblings are cancelled): report the first.
            raise failures.exceptions[0] from None
        finally:
            ticket.release()
        for key, task in tasks.items():
            plan.results[key] = task.result()

    def _response(self, plan: _Plan, record: RequestRecord) -> TranslateResponse:
        translations, reasons = [], []
        applied: set[str] = set()
        for text in plan.texts:
            results = [plan.results[key] for key in text.slots]
            translations.append(text.document.assemble([r.text for r in results]))
            reasons.append("length" if any(r.finish_reason == "length" for r in results)
                           else "stop")
            for key, result in zip(text.slots, results, strict=True):
                piece = plan.pieces[key]
                applied.update(applied_terms(piece.text, result.text, piece.glossary))
        record.finish_reason = "length" if "length" in reasons else "stop"
        counted = [plan.results[key] for key in plan.pieces]
        usage = Usage.of(sum(r.prompt_tokens for r in counted),
                         sum(r.completion_tokens for r in counted))
        detections = [_detected(text.detection) for text in plan.texts]
        common = {
            "target_lang": plan.target.tag,
            "model": self.model_name,
            "usage": usage,
            "glossary_applied": [t for t in plan.glossary if t in applied] if plan.glossary
            else None,
        }
        if plan.is_batch:
            detected = plan.request.source_lang.strip().lower() == "auto"
            return TranslateResponse(
                translations=translations, finish_reasons=reasons,
                source_lang="auto" if detected else plan.texts[0].source.tag,
                detected_source_langs=detections if detected else None,  # type: ignore[arg-type]
                **common,
            )
        return TranslateResponse(
            translation=translations[0], finish_reason=reasons[0],
            source_lang=plan.texts[0].source.tag, detected_source_lang=detections[0], **common,
        )

    # -- streaming -------------------------------------------------------------------------
    async def open_stream(
        self, request: TranslateRequest, record: RequestRecord, deadline: float
    ) -> AsyncGenerator[bytes, None]:
        """Server-sent events of one text's translation, in order, as it is generated. What
        can fail before the first byte (validation, detection, admission, a dead engine, the
        first piece's engine request) fails here, while an error status can still be sent."""
        plan = self._plan(request, record)
        if not self.generation.engine.is_alive:
            raise EngineDeadError("engine is not running")
        misses = plan.misses
        ticket = self.admission.admit(len(misses)) if misses else None
        job = plan.job(record, deadline)
        sources: dict[Hashable, AsyncIterator[str | PieceResult]] = {}
        tasks: list[asyncio.Task[None]] = []
        try:
            for piece in misses[1:]:
                # Later pieces generate meanwhile; their deltas wait until their turn.
                queue: asyncio.Queue[str | PieceResult | BaseException] = asyncio.Queue()
                sources[piece.key] = _drained(queue)
                tasks.append(asyncio.create_task(self._pump(self._open_piece(piece, job), queue)))
            if misses:
                # The first piece's engine request is submitted here, in the handler's own
                # task, before the response starts: no loop turn is lost.
                sources[misses[0].key] = await self._open_piece(misses[0], job)
        except BaseException:
            await _stop(tasks)
            if ticket is not None:
                ticket.release()
            raise
        return self._events(plan, sources, tasks, ticket, record)

    async def _events(
        self,
        plan: _Plan,
        sources: dict[Hashable, AsyncIterator[str | PieceResult]],
        tasks: list[asyncio.Task[None]],
        ticket: Ticket | None,
        record: RequestRecord,
    ) -> AsyncGenerator[bytes, None]:
        text = plan.texts[0]
        escape = text.document.escape or (lambda s: s)
        try:
            for key, piece in plan.pieces.items():
                if piece.cached is not None:
                    plan.results[key] = PieceResult(piece.cached.text, "stop")
            for part in text.document.layout:
                if isinstance(part, str):
                    yield sse.event(TranslateChunk(delta=part))
                    continue
                key = text.slots[part]
                if key in plan.results:
                    yield sse.event(TranslateChunk(delta=escape(plan.results[key].text)))
                    continue
                async for item in sources[key]:
                    if isinstance(item, PieceResult):
                        plan.results[key] = item
                    else:
                        yield sse.event(TranslateChunk(delta=escape(item)))
            final = self._response(plan, record)
            yield sse.event(TranslateChunk(
                delta="", finish_reason=final.finish_reason, source_lang=final.source_lang,
                detected_source_lang=final.detected_source_lang,
                glossary_applied=final.glossary_applied, usage=final.usage))
            yield sse.DONE
        except Exception as exc:  # noqa: BLE001 - stream_failure logs the unexpected
            # A 200 is already on the wire: the failure becomes the stream's last event.
            yield sse.event(stream_failure(exc, record))
        finally:
            for source in sources.values():
                await source.aclose()  # type: ignore[attr-defined]
            await _stop(tasks)
            if ticket is not None:
                ticket.release()

    async def _open_piece(self, piece: _Piece, job: _Job) -> AsyncIterator[str | PieceResult]:
        """Submit the piece's engine request and wait for its first output; the piece's
        cleaned deltas follow, then its result."""
        prompt, tokens, budget = await self._tokenized(piece, job)
        if document := _refitting(piece, tokens, budget):
            return self._refitted_stream(piece, document, job)
        options = self._options(prompt, piece, tokens, job.request.max_tokens)
        steps = self.generation.stream(prompt, options, job.record, job.deadline)
        try:
            first = await anext(steps, None)
        except BaseException:
            await steps.aclose()
            raise
        return self._cleaned(piece, StreamCleaner(piece.text, job.languages(piece)),
                             prompt, first, steps)

    async def _cleaned(
        self,
        piece: _Piece,
        cleaner: StreamCleaner,
        prompt: Prompt,
        first: tuple[int, str, int, str | None] | None,
        steps: AsyncIterator[tuple[int, str, int, str | None]],
    ) -> AsyncIterator[str | PieceResult]:
        reason, completion_tokens = "stop", 0
        step = first
        try:
            while step is not None:
                _, delta, completion_tokens, finish_reason = step
                reason = finish_reason or reason
                if text := cleaner.feed(delta):
                    yield text
                step = await anext(steps, None)
        finally:
            await steps.aclose()  # type: ignore[attr-defined]
        if text := cleaner.finish():
            yield text
        result = PieceResult(cleaner.sent, reason, prompt.tokens, completion_tokens)
        self._remember(piece, result)
        yield result

    async def _refitted_stream(
        self, piece: _Piece, document: Document, job: _Job
    ) -> AsyncIterator[str | PieceResult]:
        # A piece split again once tokenized arrives whole: its parts are translated at once.
        result = await self._translate_refitted(piece, document, job)
        self._remember(piece, result)
        yield result.text
        yield result

    @staticmethod
    async def _pump(
        opening: Awaitable[AsyncIterator[str | PieceResult]],
        queue: asyncio.Queue[str | PieceResult | BaseException],
    ) -> None:
        try:
            source = await opening
            async with aclosing(source):  # type: ignore[type-var]
                async for item in source:
                    queue.put_nowait(item)
        except Exception as exc:  # noqa: BLE001 - raised again where the stream reads it
            queue.put_nowait(exc)

    # -- /detect and /languages ------------------------------------------------------------
    def detect(self, request: DetectRequest) -> DetectResponse:
        if len(request.text) > self.limits.max_text_chars:
            raise InvalidRequestError(
                f"A text may be at most {self.limits.max_text_chars} characters long.",
                param="text", code="string_above_max_length")
        candidates = self.detection.candidates(request.text, request.max_candidates)
        if not candidates:
            self.detection.detect(request.text)  # raises the 400
        best = candidates[0]
        return DetectResponse(
            language=best.language.tag, confidence=best.confidence, name=best.language.name,
            candidates=[_detected(c) for c in candidates],  # type: ignore[misc]
        )

    @staticmethod
    def languages() -> LanguagesResponse:
        return LanguagesResponse(languages=[
            LanguageInfo(code=language.tag, name=language.name)
            for language in detectable_languages()
        ])

    # -- planning, before admission: no tokenization ---------------------------------------
    def _plan(self, request: TranslateRequest, record: RequestRecord) -> _Plan:
        record.model = self.model_name
        request = _own_request(request)
        texts, is_batch = self._texts(request)
        target = _language(request.target_lang, "target_lang")
        detect = request.source_lang.strip().lower() == "auto"
        source = None if detect else _language(request.source_lang, "source_lang")
        if request.model is not None and request.model != self.model_name:
            raise ModelNotFoundError(request.model, self.model_name)
        if request.max_tokens is not None and request.max_tokens > self.limits.max_tokens:
            raise InvalidRequestError(
                f"max_tokens may be at most {self.limits.max_tokens}.", param="max_tokens"
            )
        if request.stream and is_batch:
            raise InvalidRequestError("Streaming takes a single text, not a list.",
                                      param="stream")
        glossary = validate_glossary(request.glossary)
        max_chars = self._piece_chars()
        planned: list[_Text] = []
        pieces: dict[Hashable, _Piece] = {}
        for i, text in enumerate(texts):
            param = _param(is_batch, i)
            document = (parse_html(text, max_chars) if request.format == "html"
                        else split_document(text, max_chars))
            if self.template is not None and self.template.line_by_line:
                document = split_lines(document)
            detection = None
            if detect and document.pieces:
                detection = self.detection.detect(" ".join(document.pieces), param)
            language = detection.language if detection else source or target
            slots = []
            for piece_text in document.pieces:
                entries = entries_in(piece_text, glossary)
                key = (self.model_name, language.tag, target.tag, tuple(entries.items()),
                       request.formality, request.max_tokens, piece_text)
                if key not in pieces:
                    cached = self.cache.get(key) if self.cache is not None else None
                    pieces[key] = _Piece(piece_text, language, entries, key, param, cached)
                slots.append(key)
            planned.append(_Text(document, language, detection, slots))
        return _Plan(request, is_batch, target, glossary, planned, pieces)

    def _texts(self, request: TranslateRequest) -> tuple[list[str], bool]:
        is_batch = isinstance(request.text, list)
        texts = request.text if isinstance(request.text, list) else [request.text]
        if not texts:
            raise InvalidRequestError("`text` must hold at least one text.", param="text")
        if len(texts) > self.limits.max_texts:
            raise InvalidRequestError(
                f"At most {self.limits.max_texts} texts per request.", param="text"
            )
        for i, text in enumerate(texts):
            param = _param(is_batch, i)
            if not text.strip():
                raise InvalidRequestError("There is no text to translate.", param=param)
            if len(text) > self.limits.max_text_chars:
                raise InvalidRequestError(
                    f"A text may be at most {self.limits.max_text_chars} characters long; "
                    f"this one has {len(text)}.",
                    param=param,
                    code="string_above_max_length",
                )
        return texts, is_batch

    def _piece_chars(self) -> int:
        budget = min(MAX_PIECE_TOKENS, (self.generation.max_model_len - PROMPT_ALLOWANCE) // 4)
        return max(16, CHARS_PER_TOKEN * budget)

    # -- execution, once admitted ----------------------------------------------------------
    async def _translate_piece(self, piece: _Piece, job: _Job) -> PieceResult:
        prompt, tokens, budget = await self._tokenized(piece, job)
        if document := _refitting(piece, tokens, budget):
            result = await self._translate_refitted(piece, document, job)
        else:
            options = self._options(prompt, piece, tokens, job.request.max_tokens)
            completion = await self.generation.complete(prompt, options, job.record,
                                                        job.deadline)
            result = PieceResult(
                clean_translation(completion.texts[0], piece.text,
                                  languages=job.languages(piece)),
                completion.finish_reasons[0] or "stop",
                completion.prompt_tokens,
                completion.completion_tokens,
            )
        self._remember(piece, result)
        return result

    async def _translate_refitted(
        self, piece: _Piece, document: Document, job: _Job
    ) -> PieceResult:
        # The piece itself was admitted as one engine request; its extra ones are admitted now.
        ticket = self.admission.admit(max(0, len(document.pieces) - 1))
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(self._translate_piece(
                        _Piece(text, piece.source, entries_in(text, piece.glossary), None,
                               piece.param, None), job))
                    for text in document.pieces
                ]
        except* Exception as failures:
            raise failures.exceptions[0] from None
        finally:
            ticket.release()
        results = [task.result() for task in tasks]
        return PieceResult(
            document.assemble([r.text for r in results]),
            "length" if any(r.finish_reason == "length" for r in results) else "stop",
            sum(r.prompt_tokens for r in results),
            sum(r.completion_tokens for r in results),
        )

    def _token_budget(self, overhead: int, param: str) -> int:
        """Source tokens one request can take beside `overhead` tokens of instructions, with
        room for a translation of about three times the source."""
        budget = min(MAX_PIECE_TOKENS, (self.generation.max_model_len - overhead - 16) // 4)
        if budget < 1:
            raise InvalidRequestError(
                "This model's context is too short for the translation instructions.",
                param=param, code="context_length_exceeded")
        return budget

    @lru_cache(maxsize=1024)  # noqa: B019 - one service per app; the key is small
    def _overhead(self, source: Language, target: Language,
                  glossary: tuple[tuple[str, str], ...], formality: str) -> int:
        prompt = build_translation_prompt(
            "", source, target, glossary=dict(glossary), formality=formality,
            template=self.template)
        return self.generation.check(self.generation.render_inline(prompt), "text").tokens

    async def _tokenized(self, piece: _Piece, job: _Job) -> tuple[Prompt, int, int]:
        """The piece's prompt, rendered and tokenized once; the piece's own share of its
        tokens (the prompt less the instructions around it), and how many it may have."""
        formality = job.request.formality
        text = build_translation_prompt(
            piece.text, piece.source, job.target, glossary=piece.glossary,
            formality=formality, template=self.template)
        prompt = await self.generation.render(text)
        overhead = self._overhead(piece.source, job.target, tuple(piece.glossary.items()),
                                  formality)
        return prompt, max(1, prompt.tokens - overhead), self._token_budget(overhead, piece.param)

    def _options(self, prompt: Prompt, piece: _Piece, source_tokens: int,
                 max_tokens: int | None) -> SamplingOptions:
        remaining = self.generation.remaining_context(
            self.generation.check(prompt, piece.param))
        if max_tokens is None:
            budget = translation_token_budget(source_tokens, remaining, self.limits.max_tokens)
        else:
            budget = min(max_tokens, remaining)
        # Greedy: a translation should not change from one call to the next.
        return SamplingOptions(max_tokens=budget, temperature=0.0,
                               stop=translation_stop(piece.text, self.template))

    def _remember(self, piece: _Piece, result: PieceResult) -> None:
        if self.cache is not None and piece.key is not None and result.finish_reason == "stop":
            self.cache.put(piece.key, CachedTranslation(result.text, result.completion_tokens))


def _refitting(piece: _Piece, tokens: int, budget: int) -> Document | None:
    """The piece split again when it turned out to have more tokens than fit one request."""
    return refit(piece.text, tokens, budget) if tokens > budget and len(piece.text) > 1 else None


async def _drained(
    queue: asyncio.Queue[str | PieceResult | BaseException],
) -> AsyncIterator[str | PieceResult]:
    while True:
        item = await queue.get()
        if isinstance(item, BaseException):
            raise item
        yield item
        if isinstance(item, PieceResult):
            return


async def _stop(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _own_request(request: TranslateRequest) -> TranslateRequest:
    """The bench's FastAPI comparison app hands in its own request model, with the original
    fields only; the options it lacks take their defaults."""
    if isinstance(request, TranslateRequest):
        return request
    return TranslateRequest(
        text=request.text, source_lang=request.source_lang, target_lang=request.target_lang,
        max_tokens=request.max_tokens, model=request.model, timeout=request.timeout)


def _detected(detection: Detection | None) -> DetectedLanguage | None:
    if detection is None:
        return None
    return DetectedLanguage(language=detection.language.tag, confidence=detection.confidence)


def _language(code: str, param: str) -> Language:
    try:
        return resolve_language(code)
    except UnknownLanguageError as exc:
        raise InvalidRequestError(f"{exc}.", param=param, code="unsupported_language") from None


def _param(is_batch: bool, index: int) -> str:
    return f"text[{index}]" if is_batch else "text"

"""One piece, one engine request, once admitted: its prompt and sampling (`piece_prompts`), its
answer cleaned, checked by the guard and cached.

A piece that turns out to have more tokens than fit one request is split again; its extra
engine requests are admitted too.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Sequence

import msgspec

from translate_server.inference.admission import Admission
from translate_server.inference.engine import GenerationStep, SamplingOptions
from translate_server.inference.generation import GenerationService, Prompt
from translate_server.settings import LimitSettings
from translate_server.text.masking import Masked
from translate_server.translation.guard.checks import FailureKind
from translate_server.translation.guard.findings import findings
from translate_server.translation.guard.hygiene import StreamCleaner, clean_translation
from translate_server.translation.guard.quality_guard import (
    INCOMPLETE,
    RETRY_SAMPLING,
    Guard,
    Review,
)
from translate_server.translation.planning.cache import CachedTranslation, TranslationCache
from translate_server.translation.planning.glossary import entries_in
from translate_server.translation.planning.plan import Job, Piece, PieceResult
from translate_server.translation.prompts.templates import (
    PromptTemplate,
)
from translate_server.translation.segmentation.segments import (
    Document,
    refit,
    split_document,
    split_sentences,
)
from translate_server.translation.service.piece_prompts import PiecePrompts

# Sampling temperature of alternatives: different from the greedy translation, still faithful.
ALTERNATIVES_TEMPERATURE = 0.7


class PieceTranslator:
    def __init__(
        self,
        generation: GenerationService,
        admission: Admission,
        limits: LimitSettings,
        *,
        cache: TranslationCache | None = None,
        template: PromptTemplate | None = None,
        priority: int = 0,
        guard: Guard | None = None,
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.cache = cache
        self.guard = guard
        self.prompts = PiecePrompts(generation, limits, template, priority)

    async def translate(self, piece: Piece, job: Job) -> PieceResult:
        """The piece's translation, whole."""
        masked = self.guard.mask(piece.text, job.request.format) if self.guard else None
        # The model sees the piece with its protected spans masked (guard.py).
        asked = dataclasses.replace(piece, text=masked.text) if masked and masked.spans else piece
        prompt, tokens, budget = await self.prompts.tokenized(asked, job)
        if document := _refitting(piece, tokens, budget):
            result = await self._translate_refitted(piece, document, job)
        else:
            options = self.prompts.options(prompt, asked, tokens, job.request.max_tokens)
            result = await self._complete(
                asked, prompt, options, job, alternatives=job.request.alternatives
            )
            if self.guard is not None and masked is not None:
                result = await self._guarded(
                    self.guard, piece, masked, prompt, options, result, job
                )
        self._remember(piece, result)
        return result

    async def _complete(
        self,
        asked: Piece,
        prompt: Prompt,
        options: SamplingOptions,
        job: Job,
        *,
        alternatives: int = 0,
    ) -> PieceResult:
        """The greedy translation and, when asked for, sampled alternatives (one engine
        request of n choices beside it, admitted as one more)."""
        if not alternatives:
            completion = await self.generation.complete(prompt, options, job.record, job.deadline)
            extra = None
        else:
            sampled = msgspec.structs.replace(
                options, n=alternatives, temperature=ALTERNATIVES_TEMPERATURE
            )
            ticket = self.admission.admit(1)
            try:
                completion, extra = await asyncio.gather(
                    self.generation.complete(prompt, options, job.record, job.deadline),
                    self.generation.complete(prompt, sampled, job.record, job.deadline),
                )
            finally:
                ticket.release()
        languages = job.languages(asked)
        return PieceResult(
            clean_translation(completion.texts[0], asked.text, languages=languages),
            completion.finish_reasons[0] or "stop",
            completion.prompt_tokens + (extra.prompt_tokens if extra else 0),
            completion.completion_tokens + (extra.completion_tokens if extra else 0),
            alternatives=tuple(
                clean_translation(text, asked.text, languages=languages)
                for text in (extra.texts if extra else ())
            ),
        )

    # -- the guard, once the engine has answered (guard.py) ---------------------------------
    async def _guarded(
        self,
        guard: Guard,
        piece: Piece,
        masked: Masked,
        prompt: Prompt,
        options: SamplingOptions,
        first: PieceResult,
        job: Job,
    ) -> PieceResult:
        """The better of the answer and, when it failed a check, one more try; what is
        still wrong goes into `warnings` and the request's record."""
        reviews = [_review(guard, piece, masked, first, job)]
        attempts = [first]
        retry_for = reviews[0].retry_for(budget_is_ours=job.request.max_tokens is None)
        if INCOMPLETE.intersection(retry_for) and (finer := _by_sentence(piece.text)):
            # A piece of several sentences that lost or made up text: one sentence per
            # engine request, each guarded on its own.
            findings(job.record).quality_checked(tuple(map(str, retry_for)), (), True)
            with self._retry_span(retry_for):
                return await self._translate_refitted(piece, finer, job)
        if retry_for:
            asked = dataclasses.replace(piece, text=masked.text)
            retry = msgspec.structs.replace(options, **RETRY_SAMPLING)
            with self._retry_span(retry_for):
                attempts.append(await self._complete(asked, prompt, retry, job))
            reviews.append(_review(guard, piece, masked, attempts[1], job))
        outcome = guard.choose(piece.text, reviews)
        findings(job.record).quality_checked(
            tuple(map(str, retry_for)), outcome.warnings, len(attempts) > 1
        )
        return PieceResult(
            outcome.text,
            attempts[outcome.chosen].finish_reason,
            sum(a.prompt_tokens for a in attempts),
            sum(a.completion_tokens for a in attempts),
            alternatives=tuple(masked.unmask(text).text for text in first.alternatives),
            warnings=outcome.warnings,
        )

    def _retry_span(
        self, failures: Sequence[FailureKind]
    ) -> contextlib.AbstractContextManager[object]:
        """Where tracing is on, the retry is a span of its own (its engine request beneath
        it), saying what the first answer failed."""
        tracing = self.generation.tracing
        if tracing is None:
            return contextlib.nullcontext()
        return tracing.span("quality retry", {"quality.failures": [str(k) for k in failures]})

    def _stream_warnings(self, piece: Piece, sent: str, job: Job) -> tuple[str, ...]:
        """A stream's answer is already sent: checked after the fact, never retried."""
        if self.guard is None:
            return ()
        review = self.guard.review(
            piece.text, Masked(piece.text, ()), sent, piece.source.tag, job.target.tag
        )
        warnings = tuple(map(str, review.failures))
        findings(job.record).quality_checked(warnings, warnings, False)
        return warnings

    # -- end of the guard -------------------------------------------------------------------

    async def open(self, piece: Piece, job: Job) -> AsyncIterator[str | PieceResult]:
        """Submit the piece's engine request and wait for its first output; the piece's
        cleaned deltas follow, then its result."""
        prompt, tokens, budget = await self.prompts.tokenized(piece, job)
        if document := _refitting(piece, tokens, budget):
            return self._refitted_stream(piece, document, job)
        options = self.prompts.options(prompt, piece, tokens, job.request.max_tokens)
        started = await self.generation.start_stream(prompt, options, job.record, job.deadline)
        return self._cleaned(
            piece,
            StreamCleaner(piece.text, job.languages(piece)),
            prompt,
            started.first,
            started.rest,
            job,
        )

    async def _cleaned(
        self,
        piece: Piece,
        cleaner: StreamCleaner,
        prompt: Prompt,
        first: GenerationStep | None,
        steps: AsyncIterator[GenerationStep],
        job: Job,
    ) -> AsyncIterator[str | PieceResult]:
        reason, completion_tokens = "stop", 0
        step = first
        try:
            while step is not None:
                completion_tokens = step.completion_tokens
                reason = step.finish_reason or reason
                if text := cleaner.feed(step.text):
                    yield text
                step = await anext(steps, None)
        finally:
            # An async generator; its declared type says only AsyncIterator.
            await steps.aclose()  # type: ignore[attr-defined]
        if text := cleaner.finish():
            yield text
        # The cache keeps what a request that is not streamed would have computed from the
        # same answer: a stream cleans as it goes and may have let something through.
        warnings = self._stream_warnings(piece, cleaner.sent, job)
        self._remember(
            piece,
            PieceResult(cleaner.whole, reason, prompt.tokens, completion_tokens, warnings=warnings),
        )
        yield PieceResult(cleaner.sent, reason, prompt.tokens, completion_tokens, warnings=warnings)

    async def _refitted_stream(
        self, piece: Piece, document: Document, job: Job
    ) -> AsyncIterator[str | PieceResult]:
        # A piece split again once tokenized arrives whole: its parts are translated at once.
        result = await self._translate_refitted(piece, document, job)
        self._remember(piece, result)
        yield result.text
        yield result

    async def _translate_refitted(self, piece: Piece, document: Document, job: Job) -> PieceResult:
        # The piece itself was admitted as one engine request; its extra ones join it now.
        ticket = self.admission.admit_more(max(0, len(document.pieces) - 1))
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(
                        self.translate(
                            Piece(
                                text,
                                piece.source,
                                entries_in(text, piece.glossary),
                                None,
                                piece.param,
                                None,
                                adapter=piece.adapter,
                            ),
                            job,
                        )
                    )
                    for text in document.pieces
                ]
        except* Exception as failures:  # noqa: BLE001 - the first failure is raised again
            raise failures.exceptions[0] from None
        finally:
            ticket.release()
        results = [task.result() for task in tasks]
        return PieceResult(
            document.assemble([r.text for r in results]),
            "length" if any(r.finish_reason == "length" for r in results) else "stop",
            sum(r.prompt_tokens for r in results),
            sum(r.completion_tokens for r in results),
            tuple(
                document.assemble(
                    [r.alternatives[j] if j < len(r.alternatives) else r.text for r in results]
                )
                for j in range(job.request.alternatives)
            ),
            warnings=tuple(dict.fromkeys(w for r in results for w in r.warnings)),
        )

    def _remember(self, piece: Piece, result: PieceResult) -> None:
        # An answer with warnings is not kept: the next request tries again.
        if (
            self.cache is not None
            and piece.key is not None
            and result.finish_reason == "stop"
            and not result.warnings
        ):
            self.cache.put(piece.key, CachedTranslation(result.text, result.completion_tokens))


def _review(guard: Guard, piece: Piece, masked: Masked, result: PieceResult, job: Job) -> Review:
    return guard.review(
        piece.text,
        masked,
        result.text,
        piece.source.tag,
        job.target.tag,
        cut_off=result.finish_reason == "length",
    )


def _refitting(piece: Piece, tokens: int, budget: int) -> Document | None:
    """The piece split again when it turned out to have more tokens than fit one request."""
    return refit(piece.text, tokens, budget) if tokens > budget and len(piece.text) > 1 else None


def _by_sentence(text: str) -> Document | None:
    """`text` a sentence per piece, or None when it is a single sentence."""
    document = split_sentences(split_document(text, len(text)), 1)
    return document if len(document.pieces) > 1 else None

"""One piece, one engine request, once admitted: its prompt and sampling (`piece_prompts`), its
answer cleaned, checked by the guard, estimated and cached.

Every answer comes with the log probabilities of its tokens, the signals of its quality
estimate (translation/estimate). With `candidates`, sampled answers are made beside the
greedy one and the best (the guard's verdict first, then the estimate) is kept; with
`min_quality`, a piece estimated under it is translated once more (a sentence at a time, or
sampled) and the better estimated answer kept.

A piece that turns out to have more tokens than fit one request is split again; its extra
engine requests are admitted too. A piece streamed is `streamed_pieces`' (its deltas as they come,
checked after the fact), over this one's prompts, refitting and cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Sequence

import msgspec

from translate_server.inference.admission import Admission
from translate_server.inference.engine import SamplingOptions
from translate_server.inference.generation import GenerationService, Prompt
from translate_server.settings import LimitSettings
from translate_server.text.masking import Masked
from translate_server.translation.estimate.model import QualityEstimator, TextEstimate
from translate_server.translation.estimate.signals import reviewed, unknown_signals
from translate_server.translation.guard.checks import FailureKind
from translate_server.translation.guard.findings import findings
from translate_server.translation.guard.hygiene import clean_translation
from translate_server.translation.guard.quality_guard import (
    INCOMPLETE,
    RETRY_SAMPLING,
    Guard,
    Review,
)
from translate_server.translation.planning.cache import CachedTranslation, TranslationCache
from translate_server.translation.planning.glossary import entries_in
from translate_server.translation.planning.plan import Job, Piece, PieceResult
from translate_server.translation.prompts.templates import PromptTemplate
from translate_server.translation.segmentation.segments import (
    Document,
    refit,
    split_document,
    split_sentences,
)
from translate_server.translation.service.answers import (
    Attempt,
    answer_of,
    best_estimated,
    with_usage,
)
from translate_server.translation.service.piece_prompts import PiecePrompts

# Sampling temperature of alternatives: different from the greedy translation, still faithful.
ALTERNATIVES_TEMPERATURE = 0.7
# Candidates beside the greedy answer: a little randomness, seeded so that they repeat (vLLM
# gives each of n choices the seed plus its index).
CANDIDATE_SAMPLING = {"temperature": 0.5, "seed": 11}
# A piece estimated under `min_quality`, sampled again: two choices, other seeds.
IMPROVE_SAMPLING = {"n": 2, "temperature": 0.5, "seed": 23}


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
        estimator: QualityEstimator,
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.cache = cache
        self.guard = guard
        self.estimator = estimator
        self.prompts = PiecePrompts(generation, limits, template, priority)

    async def translate(self, piece: Piece, job: Job) -> PieceResult:
        """The piece's translation, whole."""
        masked = self.guard.mask(piece.text, job.request.format) if self.guard else None
        # The model sees the piece with its protected spans masked (guard.py).
        asked = dataclasses.replace(piece, text=masked.text) if masked and masked.spans else piece
        prompt, tokens, budget = await self.prompts.tokenized(asked, job)
        if document := refitting(piece, tokens, budget):
            result = await self.translate_refitted(piece, document, job)
        else:
            options = self.prompts.options(prompt, asked, tokens, job.request.max_tokens)
            attempt = Attempt(piece, masked, asked, prompt, options)
            result = await self._answer(attempt, options, job, job.request.candidates - 1)
            floor = job.request.min_quality
            if floor is not None and self.estimate(piece, result, job) < floor:
                result = await self._improve(attempt, result, job)
        self.remember(piece, result, job)
        return result

    def estimate(self, piece: Piece, result: PieceResult, job: Job) -> float:
        """The piece's own quality estimate (as a text of that one piece would have)."""
        return self.text_estimate(piece, result, job).estimate

    def text_estimate(self, piece: Piece, result: PieceResult, job: Job) -> TextEstimate:
        spans = result.signals or (unknown_signals(piece.text, result.text),)
        return self.estimator.estimate(spans, result.warnings, piece.source.tag, job.target.tag)

    async def _answer(
        self,
        attempt: Attempt,
        options: SamplingOptions,
        job: Job,
        candidates: int = 0,
        *,
        retry: bool = True,
    ) -> PieceResult:
        """The answer for `options` and, with `candidates`, that many sampled ones beside it
        (or `options.n` of them), checked by the guard where it is on; the best one."""
        answers = await self._complete(
            attempt.asked,
            attempt.prompt,
            options,
            job,
            alternatives=job.request.alternatives if options.n == 1 else 0,
            candidates=candidates,
        )
        if self.guard is not None and attempt.masked is not None:
            return await self._guarded(self.guard, attempt, answers, job, retry=retry)
        chosen = best_estimated(answers, [self.estimate(attempt.piece, a, job) for a in answers])
        return with_usage(answers[chosen], answers)

    async def _improve(self, attempt: Attempt, first: PieceResult, job: Job) -> PieceResult:
        """A piece estimated under the request's `min_quality`, tried once more: a sentence at
        a time where it has several, else sampled twice with other settings; the better
        estimated answer is kept (the first on a tie). Parts of a piece already translated
        finer were each tried on their own."""
        if len(first.signals) > 1:
            return first
        if finer := _by_sentence(attempt.piece.text):
            other = await self.translate_refitted(attempt.piece, finer, job)
        else:
            sampled = msgspec.structs.replace(attempt.options, **IMPROVE_SAMPLING)
            other = await self._answer(attempt, sampled, job, retry=False)
        estimates = [self.estimate(attempt.piece, r, job) for r in (first, other)]
        findings(job.record).improved += 1
        return with_usage((first, other)[best_estimated((first, other), estimates)], (first, other))

    async def _complete(
        self,
        asked: Piece,
        prompt: Prompt,
        options: SamplingOptions,
        job: Job,
        *,
        alternatives: int = 0,
        candidates: int = 0,
    ) -> list[PieceResult]:
        """The answers to `options` (the greedy one; `options.n` sampled ones) then, when
        asked for, `candidates` sampled ones, each with its signals; sampled `alternatives`
        ride on the first. Each further engine request is admitted as one more."""
        options = msgspec.structs.replace(options, logprobs=0)  # the estimate's signals
        asked_for = [options]
        if candidates:
            asked_for.append(msgspec.structs.replace(options, n=candidates, **CANDIDATE_SAMPLING))
        if alternatives:
            asked_for.append(
                msgspec.structs.replace(
                    options, n=alternatives, temperature=ALTERNATIVES_TEMPERATURE, logprobs=None
                )
            )
        if len(asked_for) == 1:
            completions = [
                await self.generation.complete(prompt, options, job.record, job.deadline)
            ]
        else:
            ticket = self.admission.admit(len(asked_for) - 1)
            try:
                completions = list(
                    await asyncio.gather(
                        *(
                            self.generation.complete(prompt, each, job.record, job.deadline)
                            for each in asked_for
                        )
                    )
                )
            finally:
                ticket.release()
        extra = completions.pop() if alternatives else None
        languages = job.languages(asked)
        answers = [
            answer_of(asked.text, completion, choice, languages)
            for completion in completions
            for choice in range(len(completion.texts))
        ]
        if extra is not None:
            answers[0] = msgspec.structs.replace(
                answers[0],
                prompt_tokens=answers[0].prompt_tokens + extra.prompt_tokens,
                completion_tokens=answers[0].completion_tokens + extra.completion_tokens,
                alternatives=tuple(
                    clean_translation(text, asked.text, languages=languages) for text in extra.texts
                ),
            )
        return answers

    # -- the guard, once the engine has answered (guard.py) ---------------------------------
    async def _guarded(
        self,
        guard: Guard,
        attempt: Attempt,
        answers: list[PieceResult],
        job: Job,
        *,
        retry: bool = True,
    ) -> PieceResult:
        """The best of the answers and, when it failed a check, one more try; what is still
        wrong goes into `warnings` and the request's record. Candidates are tried in the
        order of their estimates (the greedy answer first on a tie)."""
        piece, masked = attempt.piece, attempt.masked
        assert masked is not None
        greedy = answers[0]  # the sampled alternatives ride on it
        reviews = [_review(guard, piece, masked, answer, job) for answer in answers]
        if len(answers) > 1:
            order = self._ranked(piece, answers, reviews, job)
            answers, reviews = [answers[i] for i in order], [reviews[i] for i in order]
        attempts = list(answers)
        retry_for = reviews[0].retry_for(budget_is_ours=job.request.max_tokens is None)
        if not retry:
            retry_for = ()
        if INCOMPLETE.intersection(retry_for) and (finer := _by_sentence(piece.text)):
            # A piece of several sentences that lost or made up text: one sentence per
            # engine request, each guarded on its own.
            findings(job.record).quality_checked(tuple(map(str, retry_for)), (), True)
            with self._retry_span(retry_for):
                return await self.translate_refitted(piece, finer, job)
        if retry_for:
            asked = dataclasses.replace(piece, text=masked.text)
            again = msgspec.structs.replace(attempt.options, **RETRY_SAMPLING)
            with self._retry_span(retry_for):
                attempts += await self._complete(asked, attempt.prompt, again, job)
            reviews.append(_review(guard, piece, masked, attempts[-1], job))
        outcome = guard.choose(piece.text, reviews)
        findings(job.record).quality_checked(
            tuple(map(str, retry_for)), outcome.warnings, bool(retry_for)
        )
        chosen = attempts[outcome.chosen]
        return with_usage(
            PieceResult(
                outcome.text,
                chosen.finish_reason,
                alternatives=tuple(masked.unmask(text).text for text in greedy.alternatives),
                warnings=outcome.warnings,
                signals=(
                    reviewed(
                        chosen.signals[0],
                        piece.text,
                        outcome.text,
                        warnings=outcome.warnings,
                        retried=bool(retry_for),
                        language_confidence=reviews[outcome.chosen].language_confidence,
                        same_texts=masked.text == piece.text and outcome.text == chosen.text,
                    ),
                ),
            ),
            attempts,
        )

    def _ranked(
        self, piece: Piece, answers: list[PieceResult], reviews: list[Review], job: Job
    ) -> list[int]:
        """The answers' indexes, least bad first (the guard's weights), then best estimated,
        then in order (the greedy answer first)."""
        estimates = [
            self.estimate(
                piece,
                PieceResult(
                    review.text,
                    answer.finish_reason,
                    signals=(
                        reviewed(
                            answer.signals[0],
                            piece.text,
                            review.text,
                            warnings=tuple(map(str, review.failures)),
                            language_confidence=review.language_confidence,
                        ),
                    ),
                    warnings=tuple(map(str, review.failures)),
                ),
                job,
            )
            for answer, review in zip(answers, reviews, strict=True)
        ]
        return sorted(range(len(answers)), key=lambda i: (reviews[i].badness, -estimates[i], i))

    def _retry_span(
        self, failures: Sequence[FailureKind]
    ) -> contextlib.AbstractContextManager[object]:
        """Where tracing is on, the retry is a span of its own (its engine request beneath
        it), saying what the first answer failed."""
        tracing = self.generation.tracing
        if tracing is None:
            return contextlib.nullcontext()
        return tracing.span("quality retry", {"quality.failures": [str(k) for k in failures]})

    # -- end of the guard -------------------------------------------------------------------

    async def translate_refitted(self, piece: Piece, document: Document, job: Job) -> PieceResult:
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
            signals=tuple(
                span
                for piece_text, r in zip(document.pieces, results, strict=True)
                for span in r.signals or (unknown_signals(piece_text, r.text),)
            ),
        )

    def remember(self, piece: Piece, result: PieceResult, job: Job) -> None:
        # An answer with warnings is not kept: the next request tries again.
        if (
            self.cache is not None
            and self.cache.keeps
            and piece.key is not None
            and result.finish_reason == "stop"
            and not result.warnings
        ):
            estimated = self.text_estimate(piece, result, job)
            piece.estimated = (result, estimated)  # the response's, where its text is the piece
            self.cache.put(
                piece.key,
                CachedTranslation(
                    result.text, result.completion_tokens, result.signals, estimated.estimate
                ),
            )


def _review(guard: Guard, piece: Piece, masked: Masked, result: PieceResult, job: Job) -> Review:
    return guard.review(
        piece.text,
        masked,
        result.text,
        piece.source.tag,
        job.target.tag,
        cut_off=result.finish_reason == "length",
    )


def refitting(piece: Piece, tokens: int, budget: int) -> Document | None:
    """The piece split again when it turned out to have more tokens than fit one request."""
    return refit(piece.text, tokens, budget) if tokens > budget and len(piece.text) > 1 else None


def _by_sentence(text: str) -> Document | None:
    """`text` a sentence per piece, or None when it is a single sentence."""
    document = split_sentences(split_document(text, len(text)), 1)
    return document if len(document.pieces) > 1 else None

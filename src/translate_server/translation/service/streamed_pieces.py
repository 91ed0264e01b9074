"""One piece streamed: its engine request submitted, its deltas cleaned as they come, then its
result, checked by the guard after the fact (what is sent is sent: never retried) and cached as
an answer not streamed would have been (`pieces.PieceTranslator` translates it otherwise).

A piece that turns out to have more tokens than fit one request is split again and arrives
whole, its parts translated at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec

from translate_server.inference.engine import GenerationStep
from translate_server.inference.generation import Prompt
from translate_server.text.masking import Masked
from translate_server.translation.estimate.signals import answer_signals
from translate_server.translation.guard.findings import findings
from translate_server.translation.guard.hygiene import StreamCleaner
from translate_server.translation.guard.quality_guard import Review
from translate_server.translation.planning.plan import Job, Piece, PieceResult
from translate_server.translation.segmentation.segments import Document
from translate_server.translation.service.answers import StreamLogprobs
from translate_server.translation.service.pieces import PieceTranslator, refitting


class StreamedPieces:
    def __init__(self, pieces: PieceTranslator) -> None:
        self.pieces = pieces  # its prompts, engine, guard, cache and refitted translation

    async def open(self, piece: Piece, job: Job) -> AsyncIterator[str | PieceResult]:
        """Submit the piece's engine request and wait for its first output; the piece's
        cleaned deltas follow, then its result."""
        prompt, tokens, budget = await self.pieces.prompts.tokenized(piece, job)
        if document := refitting(piece, tokens, budget):
            return self._refitted_stream(piece, document, job)
        options = self.pieces.prompts.options(prompt, piece, tokens, job.request.max_tokens)
        # The log probabilities are only summed: the stream may still be coalesced.
        options = msgspec.structs.replace(options, logprobs=0)
        started = await self.pieces.generation.start_stream(
            prompt, options, job.record, job.deadline, logprobs_streamed=False
        )
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
        logprobs = StreamLogprobs()
        step = first
        try:
            while step is not None:
                completion_tokens = step.completion_tokens
                reason = step.finish_reason or reason
                logprobs.add(step.logprobs)
                if text := cleaner.feed(step.text):
                    yield text
                step = await anext(steps, None)
        finally:
            # An async generator; its declared type says only AsyncIterator.
            await steps.aclose()  # type: ignore[attr-defined]
        if text := cleaner.finish():
            yield text
        review = self._stream_review(piece, cleaner.sent, job)
        warnings = () if review is None else tuple(map(str, review.failures))
        signals = answer_signals(
            piece.text,
            cleaner.sent,
            logprobs.summary(),
            warnings=warnings,
            cut_off=reason == "length",
            language_confidence=None if review is None else review.language_confidence,
        )
        # The cache keeps what a request that is not streamed would have computed from the
        # same answer: a stream cleans as it goes and may have let something through.
        self.pieces.remember(
            piece,
            PieceResult(
                cleaner.whole,
                reason,
                prompt.tokens,
                completion_tokens,
                warnings=warnings,
                signals=(signals,),
            ),
            job,
        )
        yield PieceResult(
            cleaner.sent,
            reason,
            prompt.tokens,
            completion_tokens,
            warnings=warnings,
            signals=(signals,),
        )

    async def _refitted_stream(
        self, piece: Piece, document: Document, job: Job
    ) -> AsyncIterator[str | PieceResult]:
        # A piece split again once tokenized arrives whole: its parts are translated at once.
        result = await self.pieces.translate_refitted(piece, document, job)
        self.pieces.remember(piece, result, job)
        yield result.text
        yield result

    def _stream_review(self, piece: Piece, sent: str, job: Job) -> Review | None:
        """A stream's answer is already sent: checked after the fact, never retried."""
        if self.pieces.guard is None:
            return None
        review = self.pieces.guard.review(
            piece.text, Masked(piece.text, ()), sent, piece.source.tag, job.target.tag
        )
        warnings = tuple(map(str, review.failures))
        findings(job.record).quality_checked(warnings, warnings, False)
        return review

"""POST /translate/estimate: translations someone else made, scored as our own answers are.

The engine reads each translation as if it had written it: the pair's translation prompt
(the one /translate would send) followed by the translation, in one prefill with prompt log
probabilities and a single generated token (no sampling). The translation's tokens' log
probabilities, the quality guard's findings on it and its length make the same features, and
the served model's calibrated estimate (`translation/estimate`) the same `quality_estimate`
and `needs_review`, as a translation of ours would get.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

import msgspec

from translate_server.errors import InvalidRequestError
from translate_server.inference.admission import Admission
from translate_server.inference.engine import SamplingOptions
from translate_server.inference.generation import GenerationService, Prompt
from translate_server.observability.record import RequestRecord
from translate_server.text.detection import LanguageDetection
from translate_server.text.languages import Language, requested_language
from translate_server.translation.estimate.model import QualityEstimator, TextEstimate
from translate_server.translation.estimate.signals import (
    AnswerSignals,
    LogprobSummary,
    answer_signals,
)
from translate_server.translation.estimate_protocol import EstimateRequest, EstimateResponse
from translate_server.translation.guard.quality_guard import Guard
from translate_server.translation.planning.plan import is_auto
from translate_server.translation.prompts.templates import build_translation_prompt
from translate_server.translation.protocol import QualitySignals
from translate_server.wire import Usage

if TYPE_CHECKING:
    from translate_server.translation.service.pieces import PieceTranslator


class Translating(Protocol):
    """What it reads of the translation service (which holds it): the same engine, admission,
    detector, estimate and prompts as /translate's."""

    generation: GenerationService
    admission: Admission
    detection: LanguageDetection
    estimator: QualityEstimator
    model_name: str
    pieces: PieceTranslator


class Scored(msgspec.Struct, frozen=True):
    estimate: TextEstimate
    warnings: list[str]
    signals: AnswerSignals
    prompt_tokens: int


class GivenTranslations:
    def __init__(self, translation: Translating) -> None:
        self.generation = translation.generation
        self.admission = translation.admission
        self.detection = translation.detection
        self.estimator = translation.estimator
        # The prompt /translate sends for the pair, at /translate's priority.
        self.template = translation.pieces.prompts.template
        self.priority = translation.pieces.prompts.priority
        self.model_name = translation.model_name
        # Always on here: its findings are features of the estimate.
        self.guard = Guard(self.detection, self.detection.accuracy)

    async def estimate(
        self, request: EstimateRequest, record: RequestRecord, deadline: float
    ) -> EstimateResponse:
        batch = isinstance(request.source, list)
        sources = request.source if isinstance(request.source, list) else [request.source]
        given = request.translation
        translations = given if isinstance(given, list) else [given]
        if isinstance(given, list) != batch or len(translations) != len(sources):
            raise InvalidRequestError(
                "One `translation` per `source`: both texts, or lists of the same length.",
                param="translation",
            )
        target = requested_language(request.target_lang, "target_lang")
        record.model = self.model_name
        ticket = self.admission.admit(len(sources))
        try:
            scored = await asyncio.gather(
                *(
                    self._score(s, t, self._source(request, s, i), target, record, deadline)
                    for i, (s, t) in enumerate(zip(sources, translations, strict=True))
                )
            )
        finally:
            ticket.release()
        return _response(request, scored, batch, target, self.model_name)

    def _source(self, request: EstimateRequest, text: str, index: int) -> Language:
        if is_auto(request.source_lang):
            return self.detection.detect(text, "source", index).language
        return requested_language(request.source_lang, "source_lang")

    async def _score(
        self,
        source: str,
        translation: str,
        source_lang: Language,
        target: Language,
        record: RequestRecord,
        deadline: float,
    ) -> Scored:
        prompt, scored_from = self._prompt(source, translation, source_lang, target)
        options = SamplingOptions(
            max_tokens=1, temperature=0.0, prompt_logprobs=True, priority=self.priority
        )
        done = await self.generation.complete(prompt, options, record, deadline)
        values = (done.prompt_logprobs or ())[scored_from:]
        summary = LogprobSummary(len(values), sum(values), min(values, default=0.0))
        masked = self.guard.mask(source, "text")
        review = self.guard.review(
            source,
            masked,
            self.guard.mask(translation, "text").text,
            source_lang.tag,
            target.tag,
        )
        warnings = [str(kind) for kind in review.failures]
        signals = answer_signals(
            source,
            translation,
            summary,
            warnings=tuple(warnings),
            language_confidence=review.language_confidence,
        )
        estimate = self.estimator.estimate([signals], warnings, source_lang.tag, target.tag)
        return Scored(estimate, warnings, signals, prompt.tokens)

    def _prompt(
        self, source: str, translation: str, source_lang: Language, target: Language
    ) -> tuple[Prompt, int]:
        """The translation prompt followed by `translation`, and where the translation's
        tokens start in it."""
        asked = build_translation_prompt(source, source_lang, target, template=self.template)
        engine = self.generation.engine
        if isinstance(asked, str):  # a base model's completion prompt, continued on its line
            before = engine.tokenize_text(asked)
            separator = "" if asked.endswith((" ", "\n")) else " "
            whole = engine.tokenize_text(asked + separator + translation)
            start = next(
                (i for i, (a, b) in enumerate(zip(before, whole, strict=False)) if a != b),
                min(len(before), len(whole)),
            )
        else:
            before = engine.tokenize_chat(asked)
            answer = engine.tokenize_text(translation, add_special_tokens=False)
            whole, start = before + answer, len(before)
        return self.generation.check(Prompt(whole), "translation"), start


def _response(
    request: EstimateRequest,
    scored: list[Scored],
    batch: bool,
    target: Language,
    model: str,
) -> EstimateResponse:
    usage = Usage.of(sum(s.prompt_tokens for s in scored), len(scored))
    signals = [QualitySignals(features=s.estimate.features, answers=[s.signals]) for s in scored]
    warned = any(s.warnings for s in scored)
    if batch:
        return EstimateResponse(
            quality_estimate=[s.estimate.estimate for s in scored],
            needs_review=[s.estimate.needs_review for s in scored],
            warnings=[list(s.warnings) for s in scored] if warned else None,
            quality_signals=signals if request.quality_signals else None,
            source_lang=request.source_lang,
            target_lang=target.tag,
            model=model,
            usage=usage,
        )
    only = scored[0]
    return EstimateResponse(
        quality_estimate=only.estimate.estimate,
        needs_review=only.estimate.needs_review,
        warnings=list(only.warnings) if warned else None,
        quality_signals=signals[0] if request.quality_signals else None,
        source_lang=request.source_lang,
        target_lang=target.tag,
        model=model,
        usage=usage,
    )

"""A /translate answer from its plan's results: texts reassembled, usage counted once per
unique piece, the detection, the memory matches, the glossary terms applied and each text's
quality estimate (also noted in the request's record: the log line and the histogram)."""

from __future__ import annotations

from typing import NamedTuple

from translate_server.observability.record import RequestRecord
from translate_server.text.detection import Detection
from translate_server.translation.estimate.model import QualityEstimator, TextEstimate
from translate_server.translation.estimate.signals import unknown_signals
from translate_server.translation.guard.checks import FailureKind
from translate_server.translation.guard.findings import findings
from translate_server.translation.planning.glossary import applied_terms
from translate_server.translation.planning.plan import (
    Piece,
    PieceResult,
    Plan,
    PlannedText,
    is_auto,
)
from translate_server.translation.protocol import (
    DetectedLanguage,
    MemoryMatch,
    QualitySignals,
    TranslateResponse,
)
from translate_server.translation.service.outcome import lost_text, worst_finish_reason
from translate_server.wire import Usage


class _TextAnswer(NamedTuple):
    """One text's part of the answer."""

    translation: str
    alternatives: list[str]
    warnings: list[str]
    finish_reason: str
    estimate: TextEstimate
    signals: QualitySignals
    applied: set[str]  # the glossary's terms its translation uses


def build_response(
    plan: Plan, record: RequestRecord, estimator: QualityEstimator
) -> TranslateResponse:
    """The answer, from the plan's results: texts reassembled, usage counted once per
    unique piece, the detection, the glossary terms applied, each text's quality estimate
    and the model (the base model or the LoRA adapters) that translated."""
    answers = [_answer_text(plan, text, estimator) for text in plan.texts]
    for answer in answers:
        findings(record).estimated(answer.estimate.estimate, answer.estimate.needs_review)
    translations = [a.translation for a in answers]
    alternatives = [a.alternatives for a in answers]
    warnings = [a.warnings for a in answers]
    reasons = [a.finish_reason for a in answers]
    estimates = [a.estimate for a in answers]
    signals = [a.signals for a in answers]
    applied = set().union(*(a.applied for a in answers))
    record.finish_reason = worst_finish_reason(reasons)
    detections = [_detected(text.detection) for text in plan.texts]
    matches = (
        [_memory_match(text, plan) for text in plan.texts]
        if plan.request.memory is not None
        else None
    )
    common = {
        "target_lang": plan.target.tag,
        "model": plan.model,
        "usage": _usage(plan),
        "glossary_applied": (
            [t for t in plan.glossary if t in applied] if plan.glossary_given else None
        ),
        "alternatives": alternatives if plan.request.alternatives else None,
    }
    if plan.is_batch:
        detected = is_auto(plan.request.source_lang)
        return TranslateResponse(
            translations=translations,
            finish_reasons=reasons,
            source_lang="auto" if detected else plan.texts[0].source.tag,
            detected_source_langs=detections if detected else None,
            warnings=warnings if any(warnings) else None,
            quality_estimate=[e.estimate for e in estimates],
            needs_review=[e.needs_review for e in estimates],
            quality_signals=signals if plan.request.quality_signals else None,
            memory_matches=matches,
            **common,
        )
    return TranslateResponse(
        translation=translations[0],
        finish_reason=reasons[0],
        source_lang=plan.texts[0].source.tag,
        detected_source_lang=detections[0],
        warnings=warnings[0] or None,
        quality_estimate=estimates[0].estimate,
        needs_review=estimates[0].needs_review,
        quality_signals=signals[0] if plan.request.quality_signals else None,
        memory_match=matches[0] if matches else None,
        **common,
    )


def _usage(plan: Plan) -> Usage:
    """Tokens counted once per unique piece, however many texts share it."""
    counted = [plan.results[key] for key in plan.pieces]
    return Usage.of(
        sum(r.prompt_tokens for r in counted), sum(r.completion_tokens for r in counted)
    )


def _answer_text(plan: Plan, text: PlannedText, estimator: QualityEstimator) -> _TextAnswer:
    """A text's translation reassembled from its pieces' results, with its alternatives, its
    warnings, its finish reason and its quality estimate from its answers' signals."""
    results = [plan.results[key] for key in text.slots]
    alternatives = [
        # A piece without alternatives (split again, or cut short) keeps its own text.
        text.document.assemble(
            [r.alternatives[j] if j < len(r.alternatives) else r.text for r in results]
        )
        for j in range(plan.request.alternatives)
    ]
    found = [*plan.notices, *(w for r in results for w in r.warnings)]
    pieces = [plan.pieces[key] for key in text.slots]
    sources = [piece.text for piece in pieces]
    if lost_text(plan.target.tag, text.source.tag, sources, results):
        found.append(str(FailureKind.OMISSION))
    warnings = list(dict.fromkeys(found)) if found else []
    spans = [
        span
        for source, r in zip(sources, results, strict=True)
        for span in r.signals or (unknown_signals(source, r.text),)
    ]
    estimate = _estimated(pieces, results, warnings) or estimator.estimate(
        spans, warnings, text.source.tag, plan.target.tag
    )
    applied: set[str] = set()
    if plan.glossary:  # none asked for, none found: nothing to look for
        for piece, result in zip(pieces, results, strict=True):
            applied.update(applied_terms(piece.text, result.text, piece.glossary))
    return _TextAnswer(
        text.document.assemble([r.text for r in results]),
        alternatives,
        warnings,
        worst_finish_reason(r.finish_reason for r in results),
        estimate,
        QualitySignals(features=estimate.features, answers=spans),
        applied,
    )


def _estimated(
    pieces: list[Piece], results: list[PieceResult], warnings: list[str]
) -> TextEstimate | None:
    """The estimate made of a text's one piece for the cache, where the text says no more
    than the piece: the same answer, the same warnings."""
    if len(results) != 1 or (estimated := pieces[0].estimated) is None:
        return None
    result, estimate = estimated
    return estimate if result is results[0] and warnings == list(result.warnings) else None


def _memory_match(text: PlannedText, plan: Plan) -> MemoryMatch | None:
    """How the text's pieces matched the request's memory; None where none did."""
    found = [plan.pieces[key].found for key in text.slots]
    matched = [match for match in found if match is not None]
    if not matched:
        return None
    exact = sum(match.exact is not None for match in matched)
    return MemoryMatch(
        match="exact" if exact == len(found) else "fuzzy",
        score=max(match.score for match in matched),
        pieces=len(found),
        exact=exact,
        fuzzy=len(matched) - exact,
    )


def _detected(detection: Detection | None) -> DetectedLanguage | None:
    if detection is None:
        return None
    return DetectedLanguage(language=detection.language.tag, confidence=detection.confidence)

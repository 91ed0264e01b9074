"""A /translate answer from its plan's results: texts reassembled, usage counted once per
unique piece, the detection, the memory matches and the glossary terms applied."""

from __future__ import annotations

from typing import NamedTuple

from translate_server.observability.record import RequestRecord
from translate_server.text.detection import Detection
from translate_server.translation.guard.checks import FailureKind
from translate_server.translation.planning.glossary import applied_terms
from translate_server.translation.planning.plan import Plan, PlannedText, is_auto
from translate_server.translation.protocol import (
    DetectedLanguage,
    MemoryMatch,
    TranslateResponse,
)
from translate_server.translation.service.outcome import lost_text, worst_finish_reason
from translate_server.wire import Usage


def build_response(plan: Plan, record: RequestRecord) -> TranslateResponse:
    """The answer, from the plan's results: texts reassembled, usage counted once per
    unique piece, the detection, the glossary terms applied and the model (the base model or
    the LoRA adapters) that translated."""
    translations, reasons, alternatives, warnings = [], [], [], []
    applied: set[str] = set()
    for text in plan.texts:
        answer = _text_answer(plan, text, applied)
        translations.append(answer.translation)
        alternatives.append(answer.alternatives)
        warnings.append(answer.warnings)
        reasons.append(answer.finish_reason)
    record.finish_reason = worst_finish_reason(reasons)
    counted = [plan.results[key] for key in plan.pieces]
    usage = Usage.of(
        sum(r.prompt_tokens for r in counted), sum(r.completion_tokens for r in counted)
    )
    detections = [_detected(text.detection) for text in plan.texts]
    matches = (
        [_memory_match(text, plan) for text in plan.texts]
        if plan.request.memory is not None
        else None
    )
    common = {
        "target_lang": plan.target.tag,
        "model": plan.model,
        "usage": usage,
        "glossary_applied": [t for t in plan.glossary if t in applied] if plan.glossary else None,
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
            memory_matches=matches,
            **common,
        )
    return TranslateResponse(
        translation=translations[0],
        finish_reason=reasons[0],
        source_lang=plan.texts[0].source.tag,
        detected_source_lang=detections[0],
        warnings=warnings[0] or None,
        memory_match=matches[0] if matches else None,
        **common,
    )


class _TextAnswer(NamedTuple):
    translation: str
    alternatives: list[str]
    warnings: list[str]
    finish_reason: str


def _text_answer(plan: Plan, text: PlannedText, applied: set[str]) -> _TextAnswer:
    """One text's translation reassembled from its pieces' results, with its alternatives,
    warnings (an omission found across its pieces among them) and finish reason; the glossary
    terms its pieces applied are added to `applied`."""
    results = [plan.results[key] for key in text.slots]
    alternatives = [
        # A piece without alternatives (split again, or cut short) keeps its own text.
        text.document.assemble(
            [r.alternatives[j] if j < len(r.alternatives) else r.text for r in results]
        )
        for j in range(plan.request.alternatives)
    ]
    found = [*plan.notices, *(w for r in results for w in r.warnings)]
    if lost_text(
        plan.target.tag, text.source.tag, [plan.pieces[key].text for key in text.slots], results
    ):
        found.append(str(FailureKind.OMISSION))
    for key, result in zip(text.slots, results, strict=True):
        piece = plan.pieces[key]
        applied.update(applied_terms(piece.text, result.text, piece.glossary))
    return _TextAnswer(
        text.document.assemble([r.text for r in results]),
        alternatives,
        list(dict.fromkeys(found)),
        worst_finish_reason(r.finish_reason for r in results),
    )


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

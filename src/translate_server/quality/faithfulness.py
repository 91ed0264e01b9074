"""Whether an answer says as much as the human translation, no less and no more: its length
against the reference's, omissions, hallucinations, and whether the server flagged them.
Pure functions over answers (docs/quality.md, "Metrics").

- length ratio: the answer's characters / the reference's characters.
- omission: an answer shorter than half the reference (an empty answer included).
- hallucination: an answer longer than twice the reference, or one that brings in a few-shot
  example of the server's completion prompt: a line of the answer (or the whole answer) is
  like one of the examples' translations into the target language (sentence chrF of at least
  `LIKE_EXAMPLE`: "La reunión comienza a las nueve." for "La reunión empieza a las nueve."),
  while no line of the source is like that example's English and no line of the reference
  like that translation (where the human translators wrote such words, the answer may be
  right). Examples of one word are left out: a title's one-word translation may be right.
- flagged: the server said something was wrong, a non-empty `warnings` list or a
  finish_reason other than "stop" (a missing finish_reason says nothing).
- unflagged failure: an answer with an empty, echo, wrong-language or lost-placeholder
  failure that was not flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache

import sacrebleu

from translate_server.quality.client import Answer
from translate_server.quality.datasets import Segment
from translate_server.translation.guard.checks import FailureKind, Verdict, base_language

OMISSION_BELOW = 0.5
HALLUCINATION_ABOVE = 2.0
# Sentence chrF from which a line is "like" an example. Calibrated on the human translations
# (as answers, 0 of the paragraph sets' 145 are flagged, 2 of the short set's 3,930) and on
# the Gemma 3 270M baseline's paragraph answers (lines made from an example score 47 to 79,
# all others 40 or less), docs/quality.md.
LIKE_EXAMPLE = 45.0
# The failures a server's guard is meant to warn about (commentary and truncation are not).
GUARDED = frozenset(
    {FailureKind.EMPTY, FailureKind.ECHO, FailureKind.WRONG_LANGUAGE, FailureKind.PLACEHOLDERS_LOST}
)

Examples = tuple[Mapping[str, str], ...]  # each: language tag -> the example in it


@cache
def prompt_examples() -> Examples:
    """The few-shot examples of every family in the bundled prompt templates (the benchmark
    does not know which family the server picked), each once."""
    from translate_server.translation.prompts.templates import PromptTemplates

    seen: dict[tuple[tuple[str, str], ...], Mapping[str, str]] = {}
    for family in PromptTemplates.load().families.values():
        for example in family.examples:
            seen.setdefault(tuple(sorted(example.items())), example)
    return tuple(seen.values())


def length_ratio(answer: str, reference: str) -> float | None:
    return len(answer.strip()) / len(reference.strip()) if reference.strip() else None


def is_omission(answer: str, reference: str) -> bool:
    ratio = length_ratio(answer, reference)
    return ratio is not None and ratio < OMISSION_BELOW


def _in_language(example: Mapping[str, str], tag: str) -> str | None:
    return example.get(tag) or example.get(base_language(tag))


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def _like(text: str, example: str) -> bool:
    return any(
        sacrebleu.sentence_chrf(line, [example]).score >= LIKE_EXAMPLE for line in _lines(text)
    )


def example_brought_in(segment: Segment, answer: str, examples: Examples) -> bool:
    """Whether a line of the answer is like an example's translation that the source did not
    ask for (see the module's docstring)."""
    for example in examples:
        english = _in_language(example, segment.source_lang)
        translation = _in_language(example, segment.target_lang)
        if not english or not translation or len(english.split()) < 2:
            continue
        if (
            _like(answer, translation)
            and not _like(segment.source, english)
            and not _like(segment.reference, translation)
        ):
            return True
    return False


def is_hallucination(segment: Segment, answer: str, examples: Examples) -> bool:
    ratio = length_ratio(answer, segment.reference)
    return (ratio is not None and ratio > HALLUCINATION_ABOVE) or example_brought_in(
        segment, answer, examples
    )


def is_flagged(answer: Answer) -> bool:
    return bool(answer.warnings) or answer.finish_reason not in (None, "stop")


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def faithfulness(
    segments: Sequence[Segment],
    answers: Sequence[Answer],
    verdicts: Sequence[Verdict],
    examples: Examples,
) -> dict[str, float | None]:
    """The metrics over the answered segments (a failed request is left out); a flagged share
    is None where there is nothing to share."""
    ratios: list[float] = []
    omissions = omissions_flagged = hallucinations = hallucinations_flagged = 0
    answered = unflagged = 0
    for segment, answer, verdict in zip(segments, answers, verdicts, strict=True):
        if answer.error is not None:
            continue
        answered += 1
        flagged = is_flagged(answer)
        ratio = length_ratio(answer.text, segment.reference)
        if ratio is not None:
            ratios.append(ratio)
        if is_omission(answer.text, segment.reference):
            omissions += 1
            omissions_flagged += flagged
        if is_hallucination(segment, answer.text, examples):
            hallucinations += 1
            hallucinations_flagged += flagged
        unflagged += bool(GUARDED.intersection(verdict.failures)) and not flagged
    return {
        "length_ratio_median": round(_median(ratios), 3) if ratios else None,
        "length_ratio_mean": round(sum(ratios) / len(ratios), 3) if ratios else None,
        "omission_rate": _share(omissions, answered),
        "omission_flagged": _share(omissions_flagged, omissions),
        "hallucination_rate": _share(hallucinations, answered),
        "hallucination_flagged": _share(hallucinations_flagged, hallucinations),
        "unflagged_failure_rate": _share(unflagged, answered),
    }


def mean_of(values: Iterable[float | None]) -> float | None:
    """The mean of the values that exist (a pair with no omission has no flagged share)."""
    present = [v for v in values if v is not None]
    return round(sum(present) / len(present), 4) if present else None

"""A text's features for its quality estimate, from the signals of all of its answers (one per
engine answer: a sentence, a line, a piece split again) and the warnings the text carries.

Each feature reads the same for one sentence and for a paragraph of twenty: averages are
weighted by each answer's source characters (a long sentence says more of the text than a
short one), so a model fitted on both applies to either. A feature that cannot be known (no
log probabilities, no answer long enough to detect its language) is None: the model puts
its calibration mean in its place.

| feature | what |
|---|---|
| `mean_logprob` | the tokens' mean log probability, per answer, averaged |
| `min_logprob` | each answer's least likely token, averaged |
| `worst_logprob` | the lowest mean log probability of any one answer |
| `length_deviation` | how far the text's length is from the pair's usual ratio (log, smoothed) |
| `warned` | 1 where the text has a warning that says it is wrong (echo, wrong language...) |
| `placeholders_lost` | 1 where a protected span was lost (and appended) |
| `retried` | the share of answers whose first try failed a check |
| `cut_off` | the share of answers the engine cut off at their token budget |
| `language_doubt` | 1 - the detector's confidence in the target language, where judged |
| `source_similarity` | how alike answers and sources are (an untranslated text is 1) |
| `pieces_log` | log of the number of answers |
| `source_chars_log` | log of the text's characters |

A memory's exact match counts as a sure answer: log probabilities 0, no doubt, the usual
length.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from translate_server.translation.estimate.signals import AnswerSignals
from translate_server.translation.guard.completeness import expected_ratio

# Warnings that say the translation is wrong, not only imperfect.
SERIOUS_WARNINGS = frozenset(
    {
        "empty",
        "echo",
        "wrong_language",
        "omission",
        "addition",
        "copied_example",
        "deadline_exceeded",
        "unsupported_target_language",
    }
)
# Characters added to both lengths before their ratio: a label of five letters translated
# with eight is wording, not a lost or made-up text.
LENGTH_SMOOTHING = 10.0

Features = dict[str, float | None]


def text_features(
    spans: Sequence[AnswerSignals], warnings: Iterable[str], source_lang: str, target_lang: str
) -> Features:
    """Every feature of one text (see the module's table)."""
    warned = set(warnings)
    weights = [max(1, span.source_chars) for span in spans]
    engine = [(w, s) for w, s in zip(weights, spans, strict=True) if not s.memory]
    source_chars = sum(span.source_chars for span in spans)
    answer_chars = sum(span.answer_chars for span in spans)
    expected = expected_ratio(source_lang, target_lang) * source_chars
    return {
        "mean_logprob": _mean(weights, spans, lambda s: _sure(s, s.mean_logprob)),
        "min_logprob": _mean(
            weights, spans, lambda s: _sure(s, s.min_logprob if s.tokens else None)
        ),
        "worst_logprob": min(
            (v for s in spans if (v := _sure(s, s.mean_logprob)) is not None), default=None
        ),
        "length_deviation": abs(
            math.log((answer_chars + LENGTH_SMOOTHING) / (expected + LENGTH_SMOOTHING))
        ),
        "warned": float(bool(warned & SERIOUS_WARNINGS)),
        "placeholders_lost": float("placeholders_lost" in warned),
        "retried": _share(engine, lambda s: s.retried),
        "cut_off": _share(engine, lambda s: s.cut_off),
        "language_doubt": _mean(
            weights,
            spans,
            lambda s: (
                0.0
                if s.memory
                else (None if s.language_confidence is None else 1.0 - s.language_confidence)
            ),
        ),
        "source_similarity": _mean(
            weights, spans, lambda s: None if s.memory else s.source_similarity
        ),
        "pieces_log": math.log(max(1, len(spans))),
        "source_chars_log": math.log(max(1, source_chars)),
    }


def _sure(span: AnswerSignals, value: float | None) -> float | None:
    """A memory's match is as sure as an answer gets: log probability 0."""
    return 0.0 if span.memory else value


def _mean(
    weights: Sequence[int],
    spans: Sequence[AnswerSignals],
    value: Callable[[AnswerSignals], float | None],
) -> float | None:
    total = weight = 0.0
    for w, span in zip(weights, spans, strict=True):
        found = value(span)
        if found is not None:
            total += w * found
            weight += w
    return total / weight if weight else None


def _share(
    weighted: Sequence[tuple[int, AnswerSignals]], value: Callable[[AnswerSignals], bool]
) -> float:
    weight = sum(w for w, _ in weighted)
    return sum(w for w, s in weighted if value(s)) / weight if weight else 0.0


FEATURES: tuple[str, ...] = tuple(
    text_features([AnswerSignals(source_chars=1, answer_chars=1)], (), "en", "de")
)

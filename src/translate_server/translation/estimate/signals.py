"""What the service knows of one answer besides its text, for the answer's quality estimate:
nearly free signals, gathered as the answer is made.

- the model's own log probabilities of the tokens it wrote (the engine computes them beside
  the sampled token: `SamplingOptions.logprobs = 0`);
- what the quality guard found (the warnings left after its retry, whether the first answer
  failed, whether the engine cut it off);
- the language detector's confidence that the answer is in the target language, where the
  guard judged it (answers with enough letters);
- how alike answer and source are (an answer close to its source is often untranslated);
- whether a translation memory answered it exactly.

One `AnswerSignals` per engine answer (a piece split again has one per part); a text's
features are made from all of its answers together (`features.py`). Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from rapidfuzz import fuzz

from translate_server.inference.engine import TokenLogprob


class AnswerSignals(msgspec.Struct, frozen=True, kw_only=True):
    """One answer's signals. `tokens` counts the tokens whose log probabilities are known
    (0: none are, as for an answer from a memory or a stream without them)."""

    source_chars: int
    answer_chars: int
    tokens: int = 0
    logprob_sum: float = 0.0
    min_logprob: float = 0.0
    warnings: tuple[str, ...] = ()
    retried: bool = False  # the first answer failed a check of the guard
    cut_off: bool = False  # the engine stopped it at max_tokens
    # The detector's confidence that the answer is in the target language (None: not judged).
    language_confidence: float | None = None
    source_similarity: float = 0.0  # 0..1, how alike answer and source are
    memory: bool = False  # a translation memory's exact match: no engine answer at all

    @property
    def mean_logprob(self) -> float | None:
        return self.logprob_sum / self.tokens if self.tokens else None


class LogprobSummary(msgspec.Struct, frozen=True):
    tokens: int = 0
    total: float = 0.0
    lowest: float = 0.0


def summarize(logprobs: Sequence[TokenLogprob] | None) -> LogprobSummary:
    """The count, sum and minimum of the generated tokens' log probabilities."""
    if not logprobs:
        return LogprobSummary()
    values = [token.logprob for token in logprobs]
    return LogprobSummary(len(values), sum(values), min(values))


def similarity(source: str, answer: str) -> float:
    """0..1: how alike `answer` is to `source`, casefolded (rapidfuzz's normalized Indel)."""
    if not source.strip() or not answer.strip():
        return 0.0
    return fuzz.ratio(source.casefold(), answer.casefold()) / 100.0


def answer_signals(
    source: str,
    answer: str,
    logprobs: LogprobSummary,
    *,
    warnings: tuple[str, ...] = (),
    retried: bool = False,
    cut_off: bool = False,
    language_confidence: float | None = None,
) -> AnswerSignals:
    return AnswerSignals(
        source_chars=len(source.strip()),
        answer_chars=len(answer.strip()),
        tokens=logprobs.tokens,
        logprob_sum=logprobs.total,
        min_logprob=logprobs.lowest,
        warnings=warnings,
        retried=retried,
        cut_off=cut_off,
        language_confidence=language_confidence,
        source_similarity=similarity(source, answer),
    )


def memory_signals(source: str, answer: str) -> AnswerSignals:
    """A memory's exact match: a person's translation, no engine answer."""
    return AnswerSignals(
        source_chars=len(source.strip()), answer_chars=len(answer.strip()), memory=True
    )


def reviewed(
    signals: AnswerSignals,
    source: str,
    answer: str,
    *,
    warnings: tuple[str, ...] = (),
    retried: bool = False,
    language_confidence: float | None = None,
    same_texts: bool = False,
) -> AnswerSignals:
    """An answer's signals once the guard has reviewed it: the text as restored (protected
    spans back, repaired), what is still wrong, whether its first try failed. `same_texts`:
    source and answer are the ones the signals were made from (nothing masked or repaired),
    whose similarity is known."""
    return msgspec.structs.replace(
        signals,
        source_chars=len(source.strip()),
        answer_chars=len(answer.strip()),
        warnings=warnings,
        retried=retried,
        language_confidence=language_confidence,
        source_similarity=signals.source_similarity if same_texts else similarity(source, answer),
    )


def unknown_signals(source: str, answer: str) -> AnswerSignals:
    """An answer nothing is known of but its text (a piece the deadline left untranslated)."""
    return AnswerSignals(
        source_chars=len(source.strip()),
        answer_chars=len(answer.strip()),
        source_similarity=similarity(source, answer),
    )

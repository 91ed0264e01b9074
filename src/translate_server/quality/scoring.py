"""chrF and BLEU against the human references (sacrebleu), and the rate of each failure kind.

BLEU needs words: `13a` for the European languages, sacrebleu's `zh` tokenizer (each Han
character a word) for Chinese and `char` for Japanese, whose kana `zh` leaves in runs and whose
proper tokenizer (MeCab) would need a dictionary package. chrF compares characters and needs
no tokenizer. A failed request (HTTP error, timeout) scores as an empty answer in chrF and BLEU
and counts in `errors`, but not as a failure of the model.

Rates are over the answered segments, except `placeholders_lost`: over the answered segments
that have placeholders. An answer may fail in several ways (an echo of the source is also in
the wrong language). Beside them, the faithfulness metrics of `faithfulness.py` (length ratio,
omissions, hallucinations, and how many of them the server flagged).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import sacrebleu

from translate_server.quality.client import Answer
from translate_server.quality.datasets import Segment
from translate_server.quality.faithfulness import Examples, faithfulness, mean_of
from translate_server.text.placeholders import find_placeholders
from translate_server.translation.guard.checks import (
    FAILURE_KINDS,
    FailureKind,
    LanguageJudge,
    Verdict,
    base_language,
    check_translation,
)

BLEU_TOKENIZERS = {"zh": "zh", "ja": "char"}


FAITHFULNESS = (
    "length_ratio_median",
    "length_ratio_mean",
    "omission_rate",
    "omission_flagged",
    "hallucination_rate",
    "hallucination_flagged",
    "unflagged_failure_rate",
)


class PairScore(msgspec.Struct, kw_only=True):
    api: str
    set: str  # "short", "paragraph" or "document"
    pair: str
    segments: int
    source_chars: int
    errors: int
    chrf: float
    bleu: float
    rates: dict[str, float]  # failure kind -> share of the answered segments it applies to
    counts: dict[str, int]
    bleu_signature: str
    chrf_signature: str
    faithfulness: dict[str, float | None]  # FAITHFULNESS -> value (None: nothing to measure)


class MeanScore(msgspec.Struct, kw_only=True):
    api: str
    set: str
    pairs: int
    chrf: float
    bleu: float
    rates: dict[str, float]
    faithfulness: dict[str, float | None]
    # The set's wall-clock translation time (all its pairs, at the run's concurrency) per
    # 1,000 characters of source.
    seconds_per_1k_chars: float | None = None


def bleu_tokenizer(target_lang: str) -> str:
    return BLEU_TOKENIZERS.get(base_language(target_lang), "13a")


def judge_answers(
    segments: Sequence[Segment], answers: Sequence[Answer], judge: LanguageJudge | None
) -> list[Verdict]:
    return [
        check_translation(
            s.source, a.text, s.source_lang, s.target_lang, a.finish_reason, judge=judge
        )
        for s, a in zip(segments, answers, strict=True)
    ]


def corpus_chrf(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """chrF of a set of answers against their human translations, as every report here
    computes it (sacrebleu's defaults, corpus-level, rounded to two places)."""
    score: float = sacrebleu.CHRF().corpus_score(list(hypotheses), [list(references)]).score
    return round(score, 2)


def score_pair(
    api: str,
    pair: str,
    segments: Sequence[Segment],
    answers: Sequence[Answer],
    verdicts: Sequence[Verdict],
    *,
    set_name: str = "short",
    examples: Examples = (),
) -> PairScore:
    hypotheses = [answer.text for answer in answers]
    references = [[segment.reference for segment in segments]]
    bleu = sacrebleu.BLEU(tokenize=bleu_tokenizer(segments[0].target_lang))
    chrf = sacrebleu.CHRF()
    bleu_score = bleu.corpus_score(hypotheses, references)
    chrf_score = chrf.corpus_score(hypotheses, references)
    counts = {kind.value: 0 for kind in FAILURE_KINDS}
    answered = with_placeholders = 0
    for segment, answer, verdict in zip(segments, answers, verdicts, strict=True):
        if answer.error is not None:
            continue
        answered += 1
        with_placeholders += bool(find_placeholders(segment.source))
        for kind in verdict.failures:
            counts[kind.value] += 1
    rates = {}
    for kind in FAILURE_KINDS:
        base = with_placeholders if kind is FailureKind.PLACEHOLDERS_LOST else answered
        rates[kind.value] = counts[kind.value] / base if base else 0.0
    return PairScore(
        api=api,
        set=set_name,
        pair=pair,
        segments=len(segments),
        source_chars=sum(len(segment.source) for segment in segments),
        errors=len(answers) - answered,
        chrf=round(chrf_score.score, 2),
        bleu=round(bleu_score.score, 2),
        rates={k: round(v, 4) for k, v in rates.items()},
        counts=counts,
        bleu_signature=str(bleu.get_signature()),
        chrf_signature=str(chrf.get_signature()),
        faithfulness=faithfulness(segments, answers, verdicts, examples),
    )


def mean_scores(
    scores: Sequence[PairScore], wall_s: dict[tuple[str, str], float] | None = None
) -> list[MeanScore]:
    """The unweighted mean over pairs, per API and set (every pair counts the same);
    `wall_s`: each (API, set)'s translation time, for its seconds per 1,000 characters."""
    means = []
    for api, set_name in dict.fromkeys((score.api, score.set) for score in scores):
        mine = [score for score in scores if (score.api, score.set) == (api, set_name)]
        n = len(mine)
        chars = sum(s.source_chars for s in mine)
        seconds = (wall_s or {}).get((api, set_name))
        means.append(
            MeanScore(
                api=api,
                set=set_name,
                pairs=n,
                chrf=round(sum(s.chrf for s in mine) / n, 2),
                bleu=round(sum(s.bleu for s in mine) / n, 2),
                rates={
                    kind.value: round(sum(s.rates[kind.value] for s in mine) / n, 4)
                    for kind in FAILURE_KINDS
                },
                faithfulness={
                    key: mean_of(s.faithfulness[key] for s in mine) for key in FAITHFULNESS
                },
                seconds_per_1k_chars=round(1000 * seconds / chars, 2)
                if seconds is not None and chars
                else None,
            )
        )
    return means

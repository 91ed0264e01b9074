"""chrF and BLEU against the human references (sacrebleu), and the rate of each failure kind.

BLEU needs words: `13a` for the European languages, sacrebleu's `zh` tokenizer (each Han
character a word) for Chinese and `char` for Japanese, whose kana `zh` leaves in runs and whose
proper tokenizer (MeCab) would need a dictionary package. chrF compares characters and needs
no tokenizer. A failed request (HTTP error, timeout) scores as an empty answer in chrF and BLEU
and counts in `errors`, but not as a failure of the model.

Rates are over the answered segments, except `placeholders_lost`: over the answered segments
that have placeholders. An answer may fail in several ways (an echo of the source is also in
the wrong language).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import sacrebleu

from translate_server.quality.client import Answer
from translate_server.quality.datasets import Segment
from translate_server.translation.checks import (
    FAILURE_KINDS,
    FailureKind,
    LanguageJudge,
    Verdict,
    base_language,
    check_translation,
)
from translate_server.translation.placeholders import find_placeholders

BLEU_TOKENIZERS = {"zh": "zh", "ja": "char"}


class PairScore(msgspec.Struct, kw_only=True):
    api: str
    pair: str
    segments: int
    errors: int
    chrf: float
    bleu: float
    rates: dict[str, float]  # failure kind -> share of the answered segments it applies to
    counts: dict[str, int]
    bleu_signature: str
    chrf_signature: str


class MeanScore(msgspec.Struct, kw_only=True):
    api: str
    pairs: int
    chrf: float
    bleu: float
    rates: dict[str, float]


def bleu_tokenizer(target_lang: str) -> str:
    return BLEU_TOKENIZERS.get(base_language(target_lang), "13a")


def judge_answers(segments: Sequence[Segment], answers: Sequence[Answer],
                  judge: LanguageJudge | None) -> list[Verdict]:
    return [check_translation(s.source, a.text, s.source_lang, s.target_lang, a.finish_reason,
                              judge=judge) for s, a in zip(segments, answers, strict=True)]


def score_pair(api: str, pair: str, segments: Sequence[Segment], answers: Sequence[Answer],
               verdicts: Sequence[Verdict]) -> PairScore:
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
        api=api, pair=pair, segments=len(segments),
        errors=len(answers) - answered,
        chrf=round(chrf_score.score, 2), bleu=round(bleu_score.score, 2),
        rates={k: round(v, 4) for k, v in rates.items()}, counts=counts,
        bleu_signature=str(bleu.get_signature()), chrf_signature=str(chrf.get_signature()),
    )


def mean_scores(scores: Sequence[PairScore]) -> list[MeanScore]:
    """The unweighted mean over pairs, per API (every pair counts the same)."""
    means = []
    for api in dict.fromkeys(score.api for score in scores):
        mine = [score for score in scores if score.api == api]
        n = len(mine)
        means.append(MeanScore(
            api=api, pairs=n,
            chrf=round(sum(s.chrf for s in mine) / n, 2),
            bleu=round(sum(s.bleu for s in mine) / n, 2),
            rates={kind.value: round(sum(s.rates[kind.value] for s in mine) / n, 4)
                   for kind in FAILURE_KINDS},
        ))
    return means

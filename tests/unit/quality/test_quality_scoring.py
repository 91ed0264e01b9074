"""Scores and failure rates of one pair, and their means."""

from __future__ import annotations

from translate_server.quality.client import Answer
from translate_server.quality.datasets import Segment
from translate_server.quality.scoring import bleu_tokenizer, mean_scores, score_pair
from translate_server.translation.guard.checks import check_translation


def _segment(n: int, source: str, reference: str, target: str = "de") -> Segment:
    return Segment(
        id=f"s#{n}",
        source=source,
        reference=reference,
        source_lang="en",
        target_lang=target,
        kind="short",
    )


SEGMENTS = [
    _segment(0, "Change password: %s", "Passwort ändern: %s"),
    _segment(1, "Delete %(name)s", "%(name)s löschen"),
    _segment(2, "Save and continue editing", "Sichern und weiter bearbeiten"),
    _segment(3, "Thursday", "Donnerstag"),
]


def _score(texts: list[str | None], reasons: list[str] | None = None):
    answers = [
        Answer(
            segment_id=s.id,
            text=t or "",
            error=None if t is not None else "HTTP 504",
            finish_reason=(reasons or ["stop"] * 4)[i],
        )
        for i, (s, t) in enumerate(zip(SEGMENTS, texts, strict=True))
    ]
    verdicts = [
        check_translation(s.source, a.text, s.source_lang, s.target_lang, a.finish_reason)
        for s, a in zip(SEGMENTS, answers, strict=True)
    ]
    return score_pair("translate", "en-de", SEGMENTS, answers, verdicts)


def test_the_references_score_100_with_no_failure() -> None:
    score = _score([s.reference for s in SEGMENTS])
    assert (score.chrf, score.bleu, score.errors, score.segments) == (100.0, 100.0, 0, 4)
    assert not any(score.rates.values())


def test_rates_are_over_answered_segments_and_placeholder_segments() -> None:
    score = _score(
        ["Passwort ändern", None, "Save and continue editing", ""],
        reasons=["stop", "stop", "stop", "length"],
    )
    assert score.errors == 1
    assert score.counts["placeholders_lost"] == 1
    assert score.rates["placeholders_lost"] == 1.0  # 1 of the 1 answered with placeholders
    assert score.rates["echo"] == score.rates["empty"] == score.rates["truncated"] == 0.3333
    assert 0 < score.chrf < 100


def test_means_are_unweighted_over_pairs_per_api() -> None:
    good, bad = _score([s.reference for s in SEGMENTS]), _score([""] * 4)
    (mean,) = mean_scores([good, bad])
    assert (mean.api, mean.pairs, mean.chrf) == ("translate", 2, 50.0)
    assert mean.rates["empty"] == 0.5


def test_bleu_tokenizes_chinese_and_japanese_by_character() -> None:
    assert [bleu_tokenizer(t) for t in ("de", "zh-Hans", "ja", "en")] == [
        "13a",
        "zh",
        "char",
        "13a",
    ]

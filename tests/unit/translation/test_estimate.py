"""The quality estimate: features from an answer's signals, the model over them, and the
bundled models, pure."""

from __future__ import annotations

import math

import pytest

from translate_server.inference.engine import TokenLogprob
from translate_server.translation.estimate.features import FEATURES, text_features
from translate_server.translation.estimate.model import (
    FeatureWeight,
    QualityEstimator,
    QualityModel,
    QualityModels,
    bundled_text,
)
from translate_server.translation.estimate.signals import (
    AnswerSignals,
    answer_signals,
    memory_signals,
    summarize,
)

MODEL = QualityModel(
    intercept=0.5,
    threshold=0.4,
    features={
        "mean_logprob": FeatureWeight(2.0, -1.0, 0.5),
        "warned": FeatureWeight(-3.0, 0.1, 0.3),
    },
)


def signals(text: str, answer: str, logprob: float, **kwargs: object) -> AnswerSignals:
    tokens = [TokenLogprob(word, logprob) for word in answer.split()]
    return answer_signals(text, answer, summarize(tokens), **kwargs)  # type: ignore[arg-type]


def test_log_probabilities_are_summed_per_answer() -> None:
    summary = summarize([TokenLogprob("a", -0.5), TokenLogprob("b", -2.0), TokenLogprob("c", 0)])
    assert (summary.tokens, summary.total, summary.lowest) == (3, -2.5, -2.0)
    assert summarize(None).tokens == 0


def test_a_texts_features_weigh_its_answers_by_their_source_length() -> None:
    long = signals("A sentence of forty characters, or so...", "Ein Satz von vierzig.", -0.2)
    short = signals("Short.", "Kurz.", -2.0)
    features = text_features([long, short], (), "en", "de")
    expected = (40 * -0.2 + 6 * -2.0) / 46
    assert features["mean_logprob"] == pytest.approx(expected)
    assert features["worst_logprob"] == pytest.approx(-2.0)
    assert features["pieces_log"] == pytest.approx(math.log(2))
    assert set(features) == set(FEATURES)


def test_what_is_not_known_is_none() -> None:
    features = text_features([AnswerSignals(source_chars=5, answer_chars=5)], (), "en", "de")
    assert features["mean_logprob"] is None and features["language_doubt"] is None


def test_a_memory_match_counts_as_a_sure_answer() -> None:
    features = text_features([memory_signals("Save", "Speichern")], (), "en", "de")
    assert features["mean_logprob"] == 0.0 and features["language_doubt"] == 0.0


def test_the_length_deviation_reads_the_pairs_usual_ratio() -> None:
    # Chinese takes about a third of English's characters: a third is no deviation.
    right = text_features([AnswerSignals(source_chars=300, answer_chars=100)], (), "en", "zh-Hans")
    echoed = text_features([AnswerSignals(source_chars=300, answer_chars=300)], (), "en", "zh-Hans")
    assert right["length_deviation"] < 0.2 < echoed["length_deviation"]


def test_the_estimate_is_a_logistic_model_with_unknowns_at_their_mean() -> None:
    estimator = QualityEstimator(MODEL)
    sure = estimator.estimate([signals("Save the file.", "Datei speichern.", -0.1)], (), "en", "de")
    unsure = estimator.estimate([signals("Save the file.", "Datei sparen.", -3.0)], (), "en", "de")
    unknown = estimator.estimate([AnswerSignals(source_chars=14, answer_chars=16)], (), "en", "de")
    z = 0.5 + 2.0 * (-0.1 + 1.0) / 0.5 - 3.0 * (0.0 - 0.1) / 0.3
    assert sure.estimate == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-4)
    assert sure.estimate > unknown.estimate > unsure.estimate
    assert not sure.needs_review and unsure.needs_review  # under the threshold


def test_the_same_signals_always_give_the_same_estimate() -> None:
    estimator = QualityEstimator(MODEL)
    spans = [signals("Open the door.", "Öffne die Tür.", -0.7)]
    assert len({estimator.estimate(spans, (), "en", "de").estimate for _ in range(5)}) == 1


def test_a_warning_needs_review_whatever_the_estimate() -> None:
    estimator = QualityEstimator(MODEL)
    found = estimator.estimate([signals("Save", "Save", -0.01)], ("echo",), "en", "de")
    assert found.needs_review
    assert (
        found.estimate
        < estimator.estimate([signals("Save", "Sichern", -0.01)], (), "en", "de").estimate
    )


def test_exact_memory_matches_are_one() -> None:
    estimator = QualityEstimator(MODEL)
    found = estimator.estimate([memory_signals("Save", "Speichern")] * 2, (), "en", "de")
    assert found.estimate == 1.0 and not found.needs_review


def test_the_bundled_models_load_and_fit_the_default_model() -> None:
    models = QualityModels.from_text(bundled_text())
    assert "default" in models.models
    gemma = models.for_model("google/gemma-3-270m").model
    assert "mean_logprob" in gemma.features  # the family's own model reads the engine's
    assert "mean_logprob" not in models.for_model("some/other-model").model.features
    for model in models.models.values():
        assert 0.0 <= model.threshold <= 1.0
        assert all(weight.scale > 0 for weight in model.features.values())
        assert set(model.features) <= set(FEATURES)

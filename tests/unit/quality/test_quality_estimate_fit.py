"""The estimate's calibration: Spearman, the review figures, the logistic fit, the threshold
and the coefficients file it writes, on made-up answers whose truth is known."""

from __future__ import annotations

import random

import numpy as np
import pytest

from translate_server.quality.estimate_fit import (
    Row,
    choose_threshold,
    coefficients_toml,
    fit,
    logistic,
)
from translate_server.quality.estimate_metrics import review_score, spearman
from translate_server.translation.estimate.model import QualityModels


def test_spearman_ranks_with_ties() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 2], [1, 2, 3, 4]) == pytest.approx(0.894, abs=1e-3)
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_review_figures() -> None:
    found = review_score(
        estimates=[0.9, 0.2, 0.3, 0.8],
        needs_review=[False, True, True, False],
        warned=[False, False, False, True],
        chrfs=[80, 10, 60, 20],
        bad=[False, True, False, True],
    )
    assert (found.flagged_share, found.precision, found.recall) == (0.5, 0.5, 0.5)
    assert found.unflagged_rate == 0.0  # the missed bad answer had a warning


def test_the_logistic_fit_recovers_known_coefficients() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 2))
    truth = np.array([0.5, 2.0, -1.0])
    y = (rng.random(4000) < 1 / (1 + np.exp(-(truth[0] + x @ truth[1:])))).astype(float)
    found = logistic(x, y, np.ones(4000), l2=0.0)
    assert found == pytest.approx(truth, abs=0.2)


def rows(count: int = 400) -> list[Row]:
    """Answers whose goodness follows their mean log probability, and warnings that are bad."""
    rng = random.Random(1)
    found = []
    for _ in range(count):
        logprob = rng.uniform(-3, 0)
        warned = rng.random() < 0.1
        chrf = max(0.0, min(100.0, 60 + 25 * logprob + rng.gauss(0, 10))) if not warned else 5.0
        features: dict[str, float | None] = {
            "mean_logprob": logprob,
            "min_logprob": logprob - 1,
            "warned": float(warned),
            "length_deviation": abs(rng.gauss(0, 0.2)),
            "source_similarity": rng.random() * 0.5,
            "language_doubt": None if rng.random() < 0.5 else rng.random() * 0.1,
        }
        found.append(
            Row(
                set="short",
                pair="en-de",
                features=features,
                chrf=chrf,
                bad=chrf < 30,
                warned=warned,
            )
        )
    return found


def test_a_fitted_model_ranks_and_its_threshold_catches_the_bad_answers() -> None:
    calibration = rows()
    model = fit(calibration, ("mean_logprob", "warned", "language_doubt"))
    assert model.features["mean_logprob"].coefficient > 0 > model.features["warned"].coefficient
    estimates = [model.score(row.features) for row in calibration]
    assert spearman(estimates, [row.chrf for row in calibration]) > 0.6
    caught = [
        row.warned or e < model.threshold
        for row, e in zip(calibration, estimates, strict=True)
        if row.bad
    ]
    assert sum(caught) / len(caught) >= 0.85
    assert choose_threshold(model, calibration) == model.threshold


def test_the_coefficients_file_reads_back() -> None:
    model = fit(rows(), ("mean_logprob", "warned"))
    text = coefficients_toml({"default": model, "gemma-base": model})
    loaded = QualityModels.from_text(text)
    assert loaded.models["default"] == model
    assert loaded.models["gemma-base"].features == model.features

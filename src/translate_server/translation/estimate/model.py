"""The quality estimate: a logistic model over a text's features (`features.py`), fitted on
human translations by `python -m translate_server.quality.estimate_fit` and kept in
`coefficients.toml` beside this module, one table per model family (a model's log
probabilities have its own scale) chosen by `match` globs as the prompt templates are.

estimate = 1 / (1 + exp(-(intercept + sum(coefficient * (value - mean) / scale))))

A feature that cannot be known takes its mean (its calibration average). A text answered
entirely by a translation memory's exact matches is 1.0: a person translated it. A text
`needs_review` when its estimate is under the family's `threshold` (chosen on the calibration
pairs: docs/quality.md) or when it carries a warning.
"""

from __future__ import annotations

import fnmatch
import math
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources

import msgspec

from translate_server.translation.estimate.features import Features, text_features
from translate_server.translation.estimate.signals import AnswerSignals

DEFAULT_FAMILY = "default"


class FeatureWeight(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    coefficient: float
    mean: float  # on the calibration answers; also what an unknown value counts as
    scale: float  # their standard deviation


class QualityModel(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    intercept: float
    threshold: float  # a text estimated below it needs review
    features: dict[str, FeatureWeight]
    match: tuple[str, ...] = ()
    fitted_on: str = ""  # what it was calibrated on, in words

    def score(self, features: Mapping[str, float | None]) -> float:
        z = self.intercept
        for name, weight in self.features.items():
            value = features.get(name)
            if value is not None:
                z += weight.coefficient * (value - weight.mean) / weight.scale
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


class TextEstimate(msgspec.Struct, frozen=True):
    estimate: float  # 0..1
    needs_review: bool
    features: Features


class QualityEstimator:
    """One family's model, applied to a text's (or a piece's) answers."""

    def __init__(self, model: QualityModel) -> None:
        self.model = model

    def estimate(
        self,
        spans: Sequence[AnswerSignals],
        warnings: Iterable[str],
        source_lang: str,
        target_lang: str,
    ) -> TextEstimate:
        found = tuple(warnings)
        features = text_features(spans, found, source_lang, target_lang)
        if spans and all(span.memory for span in spans) and not found:
            return TextEstimate(1.0, False, features)
        value = round(self.model.score(features), 4)
        return TextEstimate(value, bool(found) or value < self.model.threshold, features)


class QualityModels:
    """The bundled families' models."""

    def __init__(self, models: Mapping[str, QualityModel]) -> None:
        self.models = dict(models)

    @classmethod
    def load(cls, text: str | None = None) -> QualityModels:
        tables = tomllib.loads(text if text is not None else bundled_text())
        return cls({name: msgspec.convert(table, QualityModel) for name, table in tables.items()})

    def for_model(self, model: str) -> QualityEstimator:
        """The first family whose `match` globs fit `model`, else the default one."""
        lowered = model.lower()
        for name, found in self.models.items():
            if name != DEFAULT_FAMILY and any(
                fnmatch.fnmatchcase(lowered, pattern.lower()) for pattern in found.match
            ):
                return QualityEstimator(found)
        return QualityEstimator(self.models[DEFAULT_FAMILY])


@cache
def bundled_text() -> str:
    return (
        resources.files("translate_server.translation.estimate")
        .joinpath("coefficients.toml")
        .read_text()
    )


@cache
def estimator_for(model: str) -> QualityEstimator:
    return QualityModels.load().for_model(model)

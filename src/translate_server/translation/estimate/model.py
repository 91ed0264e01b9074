"""The quality estimate: a logistic model over a text's features (`features.py`), fitted on
human translations by `python -m translate_server.quality.estimate_fit` and kept in
`coefficients.toml` beside this module, one table per model family (a model's log
probabilities have its own scale) chosen by `match` globs as the prompt templates are.

    z = intercept + sum(coefficient * (value - mean) / scale)     (ranks the answers)
    estimate = 1 / (1 + exp(-(slope * z + offset)))              (calibrates them)

`z` is fitted to rank answers as their chrF against people's translations does; `slope` and
`offset`, a monotone calibration fitted after it, make the estimate the probability that the
answer is not bad (chrF at least 30, no failure): 0.9 reads as "nine in ten like it were
fine". A feature that cannot be known takes its mean (its calibration average). A text answered
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
from pathlib import Path

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
    slope: float = 1.0
    offset: float = 0.0
    match: tuple[str, ...] = ()
    fitted_on: str = ""  # what it was calibrated on, in words

    def rank(self, features: Mapping[str, float | None]) -> float:
        """z: the linear score that orders answers."""
        z = self.intercept
        for name, weight in self.features.items():
            value = features.get(name)
            if value is not None:
                z += weight.coefficient * (value - weight.mean) / weight.scale
        return z

    def score(self, features: Mapping[str, float | None]) -> float:
        """The estimate, 0..1."""
        calibrated = self.slope * self.rank(features) + self.offset
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, calibrated))))


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


class EstimateModelError(ValueError):
    """A quality-estimate models file that cannot be used."""


class QualityModels:
    """The bundled families' models."""

    def __init__(self, models: Mapping[str, QualityModel]) -> None:
        self.models = dict(models)

    @classmethod
    def load(cls, path: str | None = None) -> QualityModels:
        """The bundled families, and a file's on top of them (a family it names replaces the
        bundled one of that name)."""
        tables = tomllib.loads(bundled_text())
        if path:
            try:
                tables |= tomllib.loads(Path(path).expanduser().read_text())
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise EstimateModelError(
                    f"cannot read quality-estimate models {path}: {exc}"
                ) from exc
        return cls.parse(tables)

    @classmethod
    def parse(cls, tables: Mapping[str, object]) -> QualityModels:
        models = {}
        for name, table in tables.items():
            try:
                models[name] = msgspec.convert(table, QualityModel)
            except msgspec.ValidationError as exc:
                raise EstimateModelError(f"quality-estimate model `{name}`: {exc}") from exc
        if DEFAULT_FAMILY not in models:
            raise EstimateModelError(f"the quality-estimate models have no `{DEFAULT_FAMILY}`")
        return cls(models)

    @classmethod
    def from_text(cls, text: str) -> QualityModels:
        return cls.parse(tomllib.loads(text))

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

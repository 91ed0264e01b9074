"""Fit the quality estimate's model on human translations and write it to
`translation/estimate/coefficients.toml` (as `length_calibration` writes the guard's length
bounds): re-run after a change of model or prompt.

    translate-server bench quality --base-url URL --api translate --quality-signals \\
        --sets short,paragraph --pairs en-de,en-ja,de-en --segments 200 --paragraphs 29 \\
        --seed 1 --out-dir estimate-calibration
    python -m translate_server.quality.estimate_fit \\
        --answers estimate-calibration/answers.jsonl --model google/gemma-3-270m --write

The bundled model's calibration answers are kept (docs/quality/estimate-calibration-gemma3
.answers.jsonl.gz): re-fitting from them gives coefficients.toml as it is, with no engine.

The calibration pairs are kept apart from the pairs `bench quality` reports the estimate on
(docs/quality.md). Two models are fitted on the same answers: the served model's family's,
over every feature, and the `default` one for models never calibrated, without the log
probabilities (whose scale is each model's own).

The model is a fractional logistic regression (L2-penalized, Newton's method; numpy) of each
answer's sentence chrF / 100 (0 for an answer with a failure the benchmark's checks find) on
standardized features: the estimate reads as the chrF the answer is likely to score, which
ranked answers better than a yes/no "good" target did (docs/quality.md). Its `threshold` is
the lowest estimate under which `needs_review` catches `TARGET_RECALL` of the calibration's
bad answers (sentence chrF under 30 or a failure; those already warned about count as
caught).
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec
import numpy as np

from translate_server.quality.estimate_metrics import BAD_CHRF, review_score
from translate_server.translation.estimate.model import (
    DEFAULT_FAMILY,
    FeatureWeight,
    QualityModel,
    QualityModels,
    bundled_text,
)

# The features each model reads, chosen on the calibration answers (docs/quality.md): few,
# so that it carries over to pairs and texts it was not fitted on.
FAMILY_FEATURES = ("mean_logprob", "length_deviation", "warned", "source_similarity")
PORTABLE_FEATURES = ("length_deviation", "warned", "source_similarity", "language_doubt")
TARGET_RECALL = 0.85
L2 = 1.0
COEFFICIENTS = (
    Path(__file__).resolve().parents[1] / "translation" / "estimate" / "coefficients.toml"
)


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """One calibration answer: its set and pair, its features, and how good it was."""

    set: str
    pair: str
    features: dict[str, float | None]
    chrf: float
    bad: bool
    warned: bool


def read_rows(path: Path) -> list[Row]:
    """The answers of a `bench quality --quality-signals` run that have signals (its
    answers.jsonl, gzipped or not)."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    rows = []
    for line in data.splitlines():
        record = msgspec.json.decode(line)
        signals = record.get("quality_signals")
        if record.get("error") is not None or not signals or record.get("bad") is None:
            continue
        rows.append(
            Row(
                set=record["set"],
                pair=record["pair"],
                features=signals["features"],
                chrf=record["sentence_chrf"],
                bad=record["bad"],
                warned=bool(record.get("warnings")),
            )
        )
    return rows


def design(rows: Sequence[Row], features: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The feature matrix (unknown values left as NaN) and the targets: each answer's sentence
    chrF / 100, and 0 for one that fails the benchmark's checks (an echo is no translation,
    however many characters it shares with the reference)."""
    x = np.array(
        [[_value(row.features.get(name)) for name in features] for row in rows], dtype=float
    )
    return x, np.array([target(row) for row in rows])


def target(row: Row) -> float:
    failed = row.bad and row.chrf >= BAD_CHRF
    return 0.0 if failed else min(1.0, row.chrf / 100.0)


def _value(found: float | None) -> float:
    return float("nan") if found is None else float(found)


def fit(
    rows: Sequence[Row], features: Sequence[str], weights: np.ndarray | None = None
) -> QualityModel:
    """The model over `features`, its threshold chosen on the same rows."""
    x, y = design(rows, features)
    means = np.nanmean(x, axis=0)
    x = np.where(np.isnan(x), means, x)
    scales = x.std(axis=0)
    scales[scales == 0] = 1.0
    coefficients = logistic(
        (x - means) / scales, y, np.ones(len(y)) if weights is None else weights
    )
    model = QualityModel(
        intercept=round(float(coefficients[0]), 4),
        threshold=0.5,
        features={
            name: FeatureWeight(
                round(float(coefficients[i + 1]), 4),
                round(float(means[i]), 4),
                round(float(scales[i]), 4),
            )
            for i, name in enumerate(features)
        },
    )
    model = calibrate(model, rows, weights)
    return msgspec.structs.replace(model, threshold=choose_threshold(model, rows))


def calibrate(
    model: QualityModel, rows: Sequence[Row], weights: np.ndarray | None = None
) -> QualityModel:
    """`slope` and `offset` making the estimate the probability of a good answer: a
    logistic regression of "not bad" on the model's rank (monotone: the order is kept)."""
    z = np.array([[model.rank(row.features)] for row in rows])
    good = np.array([0.0 if row.bad else 1.0 for row in rows])
    offset, slope = logistic(z, good, np.ones(len(rows)) if weights is None else weights, l2=0.0)
    return msgspec.structs.replace(
        model, slope=round(float(slope), 4), offset=round(float(offset), 4)
    )


def logistic(x: np.ndarray, y: np.ndarray, weights: np.ndarray, l2: float = L2) -> np.ndarray:
    """Intercept then coefficients of a weighted, L2-penalized logistic regression (the
    intercept unpenalized), by Newton's method."""
    design_matrix = np.hstack([np.ones((len(x), 1)), x])
    penalty = np.eye(design_matrix.shape[1]) * l2
    penalty[0, 0] = 0.0
    w = np.zeros(design_matrix.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-design_matrix @ w))
        gradient = design_matrix.T @ (weights * (p - y)) + penalty @ w
        hessian = design_matrix.T @ (design_matrix * (weights * p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def choose_threshold(model: QualityModel, rows: Sequence[Row]) -> float:
    """The lowest threshold at which `needs_review` (or a warning) catches `TARGET_RECALL`
    of the bad answers."""
    estimates = [model.score(row.features) for row in rows]
    bad = [i for i, row in enumerate(rows) if row.bad]
    missed = sorted(estimates[i] for i in bad if not rows[i].warned)
    must_catch = int(np.ceil(TARGET_RECALL * len(bad))) - (len(bad) - len(missed))
    if must_catch <= 0 or not missed:
        return 0.0
    return round(missed[min(must_catch, len(missed)) - 1] + 1e-4, 4)


def report(model: QualityModel, rows: Sequence[Row]) -> str:
    """The model's figures on `rows`, per set and pair and per set."""
    lines = ["set        pair   n    spearman  flagged  precision  recall  unflagged"]
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.set, row.pair), []).append(row)
        groups.setdefault((row.set, "all"), []).append(row)
    for (set_name, pair), mine in sorted(groups.items()):
        estimates = [model.score(row.features) for row in mine]
        found = review_score(
            estimates,
            [row.warned or e < model.threshold for row, e in zip(mine, estimates, strict=True)],
            [row.warned for row in mine],
            [row.chrf for row in mine],
            [row.bad for row in mine],
        )
        lines.append(
            f"{set_name:<10} {pair:<6} {found.answers:<4} {_f(found.spearman):>8}  "
            f"{_p(found.flagged_share):>7}  {_p(found.precision):>9}  {_p(found.recall):>6}  "
            f"{_p(found.unflagged_rate):>9}"
        )
    return "\n".join(lines)


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def family_of(model: str) -> tuple[str, tuple[str, ...]]:
    """The prompt templates' family of `model` and its `match` globs."""
    from translate_server.translation.prompts.templates import PromptTemplates

    lowered = model.lower()
    for name, template in PromptTemplates.load().families.items():
        if name != "default" and any(
            fnmatch.fnmatchcase(lowered, pattern.lower()) for pattern in template.match
        ):
            return name, template.match
    return DEFAULT_FAMILY, ()


def coefficients_toml(models: dict[str, QualityModel]) -> str:
    """The coefficients file: a header, then one table per family."""
    out = [
        "# The quality estimate's models, one per model family (translation/estimate/model.py),",
        "# written by `python -m translate_server.quality.estimate_fit` (docs/quality.md).",
    ]
    for name, model in models.items():
        out.append(f"\n[{_key(name)}]")
        if model.match:
            out.append("match = [" + ", ".join(_string(m) for m in model.match) + "]")
        out.append(f"fitted_on = {_string(model.fitted_on)}")
        out.append(f"intercept = {model.intercept}")
        out.append(f"slope = {model.slope}")
        out.append(f"offset = {model.offset}")
        out.append(f"threshold = {model.threshold}")
        for feature, weight in model.features.items():
            out.append(f"\n[{_key(name)}.features.{feature}]")
            out.append(f"coefficient = {weight.coefficient}")
            out.append(f"mean = {weight.mean}")
            out.append(f"scale = {weight.scale}")
    return "\n".join(out) + "\n"


def _key(name: str) -> str:
    return name if name.replace("-", "").replace("_", "").isalnum() else _string(name)


def _string(text: str) -> str:
    return msgspec.json.encode(text).decode()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m translate_server.quality.estimate_fit", description=__doc__
    )
    parser.add_argument("--answers", type=Path, required=True, help="a run's answers.jsonl")
    parser.add_argument("--model", default="google/gemma-3-270m", help="the served model")
    parser.add_argument(
        "--paragraph-weight",
        type=float,
        default=None,
        help="weight of a paragraph's answer against a short message's (default: each set "
        "weighs as much as the short set)",
    )
    parser.add_argument("--write", action="store_true", help="write coefficients.toml")
    args = parser.parse_args(argv)
    rows = read_rows(args.answers)
    if not rows:
        raise SystemExit(f"{args.answers} has no answers with quality signals")
    weights = set_weights(rows, args.paragraph_weight)
    family, match = family_of(args.model)
    described = _described(rows, args.answers)
    models = dict(QualityModels.from_text(bundled_text()).models)
    fitted = {
        family: fit(rows, FAMILY_FEATURES, weights),
        DEFAULT_FAMILY: fit(rows, PORTABLE_FEATURES, weights),
    }
    for name, model in fitted.items():
        note = f"{args.model}: {described}" if name == family else described
        if name == DEFAULT_FAMILY:
            note += "; no log probabilities (any model)"
        models[name] = msgspec.structs.replace(
            model, match=match if name == family else (), fitted_on=note
        )
        print(f"[{name}] threshold {models[name].threshold}", file=sys.stderr)
        print(report(models[name], rows), file=sys.stderr)
    ordered = {DEFAULT_FAMILY: models.pop(DEFAULT_FAMILY), **dict(sorted(models.items()))}
    text = coefficients_toml(ordered)
    if args.write:
        COEFFICIENTS.write_text(text)
        print(f"wrote {COEFFICIENTS}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def set_weights(rows: Sequence[Row], paragraph_weight: float | None) -> np.ndarray:
    """Each answer's weight: 1 for a short message; a long text's makes its set weigh as
    much as the short set (or `paragraph_weight` each)."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.set] = counts.get(row.set, 0) + 1
    short = counts.get("short", 0) or max(counts.values())
    return np.array(
        [
            1.0
            if row.set == "short"
            else (paragraph_weight if paragraph_weight is not None else short / counts[row.set])
            for row in rows
        ]
    )


def _described(rows: Sequence[Row], path: Path) -> str:
    pairs: dict[str, set[str]] = {}
    for row in rows:
        pairs.setdefault(row.set, set()).add(row.pair)
    sets = "; ".join(f"{name} {','.join(sorted(p))}" for name, p in sorted(pairs.items()))
    return f"{len(rows)} answers ({sets})"


if __name__ == "__main__":
    raise SystemExit(main())

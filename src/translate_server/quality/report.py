"""The quality run's output: a terminal table, a JSON document and a PNG chart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from translate_server.quality.scoring import MeanScore, PairScore
from translate_server.translation.guard.checks import FAILURE_KINDS

JSON_SCHEMA_VERSION = 2  # 2: results and means per set, faithfulness metrics
_SHORT = {
    "empty": "empty",
    "echo": "echo",
    "wrong_language": "wrong",
    "placeholders_lost": "ph.lost",
    "commentary": "comment",
    "truncated": "cut",
    "omission": "omit",
    "addition": "add",
    "copied_example": "copied",
}


# Faithfulness columns: header, key, and whether the value is a share (printed in percent).
_FAITH = (
    ("len.med", "length_ratio_median", False),
    ("len.mean", "length_ratio_mean", False),
    ("omit", "omission_rate", True),
    ("omit.fl", "omission_flagged", True),
    ("halluc", "hallucination_rate", True),
    ("hal.fl", "hallucination_flagged", True),
)
_UNFLAGGED = ("unflag", "unflagged_failure_rate", True)
# The short messages' table keeps its failure columns; the long texts' adds faithfulness, and
# leaves out lost placeholders (their texts have none).
_LONG_FAILURES = ("empty", "echo", "wrong_language", "commentary", "truncated")


def _cell(value: float | None, share: bool) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.0f}%" if share else f"{value:.2f}"


def _columns(set_name: str) -> tuple[list[str], list[tuple[str, str, bool]]]:
    if set_name == "short":
        return [k.value for k in FAILURE_KINDS], [_UNFLAGGED]
    return list(_LONG_FAILURES), [*_FAITH, _UNFLAGGED]


def format_table(scores: Sequence[PairScore], means: Sequence[MeanScore]) -> str:
    """Per set: one row per API and pair, then the mean per API (with the set's seconds per
    1,000 source characters); rates in percent, length ratios as they are."""
    tables = []
    for set_name in dict.fromkeys(score.set for score in scores):
        failures, faith = _columns(set_name)
        headers = [
            "api",
            "pair",
            "n",
            "chrF",
            "BLEU",
            *(_SHORT[k] for k in failures),
            *(header for header, _, _ in faith),
            "errors",
            "s/1k ch",
        ]

        def cells(
            row: PairScore | MeanScore,
            faith: list[tuple[str, str, bool]] = faith,
            failures: list[str] = failures,
        ) -> list[str]:
            return [
                f"{row.chrf:.1f}",
                f"{row.bleu:.1f}",
                *(f"{100 * row.rates[k]:.0f}%" for k in failures),
                *(_cell(row.faithfulness[key], share) for _, key, share in faith),
            ]

        rows = [
            [s.api, s.pair, str(s.segments), *cells(s), str(s.errors), ""]
            for s in scores
            if s.set == set_name
        ]
        rows += [
            [m.api, "mean", f"{m.pairs} pairs", *cells(m), "", _cell(m.seconds_per_1k_chars, False)]
            for m in means
            if m.set == set_name
        ]
        widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
        lines = [
            f"[{set_name}]",
            "  ".join(cell.rjust(w) for cell, w in zip(headers, widths, strict=True)),
        ]
        lines.extend(
            "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows
        )
        tables.append("\n".join(lines))
    return "\n\n".join(tables)


def build_document(
    run: dict[str, Any],
    sets: Sequence[dict[str, Any]],
    scores: Sequence[PairScore],
    means: Sequence[MeanScore],
) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA_VERSION,
        "run": run,
        "sets": list(sets),
        "failure_kinds": [kind.value for kind in FAILURE_KINDS],
        "results": [msgspec.to_builtins(score) for score in scores],
        "means": [msgspec.to_builtins(mean) for mean in means],
    }


def write_json(path: str | Path, document: dict[str, Any]) -> None:
    Path(path).write_bytes(msgspec.json.format(msgspec.json.encode(document), indent=2) + b"\n")


def plot(
    scores: Sequence[PairScore], means: Sequence[MeanScore], path: str | Path, title: str = ""
) -> None:
    """Per set, a row: chrF per pair and API, and the mean rate of each failure kind per API."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(score.set for score in scores))
    fig, axes = plt.subplots(len(names), 2, figsize=(13, 4.5 * len(names)), squeeze=False)
    for (ax_chrf, ax_fail), name in zip(axes, names, strict=True):
        _plot_set(
            [s for s in scores if s.set == name],
            [m for m in means if m.set == name],
            ax_chrf,
            ax_fail,
            name,
        )
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_set(
    scores: Sequence[PairScore], means: Sequence[MeanScore], ax_chrf: Any, ax_fail: Any, name: str
) -> None:
    apis = [mean.api for mean in means]
    pairs = [*dict.fromkeys(score.pair for score in scores), "mean"]
    labels = [_SHORT[kind.value] for kind in FAILURE_KINDS]
    if name != "short":
        labels += ["omit", "halluc"]

    def rates(mean: MeanScore) -> list[float]:
        found = [mean.rates[kind.value] for kind in FAILURE_KINDS]
        if name != "short":
            found += [
                mean.faithfulness[key] or 0.0 for key in ("omission_rate", "hallucination_rate")
            ]
        return [100 * rate for rate in found]

    width = 0.8 / max(len(apis), 1)
    for i, api in enumerate(apis):
        by_pair = {s.pair: s.chrf for s in scores if s.api == api}
        by_pair["mean"] = next(m.chrf for m in means if m.api == api)
        xs = [j + i * width for j in range(len(pairs))]
        ax_chrf.bar(xs, [by_pair.get(p, 0.0) for p in pairs], width, label=api)
        mean = next(m for m in means if m.api == api)
        xs = [j + i * width for j in range(len(labels))]
        ax_fail.bar(xs, rates(mean), width, label=api)
    center = width * (len(apis) - 1) / 2
    ax_chrf.set_xticks([j + center for j in range(len(pairs))], pairs)
    ax_chrf.set_ylabel("chrF")
    ax_chrf.set_title(f"{name}: chrF per pair (higher is better)")
    ax_fail.set_xticks([j + center for j in range(len(labels))], labels)
    ax_fail.set_ylabel("% of answers")
    ax_fail.set_ylim(0, 100)
    ax_fail.set_title(f"{name}: failures, mean over pairs (lower is better)")
    for ax in (ax_chrf, ax_fail):
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend()

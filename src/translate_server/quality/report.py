"""The quality run's output: a terminal table, a JSON document and a PNG chart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from translate_server.quality.scoring import MeanScore, PairScore
from translate_server.translation.checks import FAILURE_KINDS

JSON_SCHEMA_VERSION = 1
_SHORT = {"empty": "empty", "echo": "echo", "wrong_language": "wrong", "placeholders_lost": "ph.lost",
          "commentary": "comment", "truncated": "cut", "omission": "omit", "addition": "add",
          "copied_example": "copied"}


def format_table(scores: Sequence[PairScore], means: Sequence[MeanScore]) -> str:
    """One row per API and pair, then the mean per API; failure rates in percent."""
    headers = ["api", "pair", "n", "chrF", "BLEU", *(_SHORT[k.value] for k in FAILURE_KINDS),
               "errors"]
    rows = [[s.api, s.pair, str(s.segments), f"{s.chrf:.1f}", f"{s.bleu:.1f}",
             *(f"{100 * s.rates[k.value]:.0f}%" for k in FAILURE_KINDS), str(s.errors)]
            for s in scores]
    rows += [[m.api, "mean", f"{m.pairs} pairs", f"{m.chrf:.1f}", f"{m.bleu:.1f}",
              *(f"{100 * m.rates[k.value]:.0f}%" for k in FAILURE_KINDS), ""] for m in means]
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(headers, widths, strict=True))]
    for row in rows:
        lines.append("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)))
    return "\n".join(lines)


def build_document(run: dict[str, Any], sets: Sequence[dict[str, Any]],
                   scores: Sequence[PairScore], means: Sequence[MeanScore]) -> dict[str, Any]:
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


def plot(scores: Sequence[PairScore], means: Sequence[MeanScore], path: str | Path,
         title: str = "") -> None:
    """chrF per pair and API, and the mean rate of each failure kind per API."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    apis = [mean.api for mean in means]
    pairs = list(dict.fromkeys(score.pair for score in scores)) + ["mean"]
    kinds = [kind.value for kind in FAILURE_KINDS]
    width = 0.8 / max(len(apis), 1)
    fig, (ax_chrf, ax_fail) = plt.subplots(1, 2, figsize=(13, 4.5))
    for i, api in enumerate(apis):
        by_pair = {s.pair: s.chrf for s in scores if s.api == api}
        by_pair["mean"] = next(m.chrf for m in means if m.api == api)
        xs = [j + i * width for j in range(len(pairs))]
        ax_chrf.bar(xs, [by_pair.get(p, 0.0) for p in pairs], width, label=api)
        mean = next(m for m in means if m.api == api)
        xs = [j + i * width for j in range(len(kinds))]
        ax_fail.bar(xs, [100 * mean.rates[k] for k in kinds], width, label=api)
    center = width * (len(apis) - 1) / 2
    ax_chrf.set_xticks([j + center for j in range(len(pairs))], pairs)
    ax_chrf.set_ylabel("chrF")
    ax_chrf.set_title("chrF per pair (higher is better)")
    ax_fail.set_xticks([j + center for j in range(len(kinds))],
                       [_SHORT[k] for k in kinds])
    ax_fail.set_ylabel("% of answers")
    ax_fail.set_ylim(0, 100)
    ax_fail.set_title("failures, mean over pairs (lower is better)")
    for ax in (ax_chrf, ax_fail):
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

"""`bench quality`'s part on the quality estimate: per API run, set and pair (and per run and
set over its pairs together), how the estimate ranks the answers (Spearman against sentence
chrF) and how `needs_review` catches bad ones; and, with `--candidates`, chrF and time for
each number of candidates side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from translate_server.quality.client import Answer
from translate_server.quality.datasets import TestSet
from translate_server.quality.estimate_metrics import (
    ReviewScore,
    is_bad,
    review_score,
    sentence_chrf,
)
from translate_server.translation.guard.checks import Verdict


class AnswerScore(msgspec.Struct, frozen=True, kw_only=True):
    """One answer as the estimate's report reads it."""

    chrf: float
    bad: bool
    estimate: float | None
    needs_review: bool | None
    warned: bool


def answer_scores(
    test_set: TestSet, answers: Sequence[Answer], verdicts: Sequence[Verdict]
) -> list[AnswerScore]:
    return [
        AnswerScore(
            chrf=(chrf := sentence_chrf(answer.text, segment.reference)),
            bad=is_bad(chrf, [str(kind) for kind in verdict.failures]),
            estimate=answer.quality_estimate,
            needs_review=answer.needs_review,
            warned=bool(answer.warnings),
        )
        for segment, answer, verdict in zip(test_set.segments, answers, verdicts, strict=True)
        if answer.error is None
    ]


def score(scored: Sequence[AnswerScore]) -> ReviewScore | None:
    """The estimate's figures over `scored`; None where the server sent no estimates."""
    known = [s for s in scored if s.estimate is not None and s.needs_review is not None]
    if not known:
        return None
    return review_score(
        [s.estimate for s in known if s.estimate is not None],
        [bool(s.needs_review) for s in known],
        [s.warned for s in known],
        [s.chrf for s in known],
        [s.bad for s in known],
    )


def estimate_section(
    scored: Mapping[tuple[str, str, str], Sequence[AnswerScore]],
) -> tuple[list[dict[str, Any]], str]:
    """Rows per (run, set, pair) and per (run, set) over its pairs: the JSON and the table."""
    rows: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[AnswerScore]] = {}
    for (api, set_name, pair), answers in scored.items():
        found = score(answers)
        if found is not None:
            rows.append({"api": api, "set": set_name, "pair": pair, **msgspec.to_builtins(found)})
            groups.setdefault((api, set_name), []).extend(answers)
    for (api, set_name), answers in groups.items():
        found = score(answers)
        if found is not None:
            rows.append({"api": api, "set": set_name, "pair": "all", **msgspec.to_builtins(found)})
    return rows, _table(rows)


def _table(rows: Sequence[dict[str, Any]]) -> str:
    headers = ["api", "set", "pair", "n", "bad", "spearman", "flagged", "precision", "recall"]
    headers.append("unflagged")
    lines = [headers]
    lines += [
        [
            row["api"],
            row["set"],
            row["pair"],
            str(row["answers"]),
            _share(row["bad"] / row["answers"]),
            _number(row["spearman"]),
            _share(row["flagged_share"]),
            _share(row["precision"]),
            _share(row["recall"]),
            _share(row["unflagged_rate"]),
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    text = ["[quality estimate]"]
    text += ["  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join(text)


def candidates_table(
    means: Sequence[Any], set_wall_s: Mapping[tuple[str, str], float], labels: Sequence[str]
) -> str:
    """chrF and the set's wall time per number of candidates (the runs `labels`), per set."""
    lines = [["set", "run", "chrF", "s", "time x"]]
    for set_name in dict.fromkeys(mean.set for mean in means):
        base = set_wall_s.get((labels[0], set_name))
        for label in labels:
            mean = next((m for m in means if m.set == set_name and m.api == label), None)
            wall = set_wall_s.get((label, set_name))
            if mean is None or wall is None:
                continue
            ratio = f"{wall / base:.2f}" if base else "-"
            lines.append([set_name, label, f"{mean.chrf:.2f}", f"{wall:.0f}", ratio])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    text = ["[candidates]"]
    text += ["  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join(text)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"

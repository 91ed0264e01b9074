"""How well `/translate`'s quality estimate tells good translations from bad ones, against
human translations (docs/quality.md):

- Spearman's rank correlation of the estimate with each answer's sentence chrF;
- `needs_review` against "bad" answers (sentence chrF under `BAD_CHRF`, or a failure the
  benchmark's own checks find): precision, recall and the share of answers flagged;
- unflagged: the share of answers that are bad and carry neither a warning nor
  `needs_review` (the goal is none).

Pure functions over numbers (numpy, which sacrebleu brings).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np
import sacrebleu

# An answer under this sentence chrF is bad: mostly wrong words, or words of another text.
BAD_CHRF = 30.0


def sentence_chrf(answer: str, reference: str) -> float:
    score: float = sacrebleu.sentence_chrf(answer, [reference]).score
    return score


def is_bad(chrf: float, failures: Sequence[str]) -> bool:
    return chrf < BAD_CHRF or bool(failures)


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 1, ties sharing their mean rank."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="mergesort")
    ranked = np.empty(len(array))
    ranked[order] = np.arange(1, len(array) + 1)
    for value in np.unique(array):
        tied = array == value
        if tied.sum() > 1:
            ranked[tied] = ranked[tied].mean()
    return ranked


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho (Pearson's r of the ranks); None where either side is constant."""
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


class ReviewScore(msgspec.Struct, kw_only=True):
    answers: int
    bad: int
    spearman: float | None
    flagged_share: float | None  # of all answers, needs_review
    precision: float | None  # of those flagged, bad
    recall: float | None  # of the bad, flagged
    unflagged_rate: float | None  # of all answers, bad with neither a warning nor the flag
    mean_estimate: float | None


def review_score(
    estimates: Sequence[float],
    needs_review: Sequence[bool],
    warned: Sequence[bool],
    chrfs: Sequence[float],
    bad: Sequence[bool],
) -> ReviewScore:
    n = len(estimates)
    flagged = sum(needs_review)
    bad_count = sum(bad)
    caught = sum(f and b for f, b in zip(needs_review, bad, strict=True))
    unflagged = sum(
        b and not f and not w for f, w, b in zip(needs_review, warned, bad, strict=True)
    )
    return ReviewScore(
        answers=n,
        bad=bad_count,
        spearman=_rounded(spearman(estimates, chrfs)),
        flagged_share=_rounded(flagged / n if n else None),
        precision=_rounded(caught / flagged if flagged else None),
        recall=_rounded(caught / bad_count if bad_count else None),
        unflagged_rate=_rounded(unflagged / n if n else None),
        mean_estimate=_rounded(sum(estimates) / n if n else None),
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)

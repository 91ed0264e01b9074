"""One translation spread back over several slots (subtitle cues, styled runs), in
proportion to the length each slot had in the source, cut only between words."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

_WORD = re.compile(r"\S+\s*")


def distribute(text: str, weights: Sequence[int]) -> list[str]:
    """`text` cut into `len(weights)` parts whose concatenation is `text`. Each part gets a
    share of the text near its share of the weights; no part is empty while the text has at
    least as many words as there are parts (text without spaces, such as Chinese or Japanese,
    is cut between characters when it has too few words)."""
    slots = len(weights)
    if slots <= 1:
        return [text] * slots
    tokens = _tokens(text)
    if len(tokens) < slots:
        tokens = list(text)
    if len(tokens) < slots:
        return tokens + [""] * (slots - len(tokens))
    ends = []
    offset = 0
    for token in tokens:
        offset += len(token)
        ends.append(offset)
    shares = [max(0, weight) for weight in weights]
    if not any(shares):
        shares = [1] * slots
    total_share = sum(shares)
    cuts = [0]
    cumulative = 0
    for slot in range(slots - 1):
        cumulative += shares[slot]
        ideal = len(text) * cumulative / total_share
        low = cuts[-1] + 1  # at least one token in this slot
        high = len(tokens) - (slots - 1 - slot)  # and one left for each slot after it
        cuts.append(_nearest(ends, ideal, low, high))
    cuts.append(len(tokens))
    return ["".join(tokens[a:b]) for a, b in itertools.pairwise(cuts)]


def _tokens(text: str) -> list[str]:
    """Words with the whitespace after them; leading whitespace joins the first word."""
    tokens = _WORD.findall(text)
    lead = len(text) - len(text.lstrip())
    if tokens and lead:
        tokens[0] = text[:lead] + tokens[0]
    return tokens or ([text] if text else [])


def _nearest(ends: list[int], ideal: float, low: int, high: int) -> int:
    """The token count k in [low, high] whose end offset `ends[k - 1]` is nearest `ideal`."""
    k = bisect.bisect_left(ends, ideal) + 1  # first count whose end reaches the ideal
    best = min(
        (c for c in (k - 1, k) if low <= c <= high),
        default=None,
        key=lambda c: abs(ends[c - 1] - ideal),
    )
    if best is None:
        best = low if k < low else high
    return best

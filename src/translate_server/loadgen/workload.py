"""Seeded translation workloads: `uniform` (every text the same length) and `variable` (10-200).

Lengths are in tokens: estimated as ``ceil(words * 1.3)`` by default, or counted exactly with a
Hugging Face tokenizer when one is given. Each item has its own random generator derived from the
seed and its index, so the first N items of a workload are the same whatever its size and
whichever counter trims them: runs with the same seed send the same texts.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from translate_server.loadgen.corpus import LANGUAGE_PAIRS, SENTENCES

WorkloadKind = Literal["uniform", "variable"]
WORKLOAD_KINDS: tuple[str, ...] = ("uniform", "variable")

TOKENS_PER_WORD = 1.3

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text``: ``ceil(words * 1.3)``."""
    return math.ceil(len(text.split()) * TOKENS_PER_WORD)


def tokenizer_counter(path: str) -> TokenCounter:
    """Exact token counts from a Hugging Face tokenizer (a model directory or id)."""
    from transformers import AutoTokenizer  # heavy; only when asked for

    tokenizer = AutoTokenizer.from_pretrained(path)

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False))

    return count


@dataclass(frozen=True, slots=True)
class WorkItem:
    index: int
    text: str
    source_lang: str
    target_lang: str
    input_tokens: int  # tokens of `text` (estimated or counted, see WorkloadSpec.counter)
    max_tokens: int  # output cap sent with the request
    exact_output: bool = False  # generate exactly max_tokens (see WorkloadSpec.exact_output)


@dataclass(frozen=True, slots=True)
class WorkloadSpec:
    kind: WorkloadKind = "variable"
    size: int = 512
    seed: int = 0
    min_tokens: int = 10
    max_tokens: int = 200
    # Length of every text in the `uniform` workload; default: the mean of `variable`'s range,
    # so both workloads carry the same number of input tokens on average.
    uniform_tokens: int | None = None
    # Output cap per request: round(input_tokens * output_ratio), at least output_min,
    # or exactly `fixed_output_tokens` when set.
    output_ratio: float = 1.5
    output_min: int = 16
    fixed_output_tokens: int | None = None
    # Every answer exactly max_tokens long: end of sequence and stop strings are ignored. For
    # random-weight test models, whose greedy answers end after a token or two.
    exact_output: bool = False

    def __post_init__(self) -> None:
        if self.kind not in WORKLOAD_KINDS:
            raise ValueError(f"unknown workload {self.kind!r}; choose from {WORKLOAD_KINDS}")
        if not 1 <= self.min_tokens <= self.max_tokens:
            raise ValueError("need 1 <= min_tokens <= max_tokens")
        if self.size < 1:
            raise ValueError("size must be at least 1")

    @property
    def target_uniform(self) -> int:
        if self.uniform_tokens is not None:
            return self.uniform_tokens
        return (self.min_tokens + self.max_tokens) // 2

    def describe(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "size": self.size,
            "seed": self.seed,
            "min_tokens": self.min_tokens,
            "max_tokens": self.max_tokens,
            "uniform_tokens": self.target_uniform,
            "output_ratio": self.output_ratio,
            "output_min": self.output_min,
            "fixed_output_tokens": self.fixed_output_tokens,
            "exact_output": self.exact_output,
        }


def _trim_to(words: list[str], target: int, count: TokenCounter) -> str:
    """The prefix of ``words`` whose token count is closest to ``target`` (never empty)."""
    lo, hi = 1, len(words)
    # Largest prefix with count <= target (counts grow with the prefix, near enough).
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(" ".join(words[:mid])) <= target:
            lo = mid
        else:
            hi = mid - 1
    best = lo
    if best < len(words):
        under = target - count(" ".join(words[:best]))
        over = count(" ".join(words[: best + 1])) - target
        if over < under:
            best += 1
    return " ".join(words[:best]).rstrip(",;:")


def make_item(spec: WorkloadSpec, index: int, count: TokenCounter = estimate_tokens) -> WorkItem:
    rng = random.Random(spec.seed * 1_000_003 + index)
    if spec.kind == "variable":
        target = rng.randint(spec.min_tokens, spec.max_tokens)
    else:
        target = spec.target_uniform
    source, target_lang = LANGUAGE_PAIRS[rng.randrange(len(LANGUAGE_PAIRS))]
    sentences = SENTENCES[source]
    # Whole sentences from the item's own generator until the target is reached, then trim.
    words: list[str] = []
    while not words or count(" ".join(words)) < target:
        words.extend(rng.choice(sentences).split())
    text = _trim_to(words, target, count)
    input_tokens = count(text)
    if spec.fixed_output_tokens is not None:
        max_tokens = spec.fixed_output_tokens
    else:
        max_tokens = max(spec.output_min, round(input_tokens * spec.output_ratio))
    return WorkItem(index, text, source, target_lang, input_tokens, max_tokens, spec.exact_output)


def make_workload(spec: WorkloadSpec, count: TokenCounter = estimate_tokens) -> list[WorkItem]:
    return [make_item(spec, i, count) for i in range(spec.size)]


def starting_at(items: Sequence[WorkItem], offset: int) -> list[WorkItem]:
    """The workload cycled to begin at item `offset` (a negative one counts from the end).

    Requests take texts in order and cycle. A phase of a run that starts where the last one
    stopped sends no text twice until the whole workload has been sent: a prompt the engine
    has already computed would be answered from its prefix cache and look cheaper."""
    if not items:
        return []
    start = offset % len(items)
    return [*items[start:], *items[:start]]


def warmup_items(items: Sequence[WorkItem], count: int) -> list[WorkItem]:
    """What a warm-up of `count` requests sends: the workload's last texts, which measured
    requests starting at the first one reach last (never, while both fit in the workload)."""
    return starting_at(items, -count)


def length_summary(items: Sequence[WorkItem]) -> dict[str, float]:
    lengths = sorted(item.input_tokens for item in items)
    caps = [item.max_tokens for item in items]
    return {
        "n": len(lengths),
        "input_tokens_min": lengths[0],
        "input_tokens_mean": sum(lengths) / len(lengths),
        "input_tokens_max": lengths[-1],
        "max_tokens_mean": sum(caps) / len(caps),
    }

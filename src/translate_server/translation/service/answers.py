"""A piece's answers: each engine choice as a piece result carrying its quality signals, the
best estimated of several, and the usage of all the attempts a result was chosen from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import msgspec

from translate_server.inference.engine import SamplingOptions, TokenLogprob
from translate_server.inference.generation import Completion, Prompt
from translate_server.text.masking import Masked
from translate_server.translation.estimate.signals import (
    LogprobSummary,
    answer_signals,
    summarize,
)
from translate_server.translation.guard.hygiene import clean_translation
from translate_server.translation.planning.plan import Piece, PieceResult


class Attempt(NamedTuple):
    """What every engine request of one piece shares: the piece, as masked and asked, its
    prompt and its greedy sampling."""

    piece: Piece
    masked: Masked | None
    asked: Piece
    prompt: Prompt
    options: SamplingOptions


def answer_of(
    source: str, completion: Completion, choice: int, languages: tuple[str, ...]
) -> PieceResult:
    """One choice of a completion as a piece's answer, with its signals. The first choice
    carries the engine request's usage."""
    text = clean_translation(completion.texts[choice], source, languages=languages)
    reason = completion.finish_reasons[choice] or "stop"
    logprobs = completion.logprobs[choice] if completion.logprobs else None
    first = choice == 0
    return PieceResult(
        text,
        reason,
        completion.prompt_tokens if first else 0,
        completion.completion_tokens if first else 0,
        signals=(answer_signals(source, text, summarize(logprobs), cut_off=reason == "length"),),
    )


def best_estimated(results: Sequence[PieceResult], estimates: Sequence[float]) -> int:
    """The index of the best estimated result, the first on a tie."""
    return min(range(len(results)), key=lambda i: (-estimates[i], i))


def with_usage(result: PieceResult, attempts: Sequence[PieceResult]) -> PieceResult:
    """`result` with the usage of every attempt it was chosen from."""
    return msgspec.structs.replace(
        result,
        prompt_tokens=sum(a.prompt_tokens for a in attempts),
        completion_tokens=sum(a.completion_tokens for a in attempts),
    )


class StreamLogprobs:
    """A stream's log probabilities, summed as they arrive."""

    __slots__ = ("lowest", "tokens", "total")

    def __init__(self) -> None:
        self.tokens, self.total, self.lowest = 0, 0.0, 0.0

    def add(self, logprobs: Sequence[TokenLogprob] | None) -> None:
        for token in logprobs or ():
            self.lowest = min(self.lowest, token.logprob) if self.tokens else token.logprob
            self.tokens += 1
            self.total += token.logprob

    def summary(self) -> LogprobSummary:
        return LogprobSummary(self.tokens, self.total, self.lowest)

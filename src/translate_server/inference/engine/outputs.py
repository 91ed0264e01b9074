"""vLLM's `RequestOutput`s as our `EngineOutput`s: finish reasons, token counts, log
probabilities and, on the last output, the engine's timings (no vLLM import).

Facts about vLLM 0.32 relied on here (checked against its source):
- With `RequestOutputKind.DELTA` every `RequestOutput` carries only the new text and token ids;
  with n > 1 each item carries the children that advanced, and `finished` turns true once all
  children finished.
- `SamplingParams.logprobs=k` gives, per generated token, a dict token id -> `Logprob`
  (logprob, rank, decoded_token) holding the chosen token and the k likeliest; in DELTA mode
  `CompletionOutput.logprobs` covers just the delta's tokens.
- `RequestOutput.num_cached_tokens` is the prompt's prefix-cache hits.
- `SamplingParams.prompt_logprobs=0` gives `RequestOutput.prompt_logprobs`, one dict per
  prompt token (None for the first) holding that token's `Logprob`, beside `prompt_token_ids`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from translate_server.inference.engine.protocol import (
    EngineOutput,
    GenerationStep,
    TokenLogprob,
)
from translate_server.inference.engine.timings import engine_timings

# vLLM's finish reasons -> ours. "repetition" (vLLM's opt-in loop detector) is the model
# stopping; "error" is a failed request and is raised instead.
_FINISH_REASONS = {"stop": "stop", "length": "length", "abort": "abort", "repetition": "stop"}


class OutputReader:
    """Reads one engine's outputs; the tokenizer decodes tokens vLLM left undecoded."""

    __slots__ = ("_tokenizer",)

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer

    def read(
        self, output: Any, prompt_tokens: int, completion_tokens: list[int], top_n: int | None
    ) -> EngineOutput:
        """`output` as ours; `completion_tokens` (one count per choice) is brought up to date."""
        steps = []
        for choice in output.outputs:
            index = choice.index
            completion_tokens[index] += len(choice.token_ids)
            reason = choice.finish_reason
            if reason is not None:
                reason = _FINISH_REASONS.get(reason) or _request_failed(reason)
            logprobs = (
                None if top_n is None else self._logprobs(choice.token_ids, choice.logprobs, top_n)
            )
            steps.append(
                GenerationStep(index, choice.text, completion_tokens[index], reason, logprobs)
            )
        prompt = _prompt_logprobs(output)
        if output.finished:
            timings = engine_timings(output)
            return EngineOutput(
                prompt_tokens, steps, True, output.num_cached_tokens, timings, prompt
            )
        return EngineOutput(prompt_tokens, steps, False, output.num_cached_tokens, None, prompt)

    def _logprobs(
        self, token_ids: Sequence[int], positions: Any, top_n: int
    ) -> tuple[TokenLogprob, ...]:
        """vLLM's per-position dicts (the chosen token and the likeliest `top_n`) as ours."""
        result = []
        for token_id, position in zip(token_ids, positions or (), strict=False):
            chosen = position.get(token_id)
            top = sorted(
                (lp.rank, self._token(t, lp), _finite(lp.logprob))
                for t, lp in position.items()
                if lp.rank is not None and lp.rank <= top_n
            )
            result.append(
                TokenLogprob(
                    self._token(token_id, chosen),
                    _finite(chosen.logprob) if chosen is not None else -9999.0,
                    tuple((token, logprob) for _, token, logprob in top),
                )
            )
        return tuple(result)

    def _token(self, token_id: int, logprob: Any) -> str:
        if logprob is not None and logprob.decoded_token is not None:
            return str(logprob.decoded_token)
        return str(self._tokenizer.decode([token_id]))


def _prompt_logprobs(output: Any) -> tuple[float, ...] | None:
    """Each prompt token's log probability (`prompt_logprobs=0`: a dict of the token's own
    per position, None at the first), or None where none were asked."""
    positions = getattr(output, "prompt_logprobs", None)
    if not positions:
        return None
    ids = output.prompt_token_ids or ()
    found = []
    for token_id, position in zip(ids, positions, strict=False):
        chosen = None if position is None else position.get(token_id)
        found.append(0.0 if chosen is None else _finite(chosen.logprob))
    return tuple(found)


def _finite(logprob: float) -> float:
    # -inf has no JSON spelling; OpenAI's API and vLLM's server send -9999.0 instead.
    return max(logprob, -9999.0)


def _request_failed(reason: str) -> str:
    raise RuntimeError(f"the engine failed the request (finish reason {reason!r})")

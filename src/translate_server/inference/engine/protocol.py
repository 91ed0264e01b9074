"""What the service needs from an inference engine, and nothing more.

The service never imports vLLM: it talks to this protocol, so tests can pass a double and
vLLM's moving API stays inside the adapter (`vllm_engine.py` and the modules it uses).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Protocol, TypedDict

import msgspec

from translate_server.observability.engine_figures import EngineTimings


class ChatMessage(TypedDict):
    role: str
    content: str


class StructuredOutput(msgspec.Struct, frozen=True, kw_only=True):
    """Output constrained to JSON: any JSON object, or JSON matching `json_schema` (the schema
    as JSON text)."""

    json_schema: str | None = None


class LoraAdapter(msgspec.Struct, frozen=True):
    """A LoRA adapter the engine serves beside its base model. `id` is unique per load: an
    adapter loaded again under the same name gets a new one, so nothing made by the old
    weights (a cached translation) passes for the new ones."""

    name: str
    id: int
    path: str


class SamplingOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Engine-neutral sampling parameters; the adapter turns them into the engine's own."""

    max_tokens: int
    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0  # 0 disables top-k
    min_p: float = 0.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    repetition_penalty: float = 1.0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    min_tokens: int = 0
    ignore_eos: bool = False
    # Log probabilities of each generated token and of this many likeliest alternatives
    # (0: the chosen token's alone); None: none.
    logprobs: int | None = None
    # The log probability of each prompt token given those before it (`EngineOutput.
    # prompt_logprobs`): how likely the model finds a text it did not write.
    prompt_logprobs: bool = False
    # Token id -> bias added to its logit (-100..100).
    logit_bias: tuple[tuple[int, float], ...] = ()
    structured: StructuredOutput | None = None
    # Only the finished answer is wanted: the engine may skip the output of every step and
    # deliver each choice once, whole, when it ends.
    final_only: bool = False
    # Tokens gathered into one streamed output (the first and the last output are sent at
    # once whatever it says); 1: an output per token.
    stream_interval: int = 1
    # Scheduling order when the engine has more requests than slots: lower goes first
    # (vLLM's priority scheduling). Interactive requests keep 0; document jobs run later.
    priority: int = 0
    # The LoRA adapter that answers, None for the base model. Not a sampling parameter, but
    # it travels with the options: every path into the engine already carries them.
    adapter: LoraAdapter | None = None


class TokenLogprob(msgspec.Struct, frozen=True, array_like=True):
    """One generated token, its log probability and the likeliest alternatives at its
    position (token, logprob), likeliest first."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


class GenerationStep(msgspec.Struct, frozen=True):
    """New output of one choice since the previous step (a delta, never the cumulative text)."""

    index: int
    text: str
    # Completion tokens of this choice so far (cumulative).
    completion_tokens: int
    # "stop", "length" or "abort" once the choice is finished, else None.
    finish_reason: str | None = None
    # The tokens of `text`, when the options asked for log probabilities.
    logprobs: tuple[TokenLogprob, ...] | None = None


class EngineOutput(msgspec.Struct, frozen=True):
    """One item of a generation stream: the steps of the choices that advanced."""

    prompt_tokens: int
    steps: list[GenerationStep]
    finished: bool
    # Prompt tokens found in the engine's prefix cache, where it reports them.
    cached_tokens: int | None = None
    # On the last output only, where the engine measures its requests (see EngineTimings).
    timings: EngineTimings | None = None
    # With `SamplingOptions.prompt_logprobs`, once: each prompt token's log probability given
    # those before it (the first token's, which has none, is 0.0).
    prompt_logprobs: tuple[float, ...] | None = None


class EngineInfo(msgspec.Struct, frozen=True):
    model: str
    max_model_len: int
    # Whether the model ships a chat template (base models do not).
    chat_template: bool = True


class EngineDeadError(RuntimeError):
    """The engine has failed and cannot serve any more requests."""


class EngineRejectedError(ValueError):
    """The engine, or the model's chat template, refused the request as invalid: the client's
    mistake (a role the template does not take, a logit bias outside the vocabulary, a JSON
    schema the engine cannot compile); `param` names the request field where known."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class PromptTooLongError(ValueError):
    def __init__(self, prompt_tokens: int, limit: int) -> None:
        super().__init__(f"prompt has {prompt_tokens} tokens, the model takes at most {limit}")
        self.prompt_tokens = prompt_tokens
        self.limit = limit


class Engine(Protocol):
    """A running inference engine with continuous batching."""

    @property
    def info(self) -> EngineInfo: ...

    @property
    def is_alive(self) -> bool: ...

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        """Render messages with the model's chat template (generation prompt added) to token ids."""
        ...

    def tokenize_text(
        self, text: str, *, special_tokens_as_text: bool = True, add_special_tokens: bool = True
    ) -> list[int]:
        """A plain prompt's token ids (a base model's completion prompt, a legacy completion),
        with the special tokens the tokenizer adds to any text (a BOS) unless
        `add_special_tokens` is False. Special tokens spelled in `text` stay plain text unless
        `special_tokens_as_text` is False (a raw completion prompt, read as vLLM's own server
        reads it)."""
        ...

    def detokenize(self, token_ids: Sequence[int]) -> str:
        """The text of token ids, special tokens spelled out (vLLM's /detokenize). Raises
        EngineRejectedError for an id outside the vocabulary."""
        ...

    def token_strings(self, token_ids: Sequence[int]) -> list[str]:
        """Each token's own string in the vocabulary (`convert_ids_to_tokens`: `Ġword`)."""
        ...

    def generate(
        self,
        prompt_token_ids: list[int],
        options: SamplingOptions,
        request_id: str,
        trace_headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[EngineOutput, None]:
        """Stream outputs until every choice finished. Closing the generator early aborts the
        request in the engine. Raises EngineDeadError if the engine fails.

        `trace_headers` (W3C `traceparent`), given only when tracing is on, make the engine's
        own span of the request a child of the caller's."""
        ...

    async def abort(self, request_id: str) -> None: ...

    def retune_stream(self, request_id: str, interval: int) -> int | None:
        """From now on, one output per `interval` tokens for a running stream (the
        `stream_interval` it started with, changed). Returns the interval it now has, which
        may differ from the one asked where a change would lose tokens; None where the engine
        cannot change it (the request is gone, or the engine does not support it)."""
        ...

    async def add_adapter(self, adapter: LoraAdapter) -> None:
        """Load a LoRA adapter's weights so requests may name it. Raises EngineRejectedError
        when the engine cannot load it (no adapter there, rank or modules it cannot take,
        adapters not enabled)."""
        ...

    async def remove_adapter(self, adapter: LoraAdapter) -> None:
        """Drop a loaded adapter's weights (requests still running with it finish first)."""
        ...

    def unfinished_requests(self) -> int:
        """Requests the engine holds that have not finished (running, waiting or aborting)."""
        ...

    async def check_health(self) -> None:
        """Raises EngineDeadError when the engine cannot serve."""
        ...

    def shutdown(self) -> None: ...

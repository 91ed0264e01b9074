"""What the service needs from an inference engine, and nothing more.

The service never imports vLLM: it talks to this protocol, so tests can pass a double and
vLLM's moving API stays inside one adapter module (`vllm_engine.py`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Protocol, TypedDict

import msgspec


class ChatMessage(TypedDict):
    role: str
    content: str


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
    # Only the finished answer is wanted: the engine may skip the output of every step and
    # deliver each choice once, whole, when it ends.
    final_only: bool = False
    # Scheduling order when the engine has more requests than slots: lower goes first
    # (vLLM's priority scheduling). Interactive requests keep 0; document jobs run later.
    priority: int = 0


class GenerationStep(msgspec.Struct, frozen=True):
    """New output of one choice since the previous step (a delta, never the cumulative text)."""

    index: int
    text: str
    # Completion tokens of this choice so far (cumulative).
    completion_tokens: int
    # "stop", "length" or "abort" once the choice is finished, else None.
    finish_reason: str | None = None


class EngineOutput(msgspec.Struct, frozen=True):
    """One item of a generation stream: the steps of the choices that advanced."""

    prompt_tokens: int
    steps: list[GenerationStep]
    finished: bool


class EngineInfo(msgspec.Struct, frozen=True):
    model: str
    max_model_len: int


class EngineDeadError(RuntimeError):
    """The engine has failed and cannot serve any more requests."""


class EngineRejectedError(ValueError):
    """The engine, or the model's chat template, refused the request as invalid: the client's
    mistake (a role the template does not take, a parameter the engine does not accept)."""

    def __init__(self, message: str, *, param: str | None = None) -> None:
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

    def generate(
        self, prompt_token_ids: list[int], options: SamplingOptions, request_id: str
    ) -> AsyncGenerator[EngineOutput, None]:
        """Stream outputs until every choice finished. Closing the generator early aborts the
        request in the engine. Raises EngineDeadError if the engine fails."""
        ...

    async def abort(self, request_id: str) -> None: ...

    def unfinished_requests(self) -> int:
        """Requests the engine holds that have not finished (running, waiting or aborting)."""
        ...

    async def check_health(self) -> None:
        """Raises EngineDeadError when the engine cannot serve."""
        ...

    def shutdown(self) -> None: ...

"""The `Engine` protocol over vLLM's `AsyncLLM` (vLLM 0.32): the only module that imports vLLM.

vLLM is imported lazily, inside `create_vllm_engine`, so importing the package (the CLI's
`--help`, unit tests, the OpenAPI export) stays fast and works without vLLM installed.

Facts about the installed vLLM 0.32 this adapter relies on (checked against its source):
- `AsyncLLMEngine is vllm.v1.engine.async_llm.AsyncLLM`; `from_engine_args` and `shutdown` are
  synchronous. Created inside a running event loop, it starts its output handler on that loop.
- `AsyncLLM.get_tokenizer()` is synchronous in 0.32 (earlier releases had it async).
- `SamplingParams.top_k == 0` disables top-k (-1 is still accepted as a legacy spelling).
- With `RequestOutputKind.DELTA` every `RequestOutput` carries only the new text and token ids;
  with n > 1 each item carries the children that advanced, and `finished` turns true once all
  children finished.
- A dead engine raises `vllm.v1.engine.exceptions.EngineDeadError`; a too-long prompt raises a
  plain `VLLMValidationError` with no length fields, so this adapter checks lengths itself
  instead of parsing vLLM's message.
- Closing vLLM's `generate()` generator (GeneratorExit) or cancelling its task aborts the
  request in the engine; this adapter closes it explicitly so that happens at once.
- Token ids go in as `vllm.inputs.tokens_input(ids)` (an already rendered `TokensInput`):
  a raw `TokensPrompt` still works but takes vLLM's deprecated "raw prompt" path, which
  renders it again and logs a deprecation warning.
- vLLM's import keeps an exception traceback alive, which pins the frames that first imported
  it (and their locals) for the life of the process; so no frame here holds the `AsyncLLM` in
  a local variable, or `shutdown()` could not drop the last reference.
- Shutting down waits up to 5 s for the worker process by default and then kills the
  EngineCore, leaking shared memory; on a busy CPU machine a clean exit takes 5-7 s, so
  `shutdown()` allows more.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, Any

import structlog

from translate_server.inference.engine.prompt_encoder import ChatPromptTokenizer
from translate_server.inference.engine.protocol import (
    ChatMessage,
    EngineDeadError,
    EngineInfo,
    EngineRejectedError,
    EngineOutput,
    GenerationStep,
    PromptTooLongError,
    SamplingOptions,
)
from translate_server.settings import EngineSettings

if TYPE_CHECKING:
    from vllm import AsyncLLMEngine

log = structlog.get_logger(__name__)

# Seconds the engine's processes get to exit cleanly before they are killed.
SHUTDOWN_TIMEOUT = 20.0
# The KV cache on a CPU when none is configured: ~45k tokens of SmolLM2-135M in float32.
CPU_KV_CACHE_GIB = 2.0

# vLLM's finish reasons -> ours. "repetition" (vLLM's opt-in loop detector) is the model
# stopping; "error" is a failed request and is raised instead (see `generate`).
_FINISH_REASONS = {"stop": "stop", "length": "length", "abort": "abort", "repetition": "stop"}


class VllmEngine:
    """One `AsyncLLM`, created by `create_vllm_engine`, shut down by `shutdown()`."""

    def __init__(self, engine: AsyncLLMEngine, model_name: str, on_cpu: bool) -> None:
        from vllm import SamplingParams
        from vllm.inputs import tokens_input
        from vllm.sampling_params import RequestOutputKind
        from vllm.v1.engine.exceptions import EngineDeadError as VllmEngineDeadError

        self._engine: AsyncLLMEngine | None = engine
        self._sampling_params = SamplingParams
        self._tokens_input = tokens_input
        self._delta = RequestOutputKind.DELTA
        self._final_only = RequestOutputKind.FINAL_ONLY
        self._dead_error = VllmEngineDeadError
        self.on_cpu = on_cpu
        max_model_len = engine.model_config.max_model_len
        self._info = EngineInfo(model=model_name, max_model_len=max_model_len)
        # vLLM needs room for at least one output token after the prompt.
        self._max_prompt_tokens = max_model_len - 1
        self._tokenizer: Any = engine.get_tokenizer()
        self._chat_prompt = ChatPromptTokenizer(self._tokenizer)
        if not self._chat_prompt.has_chat_template:
            log.warning("engine_no_chat_template", model=model_name, fallback="chatml")

    @property
    def info(self) -> EngineInfo:
        return self._info

    @property
    def is_alive(self) -> bool:
        engine = self._engine
        return engine is not None and not engine.errored

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        return self._chat_prompt(messages)

    def _params(self, options: SamplingOptions) -> Any:
        return self._sampling_params(
            n=options.n,
            max_tokens=options.max_tokens,
            temperature=options.temperature,
            top_p=options.top_p,
            top_k=options.top_k,  # 0 disables top-k in vLLM 0.32, as in ours
            min_p=options.min_p,
            presence_penalty=options.presence_penalty,
            frequency_penalty=options.frequency_penalty,
            repetition_penalty=options.repetition_penalty,
            stop=list(options.stop) or None,
            seed=options.seed,
            min_tokens=options.min_tokens,
            ignore_eos=options.ignore_eos,
            detokenize=True,
            # FINAL_ONLY spares vLLM building, and us handling, an output for every token.
            output_kind=self._final_only if options.final_only else self._delta,
        )

    async def generate(
        self, prompt_token_ids: list[int], options: SamplingOptions, request_id: str
    ) -> AsyncGenerator[EngineOutput, None]:
        engine = self._engine
        if engine is None or engine.errored:
            raise EngineDeadError("the engine is not running")
        prompt_tokens = len(prompt_token_ids)
        if prompt_tokens > self._max_prompt_tokens:
            raise PromptTooLongError(prompt_tokens, self._max_prompt_tokens)
        try:
            params = self._params(options)
        except (ValueError, TypeError) as exc:
            raise EngineRejectedError(f"The engine refused the request: {exc}") from None
        stream = engine.generate(self._tokens_input(prompt_token_ids), params, request_id,
                                 priority=options.priority)
        completion_tokens = [0] * options.n
        try:
            # aclosing: leaving early (client gone, deadline) closes vLLM's generator right
            # away, which aborts the request in the engine and frees its KV cache.
            async with contextlib.aclosing(stream):
                try:
                    output = await anext(stream)
                except StopAsyncIteration:
                    return
                except (ValueError, TypeError) as exc:
                    # vLLM validates a request when it is added, on the first step: its
                    # refusal is the client's 400 (a failure later on is not).
                    raise EngineRejectedError(f"The engine refused the request: {exc}") from None
                yield _engine_output(output, prompt_tokens, completion_tokens)
                async for output in stream:
                    yield _engine_output(output, prompt_tokens, completion_tokens)
        except self._dead_error as exc:
            raise EngineDeadError(str(exc)) from exc

    async def abort(self, request_id: str) -> None:
        if self._engine is not None:
            await self._engine.abort(request_id)

    def unfinished_requests(self) -> int:
        engine = self._engine
        return 0 if engine is None else engine.get_num_unfinished_requests()

    async def check_health(self) -> None:
        engine = self._engine
        if engine is None:
            raise EngineDeadError("the engine is shut down")
        try:
            await engine.check_health()
        except self._dead_error as exc:
            raise EngineDeadError(str(exc)) from exc

    def shutdown(self) -> None:
        # The last reference goes with this: AsyncLLM.__del__ would otherwise run its
        # shutdown again at interpreter exit, when the modules it needs are torn down.
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.shutdown(timeout=SHUTDOWN_TIMEOUT)


def _engine_output(output: Any, prompt_tokens: int, completion_tokens: list[int]) -> EngineOutput:
    steps = []
    for choice in output.outputs:
        index = choice.index
        completion_tokens[index] += len(choice.token_ids)
        reason = choice.finish_reason
        if reason is not None:
            reason = _FINISH_REASONS.get(reason) or _request_failed(reason)
        steps.append(GenerationStep(index, choice.text, completion_tokens[index], reason))
    return EngineOutput(prompt_tokens, steps, output.finished)


def _request_failed(reason: str) -> str:
    raise RuntimeError(f"the engine failed the request (finish reason {reason!r})")


def _prepare_environment() -> bool:
    """Set vLLM's environment before its first import; returns True on a CPU-only machine."""
    os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
    # Our logging pipeline (structlog over stdlib) formats vLLM's records: vLLM must not
    # install its own handler, so its `vllm.*` loggers propagate to the root logger.
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    import torch

    on_cpu = not torch.cuda.is_available()
    if on_cpu:
        os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    return on_cpu


def engine_args_kwargs(settings: EngineSettings, model: str, on_cpu: bool) -> dict[str, Any]:
    """`AsyncEngineArgs` keyword arguments for `settings` (pure; tested without vLLM)."""
    if on_cpu:
        dtype = "float32" if settings.dtype == "auto" else settings.dtype
        enforce_eager = True if settings.enforce_eager is None else settings.enforce_eager
    else:
        dtype = settings.dtype
        enforce_eager = bool(settings.enforce_eager)
    kwargs: dict[str, Any] = {
        "model": model,
        "served_model_name": settings.model_name,
        "max_num_seqs": settings.max_num_seqs,
        "max_model_len": settings.max_model_len,
        "dtype": dtype,
        "enforce_eager": enforce_eager,
        "tensor_parallel_size": settings.tensor_parallel_size,
        "seed": settings.seed,
        # On, vLLM keeps its `vllm:*` Prometheus metrics (TTFT, inter-token latency, KV-cache
        # use, running/waiting requests) in prometheus_client's default registry.
        "disable_log_stats": not settings.engine_metrics,
        "enable_log_requests": False,
        # Waiting requests are taken by `SamplingOptions.priority`, then arrival: document
        # jobs (priority 1) never hold up interactive requests (0) in the engine's queue.
        "scheduling_policy": "priority",
    }
    if not on_cpu:
        kwargs["gpu_memory_utilization"] = settings.gpu_memory_utilization
    kv_cache_gib = settings.kv_cache_gib
    if kv_cache_gib is None and on_cpu:
        # Left alone, vLLM on a CPU reserves 92% of the memory node for the KV cache and
        # refuses to start when a little of it is taken (the page cache is enough).
        # VLLM_CPU_KVCACHE_SPACE, where set, still overrides this inside vLLM.
        kv_cache_gib = CPU_KV_CACHE_GIB
    if kv_cache_gib is not None:
        kwargs["kv_cache_memory_bytes"] = int(kv_cache_gib * 2**30)
    if settings.max_num_batched_tokens is not None:
        kwargs["max_num_batched_tokens"] = settings.max_num_batched_tokens
    return kwargs


def create_vllm_engine(settings: EngineSettings) -> VllmEngine:
    """Start the engine (blocks for the model load: ~20 s on a small CPU machine).

    Call it inside the running event loop that will serve requests: vLLM binds its output
    handler to that loop.
    """
    import time

    from translate_server.inference.model_files import resolve_model

    on_cpu = _prepare_environment()
    model = resolve_model(settings)
    from vllm import AsyncEngineArgs, AsyncLLMEngine

    kwargs = engine_args_kwargs(settings, model, on_cpu)
    log.info(
        "engine_starting",
        model=model,
        served_model_name=settings.model_name,
        device="cpu" if on_cpu else "gpu",
        dtype=kwargs["dtype"],
    )
    started = time.monotonic()
    # Passed straight in, never bound to a local here (see the module docstring).
    adapter = VllmEngine(
        AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**kwargs)), settings.model_name, on_cpu
    )
    log.info(
        "engine_started",
        seconds=round(time.monotonic() - started, 1),
        max_model_len=adapter.info.max_model_len,
    )
    return adapter


def freeze_vllm_environment() -> None:
    """From now on, vLLM reads each `VLLM_*` variable once, as its engine core does after
    start-up. Otherwise the serving process looks some of them up in `os.environ` for every
    engine output (about 2% of its CPU per token on a small model). Only a server calls this:
    nothing there changes those variables afterwards."""
    from vllm import envs

    envs.enable_envs_cache()

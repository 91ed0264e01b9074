"""The `Engine` protocol over vLLM's `AsyncLLM` (vLLM 0.32): the only module that imports vLLM.

Beside it, what needs no vLLM import: `engine_args` (the settings as vLLM's engine arguments,
the CPU's dtype), `outputs` (vLLM's outputs as ours) and `timings` (vLLM's statistics of a
request as `EngineTimings`); each lists the facts about vLLM it relies on. `vllm_environment`
sets the process up for vLLM before its first import: its variables and the CPU placement.

vLLM is imported lazily, inside `create_vllm_engine`, so importing the package (the CLI's
`--help`, unit tests, the OpenAPI export) stays fast and works without vLLM installed.

Facts about the installed vLLM 0.32 this adapter relies on (checked against its source):
- `AsyncLLMEngine is vllm.v1.engine.async_llm.AsyncLLM`; `from_engine_args` and `shutdown` are
  synchronous. Created inside a running event loop, it starts its output handler on that loop.
- `AsyncLLM.get_tokenizer()` is synchronous in 0.32 (earlier releases had it async).
- `SamplingParams.top_k == 0` disables top-k (-1 is still accepted as a legacy spelling).
- With `RequestOutputKind.DELTA` every `RequestOutput` carries only the new text and token ids
  (`outputs` reads them).
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
- `SamplingParams.stream_interval=N` (per request, clamped up to the engine's own, default 1)
  makes the output processor send one DELTA output per N tokens, the first and the finished
  one at once; the held-back token ids and text come with the next output sent. A running
  request's interval can be changed in vLLM's output processor (`stream_retune` says how and
  why that is safe).
- `SamplingParams.logprobs=k` asks for the k likeliest tokens' log probabilities beside each
  chosen token's (`outputs` reads them); `prompt_logprobs=0` each prompt token's own, on
  the request's output (all of them on the FINAL_ONLY one), the first position None.
  `logit_bias` takes token ids;
  `structured_outputs=StructuredOutputsParams(json=schema | json_object=True)` constrains the
  output (xgrammar, which also runs on a CPU). Invalid values of these raise
  `VLLMValidationError` (with `parameter`) when the request is added.
- With statistics on (`disable_log_stats=False`), every `RequestOutput` carries `metrics`, the
  request's statistics (`timings` reads them); with statistics off it is None.
- `generate(..., trace_headers=...)` (a W3C `traceparent`) makes vLLM's own `llm_request` span,
  exported to `otlp_traces_endpoint` from the front-end process, a child of the caller's span;
  without an endpoint vLLM drops the headers with a warning, so they are passed only then.
- LoRA (`enable_lora`, `max_loras`, `max_lora_rank`): `generate(..., lora_request=LoRARequest(
  name, int_id, path))` runs the request with that adapter, batched with requests for the base
  model and other adapters (the CPU platform has a LoRA path: `PunicaWrapperCPU`; it turns
  compilation off). `add_lora` loads one ahead (a failure comes back as a plain Exception,
  "Call to add_lora method failed", the engine unharmed); `remove_lora(int_id)` drops it.
  vLLM 0.32 has no GGUF loader at all: bundled GGUF models are served as the safetensors
  they are converted to (`model_files`), so LoRA works on them too.
- Shutting down waits up to 5 s for the worker process by default and then kills the
  EngineCore, leaking shared memory; on a busy CPU machine a clean exit takes 5-7 s, so
  `shutdown()` allows more.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import structlog

from translate_server.inference.engine import cpu_placement
from translate_server.inference.engine.engine_args import engine_args_kwargs
from translate_server.inference.engine.outputs import OutputReader
from translate_server.inference.engine.prompt_encoder import ChatPromptTokenizer
from translate_server.inference.engine.protocol import (
    ChatMessage,
    EngineDeadError,
    EngineInfo,
    EngineOutput,
    EngineRejectedError,
    LoraAdapter,
    PromptTooLongError,
    SamplingOptions,
)
from translate_server.inference.engine.stream_retune import retune
from translate_server.inference.engine.vllm_environment import (
    place_on_cpus,
    prepare_vllm_environment,
)
from translate_server.settings import EngineSettings

if TYPE_CHECKING:
    from vllm import AsyncLLMEngine

log = structlog.get_logger(__name__)

# Seconds the engine's processes get to exit cleanly before they are killed.
SHUTDOWN_TIMEOUT = 20.0


class VllmEngine:
    """One `AsyncLLM`, created by `create_vllm_engine`, shut down by `shutdown()`."""

    def __init__(self, engine: AsyncLLMEngine, model_name: str, on_cpu: bool) -> None:
        from vllm import SamplingParams
        from vllm.exceptions import VLLMValidationError
        from vllm.inputs import tokens_input
        from vllm.lora.request import LoRARequest
        from vllm.sampling_params import RequestOutputKind, StructuredOutputsParams
        from vllm.v1.engine.exceptions import EngineDeadError as VllmEngineDeadError

        self._engine: AsyncLLMEngine | None = engine
        self._sampling_params = SamplingParams
        self._structured_params = StructuredOutputsParams
        self._validation_error = VLLMValidationError
        self._tokens_input = tokens_input
        self._lora_request = LoRARequest
        self._delta = RequestOutputKind.DELTA
        self._final_only = RequestOutputKind.FINAL_ONLY
        self._dead_error = VllmEngineDeadError
        self.on_cpu = on_cpu
        max_model_len = engine.model_config.max_model_len
        # vLLM needs room for at least one output token after the prompt.
        self._max_prompt_tokens = max_model_len - 1
        self._tokenizer: Any = engine.get_tokenizer()
        vocabulary = engine.model_config.get_vocab_size()
        self._max_token_id = max(
            getattr(self._tokenizer, "max_token_id", vocabulary - 1), vocabulary - 1
        )
        self._chat_prompt = ChatPromptTokenizer(self._tokenizer)
        self._output = OutputReader(self._tokenizer).read
        has_template = self._chat_prompt.has_chat_template
        self._info = EngineInfo(
            model=model_name, max_model_len=max_model_len, chat_template=has_template
        )
        if not has_template:
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

    def tokenize_text(
        self, text: str, *, special_tokens_as_text: bool = True, add_special_tokens: bool = True
    ) -> list[int]:
        # The tokenizer's own special tokens (Gemma's BOS) are added. A translation prompt's
        # text that spells one ("<eos>") is split like any other text, so it cannot end the
        # prompt; a legacy completion's raw prompt is read as vLLM's server reads it.
        return list(
            self._tokenizer.encode(
                text,
                add_special_tokens=add_special_tokens,
                split_special_tokens=special_tokens_as_text,
            )
        )

    def detokenize(self, token_ids: Sequence[int]) -> str:
        self._check_vocabulary(token_ids)
        return str(self._tokenizer.decode(list(token_ids)))

    def token_strings(self, token_ids: Sequence[int]) -> list[str]:
        self._check_vocabulary(token_ids)
        return [str(token) for token in self._tokenizer.convert_ids_to_tokens(list(token_ids))]

    def _check_vocabulary(self, token_ids: Sequence[int]) -> None:
        # As vLLM's renderer checks prompt ids: past the larger of the tokenizer's and the
        # model's vocabularies, or negative, an id is out of vocabulary.
        for token in token_ids:
            if not 0 <= token <= self._max_token_id:
                raise EngineRejectedError(f"Token id {token} is out of vocabulary", "tokens")

    def _structured(self, options: SamplingOptions) -> Any:
        if options.structured is None:
            return None
        if options.structured.json_schema is None:
            return self._structured_params(json_object=True)
        return self._structured_params(json=options.structured.json_schema)

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
            logprobs=options.logprobs,
            prompt_logprobs=0 if options.prompt_logprobs else None,
            logit_bias=dict(options.logit_bias) or None,
            structured_outputs=self._structured(options),
            detokenize=True,
            # FINAL_ONLY spares vLLM building, and us handling, an output for every token.
            output_kind=self._final_only if options.final_only else self._delta,
            # vLLM sends the first and the finished output at once, and the text the interval
            # held back with the finished one.
            stream_interval=options.stream_interval if options.stream_interval > 1 else None,
        )

    async def generate(
        self,
        prompt_token_ids: list[int],
        options: SamplingOptions,
        request_id: str,
        trace_headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[EngineOutput, None]:
        engine = self._engine
        if engine is None or engine.errored:
            raise EngineDeadError("the engine is not running")
        prompt_tokens = len(prompt_token_ids)
        if prompt_tokens > self._max_prompt_tokens:
            raise PromptTooLongError(prompt_tokens, self._max_prompt_tokens)
        try:
            params = self._params(options)
        except (self._validation_error, ValueError, TypeError) as exc:
            raise EngineRejectedError(str(exc), getattr(exc, "parameter", None)) from None
        stream = engine.generate(
            self._tokens_input(prompt_token_ids),
            params,
            request_id,
            priority=options.priority,
            lora_request=self._lora(options.adapter),
            **({} if trace_headers is None else {"trace_headers": trace_headers}),
        )
        top_n = options.logprobs
        completion_tokens = [0] * options.n
        try:
            # aclosing: leaving early (client gone, deadline) closes vLLM's generator right
            # away, which aborts the request in the engine and frees its KV cache.
            async with contextlib.aclosing(stream):
                try:
                    output = await anext(stream)
                except StopAsyncIteration:
                    return
                except (self._validation_error, ValueError, TypeError) as exc:
                    # vLLM validates a request as it is added, on the first step
                    # (`VLLMValidationError`, or a plain ValueError for some schemas): its
                    # refusal is the client's 400 (a failure later on is not).
                    raise EngineRejectedError(str(exc), getattr(exc, "parameter", None)) from None
                yield self._output(output, prompt_tokens, completion_tokens, top_n)
                async for output in stream:
                    yield self._output(output, prompt_tokens, completion_tokens, top_n)
        except self._dead_error as exc:
            raise EngineDeadError(str(exc)) from exc

    def _lora(self, adapter: LoraAdapter | None) -> Any:
        if adapter is None:
            return None
        return self._lora_request(adapter.name, adapter.id, adapter.path)

    async def add_adapter(self, adapter: LoraAdapter) -> None:
        engine = self._engine
        if engine is None or engine.errored:
            raise EngineDeadError("the engine is not running")
        if engine.vllm_config.lora_config is None:
            raise EngineRejectedError("This server was started without LoRA adapters.")
        try:
            await engine.add_lora(self._lora(adapter))
        except self._dead_error as exc:
            raise EngineDeadError(str(exc)) from exc
        except Exception as exc:  # noqa: BLE001 - vLLM reports a worker's refusal as Exception
            raise EngineRejectedError(f"The adapter {adapter.name} did not load: {exc}") from None

    async def remove_adapter(self, adapter: LoraAdapter) -> None:
        engine = self._engine
        if engine is not None and engine.vllm_config.lora_config is not None:
            await engine.remove_lora(adapter.id)

    async def abort(self, request_id: str) -> None:
        if self._engine is not None:
            await self._engine.abort(request_id)

    def retune_stream(self, request_id: str, interval: int) -> int | None:
        # vLLM's internals, not its API: without an output processor, nothing to change.
        processor = getattr(self._engine, "output_processor", None)
        return None if processor is None else retune(processor, request_id, interval)

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


def create_vllm_engine(settings: EngineSettings) -> VllmEngine:
    """Start the engine (blocks for the model load: ~20 s on a small CPU machine).

    Call it inside the running event loop that will serve requests: vLLM binds its output
    handler to that loop.
    """
    import time

    from translate_server.inference.model_files import resolve_model

    on_cpu = prepare_vllm_environment()
    placement = place_on_cpus(settings) if on_cpu else None
    model = resolve_model(settings)
    from vllm import AsyncEngineArgs, AsyncLLMEngine

    kwargs = engine_args_kwargs(settings, model, on_cpu)
    if settings.otlp_traces_endpoint:
        # vLLM's spans name no service of their own ("unknown_service"); ours set theirs.
        os.environ.setdefault("OTEL_SERVICE_NAME", "vllm")
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
    if placement is not None:
        cpu_placement.after_engine_start(placement)
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

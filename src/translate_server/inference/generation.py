"""The one code path from an HTTP request into the engine, shared by both surfaces.

No queue of our own stands between a request and the engine: each request is handed to the
engine as soon as it is admitted, so continuous batching sees every request at once.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from translate_server.errors import (
    ApiError,
    DeadlineExceededError,
    EngineFailedError,
    InvalidRequestError,
)
from translate_server.inference.coalescing import StreamCoalescer, StreamPace
from translate_server.inference.engine import (
    ChatMessage,
    Engine,
    EngineDeadError,
    EngineOutput,
    EngineRejectedError,
    GenerationStep,
    PromptTooLongError,
    SamplingOptions,
    TokenLogprob,
)
from translate_server.inference.engine_failures import EngineFailures
from translate_server.observability.record import RequestRecord

if TYPE_CHECKING:
    from translate_server.observability.tracing import Tracing

# Characters of chat content from which a prompt is tokenized off the event loop. Tokenizing
# costs 4-5 us per token on a slow core, so 2,000 characters (about 500 tokens) would stall
# every stream for about 2 ms. The hand-off to a thread costs about 0.15 ms of latency and
# 0.18 ms of CPU: little beside that, but half again the cost of a typical translation's
# prompt, on machines where the thread gets no core of its own. `benchmarks/loop_stall.py`
# measures the stall.
THREAD_PROMPT_CHARS = 2000


class Completion(msgspec.Struct):
    """A finished generation: the text and finish reason of each choice."""

    texts: list[str]
    finish_reasons: list[str | None]
    prompt_tokens: int
    completion_tokens: int
    # Each choice's tokens with their log probabilities, when the options asked for them.
    logprobs: list[tuple[TokenLogprob, ...]] | None = None
    cached_tokens: int | None = None
    prompt_logprobs: tuple[float, ...] | None = None  # with `options.prompt_logprobs`


class Prompt(msgspec.Struct, frozen=True):
    token_ids: list[int]

    @property
    def tokens(self) -> int:
        return len(self.token_ids)


class StartedStream(NamedTuple):
    """A stream whose engine request is running: its first step (None if it ended without
    one) and the steps after it."""

    first: GenerationStep | None
    rest: AsyncGenerator[GenerationStep, None]


class GenerationService:
    def __init__(
        self,
        engine: Engine,
        tracing: Tracing | None = None,
        stream_coalesce_ms: float = 0.0,
        failures: EngineFailures | None = None,
    ) -> None:
        self.engine = engine
        # How each engine request ended, success or the engine's failure: every surface's
        # requests pass here, so this is where the health routes learn of a failing engine.
        self.failures = failures or EngineFailures(threshold=5)  # (a service built alone)
        self.tracing = tracing
        self.pace = StreamPace(stream_coalesce_ms)
        self._ids = itertools.count()
        self._id_prefix = f"ts-{id(self):x}-"
        self._active: set[str] = set()

    @property
    def max_model_len(self) -> int:
        return self.engine.info.max_model_len

    async def prepare(self, messages: Sequence[ChatMessage], param: str) -> Prompt:
        """Render and tokenize a chat; a prompt that leaves no room to answer is refused."""
        return self.check(await self.render(messages), param)

    async def render(self, messages: Sequence[ChatMessage] | str) -> Prompt:
        """The prompt of a chat, or of a plain text (a base model's completion prompt). A long
        one is tokenized in a worker thread: the tokenizer lets go of the GIL there, and the
        streams in flight on the event loop go on meanwhile."""
        if self.tracing is not None:
            return await self._render_traced(messages, self.tracing)
        chars = (
            len(messages)
            if isinstance(messages, str)
            else sum(len(message["content"]) for message in messages)
        )
        if chars < THREAD_PROMPT_CHARS:
            return self.render_inline(messages)
        return Prompt(await asyncio.to_thread(self._tokenize, messages))

    async def prepare_text(self, text: str, param: str) -> Prompt:
        """Tokenize a legacy completion's raw prompt as vLLM's server does (special tokens
        spelled in it are special), a long one off the loop."""
        tokenize = functools.partial(self.engine.tokenize_text, special_tokens_as_text=False)
        if len(text) < THREAD_PROMPT_CHARS:
            return self.check(Prompt(tokenize(text)), param)
        return self.check(Prompt(await asyncio.to_thread(tokenize, text)), param)

    async def _render_traced(
        self, messages: Sequence[ChatMessage] | str, tracing: Tracing
    ) -> Prompt:
        with tracing.span("tokenize") as span:
            chars = (
                len(messages)
                if isinstance(messages, str)
                else sum(len(message["content"]) for message in messages)
            )
            if chars < THREAD_PROMPT_CHARS:
                prompt = self.render_inline(messages)
            else:
                span.set_attribute("tokenize.thread", True)
                prompt = Prompt(await asyncio.to_thread(self._tokenize, messages))
            span.set_attribute("gen_ai.usage.input_tokens", prompt.tokens)
            return prompt

    def render_inline(self, messages: Sequence[ChatMessage] | str) -> Prompt:
        """The prompt, tokenized on the caller's thread (short prompts only)."""
        return Prompt(self._tokenize(messages))

    def _tokenize(self, messages: Sequence[ChatMessage] | str) -> list[int]:
        if isinstance(messages, str):
            return self.engine.tokenize_text(messages)
        return self.engine.tokenize_chat(messages)

    def check(self, prompt: Prompt, param: str) -> Prompt:
        if prompt.tokens >= self.max_model_len:
            raise InvalidRequestError(
                f"The input is {prompt.tokens} tokens long once formatted; this model takes "
                f"at most {self.max_model_len - 1} tokens of input.",
                param=param,
                code="context_length_exceeded",
            )
        return prompt

    def remaining_context(self, prompt: Prompt) -> int:
        return self.max_model_len - prompt.tokens

    def _request_id(self) -> str:
        # Unique per engine request, even when clients reuse their X-Request-ID.
        return self._id_prefix + str(next(self._ids))

    async def complete(
        self, prompt: Prompt, options: SamplingOptions, record: RequestRecord, deadline: float
    ) -> Completion:
        texts: list[list[str]] = [[] for _ in range(options.n)]
        finish_reasons: list[str | None] = [None] * options.n
        counts = [0] * options.n
        logprobs: list[tuple[TokenLogprob, ...]] = [()] * options.n
        # Nothing reaches the client before the end, so the engine need not hand over every
        # token either (and a time to first token would mean nothing here: none is recorded).
        options = msgspec.structs.replace(options, final_only=True)
        request_id, outputs, span = self._submit(prompt, options, record)
        output: EngineOutput | None = None
        prompt_logprobs = None
        try:
            async with asyncio.timeout_at(deadline):
                async for output in outputs:
                    prompt_logprobs = output.prompt_logprobs or prompt_logprobs
                    for step in output.steps:
                        texts[step.index].append(step.text)
                        counts[step.index] = step.completion_tokens
                        if step.logprobs is not None:
                            logprobs[step.index] += step.logprobs
                        if step.finish_reason is not None:
                            finish_reasons[step.index] = step.finish_reason
        except TimeoutError:
            raise _deadline_exceeded() from None
        except EngineDeadError as exc:
            self.failures.failed()
            raise _engine_failed() from exc
        except Exception as exc:
            if _engine_fault(exc):
                self.failures.failed()
            raise
        finally:
            self._finished(record, prompt, sum(counts), output, span)
            await self._end(request_id, outputs)
        if "abort" in finish_reasons:
            raise _engine_aborted()
        self.failures.succeeded()
        return Completion(
            texts=["".join(parts) for parts in texts],
            finish_reasons=finish_reasons,
            prompt_tokens=prompt.tokens,
            completion_tokens=sum(counts),
            logprobs=None if options.logprobs is None else logprobs,
            cached_tokens=None if output is None else output.cached_tokens,
            prompt_logprobs=prompt_logprobs,
        )

    async def start_stream(
        self,
        prompt: Prompt,
        options: SamplingOptions,
        record: RequestRecord,
        deadline: float,
        *,
        logprobs_streamed: bool = True,
    ) -> StartedStream:
        """Submit, and wait for the first step while a failure can still be answered with an
        error status (a streamed 200 cannot be taken back)."""
        steps = self.stream(prompt, options, record, deadline, logprobs_streamed=logprobs_streamed)
        try:
            first = await anext(steps, None)
        except BaseException:
            await steps.aclose()
            raise
        return StartedStream(first, steps)

    async def stream(
        self,
        prompt: Prompt,
        options: SamplingOptions,
        record: RequestRecord,
        deadline: float,
        *,
        logprobs_streamed: bool = True,
    ) -> AsyncGenerator[GenerationStep, None]:
        """The engine's steps, as it hands them over (each a choice's new text).

        Leaving the iteration early (client gone, deadline) aborts the engine request.
        `logprobs_streamed`: the caller streams the log probabilities it asked for token by
        token (chat); one that only sums them (a translation's estimate) lets the stream be
        coalesced, each output carrying the log probabilities of its tokens.
        """
        counts = [0] * options.n
        coalescer = None
        if self.pace.enabled and (options.logprobs is None or not logprobs_streamed):
            # Log probabilities a client reads stream token by token; the rest is coalesced.
            coalescer = StreamCoalescer(self.pace, options.n)
            options = msgspec.structs.replace(options, stream_interval=coalescer.interval)
        request_id, outputs, span = self._submit(prompt, options, record)
        timer = _StreamDeadline(deadline)
        output: EngineOutput | None = None
        try:
            while True:
                try:
                    output = await timer.next(outputs)
                except StopAsyncIteration:
                    return
                except EngineDeadError as exc:
                    self.failures.failed()
                    raise _engine_failed() from exc
                except Exception as exc:
                    if _engine_fault(exc):
                        self.failures.failed()
                    raise
                record.token_arrived()
                if output.finished and not _aborted(output):
                    # Counted before the last steps are yielded: a caller may stop at them.
                    self.failures.succeeded()
                # The interval follows the stream's pace (the gaps stay within the bound).
                if coalescer and (interval := coalescer.observe(output, time.perf_counter())):
                    coalescer.retuned(self.engine.retune_stream(request_id, interval), interval)
                for step in output.steps:
                    counts[step.index] = step.completion_tokens
                    if step.finish_reason == "abort":
                        raise _engine_aborted()
                    yield step
        finally:
            timer.cancel()
            self._finished(record, prompt, sum(counts), output, span)
            await self._end(request_id, outputs)

    # Both loops above iterate the engine's outputs themselves: a generator of our own in
    # between would cost a resumption per output, for every token streamed.
    def _submit(
        self, prompt: Prompt, options: SamplingOptions, record: RequestRecord
    ) -> tuple[str, AsyncGenerator[EngineOutput, None], Any]:
        if not self.engine.is_alive:
            raise EngineDeadError("engine is not running")
        record.engine_submitted()
        request_id = self._request_id()
        self._active.add(request_id)
        if self.tracing is None:
            return request_id, self.engine.generate(prompt.token_ids, options, request_id), None
        span, headers = self.tracing.engine_request(request_id, prompt.tokens, options.max_tokens)
        return (
            request_id,
            self.engine.generate(prompt.token_ids, options, request_id, trace_headers=headers),
            span,
        )

    def _finished(
        self,
        record: RequestRecord,
        prompt: Prompt,
        completion_tokens: int,
        last: EngineOutput | None,
        span: Any,
    ) -> None:
        # The engine's figures ride on its last output: read once per request, not per token.
        timings = None if last is None else last.timings
        cached = None if last is None else last.cached_tokens
        record.engine_finished(prompt.tokens, completion_tokens, timings, cached)
        if span is not None and self.tracing is not None:
            self.tracing.engine_request_ended(span, completion_tokens, timings)

    async def _end(self, request_id: str, outputs: AsyncGenerator[EngineOutput, None]) -> None:
        # Closing the engine's generator at once aborts a request that was left early.
        self._active.discard(request_id)
        await outputs.aclose()

    async def abort_all(self) -> None:
        """Abort every engine request in flight (shutdown after the grace period)."""
        for request_id in list(self._active):
            await self.engine.abort(request_id)


class _StreamDeadline:
    """One timer for a whole stream, cancelling whichever task is waiting on the engine when
    it fires. (`asyncio.timeout_at` around every step would arm and disarm a timer for every
    engine output; the steps of one stream are not always awaited by the same task.)"""

    __slots__ = ("_expired", "_handle", "_loop", "_waiter")

    def __init__(self, deadline: float) -> None:
        self._waiter: asyncio.Task[object] | None = None
        self._expired = False
        self._loop = asyncio.get_running_loop()
        self._handle = self._loop.call_at(deadline, self._expire)

    def _expire(self) -> None:
        self._expired = True
        if self._waiter is not None:
            self._waiter.cancel()

    async def next(self, outputs: AsyncGenerator[EngineOutput, None]) -> EngineOutput:
        if self._expired:
            raise _deadline_exceeded()
        task = asyncio.current_task(self._loop)  # given the loop, it skips looking it up
        self._waiter = task
        try:
            return await anext(outputs)
        except asyncio.CancelledError:
            # Ours alone: a cancellation from elsewhere too (the client left) goes on as one.
            # `_expired` is set by the deadline's timer while this awaits; mypy narrowed it.
            if self._expired and task is not None and task.uncancel() == 0:  # type: ignore[unreachable]
                raise _deadline_exceeded() from None
            raise
        finally:
            self._waiter = None

    def cancel(self) -> None:
        self._handle.cancel()


def _aborted(output: EngineOutput) -> bool:
    return any(step.finish_reason == "abort" for step in output.steps)


def _engine_fault(exc: Exception) -> bool:
    """Whether an exception out of the engine's stream is the engine's failure, rather than
    the request's own end: refused as invalid (a 400), past its deadline, aborted at shutdown
    (ours, raised as ApiErrors). Anything unexpected is the engine's."""
    return not isinstance(exc, EngineRejectedError | PromptTooLongError | ApiError)


# Failures after `_submit` handed the request to the engine: 502, so never replayed by a load
# balancer (a dead engine before that is still EngineDeadError, a 503).
def _engine_failed() -> EngineFailedError:
    return EngineFailedError("The engine stopped while generating this request.")


def _engine_aborted() -> EngineFailedError:
    return EngineFailedError("The engine aborted the request.", code="aborted")


def _deadline_exceeded() -> DeadlineExceededError:
    return DeadlineExceededError("The request did not finish within its deadline and was aborted.")

"""/v1/completions: a text prompt (or token ids) in, its continuation out, through the same
admission and generation path as chat."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any

import msgspec

from translate_server.errors import InvalidRequestError
from translate_server.inference.admission import Ticket
from translate_server.inference.engine import SamplingOptions
from translate_server.inference.generation import (
    Completion,
    Prompt,
    StartedStream,
)
from translate_server.inference.owned_streams import STARTED, opened
from translate_server.limits.ticket import charge
from translate_server.observability.record import RequestRecord
from translate_server.openai_api import sampling
from translate_server.openai_api.completions.protocol import (
    CompletionChoice,
    CompletionRequest,
    TextCompletion,
    TextCompletionChunk,
)
from translate_server.openai_api.logprobs import completion_logprobs
from translate_server.openai_api.served import OpenAIService
from translate_server.wire import Usage

# Prompts in one request: each is its own engine request, all admitted together.
MAX_PROMPTS = 16


class CompletionService(OpenAIService):
    async def complete(
        self, request: CompletionRequest, record: RequestRecord, deadline: float
    ) -> TextCompletion:
        prompts = self._validate(request, record)
        ticket = self.admission.admit(request.n * len(prompts))
        try:
            prepared = [await self._prepare(request, prompt) for prompt in prompts]
            done = await asyncio.gather(
                *(
                    self.generation.complete(prompt, options, record, deadline)
                    for prompt, options in prepared
                )
            )
        finally:
            ticket.release()
        choices = []
        for i, (completion, prompt) in enumerate(zip(done, prompts, strict=True)):
            echoed = prompt if request.echo and isinstance(prompt, str) else ""
            choices += _choices(completion, i * request.n, echoed)
        record.finish_reason = choices[0].finish_reason
        return TextCompletion(
            id=_completion_id(),
            created=int(time.time()),
            model=self.served(request.model),
            system_fingerprint=self.fingerprint,
            choices=choices,
            usage=Usage.of(
                sum(c.prompt_tokens for c in done),
                sum(c.completion_tokens for c in done),
                record.cached_tokens,
            ),
        )

    async def open_stream(
        self, request: CompletionRequest, record: RequestRecord, deadline: float
    ) -> AsyncGenerator[TextCompletionChunk, None]:
        """The completion's chunks. Everything that can fail before the first token fails
        here, while an error status can still be sent; later failures are raised from the
        chunks."""
        prompts = self._validate(request, record)
        if len(prompts) > 1:
            raise InvalidRequestError("A streamed completion takes one prompt.", param="prompt")
        ticket = self.admission.admit(request.n)
        try:
            prompt, options = await self._prepare(request, prompts[0])
            stream = await self.generation.start_stream(prompt, options, record, deadline)
        except BaseException:
            ticket.release()
            raise
        echoed = prompts[0] if request.echo and isinstance(prompts[0], str) else ""
        return await opened(self._chunks(request, prompt, echoed, stream, ticket, record))

    async def _chunks(
        self,
        request: CompletionRequest,
        prompt: Prompt,
        echoed: str,
        started: StartedStream,
        ticket: Ticket,
        record: RequestRecord,
    ) -> AsyncGenerator[TextCompletionChunk, None]:
        stream_id, created = _completion_id(), int(time.time())
        model = self.served(request.model)

        def chunk(
            choices: list[CompletionChoice], usage: Usage | None = None
        ) -> TextCompletionChunk:
            return TextCompletionChunk(
                id=stream_id,
                object="text_completion",
                created=created,
                model=model,
                system_fingerprint=self.fingerprint,
                choices=choices,
                usage=usage,
            )

        counts = [0] * request.n
        offsets = [len(echoed)] * request.n
        try:
            yield STARTED
            if echoed:
                for index in range(request.n):
                    yield chunk([CompletionChoice(index=index, text=echoed, finish_reason=None)])
            step, steps = started
            while step is not None:
                counts[step.index] = step.completion_tokens
                logprobs = (
                    None
                    if step.logprobs is None
                    else completion_logprobs(step.logprobs, offsets[step.index])
                )
                offsets[step.index] += len(step.text)
                if step.finish_reason is not None:
                    record.finish_reason = step.finish_reason
                yield chunk(
                    [
                        CompletionChoice(
                            index=step.index,
                            text=step.text,
                            logprobs=logprobs,
                            finish_reason=step.finish_reason,
                        )
                    ]
                )
                step = await anext(steps, None)
            if request.stream_options is not None and request.stream_options.include_usage:
                yield chunk([], Usage.of(prompt.tokens, sum(counts), record.cached_tokens))
        finally:
            ticket.release()
            await started.rest.aclose()

    def _validate(self, request: CompletionRequest, record: RequestRecord) -> list[str | list[int]]:
        record.model = self.served(request.model)
        if request.suffix:
            raise InvalidRequestError("suffix is not supported.", param="suffix")
        if request.best_of is not None and request.best_of != request.n:
            raise InvalidRequestError("best_of is not supported; use n.", param="best_of")
        if request.echo and request.logprobs is not None:
            raise InvalidRequestError(
                "echo with logprobs (the prompt's log probabilities) is not supported.",
                param="echo",
            )
        sampling.logit_bias(request)  # refused before admission, as every client mistake
        prompts = _prompts(request.prompt)
        if request.echo and not all(isinstance(p, str) for p in prompts):
            raise InvalidRequestError("echo needs a text prompt.", param="echo")
        return prompts

    async def _prepare(
        self, request: CompletionRequest, prompt: str | list[int]
    ) -> tuple[Prompt, SamplingOptions]:
        # Billed before the engine sees it: a text prompt's characters, a token prompt's tokens.
        await charge(len(prompt))
        if isinstance(prompt, str):
            prepared = await self.generation.prepare_text(prompt, "prompt")
        else:
            prepared = self.generation.check(Prompt(prompt), "prompt")
        if not prepared.tokens:
            raise InvalidRequestError("The prompt is empty.", param="prompt")
        max_tokens = sampling.max_tokens_for(
            request.max_tokens, self.limits.max_tokens, self.generation.remaining_context(prepared)
        )
        options = sampling.sampling_options(request, max_tokens, logprobs=request.logprobs)
        return prepared, msgspec.structs.replace(
            options, adapter=self.adapter(request.model), priority=self.priority
        )


def _prompts(prompt: str | list[Any]) -> list[str | list[int]]:
    """OpenAI's four spellings: a text, token ids, a list of texts, a list of token id lists."""
    if isinstance(prompt, str):
        return [prompt]
    if prompt and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in prompt):
        return [prompt]
    if prompt and len(prompt) <= MAX_PROMPTS and all(isinstance(p, str) for p in prompt):
        return list(prompt)
    if (
        prompt
        and len(prompt) <= MAX_PROMPTS
        and all(isinstance(p, list) and _prompts(p) == [p] for p in prompt)
    ):
        return list(prompt)
    raise InvalidRequestError(
        f"prompt must be a text, token ids, or a list of at most {MAX_PROMPTS} of either.",
        param="prompt",
    )


def _choices(completion: Completion, first: int, echoed: str) -> list[CompletionChoice]:
    return [
        CompletionChoice(
            index=first + j,
            text=echoed + text,
            finish_reason=reason,
            logprobs=None
            if completion.logprobs is None
            else completion_logprobs(completion.logprobs[j], len(echoed)),
        )
        for j, (text, reason) in enumerate(
            zip(completion.texts, completion.finish_reasons, strict=True)
        )
    ]


def _completion_id() -> str:
    return f"cmpl-{uuid.uuid4().hex}"

"""/v1/chat/completions: OpenAI's request in, OpenAI's completion or chunk stream out."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass

import msgspec

from translate_server.errors import InvalidRequestError
from translate_server.inference.admission import Ticket
from translate_server.inference.engine import ChatMessage, SamplingOptions, StructuredOutput
from translate_server.inference.generation import Prompt, StartedStream
from translate_server.inference.model_files import SMOLLM2_135M
from translate_server.inference.owned_streams import STARTED, opened
from translate_server.limits.ticket import charge
from translate_server.observability.record import RequestRecord
from translate_server.openai_api import sampling
from translate_server.openai_api.chat import checks
from translate_server.openai_api.chat.chunks import ChatChunk, ChatStream, ChunkHead
from translate_server.openai_api.chat.protocol import (
    AssistantMessage,
    ChatCompletion,
    ChatCompletionRequest,
    ChatMessageIn,
    Choice,
    ChunkChoice,
    Delta,
)
from translate_server.openai_api.logprobs import chat_logprobs
from translate_server.openai_api.served import OpenAIService
from translate_server.wire import Usage


class ChatService(OpenAIService):
    async def complete(
        self, request: ChatCompletionRequest, record: RequestRecord, deadline: float
    ) -> ChatCompletion:
        checked = self._validate(request, record)
        ticket = self.admission.admit(request.n)
        try:
            prompt, options = await self._prepare(request, checked)
            completion = await self.generation.complete(prompt, options, record, deadline)
        finally:
            ticket.release()
        record.finish_reason = completion.finish_reasons[0]
        return ChatCompletion(
            id=_completion_id(),
            created=int(time.time()),
            model=self.served(request.model),
            system_fingerprint=self.fingerprint,
            choices=[
                Choice(
                    index=i,
                    message=AssistantMessage(content=text),
                    finish_reason=reason,
                    logprobs=None
                    if completion.logprobs is None
                    else chat_logprobs(completion.logprobs[i]),
                )
                for i, (text, reason) in enumerate(
                    zip(completion.texts, completion.finish_reasons, strict=True)
                )
            ],
            usage=Usage.of(
                completion.prompt_tokens, completion.completion_tokens, completion.cached_tokens
            ),
        )

    async def open_stream(
        self, request: ChatCompletionRequest, record: RequestRecord, deadline: float
    ) -> ChatStream:
        """The completion's chunks. Everything that can fail before the first token fails
        here, while an error status can still be sent; later failures are raised from the
        chunks."""
        prompt, stream, ticket = await self.start_stream(request, record, deadline)
        head = ChunkHead(
            _completion_id(), int(time.time()), self.served(request.model), self.fingerprint
        )
        chunks = self._chunks(request, head, prompt, stream, ticket, record)
        return ChatStream(head, await opened(chunks))

    async def start_stream(
        self, request: ChatCompletionRequest, record: RequestRecord, deadline: float
    ) -> tuple[Prompt, StartedStream, Ticket]:
        """Admitted, prompted, and the engine's first output in: what a stream of any shape
        (chat chunks, Responses events) begins with. The caller releases the ticket and
        closes the stream."""
        checked = self._validate(request, record)
        ticket = self.admission.admit(request.n)
        try:
            prompt, options = await self._prepare(request, checked)
            started = await self.generation.start_stream(prompt, options, record, deadline)
        except BaseException:
            ticket.release()
            raise
        return prompt, started, ticket

    async def _chunks(
        self,
        request: ChatCompletionRequest,
        head: ChunkHead,
        prompt: Prompt,
        started: StartedStream,
        ticket: Ticket,
        record: RequestRecord,
    ) -> AsyncGenerator[ChatChunk, None]:
        with_logprobs = request.logprobs
        completion_tokens = [0] * request.n
        try:
            yield STARTED
            for index in range(request.n):
                yield head.chunk(
                    [ChunkChoice(index=index, delta=Delta(role="assistant", content=""))]
                )
            step, steps = started
            while step is not None:
                completion_tokens[step.index] = step.completion_tokens
                if step.finish_reason is None and not with_logprobs:
                    yield step  # only new text: see ChatChunk
                else:
                    if step.finish_reason is not None:
                        record.finish_reason = step.finish_reason
                    yield head.chunk(
                        [
                            ChunkChoice(
                                index=step.index,
                                delta=Delta(content=step.text),
                                finish_reason=step.finish_reason,
                                logprobs=None
                                if step.logprobs is None
                                else chat_logprobs(step.logprobs),
                            )
                        ]
                    )
                step = await anext(steps, None)
            if request.stream_options is not None and request.stream_options.include_usage:
                yield head.chunk(
                    [], Usage.of(prompt.tokens, sum(completion_tokens), record.cached_tokens)
                )
        finally:
            ticket.release()
            await started.rest.aclose()

    def _validate(self, request: ChatCompletionRequest, record: RequestRecord) -> _Checked:
        record.model = self.served(request.model)
        if not self.generation.engine.info.chat_template:
            # A base model prompted through a made-up chat format loops; it translates only.
            # The message names the fix: the default model is such a model.
            raise InvalidRequestError(
                f"The model {self.model_name} is a base model without a chat template: it "
                "serves /translate and /v1/completions, not chat. For chat, serve an "
                f"instruction-tuned model, e.g. the bundled one: `translate-server serve "
                f"--model {SMOLLM2_135M}` (with Docker: `TRANSLATE_MODEL={SMOLLM2_135M} "
                "docker compose up`).",
                param="model",
                code="chat_not_supported",
            )
        if len(request.messages) > self.limits.max_messages:
            raise InvalidRequestError(
                f"At most {self.limits.max_messages} messages per request.", param="messages"
            )
        checks.refuse_tools(request)
        checks.refuse_audio(request)
        # Refused before admission and tokenizing, as every other client mistake.
        sampling.logit_bias(request)
        return _Checked(
            [chat_message(i, message) for i, message in enumerate(request.messages)],
            logprobs=checks.logprobs_asked(request),
            structured=sampling.structured_output(request.response_format),
        )

    async def _prepare(
        self, request: ChatCompletionRequest, checked: _Checked
    ) -> tuple[Prompt, SamplingOptions]:
        # Billed before the engine sees it: the characters of its messages.
        await charge(sum(len(m["content"]) for m in checked.messages))
        prompt = await self.generation.prepare(checked.messages, "messages")
        remaining = self.generation.remaining_context(prompt)
        max_tokens = sampling.max_tokens_for(
            request.max_completion_tokens or request.max_tokens, self.limits.max_tokens, remaining
        )
        options = sampling.sampling_options(
            request, max_tokens, logprobs=checked.logprobs, structured=checked.structured
        )
        return prompt, msgspec.structs.replace(
            options, adapter=self.adapter(request.model), priority=self.priority
        )


@dataclass(frozen=True, slots=True)
class _Checked:
    """A chat request as its checks found it: its messages, and the sampling it asked for."""

    messages: list[ChatMessage]
    logprobs: int | None
    structured: StructuredOutput | None


def chat_message(index: int, message: ChatMessageIn) -> ChatMessage:
    role = "system" if message.role == "developer" else message.role
    content = message.content
    if content is None:
        if role != "assistant":
            raise InvalidRequestError(
                "A message needs content.", param=f"messages[{index}].content"
            )
        content = ""
    elif not isinstance(content, str):
        texts = []
        for j, part in enumerate(content):
            if part.type != "text" or part.text is None:
                raise InvalidRequestError(
                    f"Only text content is supported, not `{part.type}`.",
                    param=f"messages[{index}].content[{j}]",
                )
            texts.append(part.text)
        content = "\n".join(texts)
    return {"role": role, "content": content}


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"

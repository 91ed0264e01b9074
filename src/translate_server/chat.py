"""/v1/chat/completions: OpenAI's request in, OpenAI's completion or chunk stream out."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator

import structlog

from translate_server import sse
from translate_server.admission import Admission, Ticket
from translate_server.engine import ChatMessage, SamplingOptions
from translate_server.errors import (
    InvalidRequestError,
    ModelNotFoundError,
    stream_failure,
)
from translate_server.generation import GenerationService, Prompt
from translate_server.observability import RequestRecord
from translate_server.protocol.base import Usage
from translate_server.protocol.openai import (
    AssistantMessage,
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionRequest,
    ChatMessageIn,
    Choice,
    ChunkChoice,
    Delta,
)
from translate_server.settings import LimitSettings

log = structlog.get_logger("translate_server.chat")


class ChatService:
    def __init__(
        self,
        generation: GenerationService,
        admission: Admission,
        limits: LimitSettings,
        model_name: str,
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.limits = limits
        self.model_name = model_name

    async def complete(
        self, request: ChatCompletionRequest, record: RequestRecord, deadline: float
    ) -> ChatCompletion:
        messages = self._validate(request, record)
        ticket = self.admission.admit(request.n)
        try:
            prompt, options = await self._prepare(request, messages)
            completion = await self.generation.complete(prompt, options, record, deadline)
        finally:
            ticket.release()
        record.finish_reason = completion.finish_reasons[0]
        return ChatCompletion(
            id=_completion_id(),
            created=int(time.time()),
            model=self.model_name,
            choices=[
                Choice(index=i, message=AssistantMessage(content=text), finish_reason=reason)
                for i, (text, reason) in enumerate(
                    zip(completion.texts, completion.finish_reasons, strict=True)
                )
            ],
            usage=Usage.of(completion.prompt_tokens, completion.completion_tokens),
        )

    async def open_stream(
        self, request: ChatCompletionRequest, record: RequestRecord, deadline: float
    ) -> AsyncGenerator[bytes, None]:
        """Server-sent events of the completion. Everything that can fail before the first token
        fails here, while an error status can still be sent; later failures end the stream with
        an error event."""
        messages = self._validate(request, record)
        ticket = self.admission.admit(request.n)
        try:
            prompt, options = await self._prepare(request, messages)
            steps = self.generation.stream(prompt, options, record, deadline)
            try:
                first = await anext(steps, None)
            except BaseException:
                await steps.aclose()
                raise
        except BaseException:
            ticket.release()
            raise
        return self._events(request, prompt, first, steps, ticket, record)

    async def _events(
        self,
        request: ChatCompletionRequest,
        prompt: Prompt,
        first: tuple[int, str, int, str | None] | None,
        steps: AsyncIterator[tuple[int, str, int, str | None]],
        ticket: Ticket,
        record: RequestRecord,
    ) -> AsyncGenerator[bytes, None]:
        chunks = ChunkEncoder(_completion_id(), int(time.time()), self.model_name)
        completion_tokens = [0] * request.n
        try:
            for index in range(request.n):
                yield chunks.chunk([ChunkChoice(index=index,
                                                delta=Delta(role="assistant", content=""))])
            step = first
            while step is not None:
                index, text, tokens, finish_reason = step
                completion_tokens[index] = tokens
                if finish_reason is None:
                    yield chunks.text(index, text)
                else:
                    record.finish_reason = finish_reason
                    yield chunks.chunk([ChunkChoice(index=index, delta=Delta(content=text),
                                                    finish_reason=finish_reason)])
                step = await anext(steps, None)
            if request.stream_options is not None and request.stream_options.include_usage:
                yield chunks.chunk([], Usage.of(prompt.tokens, sum(completion_tokens)))
            yield sse.DONE
        except Exception as exc:  # noqa: BLE001 - stream_failure logs the unexpected
            # A 200 is already on the wire: the failure becomes the stream's last event.
            yield sse.event(stream_failure(exc, record))
        finally:
            ticket.release()
            await steps.aclose()

    def _validate(self, request: ChatCompletionRequest, record: RequestRecord) -> list[ChatMessage]:
        record.model = self.model_name
        if request.model is not None and request.model != self.model_name:
            raise ModelNotFoundError(request.model, self.model_name)
        if not self.generation.engine.info.chat_template:
            # A base model prompted through a made-up chat format loops; it translates only.
            raise InvalidRequestError(
                f"The model {self.model_name} is a base model without a chat template: it "
                "serves /translate only.", param="model", code="chat_not_supported")
        if len(request.messages) > self.limits.max_messages:
            raise InvalidRequestError(
                f"At most {self.limits.max_messages} messages per request.", param="messages"
            )
        max_tokens = request.max_completion_tokens or request.max_tokens
        if max_tokens is not None and max_tokens > self.limits.max_tokens:
            param = "max_completion_tokens" if request.max_completion_tokens else "max_tokens"
            raise InvalidRequestError(
                f"{param} may be at most {self.limits.max_tokens}.", param=param
            )
        return [_chat_message(i, message) for i, message in enumerate(request.messages)]

    async def _prepare(
        self, request: ChatCompletionRequest, messages: list[ChatMessage]
    ) -> tuple[Prompt, SamplingOptions]:
        prompt = await self.generation.prepare(messages, "messages")
        remaining = self.generation.remaining_context(prompt)
        max_tokens = request.max_completion_tokens or request.max_tokens
        if max_tokens is None:
            max_tokens = min(remaining, self.limits.max_tokens)
        elif max_tokens > remaining:
            raise InvalidRequestError(
                f"This model's maximum context length is {self.generation.max_model_len} "
                f"tokens; the messages take {prompt.tokens} and {max_tokens} were requested "
                "for the completion.",
                param="max_completion_tokens" if request.max_completion_tokens else "max_tokens",
                code="context_length_exceeded",
            )
        return prompt, to_sampling_options(request, max_tokens)


class ChunkEncoder:
    """The chunks of one stream, as server-sent events.

    Nearly every chunk is one choice's new text, and its bytes differ from the stream's other
    such chunks only in that text: they are built as the choice's fixed head and tail around
    the encoded text, which costs a fraction of building and encoding the structs each time
    and gives the same bytes (the head and tail come from encoding the structs once).
    """

    _MARK = "\x00text\x00"

    def __init__(self, chunk_id: str, created: int, model: str) -> None:
        self._id, self._created, self._model = chunk_id, created, model
        self._frames: dict[int, tuple[bytes, bytes]] = {}

    def chunk(self, choices: list[ChunkChoice], usage: Usage | None = None) -> bytes:
        return sse.event(ChatCompletionChunk(
            id=self._id, object="chat.completion.chunk", created=self._created,
            model=self._model, choices=choices, usage=usage))

    def text(self, index: int, text: str) -> bytes:
        frame = self._frames.get(index)
        if frame is None:
            whole = self.chunk([ChunkChoice(index=index, delta=Delta(content=self._MARK))])
            head, _, tail = whole.rpartition(sse.encode_json(self._MARK))
            frame = self._frames[index] = (head, tail)
        return frame[0] + sse.encode_json(text) + frame[1]


def to_sampling_options(request: ChatCompletionRequest, max_tokens: int) -> SamplingOptions:
    stop = (request.stop,) if isinstance(request.stop, str) else tuple(request.stop or ())
    return SamplingOptions(
        max_tokens=max_tokens,
        n=request.n,
        temperature=1.0 if request.temperature is None else request.temperature,
        top_p=1.0 if request.top_p is None else request.top_p,
        top_k=0 if request.top_k is None or request.top_k < 0 else request.top_k,
        min_p=request.min_p or 0.0,
        presence_penalty=request.presence_penalty,
        frequency_penalty=request.frequency_penalty,
        repetition_penalty=request.repetition_penalty or 1.0,
        stop=tuple(s for s in stop if s),
        seed=request.seed,
        min_tokens=min(request.min_tokens, max_tokens),
        ignore_eos=request.ignore_eos,
    )


def _chat_message(index: int, message: ChatMessageIn) -> ChatMessage:
    role = "system" if message.role == "developer" else message.role
    content = message.content
    if content is None:
        if role != "assistant":
            raise InvalidRequestError("A message needs content.",
                                      param=f"messages[{index}].content")
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

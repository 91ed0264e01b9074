"""/v1/responses: OpenAI's Responses API, served by the chat path (admission, prompt, engine,
log line). A Responses request becomes a chat request; its answer becomes a `Response`, or,
streamed, the Responses API's events in their documented order. Typed events only: the route
writes them as server-sent events.

Nothing is stored: `store: true`, `previous_response_id`, `conversation`, `background` and
tools are refused with a 400 that names the field.
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any, Literal

from translate_server.errors import InvalidRequestError
from translate_server.inference.admission import Ticket
from translate_server.inference.generation import StartedStream
from translate_server.inference.owned_streams import STARTED, opened
from translate_server.observability.record import RequestRecord
from translate_server.openai_api.chat.protocol import (
    ChatCompletionRequest,
    ChatMessageIn,
)
from translate_server.openai_api.chat.service import ChatService
from translate_server.openai_api.fields import ResponseFormat
from translate_server.openai_api.responses.protocol import (
    ContentPartAdded,
    ContentPartDone,
    IncompleteDetails,
    InputItem,
    OutputItemAdded,
    OutputItemDone,
    OutputMessage,
    OutputText,
    OutputTextDelta,
    OutputTextDone,
    Response,
    ResponseCompleted,
    ResponseCreated,
    ResponseEvent,
    ResponseIncomplete,
    ResponseInProgress,
    ResponsesRequest,
    ResponseUsage,
    TextOut,
)

Status = Literal["in_progress", "completed", "incomplete"]
# Fields of a stateful or agentic Responses API that this server does not serve.
_REFUSED = {
    "store": "Responses are not stored: send `store: false` (or leave it out) and keep the "
    "conversation in `input`.",
    "previous_response_id": "Responses are not stored, so none can be continued: send the "
    "conversation in `input`.",
    "conversation": "Conversations are not stored: send the conversation in `input`.",
    "background": "Background responses are not served: send the request without it.",
    "tools": "Tools are not served.",
    "prompt": "Stored prompt templates are not served: send the prompt in `input`.",
}


class ResponsesService:
    def __init__(self, chat: ChatService) -> None:
        self.chat = chat

    async def create(
        self, request: ResponsesRequest, record: RequestRecord, deadline: float
    ) -> Response:
        completion = await self.chat.complete(as_chat(request), record, deadline)
        choice = completion.choices[0]
        usage = completion.usage
        cached = usage.prompt_tokens_details.cached_tokens if usage.prompt_tokens_details else None
        message = OutputMessage(
            id=_id("msg"),
            status=_status(choice.finish_reason),
            content=[OutputText(text=choice.message.content)],
        )
        return _response(
            request,
            completion.model,
            _id("resp"),
            int(time.time()),
            [message],
            choice.finish_reason,
            ResponseUsage.of(usage.prompt_tokens, usage.completion_tokens, cached),
        )

    async def open_stream(
        self, request: ResponsesRequest, record: RequestRecord, deadline: float
    ) -> AsyncGenerator[ResponseEvent, None]:
        """The events of a streamed response. Whatever can fail before the first token fails
        here, while an error status can still be sent."""
        prompt, stream, ticket = await self.chat.start_stream(as_chat(request), record, deadline)
        return await opened(self._events(request, prompt.tokens, stream, ticket, record))

    async def _events(
        self,
        request: ResponsesRequest,
        prompt_tokens: int,
        started: StartedStream,
        ticket: Ticket,
        record: RequestRecord,
    ) -> AsyncGenerator[ResponseEvent, None]:
        # The model's name is the base model's or the adapter's.
        events = _MessageEvents(request, self.chat.served(request.model))
        try:
            yield STARTED
            for event in events.opening():
                yield event
            texts: list[str] = []
            reason, completion_tokens = None, 0
            step, steps = started
            while step is not None:
                completion_tokens = step.completion_tokens
                reason = step.finish_reason or reason
                if step.text:
                    texts.append(step.text)
                    yield events.delta(step.text)
                step = await anext(steps, None)
            record.finish_reason = reason
            usage = ResponseUsage.of(prompt_tokens, completion_tokens, record.cached_tokens)
            for event in events.closing("".join(texts), reason, usage):
                yield event
        finally:
            ticket.release()
            await started.rest.aclose()


class _MessageEvents:
    """The Responses API's events of one streamed message, in their documented order and
    numbered as they go: the response created and in progress, its message item and text
    part added, the text's deltas, then the text, the part and the item done, and the
    response completed (or incomplete)."""

    def __init__(self, request: ResponsesRequest, model: str) -> None:
        self.request = request
        self.model = model
        self.response_id, self.item_id = _id("resp"), _id("msg")
        self.created = int(time.time())
        self._numbers = itertools.count()

    def opening(self) -> list[ResponseEvent]:
        begun = self._response([], None, None)
        empty = OutputMessage(id=self.item_id, status="in_progress", content=[])
        return [
            ResponseCreated(sequence_number=self._next(), response=begun),
            ResponseInProgress(sequence_number=self._next(), response=begun),
            OutputItemAdded(sequence_number=self._next(), output_index=0, item=empty),
            ContentPartAdded(
                sequence_number=self._next(),
                item_id=self.item_id,
                output_index=0,
                content_index=0,
                part=OutputText(text=""),
            ),
        ]

    def delta(self, text: str) -> OutputTextDelta:
        return OutputTextDelta(
            sequence_number=self._next(),
            item_id=self.item_id,
            output_index=0,
            content_index=0,
            delta=text,
        )

    def closing(self, text: str, reason: str | None, usage: ResponseUsage) -> list[ResponseEvent]:
        part = OutputText(text=text)
        message = OutputMessage(id=self.item_id, status=_status(reason), content=[part])
        done = self._response([message], reason, usage)
        ended = ResponseIncomplete if done.status == "incomplete" else ResponseCompleted
        return [
            OutputTextDone(
                sequence_number=self._next(),
                item_id=self.item_id,
                output_index=0,
                content_index=0,
                text=text,
            ),
            ContentPartDone(
                sequence_number=self._next(),
                item_id=self.item_id,
                output_index=0,
                content_index=0,
                part=part,
            ),
            OutputItemDone(sequence_number=self._next(), output_index=0, item=message),
            ended(sequence_number=self._next(), response=done),
        ]

    def _next(self) -> int:
        return next(self._numbers)

    def _response(
        self, output: list[OutputMessage], reason: str | None, usage: ResponseUsage | None
    ) -> Response:
        return _response(
            self.request, self.model, self.response_id, self.created, output, reason, usage
        )


def as_chat(request: ResponsesRequest) -> ChatCompletionRequest:
    """The chat request that serves a Responses request: `instructions` as the system message,
    `input` as the conversation, `text.format` as `response_format`."""
    for field, reason in _REFUSED.items():
        if getattr(request, field):  # `store: false` and `tools: []` ask for nothing
            raise InvalidRequestError(reason, param=field, code="unsupported_parameter")
    messages = (
        [ChatMessageIn(role="system", content=request.instructions)] if request.instructions else []
    )
    if isinstance(request.input, str):
        messages.append(ChatMessageIn(role="user", content=request.input))
    else:
        messages += [_message(i, item) for i, item in enumerate(request.input)]
    text_format = request.text.format if request.text and request.text.format else None
    return ChatCompletionRequest(
        model=request.model,
        messages=messages,
        max_completion_tokens=request.max_output_tokens,
        temperature=request.temperature,
        top_p=request.top_p,
        timeout=request.timeout,
        user=request.user,
        stream=request.stream,
        response_format=None
        if text_format is None
        else ResponseFormat(
            type=text_format.type,
            json_schema=text_format.as_json_schema() if text_format.type == "json_schema" else None,
        ),
    )


def _message(index: int, item: InputItem) -> ChatMessageIn:
    param = f"input[{index}]"
    if item.type != "message" or item.role is None:
        raise InvalidRequestError(
            f"Only message items are served in `input`, not `{item.type}`.",
            param=f"{param}.type",
            code="unsupported_parameter",
        )
    if item.content is None or isinstance(item.content, str):
        return ChatMessageIn(role=item.role, content=item.content or "")
    texts = []
    for j, part in enumerate(item.content):
        if part.type not in ("input_text", "output_text") or part.text is None:
            raise InvalidRequestError(
                f"Only text content is served, not `{part.type}`.", param=f"{param}.content[{j}]"
            )
        texts.append(part.text)
    return ChatMessageIn(role=item.role, content="\n".join(texts))


def _response(
    request: ResponsesRequest,
    model: str,
    response_id: str,
    created: int,
    output: list[OutputMessage],
    reason: str | None,
    usage: ResponseUsage | None,
) -> Response:
    status: Status = "in_progress" if usage is None else _status(reason)
    text_format = request.text.format if request.text and request.text.format else None
    return Response(
        id=response_id,
        created_at=created,
        status=status,
        model=model,
        output=output,
        instructions=request.instructions,
        max_output_tokens=request.max_output_tokens,
        temperature=request.temperature,
        top_p=request.top_p,
        text=TextOut(format=_format_out(text_format)),
        incomplete_details=IncompleteDetails(reason="max_output_tokens")
        if status == "incomplete"
        else None,
        usage=usage,
        metadata=request.metadata or {},
    )


def _format_out(text_format: Any) -> dict[str, Any]:
    if text_format is None or text_format.type == "text":
        return {"type": "text"}
    if text_format.type == "json_object":
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "name": text_format.name or "response",
        "schema": text_format.schema_ or {},
        "strict": text_format.strict,
    }


def _status(reason: str | None) -> Status:
    return "incomplete" if reason == "length" else "completed"


def _id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"

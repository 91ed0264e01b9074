"""/v1/responses: OpenAI's Responses API, served by the chat path (admission, prompt, engine,
log line). A Responses request becomes a chat request; its answer becomes a `Response`, or,
streamed, the Responses API's events in their documented order. Typed events only: the route
writes them as server-sent events.

Nothing is stored: `store: true`, `previous_response_id`, `conversation`, `background` and
tools are refused with a 400 that names the field.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any, Literal

from translate_server.errors import InvalidRequestError
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
        prompt, started, ticket = await self.chat.start_stream(as_chat(request), record, deadline)
        return self._events(request, prompt.tokens, started, ticket, record)

    async def _events(
        self,
        request: ResponsesRequest,
        prompt_tokens: int,
        started: Any,
        ticket: Any,
        record: RequestRecord,
    ) -> AsyncGenerator[ResponseEvent, None]:
        response_id, item_id, created = _id("resp"), _id("msg"), int(time.time())
        model = self.chat.served(request.model)  # the base model's name or the adapter's
        sequence = iter(range(1 << 62))
        begun = _response(request, model, response_id, created, [], None, None)
        empty = OutputMessage(id=item_id, status="in_progress", content=[])
        try:
            yield ResponseCreated(sequence_number=next(sequence), response=begun)
            yield ResponseInProgress(sequence_number=next(sequence), response=begun)
            yield OutputItemAdded(sequence_number=next(sequence), output_index=0, item=empty)
            yield ContentPartAdded(
                sequence_number=next(sequence),
                item_id=item_id,
                output_index=0,
                content_index=0,
                part=OutputText(text=""),
            )
            texts: list[str] = []
            reason, completion_tokens = None, 0
            step, steps = started
            while step is not None:
                completion_tokens = step.completion_tokens
                reason = step.finish_reason or reason
                if step.text:
                    texts.append(step.text)
                    yield OutputTextDelta(
                        sequence_number=next(sequence),
                        item_id=item_id,
                        output_index=0,
                        content_index=0,
                        delta=step.text,
                    )
                step = await anext(steps, None)
            record.finish_reason = reason
            text = "".join(texts)
            part = OutputText(text=text)
            message = OutputMessage(id=item_id, status=_status(reason), content=[part])
            yield OutputTextDone(
                sequence_number=next(sequence),
                item_id=item_id,
                output_index=0,
                content_index=0,
                text=text,
            )
            yield ContentPartDone(
                sequence_number=next(sequence),
                item_id=item_id,
                output_index=0,
                content_index=0,
                part=part,
            )
            yield OutputItemDone(sequence_number=next(sequence), output_index=0, item=message)
            usage = ResponseUsage.of(prompt_tokens, completion_tokens, record.cached_tokens)
            done = _response(request, model, response_id, created, [message], reason, usage)
            ended = ResponseIncomplete if done.status == "incomplete" else ResponseCompleted
            yield ended(sequence_number=next(sequence), response=done)
        finally:
            ticket.release()
            await started.rest.aclose()


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

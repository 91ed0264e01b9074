"""OpenAI's Responses API, request and response, as the `openai` SDK sends and reads them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from translate_server.openai_api.fields import (
    JsonSchemaFormat,
    PositiveInt,
    Temperature,
    TopP,
)
from translate_server.wire import RequestStruct


class InputContent(RequestStruct, kw_only=True):
    type: str  # input_text and output_text are served; anything else is refused by name
    text: str | None = None


class InputItem(RequestStruct, kw_only=True):
    """A message of the conversation (other item types, tool calls and their outputs, are
    read only to be refused)."""

    type: str = "message"
    role: Literal["system", "developer", "user", "assistant"] | None = None
    content: str | list[InputContent] | None = None


class TextFormat(RequestStruct, kw_only=True):
    type: Literal["text", "json_object", "json_schema"] = "text"
    # json_schema's fields sit beside `type` here (chat nests them under `json_schema`).
    name: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    schema_: dict[str, Any] | None = msgspec.field(default=None, name="schema")
    description: str | None = None
    strict: bool | None = None

    def as_json_schema(self) -> JsonSchemaFormat:
        return JsonSchemaFormat(
            name=self.name or "response",
            schema_=self.schema_,
            description=self.description,
            strict=self.strict,
        )


class TextConfig(RequestStruct, kw_only=True):
    format: TextFormat | None = None


class ResponsesRequest(RequestStruct, kw_only=True):
    model: str | None = None
    input: str | Annotated[list[InputItem], Meta(min_length=1)]
    instructions: str | None = None
    max_output_tokens: PositiveInt | None = None
    temperature: Temperature | None = None
    top_p: TopP | None = None
    text: TextConfig | None = None
    stream: bool = False
    metadata: dict[str, str] | None = None
    user: str | None = None
    # Per-request deadline in seconds, never longer than the server's own.
    timeout: Annotated[float, Meta(gt=0.0)] | None = None
    # Read only to be refused: nothing is stored, and tools are not served.
    store: bool | None = None
    previous_response_id: str | None = None
    background: bool | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    conversation: str | dict[str, Any] | None = None
    prompt: dict[str, Any] | None = None


class OutputText(msgspec.Struct, kw_only=True):
    type: Literal["output_text"] = "output_text"
    text: str
    annotations: list[Any] = msgspec.field(default_factory=list)
    logprobs: list[Any] = msgspec.field(default_factory=list)


class OutputMessage(msgspec.Struct, kw_only=True):
    type: Literal["message"] = "message"
    id: str
    status: Literal["in_progress", "completed", "incomplete"]
    role: Literal["assistant"] = "assistant"
    content: list[OutputText]


class InputTokensDetails(msgspec.Struct, kw_only=True):
    cached_tokens: int = 0
    cache_write_tokens: int = 0


class OutputTokensDetails(msgspec.Struct, kw_only=True):
    reasoning_tokens: int = 0


class ResponseUsage(msgspec.Struct, kw_only=True):
    input_tokens: int
    input_tokens_details: InputTokensDetails
    output_tokens: int
    output_tokens_details: OutputTokensDetails
    total_tokens: int

    @classmethod
    def of(cls, input_tokens: int, output_tokens: int, cached: int | None) -> ResponseUsage:
        return cls(
            input_tokens=input_tokens,
            input_tokens_details=InputTokensDetails(cached_tokens=cached or 0),
            output_tokens=output_tokens,
            output_tokens_details=OutputTokensDetails(),
            total_tokens=input_tokens + output_tokens,
        )


class IncompleteDetails(msgspec.Struct, kw_only=True):
    reason: Literal["max_output_tokens", "content_filter"]


class TextOut(msgspec.Struct, kw_only=True):
    format: dict[str, Any]


class Response(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["response"] = "response"
    created_at: int
    status: Literal["in_progress", "completed", "incomplete"]
    model: str
    output: list[OutputMessage]
    instructions: str | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    text: TextOut
    incomplete_details: IncompleteDetails | None = None
    error: None = None
    usage: ResponseUsage | None = None
    parallel_tool_calls: bool = False
    tool_choice: str = "none"
    tools: list[Any] = msgspec.field(default_factory=list)
    store: bool = False
    background: bool = False
    metadata: dict[str, str] = msgspec.field(default_factory=dict)


# -- stream events, each with its `type` and `sequence_number` ---------------------------------


class ResponseEvent(msgspec.Struct, kw_only=True, tag_field="type"):
    sequence_number: int


class ResponseCreated(ResponseEvent, kw_only=True, tag="response.created"):
    response: Response


class ResponseInProgress(ResponseEvent, kw_only=True, tag="response.in_progress"):
    response: Response


class OutputItemAdded(ResponseEvent, kw_only=True, tag="response.output_item.added"):
    output_index: int
    item: OutputMessage


class ContentPartAdded(ResponseEvent, kw_only=True, tag="response.content_part.added"):
    item_id: str
    output_index: int
    content_index: int
    part: OutputText


class OutputTextDelta(ResponseEvent, kw_only=True, tag="response.output_text.delta"):
    item_id: str
    output_index: int
    content_index: int
    delta: str
    logprobs: list[Any] = msgspec.field(default_factory=list)


class OutputTextDone(ResponseEvent, kw_only=True, tag="response.output_text.done"):
    item_id: str
    output_index: int
    content_index: int
    text: str
    logprobs: list[Any] = msgspec.field(default_factory=list)


class ContentPartDone(ResponseEvent, kw_only=True, tag="response.content_part.done"):
    item_id: str
    output_index: int
    content_index: int
    part: OutputText


class OutputItemDone(ResponseEvent, kw_only=True, tag="response.output_item.done"):
    output_index: int
    item: OutputMessage


class ResponseCompleted(ResponseEvent, kw_only=True, tag="response.completed"):
    response: Response


class ResponseIncomplete(ResponseEvent, kw_only=True, tag="response.incomplete"):
    response: Response


class StreamError(ResponseEvent, kw_only=True, tag="error"):
    code: str | None
    message: str
    param: str | None

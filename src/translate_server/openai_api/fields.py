"""The wire fields OpenAI's chat and legacy completions both take, with the same meaning:
sampling, stream options and the response format."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from translate_server.wire import JsonObject, RequestStruct

Temperature = Annotated[float, Meta(ge=0.0, le=2.0)]
# Integer bounds: the OpenAPI document has always shown `"maximum": 1` (this annotation used to
# be typing's cached copy of an equal one with integer bounds elsewhere); kept so, on purpose.
TopP = Annotated[float, Meta(gt=0, le=1)]
Penalty = Annotated[float, Meta(ge=-2.0, le=2.0)]
PositiveInt = Annotated[int, Meta(ge=1)]
Choices = Annotated[int, Meta(ge=1, le=16)]
StopList = Annotated[list[str], Meta(max_length=16)]
Seed = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]


class StreamOptions(RequestStruct, kw_only=True):
    include_usage: bool = False


class JsonSchemaFormat(RequestStruct, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=64)]
    schema_: JsonObject | None = msgspec.field(default=None, name="schema")
    description: str | None = None
    strict: bool | None = None


class ResponseFormat(RequestStruct, kw_only=True):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None


LogitBias = Annotated[dict[str, Annotated[float, Meta(ge=-100.0, le=100.0)]], Meta(max_length=300)]


class SamplingFields(RequestStruct, kw_only=True):
    """What chat and legacy completions both take, with the same meaning."""

    model: str | None = None
    temperature: Temperature | None = None
    top_p: TopP | None = None
    max_tokens: PositiveInt | None = None
    n: Choices = 1
    stop: str | StopList | None = None
    seed: Seed | None = None
    presence_penalty: Penalty = 0.0
    frequency_penalty: Penalty = 0.0
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = None
    # vLLM's sampling extensions, sent by OpenAI SDK users through `extra_body`.
    top_k: Annotated[int, Meta(ge=-1)] | None = None
    min_p: Annotated[float, Meta(ge=0.0, le=1.0)] | None = None
    repetition_penalty: Annotated[float, Meta(gt=0.0, le=2.0)] | None = None
    min_tokens: Annotated[int, Meta(ge=0)] = 0
    ignore_eos: bool = False
    # Per-request deadline in seconds, never longer than the server's own.
    timeout: Annotated[float, Meta(gt=0.0)] | None = None
    # Token id (as a string, OpenAI's spelling) -> bias added to its logit.
    logit_bias: LogitBias | None = None

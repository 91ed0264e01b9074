"""The comparison app: the service's two JSON routes written the common FastAPI + pydantic way.

It does the same work as the Litestar app (`translate_server.app.create_app`) and shares all
of it except the HTTP layer: the same translation and chat services, admission control,
request-log-and-metrics middleware and engine. What differs is exactly what the comparison
measures: routing, request parsing and validation (pydantic models with the same
constraints as the service's msgspec structs) and response serialization (`response_model`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import msgspec
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from translate_server.errors import ApiError
from translate_server.http import sse
from translate_server.http.observability import RequestObserver
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.inference.admission import Admission
from translate_server.inference.engine import Engine
from translate_server.inference.generation import GenerationService
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.record import RequestRecord
from translate_server.openai_api.chat.chunks import ChatStream
from translate_server.openai_api.chat.routes import chunk_encoder
from translate_server.openai_api.chat.service import ChatService
from translate_server.server.heap import freeze_startup_heap
from translate_server.settings import Settings
from translate_server.translation.protocol import TranslateRequest as OwnTranslateRequest
from translate_server.translation.service.translation_service import TranslationService

KNOWN_PATHS = frozenset({"/translate", "/v1/chat/completions", "/v1/models"})


# -- wire models: the same fields and constraints as translate_server.translation.protocol -----


class TranslateRequest(BaseModel):
    text: str | list[str]
    source_lang: Annotated[str, Field(min_length=2, max_length=35)]
    target_lang: Annotated[str, Field(min_length=2, max_length=35)]
    max_tokens: Annotated[int, Field(ge=1)] | None = None
    model: str | None = None
    timeout: Annotated[float, Field(gt=0.0)] | None = None


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class TranslateResponse(BaseModel):
    translation: str | None = None
    translations: list[str] | None = None
    finish_reason: str | None = None
    finish_reasons: list[str] | None = None
    source_lang: str
    target_lang: str
    quality_estimate: float | list[float] | None = None
    needs_review: bool | list[bool] | None = None
    model: str
    usage: Usage


class ContentPart(BaseModel):
    type: str
    text: str | None = None


class ChatMessageIn(BaseModel):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None
    name: str | None = None
    tool_calls: list[dict] | None = None
    function_call: dict | None = None


class JsonSchemaFormat(BaseModel):
    name: str
    schema_: dict | None = Field(default=None, alias="schema")
    description: str | None = None
    strict: bool | None = None


class ResponseFormat(BaseModel):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None


class StreamOptions(BaseModel):
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    messages: Annotated[list[ChatMessageIn], Field(min_length=1)]
    model: str | None = None
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] | None = None
    top_p: Annotated[float, Field(gt=0.0, le=1.0)] | None = None
    max_tokens: Annotated[int, Field(ge=1)] | None = None
    max_completion_tokens: Annotated[int, Field(ge=1)] | None = None
    n: Annotated[int, Field(ge=1, le=16)] = 1
    stop: str | Annotated[list[str], Field(max_length=16)] | None = None
    seed: int | None = None
    presence_penalty: Annotated[float, Field(ge=-2.0, le=2.0)] = 0.0
    frequency_penalty: Annotated[float, Field(ge=-2.0, le=2.0)] = 0.0
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = None
    top_k: Annotated[int, Field(ge=-1)] | None = None
    min_p: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    repetition_penalty: Annotated[float, Field(gt=0.0, le=2.0)] | None = None
    min_tokens: Annotated[int, Field(ge=0)] = 0
    ignore_eos: bool = False
    timeout: Annotated[float, Field(gt=0.0)] | None = None
    logit_bias: dict[str, Annotated[float, Field(ge=-100.0, le=100.0)]] | None = None
    logprobs: bool = False
    top_logprobs: Annotated[int, Field(ge=0, le=20)] | None = None
    response_format: ResponseFormat | None = None
    tools: list[dict] | None = None
    tool_choice: str | dict | None = None
    functions: list[dict] | None = None
    function_call: str | dict | None = None
    modalities: list[str] | None = None
    audio: dict | None = None


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int
    message: AssistantMessage
    finish_reason: str | None
    logprobs: Any = None


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    system_fingerprint: str
    choices: list[Choice]
    usage: Usage


class Model(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "translate-server"
    max_model_len: int | None = None


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[Model]


# -- the app ---------------------------------------------------------------------------------


def _error(
    status: int,
    message: str,
    type_: str,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
    return JSONResponse(body, status_code=status, headers=headers)


async def _events(stream: ChatStream, record: RequestRecord) -> AsyncIterator[bytes]:
    """The chunks as server-sent events, written the FastAPI way: a generator of bytes for
    `StreamingResponse`, over the service's own encoding of each chunk."""
    encode, failed = chunk_encoder(stream.head), sse.failure_event(record)
    try:
        async for chunk in stream.chunks:
            yield encode(chunk)
    except Exception as exc:  # noqa: BLE001 - the failure is the stream's last event
        yield failed(exc)
        return
    finally:
        await stream.chunks.aclose()
    yield sse.DONE


def create_fastapi_app(settings: Settings, engine_factory: Callable[[], Engine]):
    """The FastAPI app around `engine_factory`'s engine, wrapped in the service's middleware."""
    metrics = ServiceMetrics()
    admission = Admission(
        slots=settings.engine.max_num_seqs,
        queue_limit=settings.limits.queue_limit(settings.engine.max_num_seqs),
        metrics=metrics,
    )
    model_name = settings.engine.model_name

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = engine_factory()
        generation = GenerationService(engine)
        app.state.engine = engine
        app.state.chat = ChatService(generation, admission, settings.limits, model_name)
        app.state.translation = TranslationService(
            generation, admission, settings.limits, model_name
        )
        freeze_startup_heap()  # as the service's server does once it is ready
        try:
            yield
        finally:
            engine.shutdown()

    app = FastAPI(lifespan=lifespan, title="translate-server (FastAPI comparison)")
    started_at = int(time.time())

    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status_code, exc.message, exc.type, exc.param, exc.code)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(p) for p in first.get("loc", ()) if p != "body"]
        return _error(
            400,
            first.get("msg", "Invalid request."),
            "invalid_request_error",
            ".".join(loc) or None,
        )

    @app.post("/translate", response_model=TranslateResponse, response_model_exclude_none=True)
    async def translate(body: TranslateRequest, request: Request):
        deadline = deadline_for(settings.limits.request_timeout, body.timeout)
        # The service takes its own request struct; this twin's model has the original fields.
        own = OwnTranslateRequest(
            text=body.text,
            source_lang=body.source_lang,
            target_lang=body.target_lang,
            max_tokens=body.max_tokens,
            model=body.model,
            timeout=body.timeout,
        )
        result = await unless_disconnected(
            request,  # type: ignore[arg-type]
            app.state.translation.translate(own, record_of(request), deadline),
        )
        return msgspec.to_builtins(result)

    @app.post("/v1/chat/completions", response_model=ChatCompletion)
    async def chat_completions(body: ChatCompletionRequest, request: Request):
        record = record_of(request)  # type: ignore[arg-type]
        deadline = deadline_for(settings.limits.request_timeout, body.timeout)
        if body.stream:
            stream = await app.state.chat.open_stream(body, record, deadline)
            return StreamingResponse(
                _events(stream, record),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        result = await unless_disconnected(
            request,
            app.state.chat.complete(body, record, deadline),  # type: ignore[arg-type]
        )
        return msgspec.to_builtins(result)

    @app.get("/v1/models", response_model=ModelList)
    async def list_models():
        return ModelList(
            data=[
                Model(
                    id=model_name,
                    created=started_at,
                    max_model_len=app.state.engine.info.max_model_len,
                )
            ]
        )

    return RequestObserver(app, metrics, KNOWN_PATHS)

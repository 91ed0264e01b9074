"""The framework's own floor: the smallest Litestar app that serves the compared routes, on the
same uvicorn as the bare ASGI floor (`asgi_floor.py`).

Its handlers decode the request into msgspec Structs as the service's do and answer the same
fixed bodies as the bare floor, streams coalesced as the service sends them; no service, no
log line, no metrics, no admission. What it costs above the bare floor is Litestar's routing,
request parsing and response machinery; what the service costs above it is the service's own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
from litestar import Litestar, Response, get, post
from litestar.response import Stream

from translate_server.inference.coalescing import MAX_INTERVAL

from asgi_floor import _COMPLETION, _MODELS, _TRANSLATION, chunk_events, last_event


class Message(msgspec.Struct):
    role: str
    content: str


class ChatRequest(msgspec.Struct):
    messages: list[Message]
    model: str | None = None
    max_tokens: int | None = None
    stream: bool = False
    stream_options: dict[str, object] | None = None


class TranslateRequest(msgspec.Struct):
    text: str | list[str]
    target_lang: str
    source_lang: str | None = None
    max_tokens: int | None = None


_JSON = "application/json"


@get("/v1/models", media_type=_JSON)
async def models() -> bytes:
    return _MODELS


@post("/translate", status_code=200, media_type=_JSON)
async def translate(data: TranslateRequest) -> bytes:
    return _TRANSLATION


@post("/v1/chat/completions", status_code=200)
async def chat(data: ChatRequest) -> Response[bytes] | Stream:
    if not data.stream:
        return Response(_COMPLETION, media_type=_JSON)
    return Stream(_events(data.max_tokens or 16, MAX_INTERVAL), media_type="text/event-stream")


async def _events(tokens: int, interval: int) -> AsyncIterator[bytes]:
    async for body in chunk_events(tokens, interval):
        yield body
    yield last_event(tokens)


def create() -> Litestar:
    return Litestar([models, translate, chat], openapi_config=None)

"""The floor under both apps of the HTTP-layer comparison: a bare ASGI app on the same uvicorn,
with no framework, no validation, no service, no log line and no metrics.

It reads the body and decodes its JSON, then answers a fixed body of the shape the route's
clients expect or, for `"stream": true`, `max_tokens` fixed server-sent events, one per
event-loop turn as the engine double streams them, then a usage event and `[DONE]`
(`coalesced(N)`: the first token alone, then N tokens per event, as a coalescing server sends
them). What an
app spends above this floor is its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec

SERVED_NAME = "bench-model"
_JSON = [(b"content-type", b"application/json")]
_SSE = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache")]
_MODELS = msgspec.json.encode(
    {
        "object": "list",
        "data": [
            {"id": SERVED_NAME, "object": "model", "created": 0, "owned_by": "translate-server"}
        ],
    }
)
_TRANSLATION = msgspec.json.encode(
    {
        "translation": "Das ist eine kurze Übersetzung, immer dieselbe.",
        "source_lang": "en",
        "target_lang": "de",
        "model": SERVED_NAME,
        "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52},
    }
)
_COMPLETION = msgspec.json.encode(
    {
        "id": "chatcmpl-0",
        "object": "chat.completion",
        "created": 0,
        "model": SERVED_NAME,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Das ist eine kurze Übersetzung, immer dieselbe.",
                },
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52},
    }
)


def _chunk(tokens: int) -> bytes:
    return (
        b"data: "
        + msgspec.json.encode(
            {
                "id": "chatcmpl-0",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": SERVED_NAME,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": " Wort" * tokens},
                        "finish_reason": None,
                        "logprobs": None,
                    }
                ],
            }
        )
        + b"\n\n"
    )


_CHUNK = _chunk(1)


def _usage_event(tokens: int) -> bytes:
    return (
        b"data: "
        + msgspec.json.encode(
            {
                "id": "chatcmpl-0",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": SERVED_NAME,
                "choices": [],
                "usage": {
                    "prompt_tokens": 40,
                    "completion_tokens": tokens,
                    "total_tokens": 40 + tokens,
                },
            }
        )
        + b"\n\n"
    )


def coalesced(interval: int):
    """The floor streaming as a coalescing engine does: the first token alone, then one event
    per `interval` tokens, the rest with the last."""

    async def app_coalesced(scope, receive, send) -> None:
        await app(scope, receive, send, interval)

    return app_coalesced


async def app(scope, receive, send, interval: int = 1) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["type"] != "http":
        return
    if scope["method"] == "GET":
        await _answer(send, _MODELS)
        return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    request = msgspec.json.decode(body)
    if scope["path"] == "/translate":
        await _answer(send, _TRANSLATION)
    elif not request.get("stream"):
        await _answer(send, _COMPLETION)
    else:
        tokens = request.get("max_tokens") or 16
        await send({"type": "http.response.start", "status": 200, "headers": _SSE})
        async for body in chunk_events(tokens, interval):
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "more_body": False, "body": last_event(tokens)})


async def chunk_events(tokens: int, interval: int) -> AsyncIterator[bytes]:
    """The stream's chunks, one per event-loop turn as the engine double streams them: the
    first token alone (as vLLM sends it), then `interval` at a time."""
    sent = 0
    chunks = {1: _CHUNK, interval: _chunk(interval)}
    while sent < tokens:
        size = 1 if sent == 0 else min(interval, tokens - sent)
        await asyncio.sleep(0)
        yield chunks.get(size) or _chunk(size)
        sent += size


def last_event(tokens: int) -> bytes:
    return _usage_event(tokens) + b"data: [DONE]\n\n"


async def _answer(send, body: bytes) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": _JSON})
    await send({"type": "http.response.body", "body": body})

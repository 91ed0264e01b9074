"""Server-sent events as both streaming surfaces write them (`data: <json>`, then `[DONE]`), and
the response that sends them."""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, Iterable
from typing import TYPE_CHECKING, Any

import msgspec
from litestar.response import Stream
from litestar.response.streaming import ASGIStreamingResponse

from translate_server.http.disconnect import CancelOnDisconnect

if TYPE_CHECKING:
    from litestar import Litestar, Request
    from litestar.background_tasks import BackgroundTask, BackgroundTasks
    from litestar.datastructures import Cookie
    from litestar.response.base import ASGIResponse
    from litestar.types import Receive, Send

DONE = b"data: [DONE]\n\n"
MEDIA_TYPE = "text/event-stream"
# No caching, and no buffering in a proxy in front (nginx reads X-Accel-Buffering).
HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}

encode_json = msgspec.json.Encoder().encode


def event(payload: msgspec.Struct) -> bytes:
    return b"data: " + encode_json(payload) + b"\n\n"


class EventStream(Stream):
    """A stream of events, each sent as it is produced, that ends the response with its
    `[DONE]` event and stops (closing `events`, which aborts the engine work behind it) when
    the client hangs up."""

    def __init__(self, events: AsyncGenerator[bytes, None]) -> None:
        super().__init__(events, headers=HEADERS, media_type=MEDIA_TYPE)

    def to_asgi_response(
        self,
        app: Litestar | None,
        request: Request[Any, Any, Any],
        *,
        background: BackgroundTask | BackgroundTasks | None = None,
        cookies: Iterable[Cookie] | None = None,
        encoded_headers: Iterable[tuple[bytes, bytes]] | None = None,
        headers: dict[str, str] | None = None,
        is_head_response: bool = False,
        media_type: Any = None,
        status_code: int | None = None,
        type_encoders: Any = None,
    ) -> ASGIResponse:
        return _EventStreamResponse(
            background=self.background or background,
            content_length=0,
            cookies=self.cookies if cookies is None else itertools.chain(self.cookies, cookies),
            encoded_headers=encoded_headers,
            encoding=self.encoding,
            headers=self.headers if headers is None else {**headers, **self.headers},
            is_head_response=is_head_response,
            iterator=self.iterator,
            media_type=self.media_type,
            status_code=self.status_code or status_code,
        )


class _EventStreamResponse(ASGIStreamingResponse):
    async def send_body(self, send: Send, receive: Receive) -> None:
        events: Any = self.iterator
        try:
            async with CancelOnDisconnect(receive):
                async for chunk in events:
                    # `[DONE]` goes out with the end of the response, in one write.
                    last = chunk is DONE
                    await send({"type": "http.response.body", "body": chunk, "more_body": not last})
                    if last:
                        break
                else:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await events.aclose()

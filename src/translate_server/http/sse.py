"""Server-sent events as the streaming surfaces write them (`data: <json>`, then `[DONE]`), and
the response that sends them.

Services stream typed items (Structs, or small typed values) and raise; this is where they
become bytes: `EventStream` encodes each item as it comes, and a failure after the 200 becomes
the stream's last event, rendered by `http.errors.stream_failure`.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import msgspec
from litestar.response import Stream
from litestar.response.streaming import ASGIStreamingResponse

from translate_server.http.disconnect import CancelOnDisconnect
from translate_server.http.errors import stream_failure

if TYPE_CHECKING:
    from litestar import Litestar, Request
    from litestar.background_tasks import BackgroundTask, BackgroundTasks
    from litestar.datastructures import Cookie
    from litestar.response.base import ASGIResponse
    from litestar.types import Receive, Send

    from translate_server.observability.record import RequestRecord

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

DONE = b"data: [DONE]\n\n"
MEDIA_TYPE = "text/event-stream"
# No caching, and no buffering in a proxy in front (nginx reads X-Accel-Buffering).
HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}

encode_json = msgspec.json.Encoder().encode

# An item as its event's bytes; a failure as the stream's last event.
Encode = Callable[[T], bytes]
Failure = Callable[[Exception], bytes]


def event(payload: msgspec.Struct) -> bytes:
    return b"data: " + encode_json(payload) + b"\n\n"


def named_event(payload: msgspec.Struct) -> bytes:
    """An event that names its type on an `event:` line, as the Responses API's do (the
    payload is a tagged Struct whose `type` field is that name)."""
    name = str(payload.__struct_config__.tag).encode()
    return b"event: " + name + b"\ndata: " + encode_json(payload) + b"\n\n"


def failure_event(record: RequestRecord | None) -> Failure:
    """A failure after the 200 as an `{"error": ...}` event, noted in the request's record."""
    return lambda exc: event(stream_failure(exc, record))


class TextFrames(dict[K, tuple[bytes, bytes]]):
    """Events that differ only in one text: `frames[key]` is the head and tail of key's event
    around its text, built once from the event's Struct holding a marker, and
    `head + encode_json(text) + tail` is the event. That costs a fraction of building and
    encoding the Struct each time, and gives the same bytes."""

    _MARK = "\x00text\x00"

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[K, str], msgspec.Struct]) -> None:
        super().__init__()
        self._build = build  # the event's Struct for a key and a text

    def __missing__(self, key: K) -> tuple[bytes, bytes]:
        head, _, tail = event(self._build(key, self._MARK)).rpartition(encode_json(self._MARK))
        frame = self[key] = (head, tail)
        return frame

    def event(self, key: K, text: str) -> bytes:
        frame = self[key]
        return frame[0] + encode_json(text) + frame[1]


class EventStream(Stream):
    """A stream of `items`, each sent as an event as soon as it is produced, that ends the
    response with `done` and stops (closing `items`, which aborts the engine work behind it)
    when the client hangs up. An exception from `items` becomes the last event, `failure`'s;
    without `failure` it ends the response unfinished."""

    def __init__(
        self,
        items: AsyncGenerator[T, None],
        encode: Encode[T],
        failure: Failure | None = None,
        done: bytes = DONE,
    ) -> None:
        # Litestar keeps `items` as its iterator (typed as bytes); `send_body` encodes them.
        super().__init__(
            cast("AsyncGenerator[bytes, None]", items), headers=HEADERS, media_type=MEDIA_TYPE
        )
        self._items: AsyncGenerator[Any, None] = items
        self._encode: Encode[Any] = encode
        self._failure, self._done = failure, done

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
        response = _EventStreamResponse(
            background=self.background or background,
            content_length=0,
            cookies=self.cookies if cookies is None else itertools.chain(self.cookies, cookies),
            encoded_headers=encoded_headers,
            encoding=self.encoding,
            headers=self.headers if headers is None else {**headers, **self.headers},
            is_head_response=is_head_response,
            iterator=self._items,
            media_type=self.media_type,
            status_code=self.status_code or status_code,
        )
        response.encode, response.failure, response.done = self._encode, self._failure, self._done
        return response


class _EventStreamResponse(ASGIStreamingResponse):
    __slots__ = ("done", "encode", "failure")

    encode: Encode[Any]
    failure: Failure | None
    done: bytes

    async def send_body(self, send: Send, receive: Receive) -> None:
        items: Any = self.iterator  # the async generator EventStream was given
        encode = self.encode
        sending = False  # a failure of `send` itself is not the stream's to report
        try:
            async with CancelOnDisconnect(receive):
                try:
                    async for item in items:
                        body = encode(item)
                        sending = True
                        await send({"type": "http.response.body", "body": body, "more_body": True})
                        sending = False
                except Exception as exc:
                    if sending or self.failure is None:
                        raise
                    # A 200 is already on the wire: the failure becomes the stream's last event.
                    last = self.failure(exc)
                    await send({"type": "http.response.body", "body": last, "more_body": True})
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                else:
                    # The end goes out with the last event, in one write.
                    await send(
                        {"type": "http.response.body", "body": self.done, "more_body": False}
                    )
        finally:
            await items.aclose()

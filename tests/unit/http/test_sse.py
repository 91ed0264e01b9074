"""`sse.EventStream` writes a service's typed items: each encoded as it comes, `done` at the
end, and a failure raised by the items as the last event (a failure to send is not one)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import msgspec
import pytest

from translate_server.http import sse


class Item(msgspec.Struct):
    n: int


class Items:
    """Items 0..count-1, then `error` raised if given; notes whether it was closed."""

    def __init__(self, count: int, error: Exception | None = None) -> None:
        self.count, self.error, self.closed = count, error, False

    async def __call__(self) -> AsyncGenerator[Item, None]:
        try:
            for n in range(self.count):
                yield Item(n)
            if self.error is not None:
                raise self.error
        finally:
            self.closed = True


async def sent_by(stream: sse.EventStream, send=None) -> list[dict]:
    messages: list[dict] = []

    async def record(message: dict) -> None:
        messages.append(message)

    async def receive() -> dict:
        await asyncio.Event().wait()  # a client that stays
        return {}

    response = stream.to_asgi_response(None, None)  # type: ignore[arg-type]
    await response.send_body(send or record, receive)
    return messages


def failure(exc: Exception) -> bytes:
    return b"data: failed " + str(exc).encode() + b"\n\n"


async def test_items_are_encoded_and_the_end_goes_with_done() -> None:
    items = Items(2)
    sent = await sent_by(sse.EventStream(items(), sse.event, failure))
    assert [(m["body"], m["more_body"]) for m in sent] == [
        (b'data: {"n":0}\n\n', True),
        (b'data: {"n":1}\n\n', True),
        (sse.DONE, False),
    ]
    assert items.closed


async def test_a_stream_may_end_without_done() -> None:
    sent = await sent_by(sse.EventStream(Items(1)(), sse.event, done=b""))
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}


async def test_a_raised_failure_is_the_last_event() -> None:
    items = Items(1, ValueError("boom"))
    sent = await sent_by(sse.EventStream(items(), sse.event, failure))
    assert [(m["body"], m["more_body"]) for m in sent] == [
        (b'data: {"n":0}\n\n', True),
        (b"data: failed boom\n\n", True),
        (b"", False),
    ]
    assert items.closed


async def test_without_a_failure_event_the_error_goes_on() -> None:
    items = Items(1, ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        await sent_by(sse.EventStream(items(), sse.event))
    assert items.closed


async def test_a_failure_to_send_is_not_reported_as_the_stream_failing() -> None:
    items, reported = Items(3), []

    def noting(exc: Exception) -> bytes:
        reported.append(exc)
        return b""

    async def broken(message: dict) -> None:
        raise OSError("socket gone")

    with pytest.raises(OSError, match="socket gone"):
        await sent_by(sse.EventStream(items(), sse.event, noting), broken)
    assert reported == []
    assert items.closed

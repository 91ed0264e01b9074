"""Server-sent events as both streaming surfaces write them: `data: <json>` and `[DONE]`."""

from __future__ import annotations

import msgspec

DONE = b"data: [DONE]\n\n"
# The content type is set as a header because Litestar lets the handler's JSON default win
# over the media type given to a Stream.
HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache",
           "x-accel-buffering": "no"}

encode_json = msgspec.json.Encoder().encode


def event(payload: msgspec.Struct) -> bytes:
    return b"data: " + encode_json(payload) + b"\n\n"

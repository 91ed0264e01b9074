"""CORS for the paths browsers call directly (LibreTranslate's web clients, Google's browser
extensions), with the headers LibreTranslate itself sends. Outside the API gate: a preflight
carries no key, and is answered here before the gate would refuse it."""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Message,
    Receive,
    Scope,
    Send,
)

HEADERS = [
    (b"access-control-allow-origin", b"*"),
    # Google's browser clients send their key in a header of its own.
    (b"access-control-allow-headers", b"Authorization, Content-Type, X-Goog-Api-Key"),
    (b"access-control-expose-headers", b"Authorization"),
    (b"access-control-allow-methods", b"GET, POST"),
    (b"access-control-allow-credentials", b"true"),
    (b"access-control-max-age", b"1728000"),
]


class Cors:
    def __init__(self, app: ASGIApp, prefixes: tuple[str, ...]) -> None:
        self.app = app
        self.prefixes = prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or not scope["path"].startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            start: HTTPResponseStartEvent = {
                "type": "http.response.start",
                "status": 204,
                "headers": [*HEADERS, (b"content-length", b"0")],
            }
            await send(start)
            end: HTTPResponseBodyEvent = {
                "type": "http.response.body",
                "body": b"",
                "more_body": False,
            }
            await send(end)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)

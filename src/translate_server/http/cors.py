"""CORS for the paths browsers call directly (LibreTranslate's web clients), with the headers
LibreTranslate itself sends. Outside the API gate: a preflight carries no key, and is answered
here before the gate would refuse it."""

from __future__ import annotations

from litestar.types import ASGIApp, Message, Receive, Scope, Send

HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-headers", b"Authorization, Content-Type"),
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
        if scope["type"] != "http" or not scope["path"].startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            await send(
                {
                    "type": "http.response.start",
                    "status": 204,
                    "headers": [*HEADERS, (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)

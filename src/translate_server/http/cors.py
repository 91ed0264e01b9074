"""CORS: which browser pages on other origins may call the API. Outside the API gate: a
preflight carries no key, and is answered here before the gate would refuse it.

Two policies:
- the compatible APIs whose browser clients call them from any page (LibreTranslate's web
  clients, Google's browser extensions): every answer under their prefixes carries the headers
  LibreTranslate itself sends, whatever `--cors-origins` says;
- every other route: no CORS headers at all unless `--cors-origins` names the page's origin
  (or `*`, any origin), which is off by default.
"""

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

# What LibreTranslate itself sends, byte for byte.
COMPAT_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    # Google's browser clients send their key in a header of its own.
    (b"access-control-allow-headers", b"Authorization, Content-Type, X-Goog-Api-Key"),
    (b"access-control-expose-headers", b"Authorization"),
    (b"access-control-allow-methods", b"GET, POST"),
    (b"access-control-allow-credentials", b"true"),
    (b"access-control-max-age", b"1728000"),
]
# For the origins an operator allows: what this API's clients send and read. No credentials:
# keys travel in the Authorization header, which needs no cookies.
ALLOW_HEADERS = b"Authorization, Content-Type, X-Request-ID, X-Document-Key"
EXPOSE_HEADERS = b"Retry-After, Retry-After-Ms, X-Request-ID, X-Document-Id"
ALLOW_METHODS = b"GET, POST, PUT, PATCH, DELETE"
MAX_AGE = b"600"
ANY = "*"


class Cors:
    def __init__(
        self, app: ASGIApp, compat_prefixes: tuple[str, ...], origins: tuple[str, ...] = ()
    ) -> None:
        """`origins` as `--cors-origins` holds them: lower-case `scheme://host[:port]`, or
        `*` for any."""
        self.app = app
        self.compat_prefixes = compat_prefixes
        self.any_origin = ANY in origins
        self.origins = frozenset(origins) - {ANY}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        if scope["path"].startswith(self.compat_prefixes):
            # LibreTranslate answers any OPTIONS as a preflight.
            await self._answer(scope, receive, send, COMPAT_HEADERS, scope["method"] == "OPTIONS")
            return
        origin = _header(scope, b"origin")
        if origin is None or not self._allows(origin):
            await self.app(scope, receive, send)
            return
        preflight = (
            scope["method"] == "OPTIONS"
            and _header(scope, b"access-control-request-method") is not None
        )
        await self._answer(scope, receive, send, self._headers(origin, preflight), preflight)

    def _allows(self, origin: str) -> bool:
        return self.any_origin or origin.lower() in self.origins

    def _headers(self, origin: str, preflight: bool) -> list[tuple[bytes, bytes]]:
        headers = [
            (b"access-control-allow-origin", b"*" if self.any_origin else origin.encode("latin-1")),
            (b"access-control-expose-headers", EXPOSE_HEADERS),
        ]
        if not self.any_origin:  # the answer depends on the asking page: caches must know
            headers.append((b"vary", b"Origin"))
        if preflight:
            headers += [
                (b"access-control-allow-headers", ALLOW_HEADERS),
                (b"access-control-allow-methods", ALLOW_METHODS),
                (b"access-control-max-age", MAX_AGE),
            ]
        return headers

    async def _answer(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        headers: list[tuple[bytes, bytes]],
        preflight: bool,
    ) -> None:
        if preflight:
            start: HTTPResponseStartEvent = {
                "type": "http.response.start",
                "status": 204,
                "headers": [*headers, (b"content-length", b"0")],
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
                message = {**message, "headers": [*message.get("headers", []), *headers]}
            await send(message)

        await self.app(scope, receive, with_headers)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None

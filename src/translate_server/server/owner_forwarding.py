"""With `--api-processes N`: requests that need the stores go to the process that owns them.

Front-end process 0 (the owner) opens the SQLite stores (translation memories, DeepL's
glossaries and usage, document jobs) and runs the document runner; it also listens on a Unix
socket only the other front ends know. Every other process forwards, unread by its own app,
each request whose route needs those stores, and streams the owner's answer back as it comes.
Forwarded requests are logged and counted once, by the owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from typing import Any

import httpx
import msgspec
import structlog
from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPReceiveMessage,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    HTTPScope,
    Receive,
    Scope,
    Send,
)

from translate_server.errors import UnavailableError
from translate_server.http.errors import ErrorShape, encode_error
from translate_server.http.route_paths import RoutePaths

log = structlog.get_logger(__name__)

# Request headers that belong to one connection, not to the request.
_HOP_HEADERS = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"upgrade"})


@functools.cache
def _probe(fields: tuple[str, ...]) -> Callable[[bytes], Any]:
    """A decoder of those fields alone (the rest of the body is skipped, not built)."""
    probe = msgspec.defstruct("StoreProbe", [(name, object, None) for name in fields])
    return msgspec.json.Decoder(probe).decode


def names_a_store(body: bytes, fields: tuple[str, ...]) -> bool:
    """Whether a JSON body gives one of `fields`, those its route declares to name a store
    (`http.route_paths.STORES`: a translation memory, a stored glossary, kept with the stores).
    An invalid body is the app's to refuse."""
    try:
        probe = _probe(fields)(body)
    except (msgspec.DecodeError, RecursionError):
        return False
    return any(getattr(probe, name) is not None for name in fields)


class OwnerForwarding:
    """The outermost ASGI layer of a front end that owns no store."""

    def __init__(
        self, app: ASGIApp, paths: RoutePaths, owner_socket: str, max_body_bytes: int
    ) -> None:
        self.app = app
        # Which requests need the stores, and the error shape of each compatible API: what
        # the routes declare (`http.route_paths`).
        self.paths = paths
        self.max_body_bytes = max_body_bytes
        self.forwarding = 0  # requests on their way to or from the owner (the drain waits)
        self._client = httpx.AsyncClient(
            transport=httpx.AsyncHTTPTransport(uds=owner_socket),
            base_url="http://owner",
            timeout=httpx.Timeout(None, connect=5.0),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if self.paths.needs_stores(path):
            body, complete = await _read_body(receive, None)
            if complete:
                await self._forward(scope, body, receive, send)
            return  # the client left while sending its body
        fields = self.paths.store_fields_for(path)
        if fields and scope["method"] == "POST":
            body, complete = await _read_body(receive, self.max_body_bytes)
            if complete and names_a_store(body, fields):
                await self._forward(scope, body, receive, send)
                return
            # Too large to look into, or no store named: the app's, body and all.
            receive = _replay(body, complete, receive)
        await self.app(scope, receive, send)

    async def _forward(self, scope: HTTPScope, body: bytes, receive: Receive, send: Send) -> None:
        self.forwarding += 1
        exchange = asyncio.ensure_future(self._exchange(scope, body, send))
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            # A client that leaves stops the owner's work too: closing the forwarded
            # request's connection is, to the owner, the client going away.
            await asyncio.wait((exchange, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not exchange.done():
                exchange.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await exchange
            self.forwarding -= 1

    async def _exchange(self, scope: HTTPScope, body: bytes, send: Send) -> None:
        query = scope.get("query_string", b"")
        target = scope["raw_path"] if scope.get("raw_path") else scope["path"].encode()
        url = target.decode("latin-1") + (("?" + query.decode("latin-1")) if query else "")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP_HEADERS]
        request = self._client.build_request(scope["method"], url, headers=headers, content=body)
        try:
            response = await self._client.send(request, stream=True)
        except httpx.TransportError as exc:
            log.warning("owner_unreachable", error=str(exc))
            await _send_error(scope, send, self.paths.shape_for(scope["path"]))
            return
        try:
            response_headers = [
                (k, v) for k, v in response.headers.raw if k.lower() not in _HOP_HEADERS
            ]
            start: HTTPResponseStartEvent = {
                "type": "http.response.start",
                "status": response.status_code,
                "headers": response_headers,
            }
            await send(start)
            async for chunk in response.aiter_raw():
                await send(_body_event(chunk, more=True))
            await send(_body_event(b"", more=False))
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()


async def _read_body(receive: Receive, limit: int | None) -> tuple[bytes, bool]:
    """The body read so far, and whether that is all of it: reading stops past `limit`
    bytes (and when the client leaves)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True
        if limit is not None and size > limit:
            return b"".join(chunks), False


def _replay(head: bytes, complete: bool, receive: Receive) -> Receive:
    """`receive` for the app: first the part of the body already read, then the rest."""
    pending: list[HTTPReceiveMessage] = [
        {"type": "http.request", "body": head, "more_body": not complete}
    ]

    async def replayed() -> Any:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _body_event(chunk: bytes, *, more: bool) -> HTTPResponseBodyEvent:
    return {"type": "http.response.body", "body": chunk, "more_body": more}


async def _send_error(scope: HTTPScope, send: Send, shape: ErrorShape | None) -> None:
    refusal = UnavailableError(
        "The process that keeps this server's stores is not answering; retry.",
        headers={"Retry-After": "1"},
    )
    status, headers, payload = encode_error(refusal, shape)
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": status,
        "headers": headers,
    }
    await send(start)
    await send(_body_event(payload, more=False))

"""The checks every API request passes before it is routed or its body is read: its API key
and a JSON body.

A plain ASGI middleware rather than Litestar guards: a guard call copies the route handler,
and a synchronous guard runs in a worker thread, together several hundred microseconds per
request on the hot path.
"""

from __future__ import annotations

import hashlib
import hmac

from litestar.types import ASGIApp, Receive, Scope, Send

from translate_server.errors import (
    ApiError,
    AuthenticationError,
    ErrorShape,
    InvalidRequestError,
    UnsupportedMediaTypeError,
    encode_error,
    error_body,
    note_error,
)


class ApiKeys:
    """`Authorization: Bearer <key>`, compared in constant time."""

    def __init__(self, keys: tuple[str, ...]) -> None:
        # Digests of equal length: the comparison time says nothing about a key's length.
        self._digests = tuple(_digest(key) for key in keys)

    def accepts(self, header: str) -> bool:
        scheme, _, token = header.partition(" ")
        # DeepL's clients send their key under a scheme of their own.
        if scheme.lower() not in ("bearer", "deepl-auth-key") or not token.strip():
            return False
        presented = _digest(token.strip())
        # Check every key, whatever matches, so timing does not reveal which one did.
        return sum(hmac.compare_digest(presented, d) for d in self._digests) > 0


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


class ApiGate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        open_paths: frozenset[str],
        json_bodies: frozenset[str],
        keys: ApiKeys | None,
        open_prefixes: tuple[str, ...] = (),
        error_shapes: tuple[tuple[str, ErrorShape], ...] = (),
    ) -> None:
        """Every path but `open_paths` and those under `open_prefixes` needs the key (when
        keys are set); POST bodies under the `json_bodies` paths must be JSON. Refusals under
        a prefix of `error_shapes` take that shape (compatible APIs' clients expect their
        own), others the OpenAI envelope."""
        self.app = app
        self.open_paths = open_paths
        self.open_prefixes = open_prefixes
        self.json_bodies = json_bodies
        self.keys = keys
        self.error_shapes = error_shapes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self._refusal(scope)
            if refusal is not None:
                note_error(scope, error_body(refusal))
                status, headers, body = encode_error(refusal, self._shape(scope["path"]))
                # The body was never read: the connection cannot carry another request.
                headers.append((b"connection", b"close"))
                await send({"type": "http.response.start", "status": status,
                            "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)

    def _shape(self, path: str) -> ErrorShape | None:
        for prefix, shape in self.error_shapes:
            if path.startswith(prefix):
                return shape
        return None

    def _refusal(self, scope: Scope) -> ApiError | None:
        path: str = scope["path"]
        headers = dict(scope["headers"])
        if (self.keys is not None and path not in self.open_paths
                and not path.startswith(self.open_prefixes)):
            authorization = headers.get(b"authorization", b"").decode("latin-1")
            if not self.keys.accepts(authorization):
                return AuthenticationError(
                    "A valid API key is required: send `Authorization: Bearer <key>`.",
                    headers={"WWW-Authenticate": "Bearer"},
                )
        if scope["method"] == "POST" and path in self.json_bodies:
            content_type = headers.get(b"content-type", b"").decode("latin-1")
            media_type = content_type.split(";", 1)[0].strip().lower()
            if media_type != "application/json" and not media_type.endswith("+json"):
                return UnsupportedMediaTypeError(
                    f"Send the body as JSON with `Content-Type: application/json`, not "
                    f"`{media_type or 'nothing'}`."
                )
            if headers.get(b"content-length") == b"0":
                return InvalidRequestError("The request body is empty; send a JSON object.")
        return None

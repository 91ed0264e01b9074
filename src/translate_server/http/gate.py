"""The checks every API request passes before it is routed or its body is read: its API key
and a JSON body. The key resolves to a `Caller` (`accounts.directory`), put in the scope's
state under `CALLER` for everything after the gate (scopes, limits, owners, usage, the log).

A plain ASGI middleware rather than Litestar guards: a guard call copies the route handler,
and a synchronous guard runs in a worker thread, together several hundred microseconds per
request on the hot path.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    HTTPScope,
    Receive,
    Scope,
    Send,
)
from litestar.utils import normalize_path

from translate_server.accounts.caller import CALLER
from translate_server.accounts.directory import KeyDirectory
from translate_server.errors import (
    ApiError,
    AuthenticationError,
    InvalidRequestError,
    UnsupportedMediaTypeError,
)
from translate_server.http.errors import ErrorShape, answer_for, encode_error, note_error

# Where a request without an `Authorization` header may carry its key in the body or query
# (DeepL's legacy `auth_key`, LibreTranslate's `api_key`), the gate leaves the check to the
# route, putting the key directory in the scope's state under this name.
KEY_IN_BODY = "api_key_in_body"
PRESENTED_KEY = "api_key_presented"  # the key a route found in the body and accepted


class ApiGate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        open_paths: frozenset[str],
        json_bodies: frozenset[str],
        keys: KeyDirectory,
        open_prefixes: tuple[str, ...] = (),
        error_shapes: tuple[tuple[str, ErrorShape], ...] = (),
        body_key_prefixes: tuple[str, ...] = (),
    ) -> None:
        """Every path but `open_paths` and those under `open_prefixes` needs a key (where
        `keys` says keys are required; elsewhere the caller is the keyless one); POST bodies
        under the `json_bodies` paths must be JSON. Refusals under a prefix of `error_shapes`
        take that shape (compatible APIs' clients expect their own; the first prefix that
        matches, so the longest come first), others the OpenAI envelope."""
        self.app = app
        self.open_paths = open_paths
        self.open_prefixes = open_prefixes
        self.json_bodies = json_bodies
        self.keys = keys
        self.error_shapes = error_shapes
        self.body_key_prefixes = body_key_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            refusal = self._refusal(scope)
            if refusal is not None:
                note_error(scope, answer_for(refusal).error)
                status, headers, body = encode_error(refusal, self._shape(scope["path"]))
                # The body was never read: the connection cannot carry another request.
                headers.append((b"connection", b"close"))
                start: HTTPResponseStartEvent = {
                    "type": "http.response.start",
                    "status": status,
                    "headers": headers,
                }
                await send(start)
                end: HTTPResponseBodyEvent = {
                    "type": "http.response.body",
                    "body": body,
                    "more_body": False,
                }
                await send(end)
                return
        await self.app(scope, receive, send)

    def _shape(self, path: str) -> ErrorShape | None:
        for prefix, shape in self.error_shapes:
            if path.startswith(prefix):
                return shape
        return None

    def _refusal(self, scope: HTTPScope) -> ApiError | None:
        # As the router will see it: a trailing or doubled slash reaches the same route.
        path = normalize_path(scope["path"])
        headers = dict(scope["headers"])
        if path not in self.open_paths and not path.startswith(self.open_prefixes):
            authorization = headers.get(b"authorization", b"")
            caller = self.keys.caller_for_header(authorization) if authorization else None
            if caller is None:
                if self.keys.required:
                    if not authorization and path.startswith(self.body_key_prefixes):
                        scope.setdefault("state", {})[KEY_IN_BODY] = self.keys
                        return None
                    return AuthenticationError(
                        "A valid API key is required: send `Authorization: Bearer <key>`.",
                        headers={"WWW-Authenticate": "Bearer"},
                    )
                caller = self.keys.keyless
            scope.setdefault("state", {})[CALLER] = caller
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
